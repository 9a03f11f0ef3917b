import type { FleetHoursStore } from '@fleet-hours/core';
import { assertEpochSeconds } from '@fleet-hours/core/adapter';
import type { Kysely } from 'kysely';
import {
  changeSchedule,
  deleteReading,
  deleteSchedule,
  insertSchedule,
  readingsOfDevices,
  scheduleById,
  schedulesOfDevices,
  withUniqueName,
  toReading,
  toSchedule,
  upsertReading,
} from '../sql/maintenance-queries.js';
import { isId } from '../sql/sql-values.js';
import { errorCode, guard } from './storage-error.js';
import type { FleetHoursDatabase } from '../schema/database-schema.js';

/** The methods of the storage port on hour-meter readings (D38) and service schedules (D39). */
export type MaintenanceStore = Pick<
  FleetHoursStore,
  | 'addHourMeterReading'
  | 'listHourMeterReadings'
  | 'removeHourMeterReading'
  | 'createServiceSchedule'
  | 'findServiceSchedule'
  | 'listServiceSchedules'
  | 'updateServiceSchedule'
  | 'removeServiceSchedule'
>;

/**
 * Readings (D38) and schedules (D39) on Kysely.
 *
 * What protects these rows: no lock or version of Fleet Hours' own; a write with `expected` (D54,
 * P77) carries the fields it read as conditions of its own statement. Each change is one statement on
 * its own rows (an upsert by `(device_id, read_at)`, an insert, an update or a delete by id), made
 * atomic by PostgreSQL's row locks for its length. No telemetry write reads them when it plans, so
 * they do not bump the device's version that D35's writes check (the `xmin` of its `device_states`
 * row, D44): they never update that row. Their foreign key to `devices` takes a key-share lock of the device's row for the
 * statement, which waits for a write holding the row's update lock (and makes it wait) but leaves
 * the row's version as it is; a device deleted meanwhile makes the insert a miss. The hour meter
 * and the service states are computed at read time; what service pages remember of them (P58)
 * counts only at the device's memo version, which the triggers of migration 0012 raise in the
 * transaction of each change.
 */
export function maintenanceStore(db: Kysely<FleetHoursDatabase>): MaintenanceStore {
  const ids = (deviceIds: readonly number[]) => deviceIds.filter(isId);
  return {
    addHourMeterReading: ({ deviceId, readAt, readingSeconds, now, source, idleSeconds }) =>
      guard(async () => {
        assertEpochSeconds('readAt', readAt);
        assertEpochSeconds('now', now);
        if (!isId(deviceId)) return null;
        const row = await _unlessDeviceGone(() =>
          upsertReading(db, { deviceId, readAt, readingSeconds, now, source, idleSeconds }).executeTakeFirst(),
        );
        return row ? toReading(row) : null;
      }),

    listHourMeterReadings: ({ deviceIds }) =>
      guard(async () => {
        const wanted = ids(deviceIds);
        if (wanted.length === 0) return [];
        return (await readingsOfDevices(wanted).execute(db)).rows.map(toReading);
      }),

    removeHourMeterReading: ({ deviceId, readingId, expected }) =>
      guard(async () => {
        if (!isId(deviceId) || !isId(readingId)) return null;
        const row = await deleteReading(db, deviceId, readingId, expected).executeTakeFirst();
        return row ? toReading(row) : null;
      }),

    createServiceSchedule: (input) =>
      guard(async () => {
        assertEpochSeconds('lastDoneAt', input.lastDoneAt);
        assertEpochSeconds('now', input.now);
        if (!isId(input.deviceId)) return null;
        const unique = input.uniqueName ? { deviceId: input.deviceId, name: input.name, except: null } : null;
        const row = await _unlessDeviceGone(() => withUniqueName(db, unique, (trx) => insertSchedule(trx, input).executeTakeFirst()));
        return row ? toSchedule(row) : null;
      }),

    findServiceSchedule: ({ scheduleId }) =>
      guard(async () => {
        if (!isId(scheduleId)) return null;
        const row = await scheduleById(db, scheduleId).executeTakeFirst();
        return row ? toSchedule(row) : null;
      }),

    listServiceSchedules: ({ deviceIds }) =>
      guard(async () => {
        const wanted = ids(deviceIds);
        if (wanted.length === 0) return [];
        return (await schedulesOfDevices(wanted).execute(db)).rows.map(toSchedule);
      }),

    updateServiceSchedule: ({ scheduleId, changes, expected, uniqueName }) =>
      guard(async () => {
        if (changes.lastDoneAt !== undefined) assertEpochSeconds('changes.lastDoneAt', changes.lastDoneAt);
        if (!isId(scheduleId)) return null;
        const { name } = changes;
        if (!uniqueName || name === undefined) return _schedule(await changeSchedule(db, scheduleId, changes, expected).executeTakeFirst());
        // P78: the device's names lock needs the device: a schedule not there is a miss.
        const current = await scheduleById(db, scheduleId).executeTakeFirst();
        if (!current) return null;
        const unique = { deviceId: current.device_id, name, except: scheduleId };
        const row = await withUniqueName(db, unique, (trx) => changeSchedule(trx, scheduleId, changes, expected).executeTakeFirst());
        return row ? toSchedule(row) : null;
      }),

    removeServiceSchedule: ({ scheduleId, expected }) =>
      guard(async () => {
        if (!isId(scheduleId)) return null;
        const row = await deleteSchedule(db, scheduleId, expected).executeTakeFirst();
        return row ? toSchedule(row) : null;
      }),
  };
}

function _schedule(row: Parameters<typeof toSchedule>[0] | undefined) {
  return row ? toSchedule(row) : null;
}

/**
 * An insert naming its device's row: `undefined` when the device does not exist (no row selected),
 * or was deleted after the statement's snapshot (its foreign key refuses the row, 23503): a miss.
 */
async function _unlessDeviceGone<Row>(insert: () => Promise<Row | undefined>): Promise<Row | undefined> {
  try {
    return await insert();
  } catch (error) {
    if (errorCode(error) === '23503') return undefined;
    throw error;
  }
}
