import { parseServiceStatuses, parseTagParameter } from '@fleet-hours/core';
import { parsePageQuery } from '@fleet-hours/core/adapter';
import type { Handler } from 'hono';
import type { FleetHoursEnv } from '../app-env.js';
import { jsonResponse } from '../respond/json-response.js';
import { accountId } from './account-id.js';
import { serviceBody } from './service.js';
import type { FleetRouteOptions } from './window-routes.js';

/**
 * `GET /api/v1/service`: `/service` for every device of the account, a page at a time (D39, D32):
 * `{ data, next_cursor }`, each element exactly the body of `/devices/{id}/service`. With
 * `status` (e.g. `due_soon,overdue`, given once), only the devices with at least one schedule in
 * one of those statuses, each still with all its schedules; a page then holds up to `limit` such
 * devices; with `tag`, only the devices having it (D61). The query is checked whole (`limit`,
 * `cursor`, `status`, `tag`) before anything is read (P11).
 */
export function fleetServiceRoute(options: FleetRouteOptions): Handler<FleetHoursEnv> {
  return async function fleetServicePage(c) {
    const page = parsePageQuery(c.req.queries(), options.endpoint.paging.cursor);
    const statuses = parseServiceStatuses(c.req.queries('status'));
    const tag = parseTagParameter(c.req.queries('tag'));
    const { items, nextCursor } = await options.fleetHours.fleet.service({ accountId: accountId(c), ...page, statuses, tag });
    return jsonResponse(c, { data: items.map(serviceBody), next_cursor: nextCursor });
  };
}
