import { consumeRateLimit, type RateLimitStore } from '@fleet-hours/core';
import type { Context, MiddlewareHandler } from 'hono';
import { ApiError } from '../../api-error.js';
import type { FleetHoursEnv } from '../../app-env.js';

/** Options of {@link rateLimit}. */
export interface RateLimitOptions {
  /** Where the counters live (in memory, or shared in the database: D15). */
  readonly store: RateLimitStore;
  /** Requests per minute without a valid key, per client address (D14). */
  readonly unauthenticatedLimit: number;
  /** The clock, epoch milliseconds. */
  readonly now: () => number;
  /** How to find the client address. */
  readonly clientAddress: (c: Context<FleetHoursEnv>) => string;
  /** The window, in seconds. Default 60 (D13). */
  readonly windowSeconds?: number;
}

/**
 * Counts the request in a fixed one-minute window (D13–D15) after `authenticate` has run:
 *
 * - a valid key: per key and route template (`key:<keyId>:<template>`), at the route's limit;
 *   over it, 429;
 * - a key refused with 401 (missing, unknown, revoked, expired): per client address
 *   (`address:<address>:unauthenticated`), so keys cannot be guessed at speed (D14); over it, 429;
 * - a valid key on a plan without API access: per key and route, for the headers only — the 403
 *   comes before any 429 (D11).
 *
 * Sets `X-RateLimit-Limit` and `X-RateLimit-Remaining` on the response whatever happens next
 * (D14); a 429 also carries `Retry-After` and `X-RateLimit-Reset`. A refused request does not use
 * up budget (D13).
 *
 * @param options The counters, the unauthenticated limit, the clock and the client address.
 * @returns The middleware.
 */
export function rateLimit(options: RateLimitOptions): MiddlewareHandler<FleetHoursEnv> {
  return async function rateLimit(c, next) {
    const route = c.get('route');
    const access = c.get('access');
    const keyId = c.get('keyId');
    if (!route || route.limit === null || !access) throw new Error('rateLimit() runs on API routes after authenticate()');

    const perKey = (access.ok || access.denial.status === 403) && typeof keyId === 'number';
    const decision = await consumeRateLimit({
      store: options.store,
      key: perKey ? `key:${keyId}:${route.template}` : `address:${options.clientAddress(c)}:unauthenticated`,
      limit: perKey ? route.limit : options.unauthenticatedLimit,
      now: options.now() / 1000,
      ...(options.windowSeconds === undefined ? {} : { windowSeconds: options.windowSeconds }),
    });
    c.set('rateLimit', decision);
    c.header('X-RateLimit-Limit', String(decision.limit));
    c.header('X-RateLimit-Remaining', String(decision.remaining));

    const planRefusal = !access.ok && access.denial.status === 403;
    if (!decision.allowed && !planRefusal) {
      const seconds = String(decision.resetSeconds);
      throw new ApiError(
        429,
        'rate_limited',
        `Rate limit of ${decision.limit} requests per minute reached${perKey ? ' for this endpoint' : ' for requests without a valid API key'}: retry in ${seconds} s`,
        { 'Retry-After': seconds, 'X-RateLimit-Reset': seconds },
      );
    }
    await next();
  };
}
