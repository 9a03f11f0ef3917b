import type { Handler } from 'hono';
import type { FleetHoursEnv } from '../app-env.js';
import { fleetWindowRoute, type FleetRouteOptions } from './window-routes.js';
import { hoursBody } from './hours.js';

/**
 * `GET /api/v1/hours`: `/hours` for every device of the account, a page at a time (D32):
 * `{ data, next_cursor }`, each element exactly the body of `/devices/{id}/hours`. The query is
 * checked whole (`from`, `to`, `limit`, `cursor`) before anything is read (D7, P11).
 */
export function fleetHoursRoute(options: FleetRouteOptions): Handler<FleetHoursEnv> {
  return fleetWindowRoute(options, (query) => options.fleetHours.fleet.hours(query), hoursBody);
}
