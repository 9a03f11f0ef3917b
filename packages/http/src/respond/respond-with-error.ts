import type { ErrorBody } from '@fleet-hours/core';
import { errorAnswer } from '@fleet-hours/core/adapter';
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { FleetHoursEnv } from '../app-env.js';
import { jsonResponse } from './json-response.js';

/**
 * The one place where an error becomes a response (D16): the app's `onError` and not-found
 * handlers call it, nothing else formats an error. Status, code and message come from core's
 * `errorAnswer` (the one error table): a `FleetHoursError` answers its code — a refusal of the
 * access middleware (401, 403, 429), a bad query (400), a missing device or route (404), a method
 * not served (405), the store down (503) — and anything else is 500 `internal_error`. A 5xx keeps
 * its failure for the access log only, so no stack, SQL or path reaches the client; the 500
 * message quotes the request id so that operators can find the log line (P16).
 *
 * The rate-limit headers (D14, P15) were set on the context by the access middleware; the response
 * carries them like every other header set so far. Every 503 carries `Retry-After` (D28): the
 * error's own (the in-flight bound asks for 1 s), else {@link UNAVAILABLE_RETRY_AFTER_SECONDS}.
 */
export function respondWithError(c: Context<FleetHoursEnv>, error: unknown): Response {
  const answer = errorAnswer(error);
  c.set('errorCode', answer.code);
  if (answer.internal) c.set('failure', error instanceof Error ? error : new Error(String(error)));
  const requestId = c.get('requestId');
  const message =
    answer.code === 'internal_error'
      ? `Internal error${requestId ? ` (request id ${requestId})` : ''}: it has been logged`
      : answer.message;
  const body: ErrorBody = { error: { status: answer.status, code: answer.code, message, ...answer.details } };
  const headers =
    answer.status === 503 && !Object.hasOwn(answer.headers, 'Retry-After')
      ? { ...answer.headers, 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_SECONDS) }
      : answer.headers;
  return jsonResponse(c, body, answer.status as ContentfulStatusCode, headers);
}

/**
 * `Retry-After` of a 503 that names none (D28): the database cannot be reached or did not answer
 * in time (D18). A few seconds: the store reconnects, or replaces a stuck pool, within about that.
 */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;
