import { parseWindowQuery, type FleetHours } from '@fleet-hours/core';
import { parsePageQuery } from '@fleet-hours/core/adapter';
import type { Handler } from 'hono';
import type { FleetHoursEnv } from '../app-env.js';
import { jsonResponse } from '../json-response.js';
import { _accountId } from './_account-id.js';
import { dailyBody } from './daily.js';

/**
 * `GET /api/v1/hours/daily`: `/hours/daily` for every device of the account, a page at a time
 * (D32): `{ data, next_cursor }`, each element exactly the body of `/devices/{id}/hours/daily`.
 */
export function fleetDailyRoute(options: { readonly fleetHours: FleetHours }): Handler<FleetHoursEnv> {
  return async function fleetDailyPage(c) {
    const queries = c.req.queries();
    const dates = parseWindowQuery(queries);
    const page = parsePageQuery(queries, 'daily');
    const { items, nextCursor } = await options.fleetHours.fleet.daily({ accountId: _accountId(c), ...dates, ...page });
    return jsonResponse(c, { data: items.map(dailyBody), next_cursor: nextCursor });
  };
}
