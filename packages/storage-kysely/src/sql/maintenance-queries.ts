/**
 * The statements on hour-meter readings (D38) and service schedules (D39): each one statement,
 * whatever the number of devices it names. Writes name their device's row in the statement itself
 * (`insert … select … from devices where id = $1`), so a missing device writes nothing and returns
 * no row; reads of a page of devices send the ids as one array and reach only those devices' rows
 * through an index (readings: the unique `(device_id, read_at)`; schedules: the primary key `(device_id, id)`).
 */
import type { HourMeterReading, NewServiceSchedule, ServiceSchedule, ServiceScheduleChanges } from '@fleet-hours/core';
import { scheduleNameInUse, scheduleNameKey } from '@fleet-hours/core/adapter';
import { sql, type AliasedRawBuilder, type ExpressionBuilder, type Kysely, type RawBuilder, type UpdateObject } from 'kysely';
import type { FleetHoursDatabase } from '../schema/database-schema.js';
import { epochSeconds, instantOf } from './sql-values.js';
import { inTransaction } from './in-transaction.js';

/** A `bigint` column as postgres.js (a string) or PGlite (a number) reads it. */
type BigintValue = string | number | bigint;

/** Instants as epoch seconds under their own names, as every row type here reads them. */
function _instants<const Names extends readonly string[]>(
  ...names: Names
): { readonly [Index in keyof Names]: AliasedRawBuilder<number, Names[Index]> } {
  return names.map((name) => epochSeconds(name).as(name)) as { readonly [Index in keyof Names]: AliasedRawBuilder<number, Names[Index]> };
}

const READING_COLUMNS = ['id', 'device_id', 'reading_seconds', 'source', 'idle_seconds', ..._instants('read_at', 'recorded_at')] as const;

const SCHEDULE_COLUMNS = [
  'id',
  'device_id',
  'name',
  'interval_seconds',
  'interval_days',
  'due_soon_seconds',
  'due_soon_days',
  'last_done_hour_meter_seconds',
  ..._instants('last_done_at', 'created_at'),
] as const;

/** A reading of an existing device, or the new value and `recorded_at` of its reading at the same `read_at` (same id). */
export function upsertReading(
  db: Kysely<FleetHoursDatabase>,
  reading: {
    readonly deviceId: number;
    readonly readAt: number;
    readonly readingSeconds: number;
    readonly now: number;
    readonly source?: string | undefined;
    readonly idleSeconds?: number | undefined;
  },
) {
  const row = _rowOfDevice(db, reading.deviceId, {
    read_at: instantOf(reading.readAt),
    reading_seconds: sql<string>`${reading.readingSeconds}::bigint`,
    recorded_at: instantOf(reading.now),
    source: sql<string | null>`${reading.source ?? null}::text`,
    idle_seconds: sql<string | null>`${reading.idleSeconds ?? null}::bigint`,
  });
  return db
    .insertInto('hour_meter_readings')
    .columns(row.columns)
    .expression(row.select)
    .onConflict((conflict) =>
      conflict.columns(['device_id', 'read_at']).doUpdateSet((eb) => ({
        reading_seconds: eb.ref('excluded.reading_seconds'),
        recorded_at: eb.ref('excluded.recorded_at'),
        source: eb.ref('excluded.source'),
        idle_seconds: eb.ref('excluded.idle_seconds'),
      })),
    )
    .returning(READING_COLUMNS);
}

/**
 * The readings of some devices (valid ids), by device, then newest first: one statement whatever
 * their number (the ids travel as one array), and for each device a backward range of the unique
 * `(device_id, read_at)` index, never a scan of the table. The per-device subquery is ordered, so
 * PostgreSQL keeps it a subquery run for each id (a nested loop over the index) instead of joining
 * the ids with the whole table, whatever the table's size or the planner's page costs.
 */
export function readingsOfDevices(deviceIds: readonly number[]): RawBuilder<ReadingRow> {
  return sql<ReadingRow>`
    select reading.*
      from unnest(${_sortedOnce(deviceIds)}::integer[]) as asked(device_id)
     cross join lateral (
           select id, device_id, date_part('epoch', read_at) as read_at, reading_seconds, source, idle_seconds, date_part('epoch', recorded_at) as recorded_at
             from hour_meter_readings
            where hour_meter_readings.device_id = asked.device_id
            order by hour_meter_readings.read_at desc) as reading
     order by reading.device_id, reading.read_at desc`;
}

/** Deletes a device's reading, returning it; with `expected`, only while it is as read (D54, P77). */
export function deleteReading(db: Kysely<FleetHoursDatabase>, deviceId: number, readingId: number, expected?: HourMeterReading) {
  return db
    .deleteFrom('hour_meter_readings')
    .where('id', '=', readingId)
    .where('device_id', '=', deviceId)
    .where((eb) =>
      expected === undefined
        ? eb.and([])
        : eb.and([
            eb('read_at', '=', instantOf(expected.readAt)),
            eb('reading_seconds', '=', sql<string>`${expected.readingSeconds}::bigint`),
            eb('recorded_at', '=', instantOf(expected.recordedAt)),
          ]),
    )
    .returning(READING_COLUMNS);
}

/** A schedule of an existing device, optional fields left out as null. */
export function insertSchedule(db: Kysely<FleetHoursDatabase>, input: NewServiceSchedule & { readonly now: number }) {
  const bigint = (value: number | null | undefined) => sql<string | null>`${value ?? null}::bigint`;
  const integer = (value: number | null | undefined) => sql<number | null>`${value ?? null}::integer`;
  const row = _rowOfDevice(db, input.deviceId, {
    name: sql<string>`${input.name}::text`,
    interval_seconds: bigint(input.intervalSeconds),
    interval_days: integer(input.intervalDays),
    due_soon_seconds: bigint(input.dueSoonSeconds),
    due_soon_days: integer(input.dueSoonDays),
    last_done_at: instantOf(input.lastDoneAt),
    last_done_hour_meter_seconds: bigint(input.lastDoneHourMeterSeconds),
    created_at: instantOf(input.now),
  });
  return db.insertInto('service_schedules').columns(row.columns).expression(row.select).returning(SCHEDULE_COLUMNS);
}

/** One schedule by id. */
export function scheduleById(db: Kysely<FleetHoursDatabase>, scheduleId: number) {
  return db.selectFrom('service_schedules').select(SCHEDULE_COLUMNS).where('id', '=', scheduleId);
}

/** The schedules of some devices (valid ids), by device, then id: one statement, a range of the primary key `(device_id, id)` per device (as {@link readingsOfDevices}). */
export function schedulesOfDevices(deviceIds: readonly number[]): RawBuilder<ScheduleRow> {
  return sql<ScheduleRow>`
    select schedule.*
      from unnest(${_sortedOnce(deviceIds)}::integer[]) as asked(device_id)
     cross join lateral (
           select id, device_id, name, interval_seconds, interval_days, due_soon_seconds, due_soon_days,
                  date_part('epoch', last_done_at) as last_done_at, last_done_hour_meter_seconds,
                  date_part('epoch', created_at) as created_at
             from service_schedules
            where service_schedules.device_id = asked.device_id
            order by service_schedules.id) as schedule
     order by schedule.device_id, schedule.id`;
}

/**
 * Applies the changes given (a field left out keeps its value; `null` clears it) and returns the
 * schedule; with no change, the schedule as it is.
 */
export function changeSchedule(
  db: Kysely<FleetHoursDatabase>,
  scheduleId: number,
  changes: ServiceScheduleChanges,
  expected?: ServiceSchedule,
) {
  const set: UpdateObject<FleetHoursDatabase, 'service_schedules'> = {
    ...(changes.name === undefined ? {} : { name: changes.name }),
    ...(changes.intervalSeconds === undefined ? {} : { interval_seconds: changes.intervalSeconds }),
    ...(changes.intervalDays === undefined ? {} : { interval_days: changes.intervalDays }),
    ...(changes.dueSoonSeconds === undefined ? {} : { due_soon_seconds: changes.dueSoonSeconds }),
    ...(changes.dueSoonDays === undefined ? {} : { due_soon_days: changes.dueSoonDays }),
    ...(changes.lastDoneAt === undefined ? {} : { last_done_at: instantOf(changes.lastDoneAt) }),
    ...(changes.lastDoneHourMeterSeconds === undefined ? {} : { last_done_hour_meter_seconds: changes.lastDoneHourMeterSeconds }),
  };
  if (Object.keys(set).length === 0) return scheduleById(db, scheduleId).where(_asRead(expected));
  return db.updateTable('service_schedules').set(set).where('id', '=', scheduleId).where(_asRead(expected)).returning(SCHEDULE_COLUMNS);
}

/** Deletes a schedule, returning it; with `expected`, only while it is as read (D54, P77). */
export function deleteSchedule(db: Kysely<FleetHoursDatabase>, scheduleId: number, expected?: ServiceSchedule) {
  return db.deleteFrom('service_schedules').where('id', '=', scheduleId).where(_asRead(expected)).returning(SCHEDULE_COLUMNS);
}

/** The condition that a schedule row still has every field of `expected` a write can change (D54, P77); true without one. */
function _asRead(expected: ServiceSchedule | undefined) {
  return (eb: ExpressionBuilder<FleetHoursDatabase, 'service_schedules'>) => {
    if (expected === undefined) return eb.and([]);
    const same = (column: string, value: unknown, type: string) =>
      sql<boolean>`${sql.ref(column)} is not distinct from ${value}::${sql.raw(type)}`;
    return eb.and([
      eb('name', '=', expected.name),
      same('interval_seconds', expected.intervalSeconds, 'bigint'),
      same('interval_days', expected.intervalDays, 'integer'),
      same('due_soon_seconds', expected.dueSoonSeconds, 'bigint'),
      same('due_soon_days', expected.dueSoonDays, 'integer'),
      eb('last_done_at', '=', instantOf(expected.lastDoneAt)),
      same('last_done_hour_meter_seconds', expected.lastDoneHourMeterSeconds, 'bigint'),
    ]);
  };
}

/** A reading's row, its instants in epoch seconds. */
export interface ReadingRow {
  readonly id: number;
  readonly device_id: number;
  readonly read_at: number;
  readonly reading_seconds: BigintValue;
  readonly recorded_at: number;
  readonly source: string | null;
  readonly idle_seconds: BigintValue | null;
}

/** A schedule's row, its instants in epoch seconds. */
export interface ScheduleRow {
  readonly id: number;
  readonly device_id: number;
  readonly name: string;
  readonly interval_seconds: BigintValue;
  readonly interval_days: number | null;
  readonly due_soon_seconds: BigintValue | null;
  readonly due_soon_days: number | null;
  readonly last_done_at: number;
  readonly last_done_hour_meter_seconds: BigintValue | null;
  readonly created_at: number;
}

/** A reading's row as the port's reading. */
export function toReading(row: ReadingRow): HourMeterReading {
  return {
    id: row.id,
    deviceId: row.device_id,
    readAt: Number(row.read_at),
    readingSeconds: Number(row.reading_seconds),
    recordedAt: Number(row.recorded_at),
    ...(row.source === null ? {} : { source: row.source }),
    // A listing that does not select the column (the service memos') gives none.
    ...((row.idle_seconds ?? null) === null ? {} : { idleSeconds: Number(row.idle_seconds) }),
  };
}

/** A schedule's row as the port's schedule. */
export function toSchedule(row: ScheduleRow): ServiceSchedule {
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

/**
 * The columns of an insert for an existing device and the `select … from devices where id = $1`
 * that gives its row (none when the device does not exist, so nothing is inserted), from one record
 * that names each column once with its value: the two lists cannot fall out of step.
 */
function _rowOfDevice<Column extends string>(
  db: Kysely<FleetHoursDatabase>,
  deviceId: number,
  values: Readonly<Record<Column, RawBuilder<unknown>>>,
) {
  const columns = Object.keys(values) as Column[];
  return {
    columns: ['device_id' as const, ...columns],
    select: db
      .selectFrom('devices')
      .select(['devices.id', ...columns.map((column) => values[column].as(column))])
      .where('devices.id', '=', deviceId),
  };
}

/** Each id once, ascending: a device asked twice is read once. */
function _sortedOnce(ids: readonly number[]): number[] {
  return [...new Set(ids)].sort((a, b) => a - b);
}

function _numberOrNull(value: BigintValue | null): number | null {
  return value === null ? null : Number(value);
}

/** The advisory lock of a device's schedule names (P78), with the device id as its second key (any constant will do). */
const SCHEDULE_NAMES_LOCK = 742_000_078;

/**
 * Runs a write of a schedule under its device's names lock (P78), in a transaction: a name another
 * schedule of the device has (trimmed, in lower case) is refused with `scheduleNameInUse` before
 * the write, and two writes of one device's names take turns, so of two creates with one name at
 * once one is stored. Without `name`, the write runs as it is.
 */
export async function withUniqueName<Row>(
  db: Kysely<FleetHoursDatabase>,
  check: { readonly deviceId: number; readonly name: string; readonly except: number | null } | null,
  write: (db: Kysely<FleetHoursDatabase>) => Promise<Row>,
): Promise<Row> {
  if (check === null) return write(db);
  const run = async (trx: Kysely<FleetHoursDatabase>) => {
    await sql`select pg_advisory_xact_lock(${SCHEDULE_NAMES_LOCK}::integer, ${check.deviceId}::integer)`.execute(trx);
    const { rows } = await sql<{ id: number }>`
      select id from service_schedules
       where device_id = ${check.deviceId} and id is distinct from ${check.except}::integer
         and lower(btrim(name)) = ${scheduleNameKey(check.name)}
       limit 1`.execute(trx);
    if (rows.length > 0) throw scheduleNameInUse(check.name);
    return write(trx);
  };
  return inTransaction(db, run);
}
