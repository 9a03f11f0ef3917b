import {
  FleetHoursError,
  parseTagParameter,
  parseWindowQuery,
  type FleetEndpoint,
  type FleetHours,
  type FleetPage,
  type FleetWindowQuery,
  type WindowQuery,
} from '@fleet-hours/core';
import { parsePageQuery } from '@fleet-hours/core/adapter';
import type { Context, Handler } from 'hono';
import type { FleetHoursEnv } from '../app-env.js';
import { parseDeviceId } from './parse-device-id.js';
import { accountId } from './account-id.js';
import { listPageQuery, listRoute, pagedList } from './list-route.js';

/** What a fleet route is built from: the service, its row of core's `READ_ENDPOINTS` (its page sizes and cursor, D32; its CSV list, D62) and the app's clock. */
export interface FleetRouteOptions {
  readonly fleetHours: FleetHours;
  readonly endpoint: {
    readonly name: 'fleetHours' | 'fleetDaily' | 'fleetMeter' | 'fleetService';
    readonly paging: { readonly cursor: FleetEndpoint };
  };
  readonly now: () => number;
}

/**
 * A read of one device over a window (`/hours`, `/hours/daily`): the window is checked (D7), then
 * the device id; a device that is not the account's answers 404 `device_not_found` (D11).
 * Returns the JSON answer.
 */
export function deviceWindowRead<T>(
  read: (query: WindowQuery) => Promise<T | null>,
  body: (value: T) => unknown,
): (c: Context<FleetHoursEnv>) => Promise<unknown> {
  return async (c: Context<FleetHoursEnv>) => {
    const dates = parseWindowQuery(c.req.queries());
    const deviceId = parseDeviceId(c.req.param('id') ?? '');
    const value = deviceId === null ? null : await read({ accountId: accountId(c), deviceId, ...dates });
    if (!value) throw new FleetHoursError('device_not_found');
    return body(value);
  };
}

/**
 * A fleet page over a window (`/api/v1/hours`, `/api/v1/hours/daily`, D32): the query is checked
 * whole (window, `limit`, `cursor`, `tag`) before anything is read (D7, P11); `{ data, next_cursor }`;
 * in CSV, every page (D62).
 */
export function fleetWindowRoute<T>(
  options: Omit<FleetRouteOptions, 'fleetHours'>,
  read: (query: FleetWindowQuery) => Promise<FleetPage<T>>,
  body: (value: T) => unknown,
): Handler<FleetHoursEnv> {
  const { endpoint } = options;
  return listRoute(endpoint.name, options.now, async (c, { whole }) => {
    const queries = c.req.queries();
    const dates = parseWindowQuery(queries);
    const page = listPageQuery(parsePageQuery(queries, endpoint.paging.cursor), endpoint.paging.cursor, whole);
    const tag = parseTagParameter(queries.tag);
    return pagedList(async (cursor) => {
      const { items, nextCursor } = await read({ accountId: accountId(c), ...dates, ...page, cursor, tag });
      return { body: { data: items.map(body), next_cursor: nextCursor }, nextCursor };
    }, page.cursor);
  });
}
