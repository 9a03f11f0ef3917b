import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/** The Content-Type of every JSON response. */
export const JSON_CONTENT_TYPE = 'application/json; charset=UTF-8';

/**
 * A JSON response with the API's Content-Type, carrying every header set on the context so far
 * (rate limits, request id). API data depends on the key and the clock, so it is never cached.
 */
export function jsonResponse(
  c: Context,
  body: unknown,
  status: ContentfulStatusCode = 200,
  headers: Readonly<Record<string, string>> = {},
): Response {
  return c.body(JSON.stringify(body), status, { 'Content-Type': JSON_CONTENT_TYPE, 'Cache-Control': 'no-store', ...headers });
}
