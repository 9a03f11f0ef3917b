import { parseTagParameter } from '@fleet-hours/core';
import { parsePageQuery } from '@fleet-hours/core/adapter';
import type { Handler } from 'hono';
import type { FleetHoursEnv } from '../app-env.js';
import { jsonResponse } from '../respond/json-response.js';
import { accountId } from './account-id.js';
import { meterBody } from './meter.js';
import type { FleetRouteOptions } from './window-routes.js';

/**
 * `GET /api/v1/meter`: `/meter` for every device of the account, a page at a time (D32):
 * `{ data, next_cursor }`, each element exactly the body of `/devices/{id}/meter`; with `tag`, only
 * the devices having it (D61).
 */
export function fleetMeterRoute(options: FleetRouteOptions): Handler<FleetHoursEnv> {
  return async function fleetMeterPage(c) {
    const page = parsePageQuery(c.req.queries(), options.endpoint.paging.cursor);
    const tag = parseTagParameter(c.req.queries('tag'));
    const { items, nextCursor } = await options.fleetHours.fleet.meter({ accountId: accountId(c), ...page, tag });
    return jsonResponse(c, { data: items.map(meterBody), next_cursor: nextCursor });
  };
}
