import type { FleetHours } from '@fleet-hours/core';
import type { MiddlewareHandler } from 'hono';
import type { FleetHoursEnv } from '../../app-env.js';

/** Options of {@link authenticate}. */
export interface AuthenticateOptions {
  /** The service whose `authenticate` decides (D10–D12). */
  readonly fleetHours: FleetHours;
}

/**
 * Checks the `Authorization: Bearer <key>` header against the store by fingerprint (D10) and
 * records the outcome for the rate limiter and `requireAccess`; it answers nothing itself, because
 * a refused key must still be counted (D14) before the refusal is sent (D11).
 *
 * @param options The service.
 * @returns The middleware.
 */
export function authenticate(options: AuthenticateOptions): MiddlewareHandler<FleetHoursEnv> {
  const { fleetHours } = options;
  return async function authenticate(c, next) {
    const authorization = c.req.header('Authorization');
    const access = await fleetHours.authenticate(authorization);
    // A 403 is still counted per key (D13): the denial carries the key it found.
    const keyId = access.ok ? access.apiKey.id : access.denial.status === 403 ? (access.apiKey?.id ?? null) : null;
    c.set('access', access);
    c.set('keyId', keyId);
    await next();
  };
}
