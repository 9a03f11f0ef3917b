/** One row of {@link ERROR_TABLE}: the HTTP status of an error code and the message sent when no more specific one is given. */
export interface ErrorSpec {
  readonly status: number;
  /** Sentence case, no trailing period. For a 5xx it is the only message a client ever sees (D16). */
  readonly message: string;
}

/** The rows of {@link ERROR_TABLE}, one line each: `code: [status, default message]`. */
const _ROWS = {
  missing_api_key: [401, 'API key missing: send the header "Authorization: Bearer <API_KEY>"'],
  unknown_api_key: [401, 'API key unknown'],
  revoked_api_key: [401, 'API key revoked'],
  expired_api_key: [401, 'API key expired'],
  plan_without_api_access: [403, "The account's plan does not include API access; API access is part of the Business plan"],
  rate_limited: [429, 'Rate limit reached: retry later'],
  invalid_parameter: [400, 'A query parameter is invalid'],
  device_not_found: [404, 'No such device on this account'],
  not_found: [404, 'No such endpoint'],
  method_not_allowed: [405, 'Method not allowed'],
  service_unavailable: [503, 'The service is temporarily unavailable: retry shortly'],
  internal_error: [500, 'Internal error: it has been logged'],
  // P22 (docs/decisions.md): two Authorization headers, or two credentials in one.
  multiple_credentials: [401, 'Authorization is given more than once: send one header "Authorization: Bearer …"'],
  // The ingestion API (docs/ingestion.md, D24).
  missing_ingest_token: [401, 'Ingest token missing: send the header "Authorization: Bearer <INGEST_TOKEN>"'],
  unknown_ingest_token: [401, 'Ingest token unknown'],
  revoked_ingest_token: [401, 'Ingest token revoked'],
  expired_ingest_token: [401, 'Ingest token expired'],
  invalid_body: [400, 'The request body is invalid'],
  payload_too_large: [413, 'The request body is too large'],
  unknown_device: [422, 'No such active device on this account'],
  conflict: [409, 'The data overlaps data already stored: nothing was written'],
  // D43: a point older than the telemetry retention horizon.
  beyond_retention: [409, 'A point is older than the telemetry retention horizon: nothing was written'],
  // D29: requests refused below the router, by Node's HTTP parser or the server adapter.
  bad_request: [400, 'The request is malformed'],
  request_timeout: [408, 'The request took too long to arrive'],
  expectation_failed: [417, 'The Expect header is not supported: only "100-continue" is'],
  headers_too_large: [431, 'The request headers are too large'],
  // D52: a field of a write route's body (or a CLI option) that cannot be used; the body names it.
  invalid_field: [400, 'A field of the request body is invalid'],
  // D52: a write route's body that is not JSON by its Content-Type.
  unsupported_media_type: [415, 'The request body must be JSON: send "Content-Type: application/json"'],
  // D54: an If-Match that names none of the resource's tags.
  precondition_failed: [412, 'The resource changed since it was read'],
  // D51: a key whose scope does not allow the route; the body names the scope needed.
  insufficient_scope: [403, 'The API key does not have the scope this route needs'],
  // D53: an Idempotency-Key header that is not 1–255 visible ASCII characters; the body names the header.
  invalid_header: [400, 'A request header is invalid'],
  // D53: a key sent again while its first request still runs.
  idempotency_key_in_use: [409, 'A request with this Idempotency-Key is still running: retry shortly'],
  // D53: a key sent again with another method, path or body.
  idempotency_key_reused: [422, 'This Idempotency-Key was used for another request: use a new key'],
  // D62, P116: a request that accepts CSV and not JSON, on a route that is not a list.
  not_acceptable: [406, 'This route answers JSON only: accept "application/json"; CSV ("text/csv") is served by the list routes'],
} as const satisfies Readonly<Record<string, readonly [status: number, message: string]>>;

/**
 * Every error code of Fleet Hours with its HTTP status and default message: the one table (D16,
 * and the ingestion API's codes). Every layer refuses by code — `new FleetHoursError('device_not_found')`
 * — and the front ends (the HTTP API, the CLI) read status and message from here. The order is
 * stable: the read API's codes of D16 first, then the project's own, then ingestion's, then those
 * of requests refused below the router (D29).
 */
export const ERROR_TABLE = Object.fromEntries(Object.entries(_ROWS).map(([code, [status, message]]) => [code, { status, message }])) as {
  readonly [Code in keyof typeof _ROWS]: ErrorSpec;
};

/** An error code (D16): a key of {@link ERROR_TABLE}. */
export type ErrorCode = keyof typeof ERROR_TABLE;

/** Every error code, in the order of {@link ERROR_TABLE}. */
export const ERROR_CODES: readonly ErrorCode[] = Object.freeze(Object.keys(ERROR_TABLE) as ErrorCode[]);

/** The JSON body of every error response (D16). */
export interface ErrorBody {
  readonly error: {
    readonly status: number;
    readonly code: ErrorCode;
    readonly message: string;
    /** On 403 `insufficient_scope`: the scope the route needs (D51). */
    readonly scope?: string;
    /** On 400 `invalid_field`: the field of the body (D52). */
    readonly field?: string;
    /** On 400 `invalid_header`: the header (D53). */
    readonly header?: string;
  };
}

/**
 * Whether a value is an error code of {@link ERROR_TABLE}.
 *
 * @param value Anything, e.g. the `code` property of a caught error.
 * @returns `true` for a code of the table.
 * @example
 * ```ts
 * import { isErrorCode } from '@fleet-hours/core';
 * isErrorCode('device_not_found'); // true
 * isErrorCode('ECONNREFUSED'); // false
 * ```
 */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_TABLE, value);
}
