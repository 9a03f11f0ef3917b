import type { FleetHours, HoursTotal } from '@fleet-hours/core';
import type { Handler } from 'hono';
import type { FleetHoursEnv } from '../app-env.js';
import { jsonResponse } from '../respond/json-response.js';
import { deviceWindowRead } from './window-routes.js';

/** The JSON body of `/hours` (spec "Hours total"), the one place of its fields and their order: also each element of the fleet page (D32). */
export function hoursBody(total: HoursTotal) {
  return {
    device_id: total.deviceId,
    from: total.from,
    to: total.to,
    timezone: total.timeZone,
    engine_seconds: total.engineSeconds,
    moving_seconds: total.movingSeconds,
    idle_seconds: total.idleSeconds,
  };
}

/** `GET /api/v1/devices/{id}/hours`: totals over a window (D4–D7). */
export function hoursRoute(options: { readonly fleetHours: FleetHours }): Handler<FleetHoursEnv> {
  const read = deviceWindowRead((query) => options.fleetHours.hours(query), hoursBody);
  return async (c) => jsonResponse(c, await read(c));
}
