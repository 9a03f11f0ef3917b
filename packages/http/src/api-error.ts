/** Every error code the API answers with (D16), in a stable order. */
export const ERROR_CODES = [
  'missing_api_key',
  'unknown_api_key',
  'revoked_api_key',
  'expired_api_key',
  'plan_without_api_access',
  'rate_limited',
  'invalid_parameter',
  'device_not_found',
  'not_found',
  'method_not_allowed',
  'service_unavailable',
  'internal_error',
] as const;

/** An error code of the JSON error body (D16). */
export type ErrorCode = (typeof ERROR_CODES)[number];

/** The JSON error body every error response carries (D16). */
export interface ErrorBody {
  readonly error: { readonly status: number; readonly code: ErrorCode; readonly message: string };
}

/**
 * A refusal the API answers with a known status and code. Middleware and routes throw it; the
 * app's error handler is the one place that turns it into the JSON body (D16).
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;
  readonly code: ErrorCode;
  /** Headers the response must carry besides the common ones, e.g. `Allow` on a 405. */
  readonly headers: Readonly<Record<string, string>>;

  constructor(status: number, code: ErrorCode, message: string, headers: Readonly<Record<string, string>> = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}

/** The one 404 for a device that is not on the account, whatever the reason (D11): same bytes every time. */
export function deviceNotFound(): ApiError {
  return new ApiError(404, 'device_not_found', 'No such device on this account');
}
