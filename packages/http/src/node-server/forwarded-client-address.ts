import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';

/**
 * The `clientAddress` of an app behind `trustedHops` reverse proxies that each append the address
 * they received the request from to `X-Forwarded-For` (nginx's `$proxy_add_x_forwarded_for`): the
 * N-th entry from the right, which the outermost trusted proxy wrote (P30). Entries further left
 * are the client's own claims and are never believed (P13). With `trustedHops` 0, with no header or
 * with fewer entries than `trustedHops`, the socket's address under `@hono/node-server` (else
 * `'unknown'`).
 *
 * @param trustedHops How many proxies in front of the server append to `X-Forwarded-For`; a whole number ≥ 0.
 * @returns A function for `createFleetHoursApp({ clientAddress })`.
 * @throws {RangeError} When `trustedHops` is not a whole number ≥ 0.
 * @example
 * ```ts
 * import { createFleetHours, createMemoryStore } from '@fleet-hours/core';
 * import { createFleetHoursApp, forwardedClientAddress } from '@fleet-hours/http';
 * const fleetHours = createFleetHours({ store: createMemoryStore(), now: Date.now });
 * // Behind one nginx that sets X-Forwarded-For $proxy_add_x_forwarded_for:
 * const app = createFleetHoursApp({ fleetHours, clientAddress: forwardedClientAddress(1) });
 * ```
 */
export function forwardedClientAddress(trustedHops: number): (c: Context) => string {
  if (!Number.isSafeInteger(trustedHops) || trustedHops < 0)
    throw new RangeError(`Trusted proxy hops must be a whole number ≥ 0, got ${String(trustedHops)}`);
  return function clientAddress(c) {
    if (trustedHops > 0) {
      // Several X-Forwarded-For lines arrive joined by ", ", like the entries of one line.
      const entries = (c.req.header('X-Forwarded-For') ?? '')
        .split(',')
        .map((entry) => entry.trim())
        .filter((entry) => entry !== '');
      const trusted = entries[entries.length - trustedHops];
      if (trusted !== undefined) return trusted;
    }
    return _socketAddress(c);
  };
}

function _socketAddress(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    // Not running under @hono/node-server (app.request() in tests, another runtime).
    return 'unknown';
  }
}
