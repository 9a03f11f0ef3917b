import { FleetHoursError, InvalidFieldError } from '../errors/errors.js';
import type { FleetHoursStore } from '../store/storage-port.js';
import { controlCharacterRefusal } from '../text/clean-text.js';
import { normalizeTimeZone } from '../time/time-zone.js';
import type { Device, DeviceChanges } from '../types.js';
import { deviceChangeFields } from './audit-log.js';
import type { ChangeLog, ChangeOrigin } from './change-log.js';
import { changeUnits } from './change-unit.js';
import { readDeviceTags } from './device-tags.js';
import { entityVersion, ifMatchNames, preconditionFailed } from './entity-tag.js';

/**
 * Creating and changing devices (D52): the one implementation behind `POST /api/v1/devices`,
 * `PATCH /api/v1/devices/{id}` and the CLI's `devices create` and `devices update`. Each field is
 * checked here, by its name in the API's body (the CLI's options have the same names), so that
 * both front ends refuse the same input with the same message.
 */

/** The statuses a device can be given (D52): an inactive device frees its IMEI (D25). */
export const DEVICE_STATUSES = ['active', 'inactive'] as const;

/** D63 (P94): the machine's identity, by the names D63 gives it: the API's body, the CLI's options and the stores' columns. */
export const MACHINE_IDENTITY_FIELDS = ['oem_name', 'equipment_model', 'serial_number', 'pin'] as const;

/** The fields of a device that a write gives, by their names in the API's body. */
export const DEVICE_FIELDS = [
  'name',
  'imei',
  'model',
  'timezone',
  'registration',
  'status',
  // D61, D63 (P93, P94)
  'tags',
  ...MACHINE_IDENTITY_FIELDS,
] as const;

/** D63 (P94): the machine's identity, each optional text (empty or `null`: none), by API name and the device's property. */
const _IDENTITY_FIELDS = [
  ['oem_name', 'oemName'],
  ['equipment_model', 'equipmentModel'],
  ['serial_number', 'serialNumber'],
  ['pin', 'pin'],
] as const;

/** A field of {@link DEVICE_FIELDS}. */
export type DeviceField = (typeof DEVICE_FIELDS)[number];

/** The fields a new device needs. */
const _REQUIRED: readonly DeviceField[] = ['name', 'imei', 'model', 'timezone'];

/** The longest name, IMEI, model, registration or identity field (D63), in characters: longer is a mistake, not a vehicle. */
export const DEVICE_TEXT_MAX = 200;

/** The fields of a device as a write gives them: checked, trimmed, the zone in its canonical spelling. */
export type DeviceFields = DeviceChanges;

/** What a new device is created with, checked. */
export type NewDeviceFields = DeviceFields & {
  readonly name: string;
  readonly imei: string;
  readonly model: string;
  readonly timeZone: string;
};

/**
 * Checks the fields of a device write, field by field (D52): a JSON object whose every key is a
 * field of {@link DEVICE_FIELDS}; `name`, `imei`, `model` and `timezone` needed to create;
 * texts trimmed, not empty, without control characters (D50), at most {@link DEVICE_TEXT_MAX}
 * characters; `timezone` an IANA name; `registration` a text or `null` (empty is `null`);
 * `status` `active` or `inactive`; `tags` as {@link readDeviceTags} reads them (D61); `oem_name`,
 * `equipment_model`, `serial_number` and `pin` each a text as a name or `null` (empty is `null`,
 * D63). A change needs at least one field.
 *
 * @param input The body, as parsed from JSON (or the CLI's options by the same names).
 * @param mode `create` or `update`.
 * @returns The checked fields.
 * @throws {InvalidFieldError} Naming the first field that cannot be used, unknown fields included.
 * @throws {FleetHoursError} `invalid_body` when the input is not an object, or a change without fields.
 * @example
 * ```ts
 * import { readDeviceFields } from '@fleet-hours/core';
 * readDeviceFields({ name: ' Truck 7 ', timezone: 'europe/berlin' }, 'update'); // { name: 'Truck 7', timeZone: 'Europe/Berlin' }
 * ```
 */
export function readDeviceFields(input: unknown, mode: 'create'): NewDeviceFields;
export function readDeviceFields(input: unknown, mode: 'update'): DeviceFields;
export function readDeviceFields(input: unknown, mode: 'create' | 'update'): DeviceFields {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw new FleetHoursError('invalid_body', { message: 'The body must be a JSON object with the fields of a device' });
  const given = input as Readonly<Record<string, unknown>>;
  for (const field of Object.keys(given)) {
    if (!(DEVICE_FIELDS as readonly string[]).includes(field))
      throw new InvalidFieldError(field, `Unknown field "${field}": a device has ${DEVICE_FIELDS.join(', ')}`);
  }
  if (mode === 'create') {
    for (const field of _REQUIRED) if (given[field] === undefined) throw new InvalidFieldError(field, `${field} is required`);
  } else if (Object.keys(given).length === 0) {
    throw new FleetHoursError('invalid_body', { message: `Nothing to change: give at least one of ${DEVICE_FIELDS.join(', ')}` });
  }
  const fields: { -readonly [K in keyof DeviceFields]: DeviceFields[K] } = {};
  if (given.name !== undefined) fields.name = _text('name', given.name);
  if (given.imei !== undefined) fields.imei = _text('imei', given.imei);
  if (given.model !== undefined) fields.model = _text('model', given.model);
  if (given.timezone !== undefined) fields.timeZone = _timeZone(given.timezone);
  if (given.registration !== undefined)
    fields.registration = given.registration === null || given.registration === '' ? null : _text('registration', given.registration);
  if (given.status !== undefined) fields.status = _status(given.status);
  if (given.tags !== undefined) fields.tags = readDeviceTags(given.tags);
  for (const [field, property] of _IDENTITY_FIELDS) {
    const value = given[field];
    if (value !== undefined) fields[property] = value === null || value === '' ? null : _text(field, value);
  }
  return fields;
}

/** The service's writes of devices (D52): every front end's. */
export interface DeviceWrites {
  /**
   * Creates a device of the account from the fields of a write.
   *
   * @returns The device; `null` when the account does not exist.
   * @throws {InvalidFieldError} A field that cannot be used (400).
   * @throws {ImeiInUseError} The IMEI already names an active device of the account (409 `conflict`, D25).
   */
  createDevice(input: {
    readonly accountId: number;
    readonly fields: unknown;
    /** D55: who asks, recorded in the change log once the device is created. */
    readonly origin: ChangeOrigin;
  }): Promise<Device | null>;
  /**
   * Changes a device of the account.
   *
   * @returns The device; `null` when the account has no such device (another account's included).
   * @throws {InvalidFieldError} A field that cannot be used (400).
   * @throws {ImeiInUseError} The new IMEI, or making the device active, would give two active devices one IMEI (D25).
   * @throws {FleetHoursError} `precondition_failed` (412) when `ifMatch` names none of the device's tag, also when it changes meanwhile (D54).
   */
  updateDevice(input: {
    readonly accountId: number;
    readonly deviceId: number;
    readonly fields: unknown;
    /** D54: an `If-Match` header value: the change applies only to the device with one of these tags (`*`: any). */
    readonly ifMatch?: string | undefined;
    /** D55: who asks, recorded in the change log once the device is changed. */
    readonly origin: ChangeOrigin;
  }): Promise<Device | null>;
}

/**
 * The writes of devices over a store (D52). The fields are checked before the store is asked
 * anything, so a bad field is 400 whichever device it names. Each change that succeeded is
 * reported to the change log (D55): `device.create` and `device.update`, the device by its API
 * fields before and after, in the change's unit (P102): kept with it or not at all.
 *
 * @param store The store.
 * @param changeLog Where the changes are reported (D55).
 * @returns The writes.
 */
export function deviceWrites(store: FleetHoursStore, changeLog: ChangeLog): DeviceWrites {
  // P102: each write reads, changes and reports in one unit of the store.
  const inUnit = changeUnits(store, changeLog);
  const report = (changeLog: ChangeLog, accountId: number, origin: ChangeOrigin, before: Device | null, after: Device) =>
    changeLog.record({
      accountId,
      origin,
      action: before === null ? 'device.create' : 'device.update',
      resource: { type: 'device', id: String(after.id) },
      before: before === null ? null : deviceChangeFields(before),
      after: deviceChangeFields(after),
    });
  return {
    async createDevice({ accountId, fields, origin }) {
      const checked = readDeviceFields(fields, 'create');
      return inUnit(async ({ store, changeLog }) => {
        const device = await store.createDevice({ accountId, ...checked });
        if (device) await report(changeLog, accountId, origin, null, device);
        return device;
      });
    },
    async updateDevice({ accountId, deviceId, fields, ifMatch, origin }) {
      const changes = readDeviceFields(fields, 'update');
      // P150: the device is read before the unit, which then holds its connection for the change
      // and its entry only; the change applies only to the device as read (`expected`), so the
      // entry's `before` is the device the change replaced.
      const read = await store.findDevice({ accountId, deviceId });
      if (!read) return null;
      if (ifMatch !== undefined && !ifMatchNames(ifMatch, deviceVersion(read))) throw preconditionFailed('device');
      const updated = await inUnit(async ({ store, changeLog }) => {
        const updated = await store.updateDevice({ deviceId, changes, expected: read });
        if (updated) await report(changeLog, accountId, origin, read, updated);
        return updated;
      });
      if (updated) return updated;
      // D54: with If-Match, a change in between is 412.
      if (ifMatch !== undefined) throw preconditionFailed('device');
      // P150: changed in between: read again and change in one unit, as the device then is.
      return inUnit(async ({ store, changeLog }) => {
        // A device never changes account: once found on this one, the change is the account's.
        const current = await store.findDevice({ accountId, deviceId });
        if (!current) return null;
        const changed = await store.updateDevice({ deviceId, changes });
        if (changed) await report(changeLog, accountId, origin, current, changed);
        return changed;
      });
    },
  };
}

function _text(field: DeviceField, value: unknown): string {
  if (typeof value !== 'string') throw new InvalidFieldError(field, `${field} must be a string`);
  const refusal = controlCharacterRefusal(field, value);
  if (refusal !== null) throw new InvalidFieldError(field, refusal);
  const text = value.trim();
  if (text === '') throw new InvalidFieldError(field, `${field} must not be empty`);
  if (text.length > DEVICE_TEXT_MAX) throw new InvalidFieldError(field, `${field} must be at most ${DEVICE_TEXT_MAX} characters`);
  return text;
}

function _timeZone(value: unknown): string {
  if (typeof value !== 'string') throw new InvalidFieldError('timezone', 'timezone must be a string: an IANA name such as "Europe/Berlin"');
  try {
    return normalizeTimeZone(value.trim());
  } catch (error) {
    throw new InvalidFieldError('timezone', `timezone: ${(error as Error).message}`);
  }
}

function _status(value: unknown): (typeof DEVICE_STATUSES)[number] {
  if (typeof value !== 'string' || !(DEVICE_STATUSES as readonly string[]).includes(value))
    throw new InvalidFieldError('status', `status must be one of ${DEVICE_STATUSES.join(', ')}, got ${JSON.stringify(value)}`);
  return value as (typeof DEVICE_STATUSES)[number];
}

/**
 * The version of a device (D54, P73): a hash of the fields a write can change (name, IMEI,
 * registration, model, status, zone, tags and identity, D61, D63), so that new telemetry does not
 * change it. It is the `version` field of every device body, and its `ETag` without the quotes.
 *
 * @param device The device.
 * @returns The version, unquoted: `d-0123456789abcdef`.
 * @example
 * ```ts
 * import { deviceVersion } from '@fleet-hours/core';
 * const identity = { oemName: null, equipmentModel: null, serialNumber: null, pin: null };
 * deviceVersion({ id: 1, accountId: 1, name: 'Truck', imei: '1', registration: null, model: 'M', status: 'active', timeZone: 'UTC', lastReportedAt: null, tags: [], ...identity }).length; // 18
 * ```
 */
export function deviceVersion(device: Device): string {
  return entityVersion('d', [
    device.name,
    device.imei,
    device.registration,
    device.model,
    device.status,
    device.timeZone,
    // D61, D63 (P93, P94)
    device.tags,
    device.oemName,
    device.equipmentModel,
    device.serialNumber,
    device.pin,
  ]);
}

/**
 * The entity tag of a device (D54): its {@link deviceVersion} in double quotes, a strong `ETag`.
 *
 * @param device The device.
 * @returns The tag, quoted: `"d-0123456789abcdef"`.
 * @example
 * ```ts
 * import { deviceEntityTag } from '@fleet-hours/core';
 * const identity = { oemName: null, equipmentModel: null, serialNumber: null, pin: null };
 * deviceEntityTag({ id: 1, accountId: 1, name: 'Truck', imei: '1', registration: null, model: 'M', status: 'active', timeZone: 'UTC', lastReportedAt: null, tags: [], ...identity }).length; // 20
 * ```
 */
export function deviceEntityTag(device: Device): string {
  return `"${deviceVersion(device)}"`;
}

/** Whether two devices have the same fields a write can change: what {@link deviceEntityTag} covers (D54). */
export function sameDeviceFields(a: Device, b: Device): boolean {
  return deviceEntityTag(a) === deviceEntityTag(b);
}
