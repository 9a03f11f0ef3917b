import { SCHEDULE_FIELDS, SERVICE_STATUSES, type FleetHoursStore, type ServicePageDevice, type ServiceStatus } from '@fleet-hours/core';
import { assertEpochSeconds } from '@fleet-hours/core/adapter';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { toDevice } from './device-store.js';
import { isId, planFree } from '../sql/sql-values.js';
import { engineSecondsAtNowOf } from '../sql/segment-queries.js';
import { toReading, toSchedule, type ReadingRow, type ScheduleRow } from '../sql/maintenance-queries.js';
import { guard } from './storage-error.js';
import type { FleetHoursDatabase } from '../schema/database-schema.js';
import { inTransaction } from '../sql/in-transaction.js';

/** The methods of the storage port on what service reads remember (P58). */
export interface ServiceMemoStore {
  listServicePage: NonNullable<FleetHoursStore['listServicePage']>;
  rememberServiceMemos: NonNullable<FleetHoursStore['rememberServiceMemos']>;
}

/** The largest `integer` id. */
const MAX_ID = 2_147_483_647;

/**
 * The fields of a reading and of a schedule as the listing sends them: positional arrays, lighter
 * than JSON objects, in this order (the statement builds them from these lists, and
 * `_rowOfListed` reads them back by the same lists). An instant is sent as epoch seconds.
 */
const LISTED_READING = ['id', 'read_at', 'reading_seconds', 'recorded_at'] as const satisfies readonly (keyof ReadingRow)[];
// The columns a schedule's write gives are named as its fields in the API's body.
const LISTED_SCHEDULE = ['id', ...SCHEDULE_FIELDS, 'created_at'] as const satisfies readonly (keyof ScheduleRow)[];
const LISTED_INSTANTS: ReadonlySet<string> = new Set(['read_at', 'recorded_at', 'last_done_at', 'created_at']);

/** The array the statement builds of a row of the table aliased `alias`: its `fields`, in their order. */
function _listedArray(alias: string, fields: readonly string[]): RawBuilder<unknown> {
  const values = fields.map((field) =>
    LISTED_INSTANTS.has(field) ? sql`date_part('epoch', ${sql.ref(`${alias}.${field}`)})` : sql.ref(`${alias}.${field}`),
  );
  return sql`json_build_array(${sql.join(values)})`;
}

/** A row of `device_id` from its listed array: each value under its field's name. */
function _rowOfListed<Row>(deviceId: number, fields: readonly string[], values: readonly unknown[]): Row {
  return Object.fromEntries([['device_id', deviceId], ...fields.map((field, index) => [field, values[index]])]) as Row;
}

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
  readonly tags: string[];
  readonly oem_name: string | null;
  readonly equipment_model: string | null;
  readonly serial_number: string | null;
  readonly pin: string | null;
  readonly last_reported_at: number | null;
  readonly memo_version: number | string;
  /** Whether the values below were remembered at `memo_version`. */
  readonly remembered: boolean;
  readonly ok_until: number | null;
  /** `[[instant, moving, idle], …]`. */
  readonly engine_before: readonly [number, number, number][] | null;
  /** P66: the statuses' bits and until when, when remembered at `memo_version`. */
  readonly statuses: number | null;
  readonly statuses_until: number | null;
  readonly readings: readonly (readonly unknown[])[] | null;
  readonly schedules: readonly (readonly unknown[])[] | null;
}

/**
 * P58 on Kysely. What protects the remembered values: the device's row of `service_memos` (none:
 * version 0, nothing remembered). Every change a value depends on raises its `version` in the
 * change's own transaction (the triggers of migration 0012 for readings, schedules and zones; the
 * write statement of `sql/device-writes.ts` for segments; `raiseServiceMemoVersion` for rebuilds
 * and repairs), and the values count only while `remembered_at_version` is `version`: the listing
 * compares them in its one statement. Remembering is an upsert of that row whose update applies
 * only while `version` is the one the values were computed from: a change holding the row's lock
 * makes it wait, and it then sees the raised version and writes nothing.
 */
export function serviceMemoStore(db: Kysely<FleetHoursDatabase>): ServiceMemoStore {
  return {
    listServicePage: ({ accountId, afterId, limit, now, unsettledOnly, filter, tag }) =>
      guard(async () => {
        if (afterId !== undefined && !Number.isSafeInteger(afterId))
          throw new RangeError(`afterId must be a safe integer, got "${afterId}"`);
        if (!(Number.isSafeInteger(limit) && limit >= 1)) throw new RangeError(`limit must be a positive safe integer, got "${limit}"`);
        if (filter !== undefined && !(Number.isSafeInteger(filter.matches) && filter.matches >= 1))
          throw new RangeError(`filter.matches must be a positive safe integer, got "${filter.matches}"`);
        assertEpochSeconds('now', now);
        if (!isId(accountId)) return { devices: [], lastDeviceId: null };
        // One statement, so one snapshot: the page's devices (a keyset range of the account's, the
        // filter one row of `service_memos` and a probe of the schedules per device), and for each
        // its engine seconds up to now, readings, schedules and what is remembered at its version.
        const { rows } = await sql<_ListedRow>`
          select account.last_device_id, page.*, engine.moving_seconds, engine.idle_seconds,
                 (select json_agg(${_listedArray('reading', LISTED_READING)} order by reading.read_at desc)
                    from hour_meter_readings as reading where reading.device_id = page.id) as readings,
                 (select json_agg(${_listedArray('schedule', LISTED_SCHEDULE)} order by schedule.id)
                    from service_schedules as schedule where schedule.device_id = page.id) as schedules
            from (${_lastDevice(accountId, tag)}) as account
            left join lateral (${_pageDevices({ accountId, afterId, limit, now, unsettledOnly, filter, tag })}) as page on true
            left join lateral (${engineSecondsAtNowOf(sql<number>`page.id`, planFree(now, 'float8') as RawBuilder<number>)}) as engine on page.id is not null
           order by page.id`.execute(db);
        const lastDeviceId = rows[0]?.last_device_id ?? null;
        const devices = rows.filter((row) => row.id !== null).map(_pageDeviceOf);
        return { devices, lastDeviceId: lastDeviceId === null ? null : Number(lastDeviceId) };
      }),

    rememberServiceMemos: ({ devices }) =>
      guard(async () => {
        const asked = {
          device: [] as number[],
          version: [] as number[],
          okUntil: [] as (number | null)[],
          engine: [] as string[],
          statuses: [] as (number | null)[],
          statusesUntil: [] as (number | null)[],
        };
        for (const memo of devices) {
          if (!isId(memo.deviceId) || !Number.isSafeInteger(memo.memoVersion)) continue;
          if (memo.okUntil !== null) assertEpochSeconds('okUntil', memo.okUntil);
          for (const { instant } of memo.engineBefore) assertEpochSeconds('engineBefore.instant', instant);
          const statuses = memo.statuses ?? null;
          if (statuses?.until != null) assertEpochSeconds('statuses.until', statuses.until);
          asked.device.push(memo.deviceId);
          asked.version.push(memo.memoVersion);
          asked.okUntil.push(memo.okUntil);
          asked.statuses.push(statuses === null ? null : _bitsOf(statuses.statuses));
          asked.statusesUntil.push(statuses?.until ?? null);
          asked.engine.push(
            JSON.stringify(memo.engineBefore.map(({ instant, seconds }) => [instant, seconds.movingSeconds, seconds.idleSeconds])),
          );
        }
        if (asked.device.length === 0) return;
        // A device without a row is at version 0, so its first memo makes the row. A change that
        // raises the version meanwhile holds the row's lock: the update waits, then finds another
        // version and writes nothing. A cache: its commit does not wait for the disk (a crash may
        // lose it, never make it wrong), hence the transaction.
        await inTransaction(db, async (trx) => {
          // Not inside another's transaction (P102): its commit must wait for the disk.
          if (!db.isTransaction) await sql`set local synchronous_commit = off`.execute(trx);
          await sql`
            insert into service_memos as memo (device_id, version, remembered_at_version, ok_until, engine_before, statuses, statuses_until)
            select asked.device_id, asked.version, asked.version, to_timestamp(asked.ok_until), asked.engine::jsonb,
                   asked.statuses, to_timestamp(asked.statuses_until)
              from unnest(${asked.device}::integer[], ${asked.version}::bigint[], ${asked.okUntil}::float8[], ${asked.engine}::text[],
                          ${asked.statuses}::smallint[], ${asked.statusesUntil}::float8[])
                   as asked(device_id, version, ok_until, engine, statuses, statuses_until)
             where exists (select 1 from devices where id = asked.device_id)
            on conflict (device_id) do update
               set remembered_at_version = excluded.remembered_at_version, ok_until = excluded.ok_until, engine_before = excluded.engine_before,
                   statuses = excluded.statuses, statuses_until = excluded.statuses_until
             where memo.version = excluded.version`.execute(trx);
        });
      }),
  };
}

/** The bit of each status in `service_memos.statuses` (P66). */
const STATUS_BITS: Readonly<Record<ServiceStatus, number>> = { ok: 1, due_soon: 2, overdue: 4 };

/** The mask of some bits. */
function _bitsOfBits(bits: readonly number[]): number {
  return bits.reduce((mask, bit) => mask | bit, 0);
}

/** The bits of some statuses (an unknown one has none). */
function _bitsOf(statuses: readonly ServiceStatus[]): number {
  return statuses.reduce((mask, status) => mask | (STATUS_BITS[status] ?? 0), 0);
}

/** The highest id of the account's devices, of those having `tag` when it is given (D61). */
function _lastDevice(accountId: number, tag: string | undefined): RawBuilder<unknown> {
  const account = planFree(accountId, 'integer');
  return tag === undefined
    ? sql`select max(id) as last_device_id from devices where account_id = ${account}`
    : sql`select max(device_id) as last_device_id from device_tags where account_id = ${account} and tag = ${planFree(tag, 'text')}`;
}

/**
 * D61, P95: the condition that the device `id` has the tag (none without a tag): a probe of
 * `device_tags`' key, so the planner may walk either side in device order.
 */
function _taggedCondition(account: RawBuilder<unknown>, id: RawBuilder<unknown>, tag: string | undefined): RawBuilder<unknown> {
  return tag === undefined
    ? sql`true`
    : sql`exists (select 1 from device_tags as tagged
                   where tagged.account_id = ${account} and tagged.tag = ${planFree(tag, 'text')} and tagged.device_id = ${id})`;
}

/**
 * The devices of a service page, by id (the `page` of `listServicePage`). With a filter (D49,
 * P66): only the devices with schedules not remembered, at their version, to have none of its
 * statuses until after now, and none after the `filter.matches`-th remembered to have one (a
 * running count over the keyset range, so the page reads no device it does not need).
 */
function _pageDevices(input: Parameters<ServiceMemoStore['listServicePage']>[0]): RawBuilder<unknown> {
  const { accountId, afterId, limit, now, unsettledOnly, filter, tag } = input;
  const until = sql`to_timestamp(${planFree(now, 'float8')})`;
  const current = sql`memo.remembered_at_version = memo.version`;
  // The filtered page's id is the memo's (the same): its walk is in that order, so nothing sorts it again.
  const columns = (
    id: RawBuilder<unknown>,
  ) => sql`${id} as id, device.account_id, device.name, device.imei, device.registration, device.model, device.status,
         device.time_zone, device.tags, device.oem_name, device.equipment_model, device.serial_number, device.pin, date_part('epoch', state.last_reported_at) as last_reported_at,
         coalesce(memo.version, 0) as memo_version,
         coalesce(${current}, false) as remembered,
         case when ${current} then date_part('epoch', memo.ok_until) end as ok_until,
         case when ${current} then memo.engine_before end as engine_before,
         case when ${current} then memo.statuses end as statuses,
         case when ${current} then date_part('epoch', memo.statuses_until) end as statuses_until`;
  const range = sql`from devices as device
    join device_states as state on state.device_id = device.id
    left join service_memos as memo on memo.device_id = device.id
   where device.account_id = ${planFree(accountId, 'integer')} and device.id > ${planFree(Math.min(Math.max(afterId ?? 0, 0), MAX_ID), 'integer')}
     and ${_taggedCondition(sql`device.account_id`, sql`device.id`, tag)}
     and (not ${planFree(unsettledOnly, 'boolean')}
          or (not coalesce(${current} and memo.ok_until > ${until}, false)
              and exists (select 1 from service_schedules as schedule where schedule.device_id = device.id)))`;
  // A device count never exceeds the largest id: `limit` as an integer parameter.
  const most = planFree(Math.min(limit, MAX_ID), 'integer');
  if (filter === undefined) return sql`select ${columns(sql`device.id`)} ${range} order by device.id limit ${most}`;
  const bits = planFree(_bitsOf(filter.statuses), 'integer');
  const known = sql`${current} and memo.statuses is not null and (memo.statuses_until is null or memo.statuses_until > ${until})`;
  // P75: only the account's rows of `service_memos` that may match, in disjoint branches read
  // together and sorted by device: the rows remembered, at their version, with a wanted status (one branch per
  // status asked for, less the rows of the branches before it), the rows with nothing remembered
  // at their version, and the rows whose statuses' `until` has passed without a wanted one (few:
  // the page that reads them remembers them again). A row remembered to miss is in none of them,
  // so the walk never reads it. Each branch reads its partial index of migration 0017; the bits
  // are literals, as the planner matches a branch to its index by its text. The account is a
  // range `(account_id, device_id) > (account, after)` up to `account_id <= account`, not an
  // equality: with it the primary key's order would be the account's order too, and a walk of
  // it a way to read a branch in order. Each row the page keeps is then joined to its device,
  // state and schedules (`limit 1` subqueries: probes per row kept, where a join let the planner
  // hash every schedule of every account before the first row).
  const after = planFree(Math.min(Math.max(afterId ?? 0, 0), MAX_ID), 'integer');
  const account = planFree(accountId, 'integer');
  const branch = (where: RawBuilder<unknown>) =>
    sql`select * from service_memos as memo
         where (memo.account_id, memo.device_id) > (${account}, ${after}) and memo.account_id <= ${account} and ${where}
           and ${_taggedCondition(account, sql`memo.device_id`, tag)}`;
  const wanted = SERVICE_STATUSES.filter((status) => filter.statuses.includes(status)).map((status) => STATUS_BITS[status]);
  const branches = [
    ...wanted.map((bit, index) =>
      branch(
        sql`${current} and (memo.statuses & ${sql.lit(bit)}) <> 0 and (memo.statuses & ${sql.lit(_bitsOfBits(wanted.slice(0, index)))}) = 0`,
      ),
    ),
    branch(sql`(memo.remembered_at_version is distinct from memo.version or memo.statuses is null)`),
    branch(sql`${current} and memo.statuses_until <= ${until} and (memo.statuses & ${sql.lit(_bitsOfBits(wanted))}) = 0`),
  ];
  // The running count needs the memo alone, so it runs before the joins: the rows after the last
  // match the page needs, or past `limit`, are never joined.
  return sql`
    select ${columns(sql`memo.device_id`)}, memo.matches_before
      from (select memo.*,
                   count(*) filter (where coalesce(${known} and (memo.statuses & ${bits}) <> 0, false))
                     over (order by memo.device_id rows between unbounded preceding and 1 preceding) as matches_before
              from (${sql.join(branches, sql` union all `)}) as memo) as memo
     cross join lateral (select * from devices where devices.id = memo.device_id limit 1) as device
     cross join lateral (select * from device_states where device_states.device_id = memo.device_id limit 1) as state
     where memo.matches_before < ${planFree(Math.min(filter.matches, MAX_ID), 'integer')}
       and (not ${planFree(unsettledOnly, 'boolean')} or not coalesce(${current} and memo.ok_until > ${until}, false))
       and coalesce((select true from service_schedules as schedule where schedule.device_id = memo.device_id limit 1), false)
     order by memo.device_id
     limit ${most}`;
}

function _pageDeviceOf(row: _ListedRow): ServicePageDevice {
  const deviceId = row.id!;
  const readings = (row.readings ?? []).map((values) => toReading(_rowOfListed<ReadingRow>(deviceId, LISTED_READING, values)));
  const schedules = (row.schedules ?? []).map((values) => toSchedule(_rowOfListed<ScheduleRow>(deviceId, LISTED_SCHEDULE, values)));
  const remembered = row.remembered
    ? {
        okUntil: row.ok_until === null ? null : Number(row.ok_until),
        statuses:
          row.statuses === null
            ? null
            : {
                statuses: SERVICE_STATUSES.filter((status) => (Number(row.statuses) & STATUS_BITS[status]) !== 0),
                until: row.statuses_until === null ? null : Number(row.statuses_until),
              },
        engineBefore: new Map(
          (row.engine_before ?? []).map(([instant, moving, idle]) => [
            Number(instant),
            { movingSeconds: Number(moving), idleSeconds: Number(idle) },
          ]),
        ),
      }
    : null;
  return {
    device: toDevice({ ...row, id: deviceId }),
    engineSeconds: { movingSeconds: Number(row.moving_seconds), idleSeconds: Number(row.idle_seconds) },
    readings,
    schedules,
    memoVersion: Number(row.memo_version),
    remembered,
  };
}
