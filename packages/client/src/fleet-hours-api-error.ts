/** The JSON error body of the API: `{ "error": { status, code, message, … } }`. */
export interface ApiErrorBody {
  readonly error: { readonly status: number; readonly code: string; readonly message: string; readonly [field: string]: unknown };
}

/**
 * A refusal of the API where the client cannot hand it back as a value: a page of `pages()` or
 * `items()` that was not answered with success.
 *
 * @example
 * ```ts
 * import { FleetHoursApiError } from '@fleet-hours/client';
 * const error = new FleetHoursApiError(new Response(null, { status: 404 }), undefined);
 * error.status; // 404
 * ```
 */
export class FleetHoursApiError extends Error {
  override readonly name = 'FleetHoursApiError';
  /** The HTTP status. */
  readonly status: number;
  /** The error's `code` (`rate_limited`, `invalid_parameter`, …), or `null` when the body had none. */
  readonly code: string | null;
  /** The body as the server sent it, parsed. */
  readonly body: unknown;
  /** The response (its body already read). */
  readonly response: Response;

  /**
   * @param response The response that failed.
   * @param body Its body, parsed (openapi-fetch's `error`).
   */
  constructor(response: Response, body: unknown) {
    const error = (body as Partial<ApiErrorBody> | undefined)?.error;
    super(`${response.status} ${error?.code ?? response.statusText}${error?.message ? `: ${error.message}` : ''}`);
    this.status = response.status;
    this.code = typeof error?.code === 'string' ? error.code : null;
    this.body = body;
    this.response = response;
  }
}
