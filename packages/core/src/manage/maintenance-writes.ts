import { FleetHoursError } from '../errors/errors.js';
import type { FleetHoursStore } from '../store/storage-port.js';
import type { Device, DeviceService, EpochSeconds, HourMeterReading, ServiceSchedule } from '../types.js';
import type { ChangeLog, ChangeOrigin } from './change-log.js';
import { changeUnits } from './change-unit.js';
import type { HourMeterReadingPage, RecordedReading, ScheduleWrite } from './maintenance-results.js';
import { ifMatchNames, preconditionFailed } from './entity-tag.js';
import {
  _decodeReadingCursor,
  _encodeReadingCursor,
  _pageSize,
  hourMeterReadingBody,
  scheduleNameKey,
  readingVersion,
  scheduleWriteBody,
} from './maintenance-bodies.js';
import { _asField, readReadingFields, readScheduleFields, readServiceDoneFields } from './maintenance-fields.js';
import { changeServiceSchedule, checkHourMeterSeconds, scheduleVersion } from '../maintenance/service-status.js';
import { checkHourMeterReading } from '../maintenance/hour-meter.js';

/**
 * Hour-meter readings, service schedules and services done (D38, D39, D52): the one implementation
 * behind `/api/v1/devices/{id}/hour-meter/readings`, `/api/v1/devices/{id}/service/schedules` (and
 * its `/done`) and the CLI's `hour-meter set|list|remove` and `service create|update|done|remove`.
 * Each field is checked here by its name in the API's body; the CLI names its options after them
 * (P76). Every write names its origin and reports its change to the change log (D55).
 */

export type { HourMeterReadingPage, RecordedReading, ScheduleWrite } from './maintenance-results.js';

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
   * Records a reading an AEMP source gave (D65), marked with the source (`aemp:{id}`), with the idle
   * seconds the source gave at the same time where it gave them (P156): the values already read
   * from the feed, checked as a person's are (D38). What a poll stores is its own decision
   * (`decideAempReading`).
   *
   * @returns The reading; `null` when the account has no such device.
   * @throws {InvalidParameterError} `read_at` in the future or out of range, `reading_seconds` or `idle_seconds` out of range.
   */
  addSourceReading(input: _Write & _SourcedReading & { readonly source: string }): Promise<HourMeterReading | null>;
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

/** A reading's values: who gave it (D65, absent for a person) and the idle its source gave (P156). */
type _SourcedReading = {
  readonly readAt: EpochSeconds;
  readonly readingSeconds: number;
  readonly source?: string;
  readonly idleSeconds?: number;
};

/** What the writes need besides the store: the clock, the change log and the service read (for the schedule as `/service` shows it). */
export interface MaintenanceWritesOptions {
  readonly store: FleetHoursStore;
  /** Epoch seconds now. */
  readonly nowSeconds: () => EpochSeconds;
  readonly changeLog: ChangeLog;
  /** The device's service read from `store`: during a write, the store of its unit (P102), which sees the change. */
  readonly service: (
    input: { readonly accountId: number; readonly deviceId: number },
    store: FleetHoursStore,
  ) => Promise<DeviceService | null>;
  readonly meter: (input: {
    readonly accountId: number;
    readonly deviceId: number;
  }) => Promise<{ readonly hourMeterSeconds: number; readonly hourMeterReadAt: string | null } | null>;
}

/**
 * The writes of readings and schedules over a store (D52). The fields are checked before the store
 * is asked anything (P71), so a bad field is 400 whichever device it names. Each write reads,
 * changes and reports in one unit of the store (P102).
 */
export function maintenanceWrites(options: MaintenanceWritesOptions): MaintenanceWrites {
  const inUnit = changeUnits(options.store, options.changeLog);
  const context = {
    ..._context(options),
    /** P102: runs a write in a unit, with the context over the unit's store and change log. */
    inUnit: <T>(work: (unit: _UnitContext) => Promise<T>) => inUnit((unit) => work(_context({ ...options, ...unit }))),
  };
  return { ..._readingWrites(context), ..._scheduleWrites(context) };
}

function _context(options: MaintenanceWritesOptions) {
  const { store, changeLog } = options;

  const deviceOf = (accountId: number, deviceId: number) => store.findDevice({ accountId, deviceId });

  /** A schedule of the device: another device's, or another account's, is as missing. */
  const scheduleOf = async (device: Device, scheduleId: number): Promise<ServiceSchedule> => {
    const schedule = await store.findServiceSchedule({ scheduleId });
    if (!schedule || schedule.deviceId !== device.id) throw _scheduleNotFound(scheduleId);
    return schedule;
  };

  /** The schedule where it stands now, as `/service` computes it. */
  const stateOf = async (device: Device, schedule: ServiceSchedule): Promise<ScheduleWrite> => {
    const service = await options.service({ accountId: device.accountId, deviceId: device.id }, store);
    const state = service?.schedules.find((candidate) => candidate.id === schedule.id);
    if (!service || !state) throw _scheduleNotFound(schedule.id);
    return { device, schedule, state, service };
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

  /**
   * Adds a reading of the device (D38) and records it in the change log (D55): as an update when it
   * replaces the reading at that instant, else as a create. `null` when the store has no such device.
   *
   * @returns The reading added, the readings before it and the one it replaced (or `null`).
   */
  const addReading = async (
    accountId: number,
    origin: ChangeOrigin,
    device: Device,
    reading: _SourcedReading & { readonly now: EpochSeconds },
  ): Promise<{
    readonly reading: HourMeterReading;
    readonly earlier: readonly HourMeterReading[];
    readonly replaced: HourMeterReading | null;
  } | null> => {
    const earlier = await store.listHourMeterReadings({ deviceIds: [device.id] });
    const added = await store.addHourMeterReading({ deviceId: device.id, ...reading });
    if (!added) return null;
    const replaced = earlier.find((each) => each.readAt === reading.readAt) ?? null;
    await record(
      accountId,
      origin,
      replaced ? 'hour_meter_reading.update' : 'hour_meter_reading.create',
      added.id,
      replaced && hourMeterReadingBody(replaced, device.timeZone),
      hourMeterReadingBody(added, device.timeZone),
    );
    return { reading: added, earlier, replaced };
  };

  return { ...options, deviceOf, scheduleOf, stateOf, record, addReading };
}

type _UnitContext = ReturnType<typeof _context>;
type _Context = _UnitContext & { inUnit<T>(work: (unit: _UnitContext) => Promise<T>): Promise<T> };

/** The writes of readings (D38). */
function _readingWrites(
  context: _Context,
): Pick<MaintenanceWrites, 'hourMeterReadings' | 'addHourMeterReading' | 'addSourceReading' | 'removeHourMeterReading'> {
  const { store, nowSeconds, deviceOf, inUnit } = context;
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
      const written = await inUnit(async ({ deviceOf, addReading }) => {
        const device = await deviceOf(accountId, deviceId);
        if (!device) return null;
        const added = await addReading(accountId, origin, device, { readAt, readingSeconds, now });
        return added && { device, ...added };
      });
      if (!written) return null;
      const { device, reading, earlier, replaced } = written;
      const meter = await context.meter({ accountId, deviceId });
      return {
        device,
        reading,
        earlier,
        replaced: replaced !== null,
        hourMeter: { seconds: meter?.hourMeterSeconds ?? readingSeconds, readAt: meter?.hourMeterReadAt ?? null },
      };
    },

    async addSourceReading({ accountId, deviceId, readAt, readingSeconds, source, idleSeconds, origin }) {
      const now = nowSeconds();
      checkHourMeterReading({ readAt, readingSeconds }, now);
      // P156: the idle is seconds as the reading's are, with the same bounds.
      if (idleSeconds !== undefined) checkHourMeterSeconds('idle_seconds', idleSeconds);
      const idle = idleSeconds === undefined ? {} : { idleSeconds };
      // P102: the reading and its entry in one unit.
      return inUnit(async ({ deviceOf, addReading }) => {
        const device = await deviceOf(accountId, deviceId);
        if (!device) return null;
        return (await addReading(accountId, origin, device, { readAt, readingSeconds, now, source, ...idle }))?.reading ?? null;
      });
    },

    removeHourMeterReading: ({ accountId, deviceId, readingId, ifMatch, origin }) =>
      inUnit(async ({ store, deviceOf, record }) => {
        const device = await deviceOf(accountId, deviceId);
        if (!device) return null;
        const readings = await store.listHourMeterReadings({ deviceIds: [deviceId] });
        const current = readings.find((reading) => reading.id === readingId);
        if (!current) throw _readingNotFound(readingId);
        if (ifMatch !== undefined && !ifMatchNames(ifMatch, readingVersion(current))) throw preconditionFailed('reading');
        // P77: with If-Match the store removes the reading only as read: one changed in between is 412 too.
        const removed = await store.removeHourMeterReading({
          deviceId,
          readingId,
          ...(ifMatch === undefined ? {} : { expected: current }),
        });
        if (!removed) {
          if (ifMatch !== undefined) throw preconditionFailed('reading');
          throw _readingNotFound(readingId);
        }
        await record(accountId, origin, 'hour_meter_reading.delete', removed.id, hourMeterReadingBody(removed, device.timeZone), null);
        return { device, reading: removed };
      }),
  };
}

/** The writes of schedules and services done (D39). */
function _scheduleWrites(
  context: _Context,
): Pick<MaintenanceWrites, 'createServiceSchedule' | 'updateServiceSchedule' | 'removeServiceSchedule' | 'recordServiceDone'> {
  const { nowSeconds, inUnit } = context;
  return {
    async createServiceSchedule({ accountId, deviceId, fields, origin }) {
      const now = nowSeconds();
      const checked = readScheduleFields(fields, 'create', now);
      return inUnit(async ({ store, deviceOf, stateOf, record }) => {
        const device = await deviceOf(accountId, deviceId);
        if (!device) return null;
        // P78: the store refuses a name the device has, in the same step as the insert.
        const created = await store.createServiceSchedule({ deviceId, ...checked, now, uniqueName: true });
        if (!created) return null;
        const write = await stateOf(device, created);
        await record(accountId, origin, 'service_schedule.create', created.id, null, scheduleWriteBody(write));
        return write;
      });
    },

    async updateServiceSchedule({ accountId, deviceId, scheduleId, fields, ifMatch, origin }) {
      const now = nowSeconds();
      const changes = readScheduleFields(fields, 'update', now);
      return inUnit(async ({ store, deviceOf, scheduleOf, stateOf, record }) => {
        const device = await deviceOf(accountId, deviceId);
        if (!device) return null;
        const current = await scheduleOf(device, scheduleId);
        if (ifMatch !== undefined && !ifMatchNames(ifMatch, scheduleVersion(current))) throw preconditionFailed('service schedule');
        const changed = _asField(() => changeServiceSchedule(current, changes, now));
        const before = await stateOf(device, current);
        // The checked result, not the bare changes: removing the calendar interval removes its margin too.
        const { name, intervalSeconds, intervalDays, dueSoonSeconds, dueSoonDays, lastDoneAt, lastDoneHourMeterSeconds } = changed;
        const updated = await store.updateServiceSchedule({
          scheduleId,
          changes: { name, intervalSeconds, intervalDays, dueSoonSeconds, dueSoonDays, lastDoneAt, lastDoneHourMeterSeconds },
          // P78: only a new name is checked, so a name stored twice before the rule does not block other changes.
          uniqueName: changes.name !== undefined && scheduleNameKey(name) !== scheduleNameKey(current.name),
          ...(ifMatch === undefined ? {} : { expected: current }),
        });
        if (!updated) {
          if (ifMatch !== undefined) throw preconditionFailed('service schedule');
          throw _scheduleNotFound(scheduleId);
        }
        const write = await stateOf(device, updated);
        await record(accountId, origin, 'service_schedule.update', scheduleId, scheduleWriteBody(before), scheduleWriteBody(write));
        return write;
      });
    },

    removeServiceSchedule: ({ accountId, deviceId, scheduleId, ifMatch, origin }) =>
      inUnit(async ({ store, deviceOf, scheduleOf, stateOf, record }) => {
        const device = await deviceOf(accountId, deviceId);
        if (!device) return null;
        const current = await scheduleOf(device, scheduleId);
        if (ifMatch !== undefined && !ifMatchNames(ifMatch, scheduleVersion(current))) throw preconditionFailed('service schedule');
        const before = await stateOf(device, current);
        const removed = await store.removeServiceSchedule({ scheduleId, ...(ifMatch === undefined ? {} : { expected: current }) });
        if (!removed) {
          if (ifMatch !== undefined) throw preconditionFailed('service schedule');
          throw _scheduleNotFound(scheduleId);
        }
        await record(accountId, origin, 'service_schedule.delete', scheduleId, scheduleWriteBody(before), null);
        return before;
      }),

    async recordServiceDone({ accountId, deviceId, scheduleId, fields, origin }) {
      const now = nowSeconds();
      const { doneAt, hourMeterSeconds } = readServiceDoneFields(fields, now);
      // P102: the reading given and the service done are one unit: both kept, with their entries, or none.
      return inUnit(async ({ store, deviceOf, scheduleOf, stateOf, record, addReading }) => {
        const device = await deviceOf(accountId, deviceId);
        if (!device) return null;
        const current = await scheduleOf(device, scheduleId);
        const changes = { lastDoneAt: doneAt, lastDoneHourMeterSeconds: null };
        _asField(() => changeServiceSchedule(current, changes, now), { last_done_at: 'done_at' });
        const before = await stateOf(device, current);
        if (hourMeterSeconds !== null) {
          // The hour meter then, given: a reading at that instant, from which the last service's hour meter is computed (D38).
          const added = await addReading(accountId, origin, device, { readAt: doneAt, readingSeconds: hourMeterSeconds, now });
          if (!added) return null;
        }
        const updated = await store.updateServiceSchedule({ scheduleId, changes });
        if (!updated) throw _scheduleNotFound(scheduleId);
        const write = await stateOf(device, updated);
        await record(accountId, origin, 'service_schedule.done', scheduleId, scheduleWriteBody(before), scheduleWriteBody(write));
        return write;
      });
    },
  };
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
