import type { Handler } from 'hono';
import type { FleetHoursEnv } from '../app-env.js';
import { fleetWindowRoute, type FleetRouteOptions } from './window-routes.js';
import { dailyBody } from './daily.js';

/**
 * `GET /api/v1/hours/daily`: `/hours/daily` for every device of the account, a page at a time
 * (D32): `{ data, next_cursor }`, each element exactly the body of `/devices/{id}/hours/daily`.
 */
export function fleetDailyRoute(options: FleetRouteOptions): Handler<FleetHoursEnv> {
  return fleetWindowRoute(options, (query) => options.fleetHours.fleet.daily(query), dailyBody);
}
