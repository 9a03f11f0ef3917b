import { StorageUnavailableError, type FleetHours } from '@fleet-hours/core';
import type { RoutePolicy } from '@fleet-hours/core/adapter';
import type { Handler } from 'hono';
import type { FleetHoursEnv } from '../app-env.js';
import { jsonResponse } from '../respond/json-response.js';

/** The liveness probe: the process is up (D30). */
export const HEALTH_PATH = '/healthz';
/** The readiness probe: the database answers (D30). */
export const READY_PATH = '/readyz';

/**
 * The probes' access rules (D30, P27): no credential, not counted — a load balancer or an
 * orchestrator asks every few seconds, and a probe must neither need a key nor use up a client's
 * budget. Like the reference (P14), they carry no rate-limit headers: no budget applies to them.
 */
export const PROBE_POLICIES = {
  health: { template: HEALTH_PATH, credential: null, limit: null },
  ready: { template: READY_PATH, credential: null, limit: null },
} as const satisfies Readonly<Record<string, RoutePolicy>>;

/** `GET /healthz`: 200 `{ "status": "ok" }` while the process serves requests; it asks no database. */
export function healthRoute(): Handler<FleetHoursEnv> {
  return function health(c) {
    return jsonResponse(c, { status: 'ok' });
  };
}

/**
 * `GET /readyz`: 200 `{ "status": "ready" }` once the store answers a round trip (its `ping()`, or
 * a key lookup that finds nothing for a store without one); otherwise 503 `service_unavailable`,
 * as any request that cannot reach the database (D18), so that a load balancer sends no traffic to
 * an instance whose database is gone.
 */
export function readyRoute(options: { readonly fleetHours: FleetHours }): Handler<FleetHoursEnv> {
  const { store } = options.fleetHours;
  const probe = store.ping ? () => store.ping!() : () => store.findApiKey({ fingerprint: '0'.repeat(64) });
  return async function ready(c) {
    try {
      await probe();
    } catch (error) {
      throw error instanceof StorageUnavailableError ? error : new StorageUnavailableError('The readiness check failed', { cause: error });
    }
    return jsonResponse(c, { status: 'ready' });
  };
}
