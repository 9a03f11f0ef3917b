/** What the parts of the OpenAPI document built beside it (ingestion, the write routes) share. */

/** A piece of the document, as plain JSON data. */
export type Json = Record<string, unknown>;

/** A reference to a component of the document: `ref('responses', 'NotFound')`. */
export const ref = (section: string, name: string) => ({ $ref: `#/components/${section}/${name}` });

/** The headers of every counted answer (D14) and its request id. */
export const RATE_LIMIT_HEADERS: Json = {
  'X-RateLimit-Limit': ref('headers', 'X-RateLimit-Limit'),
  'X-RateLimit-Remaining': ref('headers', 'X-RateLimit-Remaining'),
  'X-Request-Id': ref('headers', 'X-Request-Id'),
};
