import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENT_REPLAYED_HEADER,
  IDEMPOTENT_RESPONSE_HEADERS,
  readIdempotencyKey,
  type FleetHours,
  type IdempotentResponse,
} from '@fleet-hours/core';
import type { Context, MiddlewareHandler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { FleetHoursEnv } from '../../app-env.js';
import { readLimitedBody } from '../../request-body/read-limited-body.js';
import { accountId } from '../../routes/account-id.js';
import { MAX_WRITE_BODY_BYTES } from '../../routes/device-writes.js';

/** How long the body of a request with a key may take to arrive, in milliseconds: as the write routes' own. */
const _BODY_TIMEOUT_MS = 10_000;

/** Options of {@link idempotency}. */
export interface IdempotencyOptions {
  /** The service, whose `idempotency` keeps the keys. */
  readonly fleetHours: FleetHours;
  /** Makes the id of a request's claim. Default `crypto.randomUUID()`. */
  readonly claimId?: () => string;
  /**
   * Fields of a JSON answer that hold a secret shown once (P80: a webhook secret, an ingest token):
   * the kept answer has them `null`, so no secret is kept for the key and a replay does not show it
   * again. Default: none.
   */
  readonly secretFields?: readonly string[];
}

/**
 * `Idempotency-Key` on a POST route (D53): the app puts it on every POST of the write routes, after
 * the access middleware (so a key is the admitted account's) and before the route. Without the
 * header the request runs as it would. With it, the key is checked (400 `invalid_header`), the body
 * read (the route reads it again from the request), and the request's fingerprint — a SHA-256 of its
 * method, path and body — decides with the key's entry: the first request runs and its answer is
 * kept (status, body, `Content-Type`, `Location`, `ETag`, `Cache-Control`) unless it is a 5xx, which
 * gives the key up; the same request again gets that answer with `Idempotent-Replayed: true`;
 * another request with the key is 422 `idempotency_key_reused`; the same while the first still
 * runs, 409 `idempotency_key_in_use`.
 *
 * @param options The service.
 * @returns The middleware.
 */
export function idempotency(options: IdempotencyOptions): MiddlewareHandler<FleetHoursEnv> {
  const { fleetHours } = options;
  const newClaimId = options.claimId ?? (() => globalThis.crypto.randomUUID());
  return async function idempotentRequest(c, next) {
    const key = readIdempotencyKey(c.req.header(IDEMPOTENCY_KEY_HEADER));
    if (key === null) return next();
    const body = await readLimitedBody(c.req.raw, { maxBytes: MAX_WRITE_BODY_BYTES, timeoutMs: _BODY_TIMEOUT_MS });
    // The route reads the body again: the same bytes (valid UTF-8, checked above), in a request of their own.
    // No body stays no body: an empty text would give the request a `Content-Type: text/plain` of its own,
    // and a route whose body may be left out (a service done now) would refuse it as 415.
    c.req.raw = new Request(c.req.raw.url, {
      method: c.req.method,
      headers: c.req.raw.headers,
      body: body === '' ? null : body,
      signal: c.req.raw.signal,
    });
    const fingerprint = await requestFingerprint(c.req.method, c.req.url, body);
    const account = accountId(c);
    const claimId = newClaimId();
    const decision = await fleetHours.idempotency.begin({ accountId: account, key, fingerprint, claimId });
    if (decision.action === 'refuse') throw decision.error;
    if (decision.action === 'replay') return _replay(c, decision.response);
    await next();
    const answer = c.res;
    const response: IdempotentResponse = {
      status: answer.status,
      headers: Object.fromEntries(
        IDEMPOTENT_RESPONSE_HEADERS.flatMap((name) => {
          const value = answer.headers.get(name);
          return value === null ? [] : [[name, value]];
        }),
      ),
      body: _withoutSecrets(await answer.clone().text(), options.secretFields ?? []),
    };
    try {
      await fleetHours.idempotency.finish({ accountId: account, key, claimId, response });
    } catch {
      // P86: the change is made and its answer is this one; a key that could not be completed stays
      // claimed until its lease ends (409 to a retry meanwhile), which is better than answering 503
      // for a change that happened.
    }
  };
}

/** The first answer again (D53), with the new request's own rate-limit and request-id headers. */
/** A JSON object's text with the secret fields `null` (P80); any other text as it is. */
function _withoutSecrets(text: string, secretFields: readonly string[]): string {
  if (secretFields.length === 0) return text;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return text;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return text;
  const kept: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  for (const field of secretFields) if (field in kept) kept[field] = null;
  return JSON.stringify(kept);
}

function _replay(c: Context<FleetHoursEnv>, response: IdempotentResponse): Response {
  const headers = { ...response.headers, [IDEMPOTENT_REPLAYED_HEADER]: 'true' };
  // A 204 or 205 has no body at all (an empty one is refused by `Response`).
  if (response.status === 204 || response.status === 205) return c.body(null, response.status, headers);
  return c.body(response.body, response.status as ContentfulStatusCode, headers);
}

/**
 * The fingerprint of a request (D53): the hex SHA-256 of its method, path with query, and body. The
 * same JSON spelt otherwise is another body: a client that sends a request again sends its bytes.
 */
export async function requestFingerprint(method: string, url: string, body: string): Promise<string> {
  const { pathname, search } = new URL(url);
  const text = `${method.toUpperCase()} ${pathname}${search}\n${body}`;
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}
