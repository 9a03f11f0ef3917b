import { FleetHoursError } from '@fleet-hours/core';
import type { MiddlewareHandler } from 'hono';
import type { FleetHoursEnv } from '../../app-env.js';

/** Options of {@link inFlightLimit}. */
export interface InFlightLimitOptions {
  /** Requests served at the same time, at most: the next one is refused at once. A positive integer. */
  readonly maxInFlight: number;
  /** Seconds the refusal asks the client to wait (`Retry-After`), a positive integer. Default 1: a slot frees as soon as a request is answered. */
  readonly retryAfterSeconds?: number;
}

/**
 * Bounds the requests in flight (D28): while `maxInFlight` requests are being served, the next
 * one is refused at once with 503 `service_unavailable` and `Retry-After`, instead of waiting in
 * a queue without limit — under overload, fast and clear answers, never a hang. A request holds
 * its slot until its response is ready. It throws the refusal for the app's error handler, which
 * formats every error (D16); the headers the request carries so far (the route's rate-limit
 * headers, P15) stay on it.
 *
 * One instance is one bound: share it between the routes that count together.
 *
 * @param options The bound and the `Retry-After` of a refusal.
 * @returns The middleware.
 * @throws {RangeError} When `maxInFlight` or `retryAfterSeconds` is not a positive integer.
 */
export function inFlightLimit(options: InFlightLimitOptions): MiddlewareHandler<FleetHoursEnv> {
  const { maxInFlight, retryAfterSeconds = 1 } = options;
  for (const [name, value] of [
    ['maxInFlight', maxInFlight],
    ['retryAfterSeconds', retryAfterSeconds],
  ] as const) {
    if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer: got "${String(value)}"`);
  }
  const refusalHeaders = { 'Retry-After': String(retryAfterSeconds) };
  let inFlight = 0;
  return async function inFlightLimit(_c, next) {
    if (inFlight >= maxInFlight) {
      throw new FleetHoursError('service_unavailable', {
        message: `Too many requests in flight (${maxInFlight}): refused at once`,
        headers: refusalHeaders,
      });
    }
    inFlight += 1;
    try {
      await next();
    } finally {
      inFlight -= 1;
    }
  };
}
