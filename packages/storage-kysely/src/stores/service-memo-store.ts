import type { BucketSeconds, FleetHoursStore, HourMeterReading, ServicePageDevice, ServiceSchedule } from '@fleet-hours/core';
import { assertEpochSeconds } from '@fleet-hours/core/adapter';
import { sql, type Kysely } from 'kysely';
import { toDevice } from './device-store.js';
import { isId, planFree } from '../sql/sql-values.js';
import { engineSecondsAtNowOf } from '../sql/segment-queries.js';
import { guard } from './storage-error.js';
import type { FleetHoursDatabase } from '../schema/database-schema.js';

/** The methods of the storage port on what service reads remember (P58). */
export interface ServiceMemoStore {
  listServicePage: NonNullable<FleetHoursStore['listServicePage']>;
  rememberServiceMemos: NonNullable<FleetHoursStore['rememberServiceMemos']>;
}

/** The largest `integer` id. */
const MAX_ID = 2_147_483_647;

/** A reading of the listing: `[id, read_at, reading_seconds, recorded_at, remembered, moving before, idle before]`. */
type _ListedReading = [number, number, number, number, boolean | null, number | null, number | null];

/**
 * A schedule of the listing: `[id, name, interval_seconds, interval_days, due_soon_seconds,
 * due_soon_days, last_done_at, last_done_hour_meter_seconds, created_at, engine remembered, moving
 * before, idle before, ok remembered, ok_until]`.
 */
type _ListedSchedule = [
  number,
  string,
  number,
  number | null,
  number | null,
  number | null,
  number,
  number | null,
  number,
  boolean | null,
  number | null,
  number | null,
  boolean | null,
  number | null,
];

/** A row of the listing: the account's highest id, then a device of the page (all `null` for none). */
interface _ListedRow {
  readonly moving_seconds: number | null;
  readonly idle_seconds: number | null;
  readonly last_device_id: number | null;
  readonly id: number | null;
  readonly account_id: number;
  readonly name: string;
  readonly imei: string;
  readonly registration: string | null;
  readonly model: string;
  readonly status: string;
  readonly time_zone: string;
  readonly last_reported_at: number | null;
  readonly memo_version: number | string;
  readonly readings: readonly _ListedReading[] | null;
  readonly schedules: readonly _ListedSchedule[] | null;
}

/**
 * P58 on Kysely. What protects the remembered values: the device's row of `service_memo_versions`
 * (none: version 0). Every change a value depends on raises it in the change's own transaction
 * (the triggers of migration 0012 for readings, schedules and zones; the write statement of
 * `sql/device-writes.ts` for segments), and a value counts only when the version it was
 * remembered at is the row's: the listing compares them in its one statement, and a remembering
 * statement writes only while the version is still the one its values were computed from.
 */
export function serviceMemoStore(db: Kysely<FleetHoursDatabase>): ServiceMemoStore {
  return {
    listServicePage: ({ accountId, afterId, limit, now, unsettledOnly }) =>
      guard(async () => {
        if (afterId !== undefined && !Number.isSafeInteger(afterId))
          throw new RangeError(`afterId must be a safe integer, got "${afterId}"`);
        if (!(Number.isSafeInteger(limit) && limit >= 1)) throw new RangeError(`limit must be a positive safe integer, got "${limit}"`);
        assertEpochSeconds('now', now);
        if (!isId(accountId)) return { devices: [], lastDeviceId: null };
        // One statement, so one snapshot: the page's devices (a keyset range of the account's, the
        // filter a probe of each device's schedules), and for each its meter summary, readings,
        // schedules and what is remembered at its memo version.
        const { rows } = await sql<_ListedRow>`
          select account.last_device_id, page.*, engine.moving_seconds, engine.idle_seconds,
                 (select json_agg(json_build_array(
                           reading.id, date_part('epoch', reading.read_at), reading.reading_seconds, date_part('epoch', reading.recorded_at),
                           reading.engine_memo_version = page.memo_version, reading.moving_before_seconds, reading.idle_before_seconds)
                         order by reading.read_at desc)
                    from hour_meter_readings as reading where reading.device_id = page.id) as readings,
                 (select json_agg(json_build_array(
                           schedule.id, schedule.name, schedule.interval_seconds, schedule.interval_days,
                           schedule.due_soon_seconds, schedule.due_soon_days, date_part('epoch', schedule.last_done_at),
                           schedule.last_done_hour_meter_seconds, date_part('epoch', schedule.created_at),
                           schedule.engine_memo_version = page.memo_version, schedule.moving_before_seconds, schedule.idle_before_seconds,
                           schedule.ok_memo_version = page.memo_version, date_part('epoch', schedule.ok_until))
                         order by schedule.id)
                    from service_schedules as schedule where schedule.device_id = page.id) as schedules
            from (select max(id) as last_device_id from devices where account_id = ${planFree(accountId, 'integer')}) as account
            left join lateral (
                  select device.id, device.account_id, device.name, device.imei, device.registration, device.model, device.status,
                         device.time_zone, date_part('epoch', state.last_reported_at) as last_reported_at,
                         coalesce(memo.version, 0) as memo_version
                    from devices as device
                    join device_states as state on state.device_id = device.id
                    left join service_memo_versions as memo on memo.device_id = device.id
                   where device.account_id = ${planFree(accountId, 'integer')} and device.id > ${planFree(Math.min(Math.max(afterId ?? 0, 0), MAX_ID), 'integer')}
                     and (not ${planFree(unsettledOnly, 'boolean')} or exists (
                           select 1 from service_schedules as schedule
                            where schedule.device_id = device.id
                              and not coalesce(schedule.ok_memo_version = coalesce(memo.version, 0)
                                               and schedule.ok_until > to_timestamp(${planFree(now, 'float8')}), false)))
                   order by device.id
                   limit ${planFree(limit, 'integer')}) as page on true
            left join lateral (${engineSecondsAtNowOf(sql<number>`page.id`, now)}) as engine on page.id is not null
           order by page.id`.execute(db);
        const lastDeviceId = rows[0]?.last_device_id ?? null;
        const devices = rows.filter((row) => row.id !== null).map(_pageDeviceOf);
        return { devices, lastDeviceId: lastDeviceId === null ? null : Number(lastDeviceId) };
      }),

    rememberServiceMemos: ({ devices }) =>
      guard(async () => {
        const engine = {
          device: [] as number[],
          version: [] as number[],
          instant: [] as number[],
          moving: [] as number[],
          idle: [] as number[],
        };
        const ok = { device: [] as number[], version: [] as number[], schedule: [] as number[], until: [] as (number | null)[] };
        for (const memo of devices) {
          if (!isId(memo.deviceId) || !Number.isSafeInteger(memo.memoVersion)) continue;
          for (const { instant, seconds } of memo.engineBefore) {
            assertEpochSeconds('engineBefore.instant', instant);
            engine.device.push(memo.deviceId);
            engine.version.push(memo.memoVersion);
            engine.instant.push(instant);
            engine.moving.push(seconds.movingSeconds);
            engine.idle.push(seconds.idleSeconds);
          }
          for (const { scheduleId, until } of memo.okUntil) {
            if (!isId(scheduleId)) continue;
            if (until !== null) assertEpochSeconds('okUntil.until', until);
            ok.device.push(memo.deviceId);
            ok.version.push(memo.memoVersion);
            ok.schedule.push(scheduleId);
            ok.until.push(until);
          }
        }
        if (engine.device.length === 0 && ok.device.length === 0) return;
        // Each statement writes a device's values only at the version they were computed from, read
        // in the statement's snapshot: a change committed since raised it, and the values are dropped.
        // A cache: its commit does not wait for the disk (a crash may lose it, never make it wrong).
        const current = (device: string) =>
          sql`coalesce((select version from service_memo_versions where device_id = ${sql.ref(device)}), 0)`;
        await db.transaction().execute(async (trx) => {
          await sql`set local synchronous_commit = off`.execute(trx);
          if (engine.device.length > 0) {
            const asked = sql`unnest(${engine.device}::integer[], ${engine.version}::bigint[], ${engine.instant}::float8[], ${engine.moving}::bigint[], ${engine.idle}::bigint[])
                                as asked(device_id, version, instant, moving, idle)`;
            await sql`
              update hour_meter_readings as reading
                 set engine_memo_version = asked.version, moving_before_seconds = asked.moving, idle_before_seconds = asked.idle
                from ${asked}
               where reading.device_id = asked.device_id and reading.read_at = to_timestamp(asked.instant)
                 and ${current('asked.device_id')} = asked.version`.execute(trx);
            await sql`
              update service_schedules as schedule
                 set engine_memo_version = asked.version, moving_before_seconds = asked.moving, idle_before_seconds = asked.idle
                from ${asked}
               where schedule.device_id = asked.device_id and schedule.last_done_at = to_timestamp(asked.instant)
                 and ${current('asked.device_id')} = asked.version`.execute(trx);
          }
          if (ok.device.length > 0) {
            await sql`
              update service_schedules as schedule
                 set ok_memo_version = asked.version, ok_until = to_timestamp(asked.until)
                from unnest(${ok.device}::integer[], ${ok.version}::bigint[], ${ok.schedule}::integer[], ${ok.until}::float8[])
                     as asked(device_id, version, schedule_id, until)
               where schedule.id = asked.schedule_id and schedule.device_id = asked.device_id
                 and ${current('asked.device_id')} = asked.version`.execute(trx);
          }
        });
      }),
  };
}

function _pageDeviceOf(row: _ListedRow): ServicePageDevice {
  const deviceId = row.id!;
  const engineBefore = new Map<number, BucketSeconds>();
  const readings: HourMeterReading[] = [];
  for (const [id, readAt, readingSeconds, recordedAt, remembered, moving, idle] of row.readings ?? []) {
    readings.push({ id, deviceId, readAt, readingSeconds: Number(readingSeconds), recordedAt });
    if (remembered) engineBefore.set(readAt, { movingSeconds: Number(moving), idleSeconds: Number(idle) });
  }
  const schedules: ServiceSchedule[] = [];
  const okUntil = new Map<number, number | null>();
  for (const listed of row.schedules ?? []) {
    const [id, name, intervalSeconds, intervalDays, dueSoonSeconds, dueSoonDays, lastDoneAt, lastDone, createdAt] = listed;
    const [remembered, moving, idle, ok, until] = listed.slice(9) as [
      boolean | null,
      number | null,
      number | null,
      boolean | null,
      number | null,
    ];
    schedules.push({
      id,
      deviceId,
      name,
      intervalSeconds: Number(intervalSeconds),
      intervalDays,
      dueSoonSeconds: dueSoonSeconds === null ? null : Number(dueSoonSeconds),
      dueSoonDays,
      lastDoneAt,
      lastDoneHourMeterSeconds: lastDone === null ? null : Number(lastDone),
      createdAt,
    });
    if (remembered) engineBefore.set(lastDoneAt, { movingSeconds: Number(moving), idleSeconds: Number(idle) });
    if (ok) okUntil.set(id, until);
  }
  return {
    device: toDevice({ ...row, id: deviceId }),
    engineSeconds: { movingSeconds: Number(row.moving_seconds), idleSeconds: Number(row.idle_seconds) },
    readings,
    schedules,
    memoVersion: Number(row.memo_version),
    engineBefore,
    okUntil,
  };
}
