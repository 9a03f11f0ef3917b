import { CALENDAR_ETAG_DESCRIPTION, CALENDAR_PARAMETERS, CALENDAR_SCHEMAS } from './openapi-calendars.js';
import { AEMP_SOURCE_ETAG_DESCRIPTION, AEMP_SOURCE_PARAMETERS, AEMP_SOURCE_SCHEMAS } from './openapi-aemp-sources.js';
import { UTILIZATION_PARAMETERS, UTILIZATION_SCHEMAS } from './openapi-utilization.js';
import {
  CSV_LISTS,
  DEVICE_TAG_MAX,
  DEVICE_TAGS_MAX,
  ERROR_CODES,
  ERROR_TABLE,
  resolveRateLimits,
  SERVICE_STATUSES,
  type ErrorCode,
  type RateLimits,
} from '@fleet-hours/core';
import { API_V1, CREDENTIALS, type CredentialKind, type FleetPaging, type ReadEndpointName } from '@fleet-hours/core/adapter';
import { ALLOWED_METHODS, DOCS_PATH, OPENAPI_PATH } from '../routes/api-routes.js';
import { API_ENDPOINTS, type ApiEndpoint } from '../routes/read-endpoints.js';
import { MAX_DEVICE_ID } from '../routes/parse-device-id.js';
import { aempContent, AEMP_PARAMETERS, AEMP_SCHEMAS } from './openapi-aemp.js';
import { ingestPaths, ingestSchemas, INGEST_ALLOW_VALUES, INGEST_SECURITY_SCHEME } from './openapi-ingest.js';
import { answerContent, notAcceptable } from './openapi-refs.js';
import {
  MAINTENANCE_PARAMETERS,
  MANAGE_ALLOW_VALUES,
  MANAGE_SCHEMAS,
  managePaths,
  WEBHOOK_PARAMETERS,
  WEBHOOK_SCHEMAS,
} from './openapi-manage.js';

/** The OpenAPI 3.1 document of the API, as plain JSON data. */
export interface OpenApiDocument {
  readonly openapi: '3.1.0';
  readonly info: {
    readonly title: string;
    readonly version: string;
    readonly description: string;
    readonly license: { readonly name: string; readonly identifier: string };
  };
  readonly servers: readonly [{ readonly url: string; readonly description: string }];
  readonly paths: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  readonly components: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  readonly [field: string]: unknown;
}

type Json = Record<string, unknown>;

const ref = (section: string, name: string) => ({ $ref: `#/components/${section}/${name}` });

const TIMESTAMP_PATTERN = '^([+-]\\d{6}|\\d{4})-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}[+-]\\d{2}:\\d{2}(:\\d{2})?$';
const timestamp = (description: string, example: string): Json => ({
  type: 'string',
  pattern: TIMESTAMP_PATTERN,
  description: `${description} ISO 8601 on the device's wall clock with its numeric offset and whole seconds; no fractional seconds, no \`Z\`.`,
  examples: [example],
});
/** A response header component: always sent by the responses that name it. */
const header = (description: string, schema: Json): Json => ({ description, required: true, schema });
/** An optional query parameter holding a local date (D4). */
const dateParameter = (name: string, description: string): Json => ({
  name,
  in: 'query',
  required: false,
  description,
  schema: { type: 'string', format: 'date' },
});
const seconds = (description: string): Json => ({ type: 'integer', minimum: 0, description });
/** The `status` filter of the fleet service endpoint: service statuses separated by commas. */
const STATUS_LIST_PATTERN = `^(${SERVICE_STATUSES.join('|')})(,(${SERVICE_STATUSES.join('|')}))*$`;
const durations: Json = {
  engine_seconds: seconds('Engine run time in whole seconds; always moving_seconds + idle_seconds, not a third measurement.'),
  moving_seconds: seconds('Seconds with the engine on and the vehicle moving.'),
  idle_seconds: seconds('Seconds with the engine on and the vehicle standing.'),
};

/** The fields a daily entry has from the vehicle's work calendar and engine runs (D59). */
const DAY_FIELDS: Json = {
  day_seconds: seconds(
    "The length of that local day in seconds: 86400, or 82800 / 90000 on a clock change, or the zone's odd lengths (0 for a date the zone skipped).",
  ),
  scheduled_seconds: seconds(
    "Seconds of that day inside the windows of the vehicle's work calendar (its own, else the account's), up to now; 0 without a calendar.",
  ),
  engine_in_schedule_seconds: seconds('Engine seconds inside those windows.'),
  engine_outside_schedule_seconds: seconds('Engine seconds outside them; with engine_in_schedule_seconds, always engine_seconds.'),
  first_engine_on: {
    oneOf: [
      timestamp(
        'The first instant of the day with the engine on; the start of the day for a run already on at midnight.',
        '2026-03-07T06:58:10-05:00',
      ),
      { type: 'null', description: 'The engine was not on that day.' },
    ],
  },
  last_engine_off: {
    oneOf: [
      timestamp(
        'The last instant the engine turned off that day; for a run still on at the end of the day, the first instant of the next day.',
        '2026-03-07T17:12:40-05:00',
      ),
      { type: 'null', description: 'The engine was not on that day, or it is still running now.' },
    ],
  },
};

/** A value that is null when the schedule has no calendar interval (`interval_days`). */
const calendar = (schema: Json, description: string): Json => ({
  oneOf: [schema, { type: 'null', description: 'The schedule has no calendar interval.' }],
  description,
});

/** One service schedule and where it stands at `as_of`: every property is always there. */
const SERVICE_SCHEDULE_SCHEMA: Json = _everyPropertyRequired({
  id: { type: 'integer', minimum: 1, description: 'Identifies the schedule.' },
  name: { type: 'string', description: 'What is serviced, e.g. `Engine oil`.' },
  interval_seconds: { type: 'integer', minimum: 1, description: 'Engine time between services, in seconds of hour meter.' },
  interval_days: calendar(
    { type: 'integer', minimum: 1 },
    'Calendar days between services, whichever of the two intervals runs out first.',
  ),
  due_soon_seconds: seconds(
    'The margin before `due_hour_meter_seconds` within which the schedule is `due_soon`: as set, or a tenth of `interval_seconds`.',
  ),
  due_soon_days: calendar(
    { type: 'integer', minimum: 0 },
    'The margin in days before `due_date` within which the schedule is `due_soon`: as set, or a tenth of `interval_days`, at least 1.',
  ),
  last_done_at: timestamp('The last service (at creation: as given, or when the schedule was created).', '2026-09-01T08:00:00-04:00'),
  last_done_hour_meter_seconds: seconds(
    'The hour meter at the last service: as the operator recorded it, or else the hour meter at `last_done_at`, computed at every read.',
  ),
  due_hour_meter_seconds: seconds('`last_done_hour_meter_seconds` + `interval_seconds`.'),
  due_date: calendar(
    { type: 'string', format: 'date' },
    "The local date of `last_done_at` plus `interval_days`, YYYY-MM-DD in the vehicle's zone.",
  ),
  remaining_seconds: {
    type: 'integer',
    description: '`due_hour_meter_seconds` − `hour_meter_seconds`: negative once the engine time has run past it.',
  },
  remaining_days: calendar({ type: 'integer' }, "`due_date` − today's local date, in days: negative once it has passed."),
  status: ref('schemas', 'ServiceStatus'),
  version: {
    type: 'string',
    pattern: '^s-[0-9a-f]{16}$',
    description:
      'The version of the schedule: the `ETag` its writes answer, without the quotes. It changes when a write changes the schedule (not with engine time). Send it quoted as `If-Match` to change it only as read.',
  },
});

/** An object schema whose properties are all required, in their order. */
function _everyPropertyRequired(properties: Record<string, Json>): Json {
  return { type: 'object', required: Object.keys(properties), properties };
}

/** The body of one device's read (its daily hours, meter, service): `device_id` and `timezone`, then its own properties, all required. */
function _deviceBody(properties: Record<string, Json>): Json {
  return _everyPropertyRequired({
    device_id: { type: 'integer', minimum: 1 },
    timezone: { type: 'string', description: 'IANA zone of the vehicle.' },
    ...properties,
  });
}

/** The body of `/devices/{id}/service` for one vehicle, as the examples show it. */
const SERVICE_EXAMPLE: Json = {
  device_id: 7,
  timezone: 'America/New_York',
  as_of: '2026-11-25T10:00:00-05:00',
  hour_meter_seconds: 4_512_000,
  data: [
    {
      id: 3,
      name: 'Engine oil',
      interval_seconds: 900_000,
      interval_days: 180,
      due_soon_seconds: 90_000,
      due_soon_days: 18,
      last_done_at: '2026-09-01T08:00:00-04:00',
      last_done_hour_meter_seconds: 3_690_000,
      due_hour_meter_seconds: 4_590_000,
      due_date: '2027-02-28',
      remaining_seconds: 78_000,
      remaining_days: 95,
      status: 'due_soon',
      version: 's-3d0f6c2a91b84e57',
    },
    {
      id: 4,
      name: 'Hydraulic filter',
      interval_seconds: 3_600_000,
      interval_days: null,
      due_soon_seconds: 360_000,
      due_soon_days: null,
      last_done_at: '2026-01-12T07:30:00-05:00',
      last_done_hour_meter_seconds: 900_000,
      due_hour_meter_seconds: 4_500_000,
      due_date: null,
      remaining_seconds: -12_000,
      remaining_days: null,
      status: 'overdue',
      version: 's-8a1c47e5f02b9d36',
    },
  ],
};

const RATE_LIMIT_HEADERS: Json = {
  'X-RateLimit-Limit': ref('headers', 'X-RateLimit-Limit'),
  'X-RateLimit-Remaining': ref('headers', 'X-RateLimit-Remaining'),
  'X-Request-Id': ref('headers', 'X-Request-Id'),
};

/** An error body whose `status` and `code` are narrowed to what one response can carry: codes of one status in the error table. */
function errorSchema(codes: readonly ErrorCode[], base: 'Error' | 'IngestError' = 'Error'): Json {
  const status = ERROR_TABLE[codes[0]!].status;
  if (codes.some((code) => ERROR_TABLE[code].status !== status))
    throw new Error(`Error codes of different statuses in one response: ${codes.join(', ')}`);
  return {
    allOf: [
      ref('schemas', base),
      {
        type: 'object',
        properties: { error: { type: 'object', properties: { status: { const: status }, code: { enum: [...codes] } } } },
      },
    ],
  };
}

/**
 * The rate-limit headers of a response that is counted on some paths and not on others: the 405
 * of a data path is counted (D11, P12), the 405 of the reference paths is not (P14).
 */
const SOMETIMES_RATE_LIMITED_HEADERS: Json = {
  'X-RateLimit-Limit': {
    description: 'As on every counted response; absent on the reference paths, which are not counted.',
    required: false,
    schema: { type: 'integer', minimum: 1 },
  },
  'X-RateLimit-Remaining': {
    description: 'As on every counted response; absent on the reference paths, which are not counted.',
    required: false,
    schema: { type: 'integer', minimum: 0 },
  },
  'X-Request-Id': ref('headers', 'X-Request-Id'),
};

/** An error response of the document: its description, its codes (of one status) and its headers besides the rate-limit ones. */
interface ErrorResponse {
  readonly description: string;
  readonly codes: readonly ErrorCode[];
  readonly headers?: Json;
  /** Whether the rate-limit headers are on every such response (the default) or only on counted paths. */
  readonly rateLimitHeaders?: 'always' | 'on counted paths';
  /** The error schema it narrows: the read API's `Error` (default), or `IngestError` for refusals only ingestion answers. */
  readonly schema?: 'Error' | 'IngestError';
}

function errorResponse(response: ErrorResponse): Json {
  const rateLimitHeaders = response.rateLimitHeaders === 'on counted paths' ? SOMETIMES_RATE_LIMITED_HEADERS : RATE_LIMIT_HEADERS;
  return {
    description: response.description,
    headers: { ...rateLimitHeaders, ...response.headers },
    content: { 'application/json': { schema: errorSchema(response.codes, response.schema) } },
  };
}

/**
 * The 401 of a kind of credential (D10, D24): its missing, unknown, revoked and expired codes from
 * core's table of credentials, and more than one credential; each names the scheme to use.
 */
function _unauthorized(kind: CredentialKind, response: Pick<ErrorResponse, 'description' | 'schema'>): ErrorResponse {
  return {
    ...response,
    codes: [...Object.values(CREDENTIALS[kind].codes), 'multiple_credentials'],
    headers: { 'WWW-Authenticate': ref('headers', 'WWW-Authenticate') },
  };
}

/**
 * Every error the read API answers, by response: each with its codes from the error table (D16).
 * The `Error` schema lists exactly these codes.
 */
const ERROR_RESPONSES = {
  BadRequest: {
    description:
      'A query parameter is malformed, an impossible date, repeated, or `from` is after `to`; on the fleet endpoints also a `limit` out of range or a malformed or foreign `cursor`, and on /api/v1/service a `status` other than `ok`, `due_soon` and `overdue`. The message names the parameter.',
    codes: ['invalid_parameter'],
  },
  Unauthorized: _unauthorized('api_key', {
    description:
      'The API key is missing, unknown, revoked or expired; the code says which. A key sent without `Bearer ` is `missing_api_key`, with a message showing the header to send. More than one credential (e.g. two Authorization headers) is `multiple_credentials`; an ingest token is `unknown_api_key`, with a message asking for an API key. Counted against the budget of the client address; a revoked or expired key gets its 401 even when that budget is spent.',
  }),
  Forbidden: { description: "The account's plan does not include API access.", codes: ['plan_without_api_access'] },
  DeviceNotFound: {
    description:
      'No such device on this account — also a device of another account, and an id that is not a positive integer or is empty: the same body, byte for byte.',
    codes: ['device_not_found'],
  },
  // Not the answer of an operation: the document points at it from `x-not-found` (see OTHER_METHODS).
  NotFound: {
    description: 'No such endpoint: any other path, under /api/v1 once the key is accepted, and outside it when the app is served alone.',
    codes: ['not_found'],
  },
  // Not the answer of an operation: each path points at it from `x-method-not-allowed` (see OTHER_METHODS).
  MethodNotAllowed: {
    description:
      'Any method but GET and HEAD, on every path of the read API and the reference; on the ingestion paths any method but the ones `Allow` names. On the data and ingestion paths the credential is checked and the request counted first, so it can also be refused with 401, 403 or 429; the reference paths need no key and are not counted.',
    codes: ['method_not_allowed'],
    headers: { Allow: ref('headers', 'Allow') },
    rateLimitHeaders: 'on counted paths',
  },
  // D62, P116: a route that is not a list, asked for CSV only.
  NotAcceptable: {
    description:
      'The request accepts CSV (`text/csv`) and not JSON, and this route is not a list: it answers JSON only. Send `Accept: application/json`, or no `Accept`. The lists answer CSV.',
    codes: ['not_acceptable'],
  },
  TooManyRequests: {
    description:
      'Rate limit reached for this key and endpoint, or for requests without a valid key from this address; wait `Retry-After` seconds. A refused request does not use up budget.',
    codes: ['rate_limited'],
    headers: { 'Retry-After': ref('headers', 'Retry-After'), 'X-RateLimit-Reset': ref('headers', 'X-RateLimit-Reset') },
  },
  // Refusals of the write routes (D51, D52).
  InvalidWrite: {
    description:
      'The body is not JSON or not an object, or a change gives no field (`invalid_body`); or a field is unknown, missing, of the wrong type or out of range (`invalid_field`, naming it in `field`). Nothing was changed.',
    codes: ['invalid_body', 'invalid_field'],
  },
  ForbiddenWrite: {
    description:
      'The account\'s plan does not include API access (`plan_without_api_access`), or the key\'s scope is `read` (`insufficient_scope`, with `"scope": "manage"`, the scope needed).',
    codes: ['plan_without_api_access', 'insufficient_scope'],
  },
  DeviceConflict: {
    description: 'The IMEI already names an active device of the account (`conflict`). Nothing was changed.',
    codes: ['conflict'],
  },
  ScheduleConflict: {
    description: 'The device already has a service schedule of that name (`conflict`). Nothing was changed.',
    codes: ['conflict'],
  },
  PreconditionFailed: {
    description:
      "`If-Match` names none of the resource's tags (the device's, the schedule's or the reading's): it changed since it was read (also by a change sent at the same time). Nothing was changed; read it again.",
    codes: ['precondition_failed'],
  },
  // Webhook endpoints and ingest tokens (P80): a resource of another account is this 404 too.
  ResourceNotFound: {
    description: 'No such resource on this account — also one of another account, and an id that is not one: the same body.',
    codes: ['not_found'],
  },
  WriteTooLarge: { description: 'The body is over 64 KiB; it is not read further.', codes: ['payload_too_large'] },
  // Refusals of the POST write routes, which take an Idempotency-Key (D53).
  InvalidIdempotentWrite: {
    description:
      'The body is not JSON or not an object (`invalid_body`); a field is unknown, missing, of the wrong type or out of range (`invalid_field`, naming it in `field`); or the `Idempotency-Key` is not 1–255 visible ASCII characters (`invalid_header`, naming it in `header`). Nothing was changed.',
    codes: ['invalid_body', 'invalid_field', 'invalid_header'],
  },
  WriteConflict: {
    description:
      'The request conflicts with what is stored (`conflict`, as the operation says), or a request with the same `Idempotency-Key` and the same body is still running (`idempotency_key_in_use`): retry shortly to get its answer. Nothing was changed.',
    codes: ['conflict', 'idempotency_key_in_use'],
  },
  IdempotencyKeyReused: {
    description:
      'The `Idempotency-Key` was sent in the last 24 hours with another method, path or body (`idempotency_key_reused`): use a new key for a new request. Nothing was changed.',
    codes: ['idempotency_key_reused'],
  },
  UnsupportedMediaType: { description: 'The body is not sent as `Content-Type: application/json`.', codes: ['unsupported_media_type'] },
  InternalError: {
    description: 'An unexpected failure; nothing internal is disclosed. The message quotes the request id.',
    codes: ['internal_error'],
  },
  // Refusals of telemetry ingestion only (docs/ingestion.md): their codes are `IngestError`'s, not the read API's.
  IngestUnauthorized: _unauthorized('ingest_token', {
    description:
      'The ingest token is missing, unknown, revoked or expired; the code says which. An API key is `unknown_ingest_token`, with a message asking for an ingest token; more than one credential is `multiple_credentials`. Counted against the budget of the client address.',
    schema: 'IngestError',
  }),
  InvalidBody: {
    description:
      'The body is malformed, or a point has a missing or invalid field or lies more than 300 s in the future. The message names the line (NDJSON, from 1) or index (JSON array, from 0) and the field, e.g. `line 17: speed_kmh must be a number ≥ 0, got -3`. Nothing was stored.',
    codes: ['invalid_body'],
    schema: 'IngestError',
  },
  RequestTimeout: {
    description: 'The body did not arrive in time (the client stopped sending); the connection is closed. Nothing was stored.',
    codes: ['request_timeout'],
    schema: 'IngestError',
  },
  Conflict: {
    description:
      'A point would overlap segments imported for the device (`conflict`); the message names the device and the first conflicting instant, e.g. `Device 3: the telemetry would overlap imported segments at "2026-11-23T15:15:42Z": nothing was written`. Or a point is older than the server\'s telemetry retention horizon (`beyond_retention`); the message names the point and the horizon, e.g. `line 2: time 2025-01-01T00:00:00Z is older than the retention horizon 2026-08-28T10:00:00Z (telemetry is kept 90 days): nothing was written`. Nothing was stored.',
    codes: ['conflict', 'beyond_retention'],
    schema: 'IngestError',
  },
  PayloadTooLarge: {
    description:
      'More points or bytes than a request may carry (10,000 points and 5 MiB by default); the body is not read further. Nothing was stored.',
    codes: ['payload_too_large'],
    schema: 'IngestError',
  },
  UnknownDevice: {
    description:
      "A point names a device that is not an active device of the token's account — the same answer for a missing device and another account's; the message names the line or index. Nothing was stored.",
    codes: ['unknown_device'],
    schema: 'IngestError',
  },
  ServiceUnavailable: {
    description: 'The database cannot be reached; retry shortly. The service recovers by itself.',
    codes: ['service_unavailable'],
  },
} as const satisfies Readonly<Record<string, ErrorResponse>>;

/** The codes of the read API's responses of {@link ERROR_RESPONSES}, in the order of the error table. */
const DOCUMENTED_CODES: readonly ErrorCode[] = ERROR_CODES.filter((code) =>
  Object.values(ERROR_RESPONSES).some(
    (response: ErrorResponse) => (response.schema ?? 'Error') === 'Error' && response.codes.includes(code),
  ),
);

/**
 * The codes ingestion answers (`docs/ingestion.md`): its own responses' and the shared refusals of
 * every counted route (429, 500, 503), and those of a method or path it does not serve.
 */
const INGEST_CODES: readonly ErrorCode[] = ERROR_CODES.filter(
  (code) =>
    ['rate_limited', 'not_found', 'method_not_allowed', 'internal_error', 'service_unavailable'].includes(code) ||
    Object.values(ERROR_RESPONSES).some((response: ErrorResponse) => response.schema === 'IngestError' && response.codes.includes(code)),
);

/** Responses every data operation can give besides its own (D11, D14, D16, D18). */
const COMMON_REFUSALS: Json = {
  '401': ref('responses', 'Unauthorized'),
  '403': ref('responses', 'Forbidden'),
  '429': ref('responses', 'TooManyRequests'),
  '500': ref('responses', 'InternalError'),
  '503': ref('responses', 'ServiceUnavailable'),
};

/**
 * The fields every path item carries for the methods it does not serve: a 405 is no operation of
 * the path (a generated client must not offer `POST /api/v1/devices`), so it is described once, as
 * the reusable response `MethodNotAllowed`, which the extension `x-method-not-allowed` points at
 * (D17). Likewise `x-not-found` at the top of the document points at `NotFound`, the answer of a
 * path that is not served (P12, D31).
 */
const OTHER_METHODS: Json = {
  description: 'Only GET and HEAD are served: other methods answer 405 with an Allow header.',
  'x-method-not-allowed': ref('responses', 'MethodNotAllowed'),
};

/** {@link OTHER_METHODS} of a path with write routes (D52): the methods not served answer 405, `Allow` naming those that are. */
const WRITE_METHODS: Json = {
  description: 'Only the operations below are served: other methods answer 405 with an Allow header naming them.',
  'x-method-not-allowed': ref('responses', 'MethodNotAllowed'),
};

/** The schema of a page of a fleet endpoint (D32): `data`, elements of the single-device schema, and `next_cursor`; with an example. */
/** A path of the reference (this document, the page at /docs): GET needs no key and is not rate limited (P14). */
function referencePath(get: { operationId: string; summary: string; description: string; response: string; content: Json }): Json {
  return {
    ...OTHER_METHODS,
    get: {
      operationId: get.operationId,
      summary: get.summary,
      description: get.description,
      tags: ['Reference'],
      security: [],
      responses: {
        '200': { description: get.response, headers: { 'X-Request-Id': ref('headers', 'X-Request-Id') }, content: get.content },
      },
    },
  };
}

/** The schema of an error body (D16) with these codes. */
function errorBody(body: { description?: string; codes: readonly ErrorCode[]; code: string; message: string; extra?: Json }): Json {
  return {
    type: 'object',
    required: ['error'],
    ...(body.description === undefined ? {} : { description: body.description }),
    properties: {
      error: {
        type: 'object',
        required: ['status', 'code', 'message'],
        properties: {
          status: { type: 'integer', description: 'The HTTP status, repeated.' },
          code: { type: 'string', enum: [...body.codes], description: body.code },
          message: { type: 'string', description: body.message },
          ...body.extra,
        },
      },
    },
  };
}

function fleetPage(element: string, description: string, example: Json): Json {
  return {
    type: 'object',
    required: ['data', 'next_cursor'],
    properties: {
      data: { type: 'array', items: ref('schemas', element), description },
      next_cursor: {
        type: ['string', 'null'],
        pattern: '^[A-Za-z0-9_-]+$',
        description: 'Pass it as `cursor` to get the next page; null on the last page.',
      },
    },
    examples: [example],
  };
}

/** The `limit` parameter of a fleet endpoint: its default and maximum differ by endpoint (D32). */
function limitParameter({ defaultLimit, maxLimit }: FleetPaging): Json {
  return {
    name: 'limit',
    in: 'query',
    required: false,
    description: `Devices per page: a whole number from 1 to ${maxLimit}, default ${defaultLimit}. Anything else, or a repeated limit: 400.`,
    schema: { type: 'integer', minimum: 1, maximum: maxLimit, default: defaultLimit },
  };
}

/**
 * The path item of an endpoint of the read API: GET and HEAD with its operation; its limit, page
 * parameters (D32) and device parameter from its row of core's table.
 */
function dataPath({ endpoint, openApi: operation }: ApiEndpoint, limits: RateLimits): Json {
  const limitNote = `Rate limit: ${limits[endpoint.name as ReadEndpointName]} requests per minute per key for this endpoint.`;
  const withDevice = endpoint.template.includes('{id}');
  const responses = (withBody: boolean): Json => ({
    '200': {
      description: 'OK',
      headers: RATE_LIMIT_HEADERS,
      ...(withBody ? { content: operation.aemp ? aempContent(operation.schema) : answerContent(endpoint.name, operation.schema) } : {}),
    },
    ...(operation.withWindow || endpoint.paging || operation.parameters || operation.aemp?.pathParameters.includes('AempStart')
      ? { '400': ref('responses', 'BadRequest') }
      : {}),
    ...(withDevice ? { '404': ref('responses', 'DeviceNotFound') } : operation.aemp ? { '404': ref('responses', 'NotFound') } : {}),
    ...notAcceptable(endpoint.name),
    ...COMMON_REFUSALS,
  });
  const parameters = [
    ...(operation.withWindow ? [ref('parameters', 'From'), ref('parameters', 'To')] : []),
    ...(endpoint.paging ? [limitParameter(endpoint.paging), ref('parameters', 'Cursor')] : []),
    ...(operation.parameters ?? []).map((name) => ref('parameters', name)),
  ];
  return {
    ...OTHER_METHODS,
    ...(withDevice || operation.aemp
      ? {
          parameters: [
            ...(withDevice ? [ref('parameters', 'DeviceId')] : []),
            ...(operation.aemp?.pathParameters ?? []).map((name) => ref('parameters', name)),
          ],
        }
      : {}),
    get: {
      operationId: operation.operationId,
      summary: operation.summary,
      description: `${operation.description}\n\n${limitNote}`,
      tags: [operation.tag],
      ...(parameters.length > 0 ? { parameters } : {}),
      responses: responses(true),
    },
    head: {
      operationId: `${operation.operationId}Head`,
      summary: `${operation.summary} (headers only)`,
      description: `The same as GET without the body. ${limitNote}`,
      tags: [operation.tag],
      ...(parameters.length > 0 ? { parameters } : {}),
      responses: responses(false),
    },
  };
}

/** Options of {@link createOpenApiDocument}. */
export interface OpenApiDocumentOptions {
  /** The limits the server applies; unset fields keep the defaults. */
  readonly rateLimits?: Partial<RateLimits>;
  /**
   * The URL of the server in `servers`: the path the app is mounted at, e.g. `/fleet` when the
   * document is served at `/fleet/api/v1/openapi.json`. Relative to where the document is served.
   * Default `/`.
   */
  readonly serverUrl?: string;
}

/**
 * Builds the OpenAPI 3.1 document of the API for a set of rate limits and a mount path: the app
 * serves the one for its own limits and prefix, so the document never disagrees with the server.
 *
 * @param options The rate limits and the server URL.
 * @returns The document, deeply frozen.
 * @example
 * ```ts
 * import { createOpenApiDocument } from '@fleet-hours/http';
 * const document = createOpenApiDocument({ rateLimits: { hours: 60 }, serverUrl: '/fleet' });
 * document.servers[0].url; // '/fleet'
 * ```
 */
export function createOpenApiDocument(options: OpenApiDocumentOptions = {}): OpenApiDocument {
  return _deepFreeze(_build(resolveRateLimits(options.rateLimits), options.serverUrl ?? '/'));
}

function _build(limits: RateLimits, serverUrl: string): OpenApiDocument {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Fleet Hours API',
      version: '1.0.0',
      description: [
        'Read-only JSON API over the vehicles (tracked devices) of one account and the time their engines ran, split into moving and idle time.',
        '',
        '- **Authentication**: every data request sends `Authorization: Bearer <API_KEY>`. Missing, unknown, revoked or expired keys answer 401 (the code says which; more than one credential is `multiple_credentials`); a plan without API access answers 403. Checks run in this order: 401 → 403 → 429 → 404.',
        '- **Durations** are whole seconds; `engine_seconds` always equals `moving_seconds + idle_seconds`.',
        "- **Windows and days** are resolved in the vehicle's own time zone (returned as `timezone`); `from` is the start of a local day, `to` the last second of one, or now when no `to` is given. Windows reaching back more than 365 days are clamped, not refused.",
        `- **Rate limits** per key and endpoint per minute: ${_limitList(limits, false)}. Requests without a valid key count against a budget per client address (${limits.unauthenticated} per minute). Every response but this document and /docs carries \`X-RateLimit-Limit\` and \`X-RateLimit-Remaining\`; a 429 adds \`Retry-After\` and \`X-RateLimit-Reset\`.`,
        '- **Errors** are JSON: `{ "error": { "status", "code", "message" } }`.',
        '- This document and the reference page at /docs need no key and are not rate limited.',
        `- **The whole fleet** in one request: ${_fleetTemplates()} answer for every device of the account, a page at a time (\`{ "data": [ … ], "next_cursor": "…" | null }\`, devices by ascending id), each element exactly the body of the single-device endpoint; pass \`next_cursor\` back as \`cursor\` until it is null. Rate limits per key per minute: ${_limitList(limits, true)}.`,
        "- **Hour meter and service**: the meter's `hour_meter_seconds` is the machine's own hour meter — the latest reading of it an operator recorded, plus the engine time since (`hour_meter_read_at`; without a reading it equals `engine_seconds` and `hour_meter_read_at` is null). /api/v1/devices/{id}/service shows a vehicle's service schedules and where each stands (`ok`, `due_soon`, `overdue`), computed at every read, so late data and new readings show at once. Readings and schedules are managed by the operator, not over this API.",
        '- **Other methods and paths**: any method but GET and HEAD answers 405 with an `Allow` header, any other path 404 `not_found`; they are not operations, and are described once in `components.responses` (`MethodNotAllowed`, `NotFound`).',
        `- **Telemetry ingestion** under /ingest (tag Ingestion): native batches (NDJSON or a JSON array), Traccar's JSON position forwarding and the OsmAnd protocol. They take an ingest token (\`Authorization: Bearer fhi_…\`; OsmAnd carries it in the path) and no API key, are counted per token (${limits.ingest} per minute over the three), not gated by plan, and answer errors with the same JSON body (\`IngestError\` codes). A 2xx means the points are durable.`,
      ].join('\n'),
      // The project's license (the LICENSE file at the repository root).
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: serverUrl, description: 'The server that serves this document' }],
    security: [{ bearerAuth: [] }],
    'x-not-found': ref('responses', 'NotFound'),
    tags: [
      { name: 'Devices', description: 'The vehicles of the account.' },
      { name: 'Hours', description: 'Engine, moving and idle time.' },
      { name: 'Service', description: 'Service schedules against the hour meter and the calendar.' },
      {
        name: 'Fleet',
        description: 'Engine, moving and idle time and the service schedules of every vehicle of the account, a page at a time.',
      },
      { name: 'Calendars', description: 'Work calendars: the hours each vehicle is meant to work.' },
      { name: 'Audit', description: 'Every change made to the account, by the API or the operator CLI.' },
      { name: 'Keys', description: 'The API key in use: what it may do.' },
      { name: 'AEMP', description: 'The fleet as an ISO 15143-3 (AEMP 2.0) feed, for mixed-fleet tools: XML by default, JSON on request.' },
      { name: 'AEMP sources', description: 'The ISO 15143-3 feeds of OEM clouds the server polls for hour-meter readings.' },
      { name: 'Reference', description: 'This document and the reference page.' },
      {
        name: 'Ingestion',
        description: 'Telemetry in, live: points become engine time as they arrive. Needs an ingest token, not an API key.',
      },
    ],
    paths: {
      // One path per endpoint of the read API (its row of core's READ_ENDPOINTS and its operation),
      // each carrying OTHER_METHODS (a 405 is described once, never as an operation; the fleet paths
      // of D32, D34 too: test/openapi-client.test.ts calls them all).
      ...Object.fromEntries(API_ENDPOINTS.map((endpoint) => [endpoint.endpoint.template, dataPath(endpoint, limits)])),
      // The write routes (D52): merged into the read path items, or an item of their own.
      ...Object.fromEntries(
        Object.entries(managePaths(limits)).map(([template, operations]) => [
          template,
          API_ENDPOINTS.some(({ endpoint }) => endpoint.template === template)
            ? {
                ...dataPath(API_ENDPOINTS.find(({ endpoint }) => endpoint.template === template)!, limits),
                ...operations,
                ...WRITE_METHODS,
              }
            : {
                ...WRITE_METHODS,
                ...(template.includes('/devices/{id}') ? { parameters: [ref('parameters', 'DeviceId')] } : {}),
                ...operations,
              },
        ]),
      ),
      [OPENAPI_PATH]: referencePath({
        operationId: 'getOpenApiDocument',
        summary: 'This OpenAPI document',
        description: 'Needs no key; not rate limited.',
        response: 'The OpenAPI 3.1 document',
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['openapi', 'info', 'paths'],
              properties: { openapi: { type: 'string', pattern: '^3\\.1\\.' }, info: { type: 'object' }, paths: { type: 'object' } },
            },
          },
        },
      }),
      // Telemetry ingestion (docs/ingestion.md): POST operations with an ingest token, outside /api/v1.
      ...ingestPaths(limits),
      [DOCS_PATH]: referencePath({
        operationId: 'getDocsPage',
        summary: 'Interactive reference page',
        description:
          'A self-contained HTML page that renders this document and can send requests from the browser. Needs no key; not rate limited; works offline.',
        response: 'The page',
        content: { 'text/html': { schema: { type: 'string' } } },
      }),
    },
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'fh_ API key',
          description:
            'An account-scoped API key (`fh_…`), issued in the account settings and shown once; only its SHA-256 fingerprint is stored.',
        },
        ingestToken: INGEST_SECURITY_SCHEME,
      },
      parameters: {
        ...WEBHOOK_PARAMETERS,
        ...CALENDAR_PARAMETERS,
        ...AEMP_SOURCE_PARAMETERS,
        ...UTILIZATION_PARAMETERS,
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description:
            "Makes the request safe to send again (1–255 visible ASCII characters, e.g. a UUID; the account's own). The same method, path and body with the same key within 24 hours gets the first answer again — its status, body, `Location` and `ETag` — with `Idempotent-Replayed: true`, and changes nothing more; another body with the key is 422, and the same request while the first still runs is 409. A 5xx answer is not kept: the request sent again runs.",
          schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[!-~]+$' },
        },
        IfMatch: {
          name: 'If-Match',
          in: 'header',
          required: false,
          description:
            'The `ETag` of the device as last read (several comma-separated, or `*`): the change applies only if the device is still that one, else 412.',
          schema: { type: 'string' },
        },
        Cursor: {
          name: 'cursor',
          in: 'query',
          required: false,
          description:
            'Where the page starts: the `next_cursor` of the previous page, as it was given (opaque). Without it, the first page. A cursor of another endpoint or of another account, or any other text, is 400. Devices added while the fleet is walked do not disturb the walk: it goes on after the last device seen.',
          schema: { type: 'string', pattern: '^[A-Za-z0-9_-]+$' },
        },
        DeviceId: {
          name: 'id',
          in: 'path',
          required: true,
          description: `The device id: a positive integer up to ${MAX_DEVICE_ID}, written without sign or leading zeros. Anything else answers the same 404 as a device that is not on the account.`,
          schema: { type: 'integer', minimum: 1, maximum: MAX_DEVICE_ID },
        },
        ServiceStatus: {
          name: 'status',
          in: 'query',
          required: false,
          description:
            'Only the devices with at least one schedule in one of these statuses: one or more of `ok`, `due_soon` and `overdue`, separated by commas (e.g. `due_soon,overdue`). Without it, every device. Any other value, or a repeated `status`: 400.',
          schema: { type: 'string', pattern: STATUS_LIST_PATTERN, examples: ['due_soon,overdue'] },
        },
        Tag: {
          name: 'tag',
          in: 'query',
          required: false,
          description:
            'Only the devices having this tag (exactly: tags are case-sensitive; the value is trimmed). Without it, every device. Empty, longer than 64 characters, with control characters, or repeated: 400.',
          schema: { type: 'string', minLength: 1, maxLength: DEVICE_TAG_MAX, examples: ['north-yard'] },
        },
        ...MAINTENANCE_PARAMETERS,
        ...AEMP_PARAMETERS,
        From: dateParameter(
          'from',
          "First local date of the window, YYYY-MM-DD in the vehicle's zone; resolves to the first instant of that day. Default: seven days before the end date. Raised to 365 days before `to` when older. Malformed, impossible (2025-02-30), repeated, or after `to`: 400.",
        ),
        To: dateParameter(
          'to',
          "Last local date of the window, YYYY-MM-DD in the vehicle's zone; resolves to the last second of that day. Default: now. Malformed, impossible or repeated: 400.",
        ),
      },
      headers: {
        'X-RateLimit-Limit': header(
          'Requests allowed per minute for this endpoint and key (for requests without a valid key, and for paths that are not served: per client address). On every response except this document and /docs.',
          { type: 'integer', minimum: 1 },
        ),
        'X-RateLimit-Remaining': header('Requests left in the current minute. 0 when the service could not count the request (503).', {
          type: 'integer',
          minimum: 0,
        }),
        'Retry-After': header('Only on 429: whole seconds (≥ 1) to wait before retrying.', { type: 'integer', minimum: 1 }),
        'X-RateLimit-Reset': header('Only on 429: whole seconds (≥ 1) until the counter is full again.', { type: 'integer', minimum: 1 }),
        Location: header('Only on 201: the URL of the resource created.', { type: 'string' }),
        ETag: header(
          "The resource's version (`d-…` a device, `s-…` a service schedule, `r-…` a reading): it changes whenever a write changes one of its fields (not when it reports). Send it back as `If-Match`.",
          { type: 'string', pattern: '^"[drs]-[0-9a-f]{16}"$' },
        ),
        CalendarETag: header(CALENDAR_ETAG_DESCRIPTION, { type: 'string', pattern: '^"[0-9]+"$' }),
        AempSourceETag: header(AEMP_SOURCE_ETAG_DESCRIPTION, { type: 'string', pattern: '^"a[0-9]+"$' }),
        WebhookETag: header(
          "The webhook endpoint's version: it changes with its URL, event types, `enabled`, description and each rotation (not with a delivery). Send it back as `If-Match`.",
          { type: 'string', pattern: '^"w-[0-9a-f]{16}"$' },
        ),
        IngestTokenETag: header("The ingest token's version: it changes when the token is revoked. Send it back as `If-Match`.", {
          type: 'string',
          pattern: '^"t-[0-9a-f]{16}"$',
        }),
        'X-Request-Id': header(
          'The id of this request: the `X-Request-Id` sent by the client when it is 1–128 characters of `A–Z a–z 0–9 . _ : -`, otherwise a new UUID. Also in the server access log.',
          { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' },
        ),
        Allow: header(
          'The methods served: GET and HEAD under /api/v1 and for the reference; POST, or GET and POST (OsmAnd), for ingestion.',
          { type: 'string', enum: [ALLOWED_METHODS, ...MANAGE_ALLOW_VALUES, ...INGEST_ALLOW_VALUES] },
        ),
        'WWW-Authenticate': header('The Bearer challenge (RFC 6750).', { type: 'string' }),
        'Idempotent-Replayed': {
          ...header(
            'Only on an answer given again for an `Idempotency-Key` already used with the same request: `true`. The answer is the first one; nothing was changed.',
            { type: 'string', enum: ['true'] },
          ),
          required: false,
        },
      },
      schemas: {
        Device: {
          type: 'object',
          // Every field of the device body, in its order: the columns of the devices' CSV list (D62),
          // which its tests check against the JSON body field by field (`position.…` are one field's).
          required: [...new Set(CSV_LISTS.devices.columns.map((column) => column.split('.')[0]!))],
          properties: {
            id: {
              type: 'integer',
              minimum: 1,
              description:
                'Identifies the device record; does not change while the record exists. A unit replaced under warranty is a new record with a new id.',
            },
            name: { type: 'string', description: 'Display name of the vehicle.' },
            imei: { type: 'string', description: 'Identifier of the physical tracker box.' },
            registration: { type: ['string', 'null'], description: 'Registration plate; can be null.' },
            model: { type: 'string', description: 'Tracker model.' },
            status: { type: 'string', description: 'Seen value: `active`. Other values may appear.', examples: ['active'] },
            timezone: { type: 'string', description: 'IANA zone name of the vehicle.', examples: ['America/New_York'] },
            last_reported_at: {
              oneOf: [
                timestamp('When the latest data was received.', '2026-03-08T17:45:12-04:00'),
                { type: 'null', description: 'The device has never reported.' },
              ],
            },
            tags: {
              type: 'array',
              maxItems: DEVICE_TAGS_MAX,
              uniqueItems: true,
              items: { type: 'string', minLength: 1, maxLength: DEVICE_TAG_MAX },
              description: 'Its tags, in the order given; case-sensitive. `tag=` on the lists keeps the devices having one.',
              examples: [['north-yard', 'cranes']],
            },
            oem_name: { type: ['string', 'null'], description: "The machine's manufacturer; null when not given.", examples: ['CAT'] },
            equipment_model: { type: ['string', 'null'], description: "The machine's model; null when not given.", examples: ['320'] },
            serial_number: { type: ['string', 'null'], description: "The machine's serial number; null when not given." },
            pin: { type: ['string', 'null'], description: "The machine's product identification number (PIN); null when not given." },
            position: {
              oneOf: [
                {
                  type: 'object',
                  required: ['latitude', 'longitude', 'at'],
                  properties: {
                    latitude: { type: 'number', minimum: -90, maximum: 90, description: 'Degrees north.' },
                    longitude: { type: 'number', minimum: -180, maximum: 180, description: 'Degrees east.' },
                    at: timestamp('When the point that carried it was taken.', '2026-03-08T17:45:12-04:00'),
                  },
                  description:
                    'The newest position its points carried, by their time (not their arrival): a late older point does not replace it.',
                },
                { type: 'null', description: 'No point of the device has carried a position.' },
              ],
            },
            version: {
              type: 'string',
              description:
                'The version of the device: its `ETag`, without the quotes. A write that changes a field changes it; new data does not. Send it quoted as `If-Match` to change the device only as read.',
              examples: ['d-3f2a9c0b1e7d4a65'],
            },
          },
        },
        DeviceList: {
          type: 'object',
          required: ['data'],
          properties: {
            data: { type: 'array', items: ref('schemas', 'Device'), description: 'Every device of the account, ordered by id.' },
          },
        },
        HoursTotal: {
          type: 'object',
          required: ['device_id', 'from', 'to', 'timezone', 'engine_seconds', 'moving_seconds', 'idle_seconds'],
          properties: {
            device_id: { type: 'integer', minimum: 1 },
            from: timestamp('The window start actually applied (after clamping): the start of a local day.', '2026-03-01T00:00:00-05:00'),
            to: timestamp(
              'The window end actually applied: the last second of a local day when a date was given, else now.',
              '2026-03-08T23:59:59-04:00',
            ),
            timezone: { type: 'string', description: 'IANA zone of the vehicle.' },
            ...durations,
          },
        },
        DailyHoursEntry: {
          type: 'object',
          required: [
            ...['date', 'engine_seconds', 'moving_seconds', 'idle_seconds', 'day_seconds', 'scheduled_seconds'],
            ...['engine_in_schedule_seconds', 'engine_outside_schedule_seconds', 'first_engine_on', 'last_engine_off'],
          ],
          properties: {
            date: { type: 'string', format: 'date', description: "YYYY-MM-DD in the vehicle's zone." },
            ...durations,
            ...DAY_FIELDS,
          },
        },
        DailyHours: _deviceBody({
          from: timestamp('The window start actually applied.', '2026-03-01T00:00:00-05:00'),
          to: timestamp('The window end actually applied.', '2026-03-08T23:59:59-04:00'),
          data: { type: 'array', items: ref('schemas', 'DailyHoursEntry'), description: 'One entry per local date, ascending.' },
        }),
        Meter: _deviceBody({
          since: {
            oneOf: [
              timestamp('The start of the first segment of the device.', '2025-06-02T07:12:40+02:00'),
              { type: 'null', description: 'The device has no engine time yet (all durations are 0).' },
            ],
          },
          as_of: timestamp('Now: the instant the meter was read.', '2026-03-08T17:45:12-04:00'),
          ...durations,
          hour_meter_seconds: {
            ...seconds(
              "The machine's own hour meter at `as_of`: the latest reading of it at or before `as_of` plus the engine seconds since that reading, exact to the second. Without a reading, `engine_seconds`.",
            ),
            examples: [45_012_000],
          },
          hour_meter_read_at: {
            oneOf: [
              timestamp('The instant of the reading the hour meter counts from.', '2026-02-20T07:00:00-05:00'),
              {
                type: 'null',
                description: 'No reading at or before `as_of`: the hour meter is uncalibrated and equals `engine_seconds`.',
              },
            ],
          },
        }),
        ServiceStatus: {
          type: 'string',
          enum: [...SERVICE_STATUSES],
          description:
            '`overdue` when either interval has run out (`remaining_seconds` ≤ 0, or `remaining_days` < 0); else `due_soon` within either margin (`remaining_seconds` ≤ `due_soon_seconds`, or `remaining_days` ≤ `due_soon_days`); else `ok`.',
        },
        ServiceSchedule: SERVICE_SCHEDULE_SCHEMA,
        ServiceBody: {
          ..._deviceBody({
            as_of: timestamp('Now: the instant the schedules were read.', '2026-11-25T10:00:00-05:00'),
            hour_meter_seconds: seconds('The hour meter at `as_of`, as the meter shows it.'),
            data: { type: 'array', items: ref('schemas', 'ServiceSchedule'), description: 'The schedules of the device, by ascending id.' },
          }),
          examples: [SERVICE_EXAMPLE],
        },
        FleetHoursPage: fleetPage(
          'HoursTotal',
          'Every device of the account, from the cursor on, by ascending id: each the body of `/devices/{id}/hours`.',
          {
            data: [
              {
                device_id: 11,
                from: '2026-03-01T00:00:00-05:00',
                to: '2026-03-08T23:59:59-04:00',
                timezone: 'America/New_York',
                engine_seconds: 93_600,
                moving_seconds: 79_200,
                idle_seconds: 14_400,
              },
              {
                device_id: 12,
                from: '2026-03-01T00:00:00+01:00',
                to: '2026-03-08T23:59:59+01:00',
                timezone: 'Europe/Berlin',
                engine_seconds: 51_300,
                moving_seconds: 40_500,
                idle_seconds: 10_800,
              },
            ],
            next_cursor: 'WzEsImhvdXJzIiwxLDEyLCIxa3B6Ymd2Il0',
          },
        ),
        FleetDailyHoursPage: fleetPage(
          'DailyHours',
          'Every device of the account, from the cursor on, by ascending id: each the body of `/devices/{id}/hours/daily`.',
          {
            data: [
              {
                device_id: 11,
                timezone: 'America/New_York',
                from: '2026-03-07T00:00:00-05:00',
                to: '2026-03-08T23:59:59-04:00',
                data: [
                  {
                    ...{ date: '2026-03-07', engine_seconds: 28_800, moving_seconds: 25_200, idle_seconds: 3_600, day_seconds: 86_400 },
                    ...{ scheduled_seconds: 36_000, engine_in_schedule_seconds: 27_000, engine_outside_schedule_seconds: 1_800 },
                    ...{ first_engine_on: '2026-03-07T06:30:00-05:00', last_engine_off: '2026-03-07T16:00:00-05:00' },
                  },
                  {
                    ...{ date: '2026-03-08', engine_seconds: 0, moving_seconds: 0, idle_seconds: 0, day_seconds: 82_800 },
                    ...{ scheduled_seconds: 0, engine_in_schedule_seconds: 0, engine_outside_schedule_seconds: 0 },
                    ...{ first_engine_on: null, last_engine_off: null },
                  },
                ],
              },
              {
                device_id: 12,
                timezone: 'Europe/Berlin',
                from: '2026-03-07T00:00:00+01:00',
                to: '2026-03-08T23:59:59+01:00',
                data: [
                  {
                    ...{ date: '2026-03-07', engine_seconds: 9_000, moving_seconds: 7_200, idle_seconds: 1_800, day_seconds: 86_400 },
                    ...{ scheduled_seconds: 0, engine_in_schedule_seconds: 0, engine_outside_schedule_seconds: 9_000 },
                    ...{ first_engine_on: '2026-03-07T08:00:00+01:00', last_engine_off: '2026-03-07T10:30:00+01:00' },
                  },
                  {
                    ...{ date: '2026-03-08', engine_seconds: 3_600, moving_seconds: 3_600, idle_seconds: 0, day_seconds: 86_400 },
                    ...{ scheduled_seconds: 0, engine_in_schedule_seconds: 0, engine_outside_schedule_seconds: 3_600 },
                    ...{ first_engine_on: '2026-03-08T09:00:00+01:00', last_engine_off: '2026-03-08T10:00:00+01:00' },
                  },
                ],
              },
            ],
            next_cursor: 'WzEsImRhaWx5IiwxLDEyLCJiZHA1ZzkiXQ',
          },
        ),
        FleetMeterPage: fleetPage(
          'Meter',
          'Every device of the account, from the cursor on, by ascending id: each the body of `/devices/{id}/meter`.',
          {
            data: [
              {
                device_id: 11,
                timezone: 'America/New_York',
                since: '2025-06-02T07:12:40-04:00',
                as_of: '2026-03-08T17:45:12-04:00',
                engine_seconds: 2_764_800,
                moving_seconds: 2_246_400,
                idle_seconds: 518_400,
                hour_meter_seconds: 45_012_000,
                hour_meter_read_at: '2026-02-20T07:00:00-05:00',
              },
              {
                device_id: 12,
                timezone: 'Europe/Berlin',
                since: null,
                as_of: '2026-03-08T22:45:12+01:00',
                engine_seconds: 0,
                moving_seconds: 0,
                idle_seconds: 0,
                hour_meter_seconds: 0,
                hour_meter_read_at: null,
              },
            ],
            next_cursor: null,
          },
        ),
        FleetServicePage: fleetPage(
          'ServiceBody',
          'Every device of the account, from the cursor on, by ascending id (with `status`, only those with a schedule in one of its statuses): each the body of `/devices/{id}/service`.',
          {
            data: [
              SERVICE_EXAMPLE,
              { device_id: 9, timezone: 'Europe/Berlin', as_of: '2026-11-25T16:00:00+01:00', hour_meter_seconds: 0, data: [] },
            ],
            next_cursor: 'WzEsInNlcnZpY2UiLDEsOSwiOWx5YmdqIl0',
          },
        ),
        PresentedKey: {
          type: 'object',
          required: ['scope', 'label', 'fingerprint_prefix', 'expires_at', 'account'],
          properties: {
            scope: {
              type: 'string',
              enum: ['read', 'manage'],
              description: '`read` reads; `manage` also changes the fleet through the write routes.',
            },
            label: { type: ['string', 'null'], description: 'The label the key was created with.' },
            fingerprint_prefix: {
              type: 'string',
              pattern: '^[0-9a-f]{8}$',
              description: 'The first 8 hex characters of the SHA-256 of the key, as the change log names it.',
            },
            expires_at: {
              oneOf: [
                timestamp('When the key stops working, in UTC.', '2027-01-01T00:00:00+00:00'),
                { type: 'null', description: 'It does not expire.' },
              ],
            },
            account: {
              type: 'object',
              required: ['id', 'name'],
              properties: { id: { type: 'integer', minimum: 1 }, name: { type: 'string' } },
            },
          },
          examples: [
            {
              scope: 'manage',
              label: 'workshop',
              fingerprint_prefix: '3f9a0c1e',
              expires_at: null,
              account: { id: 1, name: 'Acme Haulage' },
            },
          ],
        },
        Error: errorBody({
          codes: DOCUMENTED_CODES,
          code: 'What went wrong, for programs.',
          message: 'What went wrong, for people; for 400 it names the parameter or the field.',
          extra: {
            scope: { type: 'string', enum: ['manage'], description: 'Only with `insufficient_scope`: the scope the route needs.' },
            field: { type: 'string', description: 'Only with `invalid_field`: the field of the body at fault.' },
            header: { type: 'string', enum: ['Idempotency-Key'], description: 'Only with `invalid_header`: the header at fault.' },
          },
        }),
        IngestError: errorBody({
          description: 'The error body of the ingestion endpoints, with their codes.',
          codes: INGEST_CODES,
          code: 'What went wrong, for programs.',
          message: 'What went wrong, for people; for 400 and 422 it names the line or index and the field.',
        }),
        ...MANAGE_SCHEMAS,
        ...AEMP_SCHEMAS,
        ...WEBHOOK_SCHEMAS,
        ...CALENDAR_SCHEMAS,
        ...AEMP_SOURCE_SCHEMAS,
        ...UTILIZATION_SCHEMAS,
        ...ingestSchemas({
          oneOf: [
            timestamp('The newest stored point or segment instant of the device.', '2026-11-23T10:15:42-05:00'),
            { type: 'null', description: 'The device has never reported.' },
          ],
        }),
      },
      responses: Object.fromEntries(Object.entries(ERROR_RESPONSES).map(([name, response]) => [name, errorResponse(response)])),
    },
  };
}

/**
 * The OpenAPI 3.1 document of the Fleet Hours API with the default rate limits: every route,
 * parameter, response, header and error code. The app serves the same document (for its own
 * limits) at `/api/v1/openapi.json`; use it to generate clients.
 *
 * @example
 * ```ts
 * import { openApiDocument } from '@fleet-hours/http';
 * Object.keys(openApiDocument.paths); // ['/api/v1/devices', '/api/v1/devices/{id}/hours', …]
 * ```
 */
export const openApiDocument: OpenApiDocument = createOpenApiDocument();

/** The limits of the single-device or of the fleet endpoints, as the document's introduction lists them: `/devices 120, hours 30, …`. */
function _limitList(limits: RateLimits, fleet: boolean): string {
  return API_ENDPOINTS.filter(({ endpoint }) => Boolean(endpoint.paging) === fleet)
    .map(({ endpoint }) => {
      const path = endpoint.template.slice(API_V1.length);
      const shown = path === '/devices' ? path : path.replace(/^\/devices\/\{id\}/, '').slice(1);
      return `${shown} ${limits[endpoint.name as ReadEndpointName]}`;
    })
    .join(', ');
}

/** The fleet endpoints' templates, as a sentence lists them (D32). */
function _fleetTemplates(): string {
  const templates = API_ENDPOINTS.filter(({ endpoint }) => endpoint.paging).map(({ endpoint }) => endpoint.template);
  return `${templates.slice(0, -1).join(', ')} and ${templates.at(-1)}`;
}

function _deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const field of Object.values(value)) _deepFreeze(field);
    Object.freeze(value);
  }
  return value;
}
