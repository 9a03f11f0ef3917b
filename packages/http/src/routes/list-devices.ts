import {
  deviceVersion,
  formatInstant,
  parseTagParameter,
  type Device,
  type DevicePosition,
  type FleetHours,
  type FleetHoursStore,
} from '@fleet-hours/core';
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
  /** P157: the newest position its points carried, `at` a D9 timestamp in the device zone; `null` before one. */
  readonly position: { readonly latitude: number; readonly longitude: number; readonly at: string } | null;
  /** D54: its version, the `ETag` of the device without the quotes; telemetry does not change it. */
  readonly version: string;
}

/**
 * A device as `GET /api/v1/devices` shows it: the spec's snake_case fields, `last_reported_at` as a
 * D9 timestamp in the device's own zone, and its `version` (D54). Exported so that other front ends
 * (the operator CLI) show devices exactly as the API does.
 *
 * @param device The stored device.
 * @param position Its newest position (P157), from the store's `listDevicePositions`; `null` for none.
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
export function deviceBody(device: Device, position: DevicePosition | null = null): DeviceBody {
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
    position:
      position === null
        ? null
        : { latitude: position.latitude, longitude: position.longitude, at: formatInstant(position.time, device.timeZone) },
    version: deviceVersion(device),
  };
}

/**
 * P157: the bodies of `devices`, each with its newest position, read in ONE store call for them all
 * (D49: not a call per device). Exported so that the operator CLI shows devices as the API does.
 */
export async function deviceBodies(store: FleetHoursStore, devices: readonly Device[]): Promise<DeviceBody[]> {
  if (devices.length === 0) return [];
  const positions = await store.listDevicePositions({ deviceIds: devices.map((device) => device.id) });
  const byDevice = new Map(positions.map((position) => [position.deviceId, position]));
  return devices.map((device) => deviceBody(device, byDevice.get(device.id) ?? null));
}

/** `GET /api/v1/devices`: every device of the account, by id (D19); with `tag`, those having it (D61); in CSV too (D62). */
export function listDevicesRoute(options: { readonly fleetHours: FleetHours; readonly now: () => number }): Handler<FleetHoursEnv> {
  return listRoute('devices', options.now, async function listDevices(c) {
    const tag = parseTagParameter(c.req.queries('tag'));
    const devices = await options.fleetHours.listDevices({ accountId: accountId(c), tag });
    return wholeList({ data: await deviceBodies(options.fleetHours.store, devices) });
  });
}
