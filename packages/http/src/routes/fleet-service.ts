import { parseServiceStatuses, parseTagParameter } from '@fleet-hours/core';
import { parsePageQuery } from '@fleet-hours/core/adapter';
import type { Handler } from 'hono';
import type { FleetHoursEnv } from '../app-env.js';
import { accountId } from './account-id.js';
import { listPageQuery, listRoute, pagedList } from './list-route.js';
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
  const { cursor: endpoint } = options.endpoint.paging;
  return listRoute(options.endpoint.name, options.now, async function fleetServicePage(c, { whole }) {
    const page = listPageQuery(parsePageQuery(c.req.queries(), endpoint), endpoint, whole);
    const statuses = parseServiceStatuses(c.req.queries('status'));
    const tag = parseTagParameter(c.req.queries('tag'));
    return pagedList(async (cursor) => {
      const { items, nextCursor } = await options.fleetHours.fleet.service({ accountId: accountId(c), ...page, cursor, statuses, tag });
      return { body: { data: items.map(serviceBody), next_cursor: nextCursor }, nextCursor };
    }, page.cursor);
  });
}
