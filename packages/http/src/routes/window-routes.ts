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
import { jsonResponse } from '../respond/json-response.js';
import { parseDeviceId } from './parse-device-id.js';
import { accountId } from './account-id.js';

/** What a fleet route is built from: the service and its row of core's `READ_ENDPOINTS` (its page sizes and cursor, D32). */
export interface FleetRouteOptions {
  readonly fleetHours: FleetHours;
  readonly endpoint: { readonly paging: { readonly cursor: FleetEndpoint } };
}

/**
 * A read of one device over a window (`/hours`, `/hours/daily`): the window is checked (D7), then
 * the device id; a device that is not the account's answers 404 `device_not_found` (D11).
 */
export function deviceWindowRoute<T>(read: (query: WindowQuery) => Promise<T | null>, body: (value: T) => unknown): Handler<FleetHoursEnv> {
  return async (c: Context<FleetHoursEnv>) => {
    const dates = parseWindowQuery(c.req.queries());
    const deviceId = parseDeviceId(c.req.param('id') ?? '');
    const value = deviceId === null ? null : await read({ accountId: accountId(c), deviceId, ...dates });
    if (!value) throw new FleetHoursError('device_not_found');
    return jsonResponse(c, body(value));
  };
}

/**
 * A fleet page over a window (`/api/v1/hours`, `/api/v1/hours/daily`, D32): the query is checked
 * whole (window, `limit`, `cursor`, `tag`) before anything is read (D7, P11); `{ data, next_cursor }`.
 */
export function fleetWindowRoute<T>(
  endpoint: FleetRouteOptions['endpoint'],
  read: (query: FleetWindowQuery) => Promise<FleetPage<T>>,
  body: (value: T) => unknown,
): Handler<FleetHoursEnv> {
  return async (c: Context<FleetHoursEnv>) => {
    const queries = c.req.queries();
    const dates = parseWindowQuery(queries);
    const page = parsePageQuery(queries, endpoint.paging.cursor);
    const tag = parseTagParameter(queries.tag);
    const { items, nextCursor } = await read({ accountId: accountId(c), ...dates, ...page, tag });
    return jsonResponse(c, { data: items.map(body), next_cursor: nextCursor });
  };
}
