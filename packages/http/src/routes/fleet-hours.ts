import { parseWindowQuery, type FleetHours } from '@fleet-hours/core';
import { parsePageQuery } from '@fleet-hours/core/adapter';
import type { Handler } from 'hono';
import type { FleetHoursEnv } from '../app-env.js';
import { jsonResponse } from '../json-response.js';
import { _accountId } from './_account-id.js';
import { hoursBody } from './hours.js';

/**
 * `GET /api/v1/hours`: `/hours` for every device of the account, a page at a time (D32):
 * `{ data, next_cursor }`, each element exactly the body of `/devices/{id}/hours`. The query is
 * checked whole (`from`, `to`, `limit`, `cursor`) before anything is read (D7, P11).
 */
export function fleetHoursRoute(options: { readonly fleetHours: FleetHours }): Handler<FleetHoursEnv> {
  return async function fleetHoursPage(c) {
    const queries = c.req.queries();
    const dates = parseWindowQuery(queries);
    const page = parsePageQuery(queries, 'hours');
    const { items, nextCursor } = await options.fleetHours.fleet.hours({ accountId: _accountId(c), ...dates, ...page });
    return jsonResponse(c, { data: items.map(hoursBody), next_cursor: nextCursor });
  };
}
