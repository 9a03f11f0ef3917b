import { InvalidParameterError, StorageUnavailableError } from '@fleet-hours/core';
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ApiError, type ErrorBody } from './api-error.js';
import type { FleetHoursEnv } from './app-env.js';
import { jsonResponse } from './json-response.js';

/**
 * The one place where an error becomes a response (D16): the app's `onError` and not-found
 * handlers call it, nothing else formats an error.
 *
 * - {@link ApiError}: its status, code, message and headers.
 * - `InvalidParameterError` (D7): 400 `invalid_parameter`, the message naming the parameter.
 * - `StorageUnavailableError` (D18): 503 `service_unavailable`.
 * - anything else: 500 `internal_error` with a fixed message and the request id; the error
 *   itself goes to the access log only, so no stack, SQL or path reaches the client.
 *
 * Every response under /api/v1 carries the rate-limit headers (D14). When the request failed
 * before it could be counted (the store or the counters were down), the route's limit is sent
 * with `X-RateLimit-Remaining: 0`: nothing can be promised until the service is back.
 */
export function respondWithError(c: Context<FleetHoursEnv>, error: unknown): Response {
  const refusal = _toApiError(c, error);
  c.set('errorCode', refusal.code);

  const route = c.get('route');
  if (route && route.limit !== null && !c.get('rateLimit')) {
    c.header('X-RateLimit-Limit', String(route.limit));
    c.header('X-RateLimit-Remaining', '0');
  }
  const body: ErrorBody = { error: { status: refusal.status, code: refusal.code, message: refusal.message } };
  return jsonResponse(c, body, refusal.status as ContentfulStatusCode, refusal.headers);
}

function _toApiError(c: Context<FleetHoursEnv>, error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  // By name as well as by class: a second copy of @fleet-hours/core in node_modules must not turn a 400 into a 500.
  if (error instanceof InvalidParameterError || _named(error, 'InvalidParameterError')) {
    return new ApiError(400, 'invalid_parameter', (error as Error).message);
  }
  const failure = error instanceof Error ? error : new Error(String(error));
  c.set('failure', failure);
  if (error instanceof StorageUnavailableError || _named(error, 'StorageUnavailableError')) {
    return new ApiError(503, 'service_unavailable', 'The service is temporarily unavailable: retry shortly');
  }
  const requestId = c.get('requestId');
  return new ApiError(500, 'internal_error', `Internal error${requestId ? ` (request id ${requestId})` : ''}: it has been logged`);
}

function _named(error: unknown, name: string): boolean {
  return error instanceof Error && error.name === name;
}
