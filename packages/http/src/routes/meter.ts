import { FleetHoursError, type FleetHours, type MeterRecord } from '@fleet-hours/core';
import type { Handler } from 'hono';
import type { FleetHoursEnv } from '../app-env.js';
import { jsonResponse } from '../respond/json-response.js';
import { parseDeviceId } from './parse-device-id.js';
import { accountId } from './account-id.js';

/** The JSON body of `/meter` (D3), the one place of its fields and their order: also each element of the fleet page (D32). */
export function meterBody(record: MeterRecord) {
  return {
    device_id: record.deviceId,
    timezone: record.timeZone,
    since: record.since,
    as_of: record.asOf,
    engine_seconds: record.engineSeconds,
    moving_seconds: record.movingSeconds,
    idle_seconds: record.idleSeconds,
    hour_meter_seconds: record.hourMeterSeconds,
    hour_meter_read_at: record.hourMeterReadAt,
  };
}

/** `GET /api/v1/devices/{id}/meter`: the running total since the tracker started reporting (D3). */
export function meterRoute(options: { readonly fleetHours: FleetHours }): Handler<FleetHoursEnv> {
  return async function meter(c) {
    const deviceId = parseDeviceId(c.req.param('id') ?? '');
    const record = deviceId === null ? null : await options.fleetHours.meter({ accountId: accountId(c), deviceId });
    if (!record) throw new FleetHoursError('device_not_found');
    return jsonResponse(c, meterBody(record));
  };
}
