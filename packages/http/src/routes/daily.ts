import { FleetHoursError, parseWindowQuery, type DailyHours, type FleetHours } from '@fleet-hours/core';
import type { Handler } from 'hono';
import type { FleetHoursEnv } from '../app-env.js';
import { jsonResponse } from '../json-response.js';
import { parseDeviceId } from '../parse-device-id.js';
import { _accountId } from './_account-id.js';

/** The JSON body of `/hours/daily` (D8), the one place of its fields and their order: also each element of the fleet page (D32). */
export function dailyBody(series: DailyHours) {
  return {
    device_id: series.deviceId,
    timezone: series.timeZone,
    from: series.from,
    to: series.to,
    data: series.days.map((day) => ({
      date: day.date,
      engine_seconds: day.engineSeconds,
      moving_seconds: day.movingSeconds,
      idle_seconds: day.idleSeconds,
    })),
  };
}

/** `GET /api/v1/devices/{id}/hours/daily`: one entry per local day of the window (D8). */
export function dailyRoute(options: { readonly fleetHours: FleetHours }): Handler<FleetHoursEnv> {
  return async function daily(c) {
    const dates = parseWindowQuery(c.req.queries());
    const deviceId = parseDeviceId(c.req.param('id') ?? '');
    const series = deviceId === null ? null : await options.fleetHours.daily({ accountId: _accountId(c), deviceId, ...dates });
    if (!series) throw new FleetHoursError('device_not_found');
    return jsonResponse(c, dailyBody(series));
  };
}
