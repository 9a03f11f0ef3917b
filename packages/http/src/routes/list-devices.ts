import { deviceVersion, formatInstant, parseTagParameter, type Device, type FleetHours } from '@fleet-hours/core';
import type { Handler } from 'hono';
import type { FleetHoursEnv } from '../app-env.js';
import { accountId } from './account-id.js';
import { listRoute, wholeList } from './list-route.js';

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
  /** D61: its tags, as given. */
  readonly tags: readonly string[];
  /** D63: the machine's identity, each `null` when not given. */
  readonly oem_name: string | null;
  readonly equipment_model: string | null;
  readonly serial_number: string | null;
  readonly pin: string | null;
  /** D54: its version, the `ETag` of the device without the quotes; telemetry does not change it. */
  readonly version: string;
}

/**
 * A device as `GET /api/v1/devices` shows it: the spec's snake_case fields, `last_reported_at` as a
 * D9 timestamp in the device's own zone, and its `version` (D54). Exported so that other front ends
 * (the operator CLI) show devices exactly as the API does.
 *
 * @param device The stored device.
 * @returns Its JSON body.
 * @example
 * ```ts
 * import type { Device } from '@fleet-hours/core';
 * import { deviceBody } from '@fleet-hours/http';
 * const identity = { oemName: null, equipmentModel: null, serialNumber: null, pin: null };
 * const device: Device = { id: 7, accountId: 1, name: 'Van 7', imei: '356938035643809', registration: null, model: 'Transit', status: 'active', timeZone: 'America/New_York', lastReportedAt: null, tags: ['north'], ...identity };
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
    tags: device.tags,
    oem_name: device.oemName,
    equipment_model: device.equipmentModel,
    serial_number: device.serialNumber,
    pin: device.pin,
    version: deviceVersion(device),
  };
}

/** `GET /api/v1/devices`: every device of the account, by id (D19); with `tag`, those having it (D61); in CSV too (D62). */
export function listDevicesRoute(options: { readonly fleetHours: FleetHours; readonly now: () => number }): Handler<FleetHoursEnv> {
  return listRoute('devices', options.now, async function listDevices(c) {
    const tag = parseTagParameter(c.req.queries('tag'));
    const devices = await options.fleetHours.listDevices({ accountId: accountId(c), tag });
    return wholeList({ data: devices.map(deviceBody) });
  });
}
