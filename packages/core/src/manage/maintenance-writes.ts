import { FleetHoursError, InvalidFieldError, InvalidParameterError } from '../errors/errors.js';
import { serviceScheduleBody } from '../events/service-schedule-body.js';
import { checkHourMeterReading } from '../maintenance/hour-meter.js';
import {
  changeServiceSchedule,
  checkHourMeterSeconds,
  checkServiceSchedule,
  MAX_SERVICE_INTERVAL_DAYS,
  MAX_SERVICE_INTERVAL_SECONDS,
} from '../maintenance/service-status.js';
import type { FleetHoursStore } from '../store/storage-port.js';
import { controlCharacterRefusal } from '../text/clean-text.js';
import { formatInstant } from '../time/format-instant.js';
import { givenInstantRangeMessage, isGivenInstantInRange } from '../time/instant-floor.js';
import { parseInstant } from '../time/parse-instant.js';
import type {
  Device,
  DeviceService,
  EpochSeconds,
  HourMeterReading,
  ServiceSchedule,
  ServiceScheduleChanges,
  ServiceScheduleState,
} from '../types.js';
import type { ChangeLog, ChangeOrigin } from './change-log.js';
import { entityVersion, ifMatchNames } from './entity-tag.js';

/**
 * Hour-meter readings, service schedules and services done (D38, D39, D52): the one implementation
 * behind `/api/v1/devices/{id}/hour-meter/readings`, `/api/v1/devices/{id}/service/schedules` (and
 * its `/done`) and the CLI's `hour-meter set|list|remove` and `service create|update|done|remove`.
 * Each field is checked here by its name in the API's body; the CLI names its options after them
 * (P76). Every write names its origin and reports its change to the change log (D55).
 */

/** The fields of a reading's write, by their names in the API's body (D38). */
export const READING_FIELDS = ['read_at', 'reading_seconds', 'source'] as const;

/** The fields of a schedule's write, by their names in the API's body (D39). */
export const SCHEDULE_FIELDS = [
  'name',
  'interval_seconds',
  'interval_days',
  'due_soon_seconds',
  'due_soon_days',
  'last_done_at',
  'last_done_hour_meter_seconds',
] as const;

/** The fields of a service done (D39): when, and optionally the hour meter then (recorded as a reading too). */
export const SERVICE_DONE_FIELDS = ['done_at', 'hour_meter_seconds'] as const;

/** The source of a reading recorded by a person (the API or the CLI); the only one a write gives. */
export const MANUAL_READING_SOURCE = 'manual';

/** Readings per page of `GET …/hour-meter/readings` by default, and the most a page may hold. */
export const READING_PAGE_SIZES = { default: 100, max: 500 } as const;

/** A reading as the API and the CLI show it (D38, D54): instants in the device's zone (D9). */
export interface HourMeterReadingBody {
  readonly id: number;
  readonly device_id: number;
  readonly read_at: string;
  readonly reading_seconds: number;
  readonly source: string;
  readonly recorded_at: string;
  readonly version: string;
}

/** A schedule as the API answers a write of it: as `/service` shows it, with its version (D39, D54). */
export type ServiceScheduleWriteBody = ReturnType<typeof serviceScheduleBody> & { readonly version: string };

/** A page of a device's readings, newest first. */
export interface HourMeterReadingPage {
  readonly device: Device;
  readonly readings: readonly HourMeterReading[];
  /** Where the next page starts; `null` on the last page. */
  readonly nextCursor: string | null;
}

/** A reading just recorded, with the hour meter it gives now (D38). */
export interface RecordedReading {
  readonly device: Device;
  readonly reading: HourMeterReading;
  /** The device's readings before this one, newest first (for the CLI's note on a lower reading). */
  readonly earlier: readonly HourMeterReading[];
  /** Whether it replaced the reading at the same instant (same id). */
  readonly replaced: boolean;
  readonly hourMeter: { readonly seconds: number; readonly readAt: string | null };
}

/** A schedule after a write, where it stands now (D39). */
export interface ScheduleWrite {
  readonly device: Device;
  readonly schedule: ServiceSchedule;
  readonly state: ServiceScheduleState;
  readonly service: DeviceService;
}

/** The service's writes of readings and schedules (D52): every front end's. */
export interface MaintenanceWrites {
  /**
   * A page of the device's readings, newest first.
   *
   * @returns `null` when the account has no such device (another account's included).
   * @throws {InvalidParameterError} `limit` or `cursor` that cannot be used (400).
   */
  hourMeterReadings(input: {
    readonly accountId: number;
    readonly deviceId: number;
    readonly limit?: number | undefined;
    readonly cursor?: string | undefined;
  }): Promise<HourMeterReadingPage | null>;
  /**
   * Records a reading (`read_at` default now, `reading_seconds`); one at the same instant is replaced (same id).
   *
   * @returns `null` when the account has no such device.
   * @throws {InvalidFieldError} A field that cannot be used (400).
   */
  addHourMeterReading(input: _Write & { readonly fields: unknown }): Promise<RecordedReading | null>;
  /**
   * Removes a reading of the device.
   *
   * @returns The device and the reading removed; `null` when the account has no such device.
   * @throws {FleetHoursError} `device_not_found` (404, as a missing device) when the device has no such reading; `precondition_failed` (412).
   */
  removeHourMeterReading(
    input: _Write & { readonly readingId: number; readonly ifMatch?: string | undefined },
  ): Promise<{ readonly device: Device; readonly reading: HourMeterReading } | null>;
  /**
   * Creates a schedule of the device; without `last_done_at` its last service is now.
   *
   * @returns `null` when the account has no such device.
   * @throws {InvalidFieldError} A field that cannot be used (400).
   * @throws {FleetHoursError} `conflict` (409) when the device has a schedule of that name.
   */
  createServiceSchedule(input: _Write & { readonly fields: unknown }): Promise<ScheduleWrite | null>;
  /**
   * Changes a schedule of the device.
   *
   * @returns `null` when the account has no such device.
   * @throws {FleetHoursError} `device_not_found` (404, as a missing device), `conflict` (409), `precondition_failed` (412).
   */
  updateServiceSchedule(
    input: _Write & { readonly scheduleId: number; readonly fields: unknown; readonly ifMatch?: string | undefined },
  ): Promise<ScheduleWrite | null>;
  /**
   * Removes a schedule of the device.
   *
   * @returns The schedule as it stood; `null` when the account has no such device.
   * @throws {FleetHoursError} `device_not_found` (404, as a missing device), `precondition_failed` (412).
   */
  removeServiceSchedule(
    input: _Write & { readonly scheduleId: number; readonly ifMatch?: string | undefined },
  ): Promise<ScheduleWrite | null>;
  /**
   * Records a service done (`done_at` default now): the schedule's last service is then, at the hour
   * meter of then; `hour_meter_seconds`, when given, is recorded as a reading at `done_at` first.
   *
   * @returns The schedule after it; `null` when the account has no such device.
   * @throws {FleetHoursError} `device_not_found` (404, as a missing device).
   */
  recordServiceDone(input: _Write & { readonly scheduleId: number; readonly fields: unknown }): Promise<ScheduleWrite | null>;
}

/** What every write names: the account, the device, and who asks (D55). */
interface _Write {
  readonly accountId: number;
  readonly deviceId: number;
  readonly origin: ChangeOrigin;
}

/** What the writes need besides the store: the clock, the change log and the service read (for the schedule as `/service` shows it). */
export interface MaintenanceWritesOptions {
  readonly store: FleetHoursStore;
  /** Epoch seconds now. */
  readonly nowSeconds: () => EpochSeconds;
  readonly changeLog: ChangeLog;
  readonly service: (input: { readonly accountId: number; readonly deviceId: number }) => Promise<DeviceService | null>;
  readonly meter: (input: {
    readonly accountId: number;
    readonly deviceId: number;
  }) => Promise<{ readonly hourMeterSeconds: number; readonly hourMeterReadAt: string | null } | null>;
}

/**
 * The version of a reading (D54, P77): a hash of its instant, value and recording instant, so that a
 * reading replaced at the same instant has a new one.
 */
export function readingVersion(reading: HourMeterReading): string {
  return entityVersion('r', [reading.readAt, reading.readingSeconds, reading.recordedAt]);
}

/** The version of a schedule (D54, P77): a hash of every stored field a write can change. */
export function scheduleVersion(schedule: ServiceSchedule): string {
  return entityVersion('s', [
    schedule.name,
    schedule.intervalSeconds,
    schedule.intervalDays,
    schedule.dueSoonSeconds,
    schedule.dueSoonDays,
    schedule.lastDoneAt,
    schedule.lastDoneHourMeterSeconds,
  ]);
}

/**
 * A reading as the API and the CLI show it.
 *
 * @example
 * ```ts
 * import { hourMeterReadingBody } from '@fleet-hours/core';
 * hourMeterReadingBody({ id: 1, deviceId: 7, readAt: 0, readingSeconds: 3600, recordedAt: 0 }, 'UTC').read_at; // '1970-01-01T00:00:00Z'
 * ```
 */
export function hourMeterReadingBody(reading: HourMeterReading, timeZone: string): HourMeterReadingBody {
  return {
    id: reading.id,
    device_id: reading.deviceId,
    read_at: formatInstant(reading.readAt, timeZone),
    reading_seconds: reading.readingSeconds,
    source: MANUAL_READING_SOURCE,
    recorded_at: formatInstant(reading.recordedAt, timeZone),
    version: readingVersion(reading),
  };
}

/** A schedule after a write as the API answers it: `/service`'s element with its version. */
export function scheduleWriteBody(write: Pick<ScheduleWrite, 'schedule' | 'state'>): ServiceScheduleWriteBody {
  return { ...serviceScheduleBody(write.state), version: scheduleVersion(write.schedule) };
}

/**
 * Checks the body of a reading (D38, D50): `reading_seconds` a whole number of seconds from 0 up,
 * `read_at` an instant with an offset between 0001-01-02 and 9999-12-30 and not after now (default
 * now), `source` `manual` when given; unknown fields refused.
 *
 * @throws {InvalidFieldError} Naming the field.
 */
export function readReadingFields(input: unknown, now: EpochSeconds): { readonly readAt: EpochSeconds; readonly readingSeconds: number } {
  const given = _object(input, READING_FIELDS, 'a reading');
  if (given.reading_seconds === undefined) throw new InvalidFieldError('reading_seconds', 'reading_seconds is required');
  if (given.source !== undefined && given.source !== MANUAL_READING_SOURCE)
    throw new InvalidFieldError('source', `source must be "${MANUAL_READING_SOURCE}": a reading recorded here is a person's`);
  const readAt = given.read_at === undefined ? now : _instant('read_at', given.read_at);
  const readingSeconds = _whole('reading_seconds', given.reading_seconds);
  _asField(() => checkHourMeterReading({ readAt, readingSeconds }, now));
  return { readAt, readingSeconds };
}

/** The checked fields of a new schedule. */
export interface NewScheduleFields {
  readonly name: string;
  readonly intervalSeconds: number;
  readonly intervalDays: number | null;
  readonly dueSoonSeconds: number | null;
  readonly dueSoonDays: number | null;
  readonly lastDoneAt: EpochSeconds;
  readonly lastDoneHourMeterSeconds: number | null;
}

/**
 * Checks the body of a schedule's write (D39, D50) by field: `name` (trimmed, 1–200 characters, no
 * control characters), `interval_seconds`, `interval_days` (or null), `due_soon_seconds` and
 * `due_soon_days` (or null: a tenth of the interval), `last_done_at` (an instant, default now) and
 * `last_done_hour_meter_seconds` (or null: the hour meter then, which needs `last_done_at` on a new
 * schedule). A change needs at least one field. Unknown fields refused.
 *
 * @throws {InvalidFieldError} Naming the field.
 * @throws {FleetHoursError} `invalid_body` when the input is not an object, or a change without fields.
 */
export function readScheduleFields(input: unknown, mode: 'create', now: EpochSeconds): NewScheduleFields;
export function readScheduleFields(input: unknown, mode: 'update', now: EpochSeconds): ServiceScheduleChanges;
export function readScheduleFields(input: unknown, mode: 'create' | 'update', now: EpochSeconds): NewScheduleFields | ServiceScheduleChanges {
  const given = _object(input, SCHEDULE_FIELDS, 'a service schedule');
  const fields: { -readonly [Field in keyof ServiceScheduleChanges]: ServiceScheduleChanges[Field] } = {};
  if (mode === 'create') {
    for (const field of ['name', 'interval_seconds'] as const)
      if (given[field] === undefined) throw new InvalidFieldError(field, `${field} is required`);
    if (given.last_done_hour_meter_seconds != null && given.last_done_at === undefined) {
      throw new InvalidFieldError(
        'last_done_hour_meter_seconds',
        'last_done_hour_meter_seconds needs last_done_at: the hour meter at the last service goes with its instant (a new schedule starts from the hour meter now)',
      );
    }
  } else if (Object.keys(given).length === 0) {
    throw new FleetHoursError('invalid_body', { message: `Nothing to change: give at least one of ${SCHEDULE_FIELDS.join(', ')}` });
  }
  if (given.name !== undefined) fields.name = _name(given.name);
  if (given.interval_seconds !== undefined) fields.intervalSeconds = _whole('interval_seconds', given.interval_seconds);
  if (given.interval_days !== undefined) fields.intervalDays = _wholeOrNull('interval_days', given.interval_days);
  if (given.due_soon_seconds !== undefined) fields.dueSoonSeconds = _wholeOrNull('due_soon_seconds', given.due_soon_seconds);
  if (given.due_soon_days !== undefined) fields.dueSoonDays = _wholeOrNull('due_soon_days', given.due_soon_days);
  if (given.last_done_at !== undefined) fields.lastDoneAt = _instant('last_done_at', given.last_done_at);
  if (given.last_done_hour_meter_seconds !== undefined)
    fields.lastDoneHourMeterSeconds = _wholeOrNull('last_done_hour_meter_seconds', given.last_done_hour_meter_seconds);
  if (mode === 'update') {
    // Each value on its own (P71): against a schedule that allows every value, so that only what
    // depends on the stored schedule (a margin larger than its interval) waits for it.
    _asField(() => changeServiceSchedule(_ANY_SCHEDULE(now), fields, now));
    return fields;
  }
  const created: NewScheduleFields = {
    name: fields.name!,
    intervalSeconds: fields.intervalSeconds!,
    intervalDays: fields.intervalDays ?? null,
    dueSoonSeconds: fields.dueSoonSeconds ?? null,
    dueSoonDays: fields.dueSoonDays ?? null,
    lastDoneAt: fields.lastDoneAt ?? now,
    lastDoneHourMeterSeconds: fields.lastDoneHourMeterSeconds ?? null,
  };
  _asField(() => checkServiceSchedule({ deviceId: 0, ...created }, now));
  return created;
}

/**
 * Checks the body of a service done (D39, D50): `done_at` an instant not after now (default now),
 * `hour_meter_seconds` the hour meter then (optional). Unknown fields refused.
 *
 * @throws {InvalidFieldError} Naming the field.
 */
export function readServiceDoneFields(
  input: unknown,
  now: EpochSeconds,
): { readonly doneAt: EpochSeconds; readonly hourMeterSeconds: number | null } {
  const given = _object(input ?? {}, SERVICE_DONE_FIELDS, 'a service done');
  const doneAt = given.done_at === undefined ? now : _instant('done_at', given.done_at);
  if (doneAt > now) throw new InvalidFieldError('done_at', 'done_at must be an instant that is not in the future');
  const hourMeterSeconds = given.hour_meter_seconds == null ? null : _whole('hour_meter_seconds', given.hour_meter_seconds);
  if (hourMeterSeconds !== null) _asField(() => checkHourMeterSeconds('hour_meter_seconds', hourMeterSeconds));
  return { doneAt, hourMeterSeconds };
}

/**
 * The writes of readings and schedules over a store (D52). The fields are checked before the store
 * is asked anything (P71), so a bad field is 400 whichever device it names.
 */
export function maintenanceWrites(options: MaintenanceWritesOptions): MaintenanceWrites {
  const { store, nowSeconds, changeLog } = options;

  const deviceOf = (accountId: number, deviceId: number) => store.findDevice({ accountId, deviceId });

  /** A schedule of the device: another device's, or another account's, is as missing. */
  const scheduleOf = async (device: Device, scheduleId: number): Promise<ServiceSchedule> => {
    const schedule = await store.findServiceSchedule({ scheduleId });
    if (!schedule || schedule.deviceId !== device.id) throw _scheduleNotFound(scheduleId);
    return schedule;
  };

  /** The schedule where it stands now, as `/service` computes it. */
  const stateOf = async (device: Device, schedule: ServiceSchedule): Promise<ScheduleWrite> => {
    const service = await options.service({ accountId: device.accountId, deviceId: device.id });
    const state = service?.schedules.find((candidate) => candidate.id === schedule.id);
    if (!service || !state) throw _scheduleNotFound(schedule.id);
    return { device, schedule, state, service };
  };

  /** D39, P78: a device's schedules have different names (compared trimmed, without case). */
  const refuseTakenName = async (device: Device, name: string, except: number | null) => {
    const wanted = name.trim().toLowerCase();
    const schedules = await store.listServiceSchedules({ deviceIds: [device.id] });
    const taken = schedules.find((schedule) => schedule.id !== except && schedule.name.trim().toLowerCase() === wanted);
    if (taken)
      throw new FleetHoursError('conflict', { message: `The device already has a service schedule named "${taken.name}" (id ${taken.id})` });
  };

  const record = (accountId: number, origin: ChangeOrigin, action: string, id: number, before: object | null, after: object | null) =>
    changeLog.record({
      accountId,
      origin,
      action,
      resource: { type: action.slice(0, action.indexOf('.')), id: String(id) },
      before: before as Readonly<Record<string, unknown>> | null,
      after: after as Readonly<Record<string, unknown>> | null,
    });

  return {
    async hourMeterReadings({ accountId, deviceId, limit, cursor }) {
      const size = _pageSize(limit);
      const before = cursor === undefined ? null : _decodeReadingCursor(cursor);
      const device = await deviceOf(accountId, deviceId);
      if (!device) return null;
      const all = await store.listHourMeterReadings({ deviceIds: [deviceId] });
      const after = before === null ? all : all.filter((reading) => reading.readAt < before);
      const readings = after.slice(0, size);
      const nextCursor = after.length > size ? _encodeReadingCursor(readings.at(-1)!.readAt) : null;
      return { device, readings, nextCursor };
    },

    async addHourMeterReading({ accountId, deviceId, fields, origin }) {
      const now = nowSeconds();
      const { readAt, readingSeconds } = readReadingFields(fields, now);
      const device = await deviceOf(accountId, deviceId);
      if (!device) return null;
      const earlier = await store.listHourMeterReadings({ deviceIds: [deviceId] });
      const reading = await store.addHourMeterReading({ deviceId, readAt, readingSeconds, now });
      if (!reading) return null;
      const replacedReading = earlier.find((each) => each.readAt === readAt) ?? null;
      await record(
        accountId,
        origin,
        replacedReading ? 'hour_meter_reading.update' : 'hour_meter_reading.create',
        reading.id,
        replacedReading && hourMeterReadingBody(replacedReading, device.timeZone),
        hourMeterReadingBody(reading, device.timeZone),
      );
      const meter = await options.meter({ accountId, deviceId });
      return {
        device,
        reading,
        earlier,
        replaced: replacedReading !== null,
        hourMeter: { seconds: meter?.hourMeterSeconds ?? readingSeconds, readAt: meter?.hourMeterReadAt ?? null },
      };
    },

    async removeHourMeterReading({ accountId, deviceId, readingId, ifMatch, origin }) {
      const device = await deviceOf(accountId, deviceId);
      if (!device) return null;
      const readings = await store.listHourMeterReadings({ deviceIds: [deviceId] });
      const current = readings.find((reading) => reading.id === readingId);
      if (!current) throw _readingNotFound(readingId);
      if (ifMatch !== undefined && !ifMatchNames(ifMatch, readingVersion(current))) throw _preconditionFailed('reading');
      // P77: with If-Match the store removes the reading only as read: one changed in between is 412 too.
      const removed = await store.removeHourMeterReading({ deviceId, readingId, ...(ifMatch === undefined ? {} : { expected: current }) });
      if (!removed) {
        if (ifMatch !== undefined) throw _preconditionFailed('reading');
        throw _readingNotFound(readingId);
      }
      await record(accountId, origin, 'hour_meter_reading.delete', removed.id, hourMeterReadingBody(removed, device.timeZone), null);
      return { device, reading: removed };
    },

    async createServiceSchedule({ accountId, deviceId, fields, origin }) {
      const now = nowSeconds();
      const checked = readScheduleFields(fields, 'create', now);
      const device = await deviceOf(accountId, deviceId);
      if (!device) return null;
      await refuseTakenName(device, checked.name, null);
      const created = await store.createServiceSchedule({ deviceId, ...checked, now });
      if (!created) return null;
      const write = await stateOf(device, created);
      await record(accountId, origin, 'service_schedule.create', created.id, null, scheduleWriteBody(write));
      return write;
    },

    async updateServiceSchedule({ accountId, deviceId, scheduleId, fields, ifMatch, origin }) {
      const now = nowSeconds();
      const changes = readScheduleFields(fields, 'update', now);
      const device = await deviceOf(accountId, deviceId);
      if (!device) return null;
      const current = await scheduleOf(device, scheduleId);
      if (ifMatch !== undefined && !ifMatchNames(ifMatch, scheduleVersion(current))) throw _preconditionFailed('service schedule');
      const changed = _asField(() => changeServiceSchedule(current, changes, now));
      if (changes.name !== undefined) await refuseTakenName(device, changed.name, scheduleId);
      const before = await stateOf(device, current);
      // The checked result, not the bare changes: removing the calendar interval removes its margin too.
      const { name, intervalSeconds, intervalDays, dueSoonSeconds, dueSoonDays, lastDoneAt, lastDoneHourMeterSeconds } = changed;
      const updated = await store.updateServiceSchedule({
        scheduleId,
        changes: { name, intervalSeconds, intervalDays, dueSoonSeconds, dueSoonDays, lastDoneAt, lastDoneHourMeterSeconds },
        ...(ifMatch === undefined ? {} : { expected: current }),
      });
      if (!updated) {
        if (ifMatch !== undefined) throw _preconditionFailed('service schedule');
        throw _scheduleNotFound(scheduleId);
      }
      const write = await stateOf(device, updated);
      await record(accountId, origin, 'service_schedule.update', scheduleId, scheduleWriteBody(before), scheduleWriteBody(write));
      return write;
    },

    async removeServiceSchedule({ accountId, deviceId, scheduleId, ifMatch, origin }) {
      const device = await deviceOf(accountId, deviceId);
      if (!device) return null;
      const current = await scheduleOf(device, scheduleId);
      if (ifMatch !== undefined && !ifMatchNames(ifMatch, scheduleVersion(current))) throw _preconditionFailed('service schedule');
      const before = await stateOf(device, current);
      const removed = await store.removeServiceSchedule({ scheduleId, ...(ifMatch === undefined ? {} : { expected: current }) });
      if (!removed) {
        if (ifMatch !== undefined) throw _preconditionFailed('service schedule');
        throw _scheduleNotFound(scheduleId);
      }
      await record(accountId, origin, 'service_schedule.delete', scheduleId, scheduleWriteBody(before), null);
      return before;
    },

    async recordServiceDone({ accountId, deviceId, scheduleId, fields, origin }) {
      const now = nowSeconds();
      const { doneAt, hourMeterSeconds } = readServiceDoneFields(fields, now);
      const device = await deviceOf(accountId, deviceId);
      if (!device) return null;
      const current = await scheduleOf(device, scheduleId);
      const changes = { lastDoneAt: doneAt, lastDoneHourMeterSeconds: null };
      _asField(() => changeServiceSchedule(current, changes, now), { last_done_at: 'done_at' });
      const before = await stateOf(device, current);
      if (hourMeterSeconds !== null) {
        // The hour meter then, given: a reading at that instant, from which the last service's hour meter is computed (D38).
        const earlier = await store.listHourMeterReadings({ deviceIds: [deviceId] });
        const reading = await store.addHourMeterReading({ deviceId, readAt: doneAt, readingSeconds: hourMeterSeconds, now });
        if (!reading) return null;
        const replaced = earlier.find((each) => each.readAt === doneAt) ?? null;
        await record(
          accountId,
          origin,
          replaced ? 'hour_meter_reading.update' : 'hour_meter_reading.create',
          reading.id,
          replaced && hourMeterReadingBody(replaced, device.timeZone),
          hourMeterReadingBody(reading, device.timeZone),
        );
      }
      const updated = await store.updateServiceSchedule({ scheduleId, changes });
      if (!updated) throw _scheduleNotFound(scheduleId);
      const write = await stateOf(device, updated);
      await record(accountId, origin, 'service_schedule.done', scheduleId, scheduleWriteBody(before), scheduleWriteBody(write));
      return write;
    },
  };
}

/** A schedule any change of a single value keeps valid: the largest intervals. */
const _ANY_SCHEDULE = (now: EpochSeconds): ServiceSchedule => ({
  id: 0,
  deviceId: 0,
  name: 'any',
  intervalSeconds: MAX_SERVICE_INTERVAL_SECONDS,
  intervalDays: MAX_SERVICE_INTERVAL_DAYS,
  dueSoonSeconds: null,
  dueSoonDays: null,
  lastDoneAt: now,
  lastDoneHourMeterSeconds: null,
  createdAt: now,
});

/** The body as an object whose every key is one of `fields`. */
function _object(input: unknown, fields: readonly string[], what: string): Readonly<Record<string, unknown>> {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw new FleetHoursError('invalid_body', { message: `The body must be a JSON object with the fields of ${what}` });
  for (const field of Object.keys(input)) {
    if (!fields.includes(field)) throw new InvalidFieldError(field, `Unknown field "${field}": ${what} has ${fields.join(', ')}`);
  }
  return input as Readonly<Record<string, unknown>>;
}

function _whole(field: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw new InvalidFieldError(field, `${field} must be a whole number`);
  return value;
}

function _wholeOrNull(field: string, value: unknown): number | null {
  return value === null ? null : _whole(field, value);
}

function _name(value: unknown): string {
  if (typeof value !== 'string') throw new InvalidFieldError('name', 'name must be a string');
  const refusal = controlCharacterRefusal('name', value);
  if (refusal !== null) throw new InvalidFieldError('name', refusal);
  const name = value.trim();
  if (name === '' || name.length > 200) throw new InvalidFieldError('name', 'name must be between 1 and 200 characters, not only spaces');
  return name;
}

/** An instant a person gives (D50): ISO 8601 with an offset, between 0001-01-02 and 9999-12-30. */
function _instant(field: string, value: unknown): EpochSeconds {
  if (typeof value !== 'string')
    throw new InvalidFieldError(field, `${field} must be an ISO 8601 instant with an offset, e.g. 2026-11-20T07:00:00-05:00`);
  let seconds: number;
  try {
    seconds = parseInstant(value.trim());
  } catch {
    const shown = value.length > 40 ? `${value.slice(0, 40)}…` : value;
    throw new InvalidFieldError(
      field,
      `${field} must be an ISO 8601 instant with an offset, e.g. 2026-11-20T07:00:00-05:00, got ${JSON.stringify(shown)}`,
    );
  }
  if (!isGivenInstantInRange(seconds)) throw new InvalidFieldError(field, givenInstantRangeMessage(field, JSON.stringify(value)));
  return seconds;
}

/** The core's checks of D38–D39 name their fields as `InvalidParameterError`s: here they are the body's fields. */
function _asField<Value>(check: () => Value, renamed: Readonly<Record<string, string>> = {}): Value {
  try {
    return check();
  } catch (error) {
    if (!(error instanceof InvalidParameterError)) throw error;
    const field = renamed[error.parameter] ?? error.parameter;
    const message = renamed[error.parameter] === undefined ? error.message : error.message.replaceAll(error.parameter, field);
    throw new InvalidFieldError(field, message);
  }
}

function _pageSize(limit: number | undefined): number {
  if (limit === undefined) return READING_PAGE_SIZES.default;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > READING_PAGE_SIZES.max)
    throw new InvalidParameterError('limit', `Parameter limit "${limit}" is out of range: give a whole number from 1 to ${READING_PAGE_SIZES.max}`);
  return limit;
}

/** A page's cursor: the instant of the last reading it showed, opaque to clients. */
function _encodeReadingCursor(readAt: EpochSeconds): string {
  return btoa(`reading:${readAt}`).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function _decodeReadingCursor(cursor: string): EpochSeconds {
  const match = /^reading:(-?[0-9]{1,12})$/.exec(_fromBase64Url(cursor));
  if (!match) throw new InvalidParameterError('cursor', 'Parameter cursor is not a next_cursor of this endpoint: start again without it');
  return Number(match[1]);
}

function _fromBase64Url(text: string): string {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(text) || text.length % 4 === 1) return '';
  try {
    return atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  } catch {
    return '';
  }
}

/**
 * A schedule or reading the device does not have, another account's included: the very body of a
 * missing device (D11, P76), so that an answer tells nothing of what another account has.
 */
function _scheduleNotFound(_scheduleId: number): FleetHoursError {
  return new FleetHoursError('device_not_found');
}

function _readingNotFound(_readingId: number): FleetHoursError {
  return new FleetHoursError('device_not_found');
}

function _preconditionFailed(what: string): FleetHoursError {
  return new FleetHoursError('precondition_failed', {
    message: `The ${what} changed since the If-Match tag was read: read it again, then send its new ETag`,
  });
}
