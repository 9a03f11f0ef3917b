/**
 * D37: a request path may carry a secret — OsmAnd clients send their ingest token as the last
 * segment of `/ingest/osmand/{token}` — and no answer or log line may show it, whatever the error.
 * Every message that quotes a path or request target passes it through here first.
 */

/** The segment after `osmand/` (also after a backslash or an encoded separator): a token whatever its form. */
const _OSMAND_SEGMENT = /(osmand(?:\/|\\|%2f|%5c)+)[^/\\?#]+/gi;

/** Anything shaped like a key or token (`fh_…`, `fhi_…`, any `fh…_` prefix, D10, D24) up to the next separator. */
const _SECRET = /(^|[^a-z0-9])(fh[a-z]{0,3}_)[^/\\?#&=;,\s"']+/gi;

/**
 * Replaces every secret a request target may hold with `…`, keeping its prefix: `/ingest/osmand/fhi_…?id=1`.
 *
 * @param target A request path or target as the client sent it.
 * @returns The same text, without any secret.
 */
export function redactSecrets(target: string): string {
  return target.replace(_OSMAND_SEGMENT, '$1…').replace(_SECRET, '$1$2…');
}
