import type { FleetHoursStore, HourMeterReading, ServiceSchedule } from '@fleet-hours/core';
import { assertEpochSeconds } from '@fleet-hours/core/adapter';
import type { Kysely } from 'kysely';
import { epochSeconds, instantOf, isId } from '../sql/sql-values.js';
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

const READING_COLUMNS = [
  'id',
  'device_id',
  epochSeconds('read_at').as('read_at'),
  'reading_seconds',
  epochSeconds('recorded_at').as('recorded_at'),
] as const;

const SCHEDULE_COLUMNS = [
  'id',
  'device_id',
  'name',
  'interval_seconds',
  'interval_days',
  'due_soon_seconds',
  'due_soon_days',
  epochSeconds('last_done_at').as('last_done_at'),
  'last_done_hour_meter_seconds',
  epochSeconds('created_at').as('created_at'),
] as const;

/**
 * Readings and schedules on Kysely. Operator data that no telemetry write reads: each change is
 * one statement on its own rows, and changes no device row (D35's version covers what writes
 * plan from; the hour meter and the service states are computed at read time).
 */
export function maintenanceStore(db: Kysely<FleetHoursDatabase>): MaintenanceStore {
  const ids = (deviceIds: readonly number[]) => deviceIds.filter(isId);
  return {
    addHourMeterReading: ({ deviceId, readAt, readingSeconds, now }) =>
      guard(async () => {
        assertEpochSeconds('readAt', readAt);
        assertEpochSeconds('now', now);
        if (!isId(deviceId)) return null;
        const device = await db.selectFrom('devices').select('id').where('id', '=', deviceId).executeTakeFirst();
        if (!device) return null;
        const row = await _unlessDeviceGone(() =>
          db
            .insertInto('hour_meter_readings')
            .values({ device_id: deviceId, read_at: instantOf(readAt), reading_seconds: readingSeconds, recorded_at: instantOf(now) })
            .onConflict((conflict) =>
              conflict.columns(['device_id', 'read_at']).doUpdateSet({ reading_seconds: readingSeconds, recorded_at: instantOf(now) }),
            )
            .returning(READING_COLUMNS)
            .executeTakeFirst(),
        );
        return row ? _reading(row) : null;
      }),

    listHourMeterReadings: ({ deviceIds }) =>
      guard(async () => {
        const wanted = ids(deviceIds);
        if (wanted.length === 0) return [];
        const rows = await db
          .selectFrom('hour_meter_readings')
          .select(READING_COLUMNS)
          .where('device_id', 'in', wanted)
          .orderBy('device_id')
          .orderBy('read_at', 'desc')
          .execute();
        return rows.map(_reading);
      }),

    removeHourMeterReading: ({ deviceId, readingId }) =>
      guard(async () => {
        if (!isId(deviceId) || !isId(readingId)) return null;
        const row = await db
          .deleteFrom('hour_meter_readings')
          .where('id', '=', readingId)
          .where('device_id', '=', deviceId)
          .returning(READING_COLUMNS)
          .executeTakeFirst();
        return row ? _reading(row) : null;
      }),

    createServiceSchedule: (input) =>
      guard(async () => {
        assertEpochSeconds('lastDoneAt', input.lastDoneAt);
        assertEpochSeconds('now', input.now);
        if (!isId(input.deviceId)) return null;
        const device = await db.selectFrom('devices').select('id').where('id', '=', input.deviceId).executeTakeFirst();
        if (!device) return null;
        const row = await _unlessDeviceGone(() =>
          db
            .insertInto('service_schedules')
            .values({
              device_id: input.deviceId,
              name: input.name,
              interval_seconds: input.intervalSeconds,
              interval_days: input.intervalDays ?? null,
              due_soon_seconds: input.dueSoonSeconds ?? null,
              due_soon_days: input.dueSoonDays ?? null,
              last_done_at: instantOf(input.lastDoneAt),
              last_done_hour_meter_seconds: input.lastDoneHourMeterSeconds ?? null,
              created_at: instantOf(input.now),
            })
            .returning(SCHEDULE_COLUMNS)
            .executeTakeFirst(),
        );
        return row ? _schedule(row) : null;
      }),

    findServiceSchedule: ({ scheduleId }) =>
      guard(async () => {
        if (!isId(scheduleId)) return null;
        const row = await db.selectFrom('service_schedules').select(SCHEDULE_COLUMNS).where('id', '=', scheduleId).executeTakeFirst();
        return row ? _schedule(row) : null;
      }),

    listServiceSchedules: ({ deviceIds }) =>
      guard(async () => {
        const wanted = ids(deviceIds);
        if (wanted.length === 0) return [];
        const rows = await db
          .selectFrom('service_schedules')
          .select(SCHEDULE_COLUMNS)
          .where('device_id', 'in', wanted)
          .orderBy('device_id')
          .orderBy('id')
          .execute();
        return rows.map(_schedule);
      }),

    updateServiceSchedule: ({ scheduleId, changes }) =>
      guard(async () => {
        if (changes.lastDoneAt !== undefined) assertEpochSeconds('changes.lastDoneAt', changes.lastDoneAt);
        if (!isId(scheduleId)) return null;
        const set = {
          ...(changes.name === undefined ? {} : { name: changes.name }),
          ...(changes.intervalSeconds === undefined ? {} : { interval_seconds: changes.intervalSeconds }),
          ...(changes.intervalDays === undefined ? {} : { interval_days: changes.intervalDays }),
          ...(changes.dueSoonSeconds === undefined ? {} : { due_soon_seconds: changes.dueSoonSeconds }),
          ...(changes.dueSoonDays === undefined ? {} : { due_soon_days: changes.dueSoonDays }),
          ...(changes.lastDoneAt === undefined ? {} : { last_done_at: instantOf(changes.lastDoneAt) }),
          ...(changes.lastDoneHourMeterSeconds === undefined ? {} : { last_done_hour_meter_seconds: changes.lastDoneHourMeterSeconds }),
        };
        const query =
          Object.keys(set).length === 0
            ? db.selectFrom('service_schedules').select(SCHEDULE_COLUMNS).where('id', '=', scheduleId)
            : db.updateTable('service_schedules').set(set).where('id', '=', scheduleId).returning(SCHEDULE_COLUMNS);
        const row = await query.executeTakeFirst();
        return row ? _schedule(row) : null;
      }),

    removeServiceSchedule: ({ scheduleId }) =>
      guard(async () => {
        if (!isId(scheduleId)) return null;
        const row = await db.deleteFrom('service_schedules').where('id', '=', scheduleId).returning(SCHEDULE_COLUMNS).executeTakeFirst();
        return row ? _schedule(row) : null;
      }),
  };
}

/** An insert of a device's row; `undefined` when the device was deleted since it was found (its foreign key refuses the row): a miss. */
async function _unlessDeviceGone<Row>(insert: () => Promise<Row | undefined>): Promise<Row | undefined> {
  try {
    return await insert();
  } catch (error) {
    if (errorCode(error) === '23503') return undefined;
    throw error;
  }
}

function _reading(row: {
  id: number;
  device_id: number;
  read_at: number;
  reading_seconds: string | number | bigint;
  recorded_at: number;
}): HourMeterReading {
  return {
    id: row.id,
    deviceId: row.device_id,
    readAt: Number(row.read_at),
    readingSeconds: Number(row.reading_seconds),
    recordedAt: Number(row.recorded_at),
  };
}

function _schedule(row: {
  id: number;
  device_id: number;
  name: string;
  interval_seconds: string | number | bigint;
  interval_days: number | null;
  due_soon_seconds: string | number | bigint | null;
  due_soon_days: number | null;
  last_done_at: number;
  last_done_hour_meter_seconds: string | number | bigint | null;
  created_at: number;
}): ServiceSchedule {
  return {
    id: row.id,
    deviceId: row.device_id,
    name: row.name,
    intervalSeconds: Number(row.interval_seconds),
    intervalDays: row.interval_days,
    dueSoonSeconds: _numberOrNull(row.due_soon_seconds),
    dueSoonDays: row.due_soon_days,
    lastDoneAt: Number(row.last_done_at),
    lastDoneHourMeterSeconds: _numberOrNull(row.last_done_hour_meter_seconds),
    createdAt: Number(row.created_at),
  };
}

function _numberOrNull(value: string | number | bigint | null): number | null {
  return value === null ? null : Number(value);
}
