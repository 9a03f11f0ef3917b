import type { MiddlewareHandler } from 'hono';
import type { FleetHoursEnv } from '../../app-env.js';

/** Options of {@link requestId}. */
export interface RequestIdOptions {
  /** Makes a new id when the request brings none (or one that is not sane). Default `crypto.randomUUID()`. */
  readonly generate?: () => string;
}

/** Ids a client or proxy may pass in: short, and safe to echo and to log. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Gives every request an id: the incoming `X-Request-Id` when it is sane (1–128 characters of
 * `A–Z a–z 0–9 . _ : -`), otherwise a new UUID. The id is echoed in the `X-Request-Id` response
 * header and written to the access log, so a client's report can be matched to the server's line.
 *
 * @param options How to make new ids.
 * @returns The middleware.
 */
export function requestId(options: RequestIdOptions = {}): MiddlewareHandler<FleetHoursEnv> {
  const generate = options.generate ?? (() => globalThis.crypto.randomUUID());
  return async function requestId(c, next) {
    const incoming = c.req.header('X-Request-Id');
    const id = incoming !== undefined && SANE_REQUEST_ID.test(incoming) ? incoming : generate();
    c.set('requestId', id);
    c.header('X-Request-Id', id);
    await next();
  };
}
