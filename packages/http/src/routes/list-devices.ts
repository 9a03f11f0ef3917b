import { formatInstant, type Device, type FleetHours } from '@fleet-hours/core';
import type { Handler } from 'hono';
import type { FleetHoursEnv } from '../app-env.js';
import { jsonResponse } from '../respond/json-response.js';
import { accountId } from './account-id.js';

/** A device as the API shows it (spec "Device"). */
export interface DeviceBody {
  readonly id: number;
  readonly name: string;
  readonly imei: string;
  readonly registration: string | null;
  readonly model: string;
  readonly status: string;
  readonly timezone: string;
  /** D9 timestamp in the device zone; `null` while the device has never reported. */
  readonly last_reported_at: string | null;
}

/**
 * A device as `GET /api/v1/devices` shows it: the spec's snake_case fields, `last_reported_at` as a
 * D9 timestamp in the device's own zone. Exported so that other front ends (the operator CLI) show
 * devices exactly as the API does.
 *
 * @param device The stored device.
 * @returns Its JSON body.
 * @example
 * ```ts
 * import type { Device } from '@fleet-hours/core';
 * import { deviceBody } from '@fleet-hours/http';
 * const device: Device = { id: 7, accountId: 1, name: 'Van 7', imei: '356938035643809', registration: null, model: 'Transit', status: 'active', timeZone: 'America/New_York', lastReportedAt: null };
 * deviceBody(device).timezone; // 'America/New_York'
 * ```
 */
export function deviceBody(device: Device): DeviceBody {
  return {
    id: device.id,
    name: device.name,
    imei: device.imei,
    registration: device.registration,
    model: device.model,
    status: device.status,
    timezone: device.timeZone,
    last_reported_at: device.lastReportedAt === null ? null : formatInstant(device.lastReportedAt, device.timeZone),
  };
}

/** `GET /api/v1/devices`: every device of the account, by id (D19). */
export function listDevicesRoute(options: { readonly fleetHours: FleetHours }): Handler<FleetHoursEnv> {
  return async function listDevices(c) {
    const devices = await options.fleetHours.listDevices({ accountId: accountId(c) });
    return jsonResponse(c, { data: devices.map(deviceBody) });
  };
}
