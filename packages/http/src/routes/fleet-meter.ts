import { parseTagParameter } from '@fleet-hours/core';
import { parsePageQuery } from '@fleet-hours/core/adapter';
import type { Handler } from 'hono';
import type { FleetHoursEnv } from '../app-env.js';
import { accountId } from './account-id.js';
import { listPageQuery, listRoute, pagedList } from './list-route.js';
import { meterBody } from './meter.js';
import type { FleetRouteOptions } from './window-routes.js';

/**
 * `GET /api/v1/meter`: `/meter` for every device of the account, a page at a time (D32):
 * `{ data, next_cursor }`, each element exactly the body of `/devices/{id}/meter`; with `tag`, only
 * the devices having it (D61).
 */
export function fleetMeterRoute(options: FleetRouteOptions): Handler<FleetHoursEnv> {
  const { cursor: endpoint } = options.endpoint.paging;
  return listRoute(options.endpoint.name, options.now, async function fleetMeterPage(c, { whole }) {
    const page = listPageQuery(parsePageQuery(c.req.queries(), endpoint), endpoint, whole);
    const tag = parseTagParameter(c.req.queries('tag'));
    return pagedList(async (cursor) => {
      const { items, nextCursor } = await options.fleetHours.fleet.meter({ accountId: accountId(c), ...page, cursor, tag });
      return { body: { data: items.map(meterBody), next_cursor: nextCursor }, nextCursor };
    }, page.cursor);
  });
}
