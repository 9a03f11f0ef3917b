import { MACHINE_IDENTITY_FIELDS, type BucketSeconds, type Device, type FleetHoursStore, type WorkCalendar } from '@fleet-hours/core';
import { assertDevicePage, assertEpochSeconds } from '@fleet-hours/core/adapter';
import { sql, type ExpressionBuilder, type Kysely, type RawBuilder } from 'kysely';
import { coalescedByKey } from './coalesced-by-key.js';
import { refusingImeiConflict } from './imei-conflict.js';
import { rebuildDeviceFigures } from '../sql/daily-figures.js';
import { flatBoundaries, sumByBucketOfRow } from '../sql/fleet-queries.js';
import { lockDeviceState, overlappingSegments, summarize, sumByBucket } from '../sql/segment-queries.js';
import { isId, secondsOrNull } from '../sql/sql-values.js';
import { guard } from './storage-error.js';
import type { FleetHoursDatabase } from '../schema/database-schema.js';
import { inTransaction } from '../sql/in-transaction.js';

/** The methods of the storage port on devices. */
export type DeviceStore = Pick<FleetHoursStore, 'listDevices' | 'findDevice' | 'findDeviceByImei' | 'createDevice' | 'updateDevice'> & {
  listDevicePage: NonNullable<FleetHoursStore['listDevicePage']>;
  findDeviceWithSums: NonNullable<FleetHoursStore['findDeviceWithSums']>;
  findDeviceWithSummary: NonNullable<FleetHoursStore['findDeviceWithSummary']>;
  findDeviceWithDays: NonNullable<FleetHoursStore['findDeviceWithDays']>;
};

/** A `devices` row read by raw SQL, with what was read along with it. */
type _DeviceRow = Parameters<typeof toDevice>[0];

/** The largest `integer` id. */
const MAX_ID = 2_147_483_647;

/** The columns of `devices` a new device is written with: all but its `id`. D63's identity columns bear its names. */
const WRITTEN_DEVICE_COLUMNS = [
  'account_id',
  'name',
  'imei',
  'registration',
  'model',
  'status',
  'time_zone',
  // D61, D63
  'tags',
  ...MACHINE_IDENTITY_FIELDS,
] as const satisfies readonly (keyof FleetHoursDatabase['devices'])[];

/** A `devices` row as {@link toDevice} reads it. */
const DEVICE_COLUMNS = [
  'id',
  ...WRITTEN_DEVICE_COLUMNS,
  // D44: kept in the device's state row, not in `devices`.
  sql<number | null>`(select date_part('epoch', last_reported_at) from device_states where device_id = devices.id)`.as('last_reported_at'),
] as const;

/** {@link DEVICE_COLUMNS} of the row `d`, in raw SQL. */
const DEVICE_SQL = sql`d.id, d.account_id, d.name, d.imei, d.registration, d.model, d.status, d.time_zone,
  d.tags, d.oem_name, d.equipment_model, d.serial_number, d.pin,
  (select date_part('epoch', last_reported_at) from device_states where device_id = d.id) as last_reported_at`;

/** One call of `findDeviceWithSums`, its arguments checked. */
interface _SumsRequest {
  readonly accountId: number;
  readonly deviceId: number;
  readonly timeZone: string;
  readonly boundaries: readonly number[];
  readonly now: number;
}

/** A row of {@link _deviceWithSums} or {@link _devicesWithSums}: the device, and its figures when the zone is the request's. */
type _SumsRow = _DeviceRow & { readonly buckets: [number, number | string, number | string][] | null };

/** The answer of `findDeviceWithSums` from the device's row (none: not a device of the account). */
function _sumsAnswer(request: _SumsRequest, row: _SumsRow | undefined): { device: Device; buckets: BucketSeconds[] | null } | null {
  if (!row) return null;
  const device = toDevice(row);
  if (row.buckets === null || device.timeZone !== request.timeZone) return { device, buckets: null };
  const buckets: BucketSeconds[] = Array.from({ length: Math.max(0, request.boundaries.length - 1) }, () => ({
    movingSeconds: 0,
    idleSeconds: 0,
  }));
  for (const [bucket, moving, idle] of row.buckets)
    buckets[Number(bucket) - 1] = { movingSeconds: Number(moving), idleSeconds: Number(idle) };
  return { device, buckets };
}

/** A `sumByBucket` query's rows as one JSON array of `[bucket, moving, idle]`, for a column of the device's row. */
function _bucketsJson(sums: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`(select coalesce(json_agg(json_build_array(s.bucket, s.moving_seconds, s.idle_seconds)), '[]'::json) from (${sums}) as s)`;
}

/** `findDeviceWithSums` for one call, in one statement. */
async function _deviceWithSums(
  db: Kysely<FleetHoursDatabase>,
  request: _SumsRequest,
): Promise<{ device: Device; buckets: BucketSeconds[] | null } | null> {
  const { accountId, deviceId, timeZone, boundaries, now } = request;
  const figures = boundaries.length < 2 ? sql`'[]'::json` : _bucketsJson(sumByBucket(deviceId, boundaries, now));
  const { rows } = await sql<_SumsRow>`
    select ${DEVICE_SQL}, case when d.time_zone = ${timeZone}::text then ${figures} end as buckets
      from devices as d where d.id = ${deviceId}::int and d.account_id = ${accountId}::int`.execute(db);
  return _sumsAnswer(request, rows[0]);
}

/**
 * `findDeviceWithSums` for several calls at one `now`, in one statement (P36): one request row
 * each (device, account, zone, and its slice of one flat array of boundaries, as a fleet page
 * holds them, D32), the device's row joined when it is the account's, and the per-device figures
 * query of `sql/segment-queries.ts` (the one place of that SQL) run for the row, through a lateral
 * subquery, only when the device's zone is the request's. Answers in the order of the calls.
 */
async function _devicesWithSums(
  db: Kysely<FleetHoursDatabase>,
  requests: readonly _SumsRequest[],
): Promise<({ device: Device; buckets: BucketSeconds[] | null } | null)[]> {
  const { flat, firsts, lasts } = flatBoundaries(requests);
  const perDevice = sumByBucketOfRow('r', requests[0]!.now);
  // As in `sumByBucketMany`: each request's boundaries are cut from the flat array once (`materialized`).
  const { rows } = await sql<_SumsRow & { request: number }>`
    with r as materialized (
      select request.request, request.device_id, request.account_id, request.time_zone, (${flat}::float8[])[request.first:request.last] as boundaries
        from unnest(${requests.map((_, index) => index)}::int[], ${requests.map((request) => request.deviceId)}::int[], ${requests.map((request) => request.accountId)}::int[],
                    ${requests.map((request) => request.timeZone)}::text[], ${firsts}::int[], ${lasts}::int[])
             as request(request, device_id, account_id, time_zone, first, last)
    )
    select r.request, ${DEVICE_SQL},
           case when d.time_zone = r.time_zone
                then case when cardinality(r.boundaries) < 2 then '[]'::json
                          else ${_bucketsJson(perDevice)} end
           end as buckets
      from r join devices as d on d.id = r.device_id and d.account_id = r.account_id`.execute(db);
  const byRequest = new Map(rows.map((row) => [Number(row.request), row]));
  return requests.map((request, index) => _sumsAnswer(request, byRequest.get(index)));
}

/**
 * `findDeviceWithDays` in one statement, so in one snapshot (P147): the device's row; when its zone
 * is the one asked, its segments over the range (the bounded scans of `overlappingSegments`, as
 * `listSegments`) as one JSON array of `[started_at, ended_at, state]` in time order; and the
 * calendar it uses (its own, else its account's default) as JSON text.
 */
async function _deviceWithDays(
  db: Kysely<FleetHoursDatabase>,
  request: {
    readonly accountId: number;
    readonly deviceId: number;
    readonly timeZone: string;
    readonly start: number;
    readonly end: number;
  },
): ReturnType<DeviceStore['findDeviceWithDays']> {
  const { accountId, deviceId, timeZone, start, end } = request;
  const { rows } = await sql<_DeviceRow & { segments: [number, number | null, 'moving' | 'idle'][] | null; calendar: string | null }>`
    select ${DEVICE_SQL},
           case when d.time_zone = ${timeZone}::text then (
             select coalesce(json_agg(json_build_array(s.started_at, s.ended_at, s.state) order by s.started_at), '[]'::json)
               from (${overlappingSegments(deviceId, start, end)}) as s) end as segments,
           coalesce((select body::text from device_work_calendars where device_id = d.id and account_id = d.account_id and body is not null),
                    (select body::text from account_work_calendars where account_id = d.account_id and body is not null)) as calendar
      from devices as d where d.id = ${deviceId}::int and d.account_id = ${accountId}::int`.execute(db);
  const row = rows[0];
  if (!row) return null;
  const device = toDevice(row);
  if (row.segments === null || device.timeZone !== timeZone) return { device, days: null };
  return {
    device,
    days: {
      segments: row.segments.map(([startedAt, endedAt, state]) => ({ deviceId, startedAt, endedAt, state })),
      calendar: row.calendar === null ? null : (JSON.parse(row.calendar) as WorkCalendar),
    },
  };
}

/** Devices on Kysely. `lastReportedAt` is written by imports only (see `segmentStore`). */
export function deviceStore(db: Kysely<FleetHoursDatabase>): DeviceStore {
  const devices = () => db.selectFrom('devices').select(DEVICE_COLUMNS);
  // P36: the reads of `findDeviceWithSums` calls that arrive while two of them run (for any devices
  // and accounts, at the same `now`) go together in the next statement, one request row each
  // (`_devicesWithSums`), instead of a round trip each.
  // A call that finds room runs alone, as the one-device statement (`_deviceWithSums`): with its
  // window as parameters it is cheaper than a request row (P36).
  const sumsTogether = coalescedByKey(
    (request: _SumsRequest) => String(request.now),
    async (requests) => (requests.length === 1 ? [await _deviceWithSums(db, requests[0]!)] : _devicesWithSums(db, requests)),
    2,
  );
  return {
    listDevices: ({ accountId, afterId, limit, tag }) =>
      guard(async () => {
        if (afterId !== undefined && !Number.isSafeInteger(afterId))
          throw new RangeError(`afterId must be a safe integer, got "${afterId}"`);
        if (limit !== undefined && !(Number.isSafeInteger(limit) && limit >= 1))
          throw new RangeError(`limit must be a positive safe integer, got "${limit}"`);
        // An id column is `integer`: past its range there is nothing (and no value to compare with).
        if (!isId(accountId) || (afterId !== undefined && afterId >= MAX_ID)) return [];
        if (tag !== undefined) return (await _taggedDevices(db, { accountId, afterId, limit, tag })).map(toDevice);
        let query = devices().where('account_id', '=', accountId);
        // A keyset page of the fleet endpoints (D32): by the primary key, after the last id seen.
        if (afterId !== undefined && afterId >= 1) query = query.where('id', '>', afterId);
        if (limit !== undefined) query = query.limit(limit);
        const rows = await query.orderBy('id').execute();
        return rows.map(toDevice);
      }),

    // P152: a numbered page of the AEMP feed (D64) and the account's count, in one statement.
    listDevicePage: (input) =>
      guard(async () => {
        assertDevicePage(input);
        return isId(input.accountId) ? _devicePage(db, input) : { devices: [], count: 0 };
      }),

    findDevice: ({ accountId, deviceId }) =>
      guard(async () => {
        if (!isId(accountId) || !isId(deviceId)) return null;
        const row = await devices().where('id', '=', deviceId).where('account_id', '=', accountId).executeTakeFirst();
        return row ? toDevice(row) : null;
      }),

    // The device and its figures in one statement: the figures are the very query of
    // sumSegmentSeconds (see `sql/segment-queries.ts`), run as a subquery only for the device of this
    // account and only when its zone is the one the boundaries were cut in. Calls that arrive
    // together share that statement (P36, see `sumsTogether`).
    findDeviceWithSums: ({ accountId, deviceId, timeZone, boundaries, now }) =>
      guard(async () => {
        boundaries.forEach((boundary, index) => assertEpochSeconds(`boundaries[${index}]`, boundary));
        assertEpochSeconds('now', now);
        if (!isId(accountId) || !isId(deviceId)) return null;
        return sumsTogether({ accountId, deviceId, timeZone, boundaries, now });
      }),

    // D59 (P147): the device, its window's segments and its calendar in one statement (one snapshot).
    findDeviceWithDays: ({ accountId, deviceId, timeZone, start, end }) =>
      guard(async () => {
        assertEpochSeconds('start', start);
        assertEpochSeconds('end', end);
        if (!isId(accountId) || !isId(deviceId)) return null;
        return _deviceWithDays(db, { accountId, deviceId, timeZone, start, end });
      }),

    // The device and its meter figures (`summarize`, as summarizeDeviceSegments) in one statement.
    findDeviceWithSummary: ({ accountId, deviceId, now }) =>
      guard(async () => {
        assertEpochSeconds('now', now);
        if (!isId(accountId) || !isId(deviceId)) return null;
        const { rows } = await sql<
          _DeviceRow & { first_started_at: number | null; moving_seconds: number | string; idle_seconds: number | string }
        >`
          select ${DEVICE_SQL}, summary.first_started_at, summary.moving_seconds, summary.idle_seconds
            from devices as d cross join lateral (${summarize(deviceId, now)}) as summary
           where d.id = ${deviceId}::int and d.account_id = ${accountId}::int`.execute(db);
        const row = rows[0];
        if (!row) return null;
        return {
          device: toDevice(row),
          summary: {
            firstStartedAt: secondsOrNull(row.first_started_at),
            movingSeconds: Number(row.moving_seconds),
            idleSeconds: Number(row.idle_seconds),
          },
        };
      }),

    findDeviceByImei: ({ accountId, imei }) =>
      guard(async () => {
        if (!isId(accountId)) return null;
        // D25: at most one active device of the account has this IMEI (a partial unique index).
        const row = await devices()
          .where('account_id', '=', accountId)
          .where('imei', '=', imei)
          .where('status', '=', 'active')
          .executeTakeFirst();
        return row ? toDevice(row) : null;
      }),
    ...deviceWrites(db),
  };
}

/**
 * The devices of the account having a tag, a keyset page by id (D61, D49, P95): the range of
 * `device_tags`' key `(account_id, tag, device_id)` after the cursor, in device order, each row
 * joined to its device; so the statement reads the devices having the tag that the page holds,
 * never one without it.
 */
async function _taggedDevices(
  db: Kysely<FleetHoursDatabase>,
  input: { readonly accountId: number; readonly afterId: number | undefined; readonly limit: number | undefined; readonly tag: string },
): Promise<_DeviceRow[]> {
  const { accountId, afterId, limit, tag } = input;
  const after = Math.max(afterId ?? 0, 0);
  const { rows } = await sql<_DeviceRow>`
    select ${DEVICE_SQL}
      from device_tags as t join devices as d on d.id = t.device_id
     where t.account_id = ${accountId}::int and t.tag = ${tag}::text and t.device_id > ${after}::int
     order by t.device_id
     ${limit === undefined ? sql`` : sql`limit ${Math.min(limit, MAX_ID)}::int`}`.execute(db);
  return rows;
}

/**
 * `listDevicePage` in one statement (P152, D49): the account's count joined with the page from
 * `offset`, both on the `(account_id, id)` index, so that a page past the last still tells the count. The count reads every device of the account, a few bytes each;
 * the page reads `offset + limit` index entries and `limit` rows.
 */
async function _devicePage(
  db: Kysely<FleetHoursDatabase>,
  input: { readonly accountId: number; readonly offset: number; readonly limit: number },
): Promise<{ devices: Device[]; count: number }> {
  const { accountId, offset, limit } = input;
  const { rows } = await sql<{ total: number | string } & ({ id: null } | _DeviceRow)>`
    select counted.total, page.*
      from (select count(*) as total from devices where account_id = ${accountId}::int) as counted
      left join lateral (
             select ${DEVICE_SQL} from devices as d where d.account_id = ${accountId}::int
              order by d.id offset ${offset}::bigint limit ${Math.min(limit, MAX_ID)}::int
           ) as page on true
     order by page.id`.execute(db);
  return {
    devices: rows.flatMap((row) => (row.id === null ? [] : [toDevice(row)])),
    count: Number(rows[0]?.total ?? 0),
  };
}

/** Creating and changing devices (D25: one active device per account and IMEI; D27: a zone change cuts the figures again). */
function deviceWrites(db: Kysely<FleetHoursDatabase>): Pick<DeviceStore, 'createDevice' | 'updateDevice'> {
  const devices = () => db.selectFrom('devices').select(DEVICE_COLUMNS);
  return {
    createDevice: (input) =>
      // D25: one active device per account and IMEI, enforced by a partial unique index.
      guard(
        refusingImeiConflict(async () => {
          if (!isId(input.accountId)) return null;
          // One statement: the device is written only if the account exists.
          const row = await db
            .insertInto('devices')
            .columns(WRITTEN_DEVICE_COLUMNS)
            .expression((eb) =>
              eb
                .selectFrom('accounts')
                .select([
                  'accounts.id',
                  sql<string>`${input.name}::text`.as('name'),
                  sql<string>`${input.imei}::text`.as('imei'),
                  sql<string | null>`${input.registration ?? null}::text`.as('registration'),
                  sql<string>`${input.model}::text`.as('model'),
                  sql<string>`${input.status ?? 'active'}::text`.as('status'),
                  sql<string>`${input.timeZone}::text`.as('time_zone'),
                  // D61, D63
                  sql<string[]>`${[...(input.tags ?? [])]}::text[]`.as('tags'),
                  sql<string | null>`${input.oemName ?? null}::text`.as('oem_name'),
                  sql<string | null>`${input.equipmentModel ?? null}::text`.as('equipment_model'),
                  sql<string | null>`${input.serialNumber ?? null}::text`.as('serial_number'),
                  sql<string | null>`${input.pin ?? null}::text`.as('pin'),
                ])
                .where('accounts.id', '=', input.accountId),
            )
            .returning(DEVICE_COLUMNS)
            .executeTakeFirst();
          return row ? toDevice(row) : null;
        }),
      ),

    updateDevice: ({ deviceId, changes, expected }) =>
      guard(
        refusingImeiConflict(async () => {
          if (!isId(deviceId)) return null;
          const set = {
            ...(changes.name !== undefined && { name: changes.name }),
            ...(changes.imei !== undefined && { imei: changes.imei }),
            ...(changes.registration !== undefined && { registration: changes.registration }),
            ...(changes.model !== undefined && { model: changes.model }),
            ...(changes.status !== undefined && { status: changes.status }),
            ...(changes.timeZone !== undefined && { time_zone: changes.timeZone }),
            // D61, D63
            ...(changes.tags !== undefined && { tags: [...changes.tags] }),
            ...(changes.oemName !== undefined && { oem_name: changes.oemName }),
            ...(changes.equipmentModel !== undefined && { equipment_model: changes.equipmentModel }),
            ...(changes.serialNumber !== undefined && { serial_number: changes.serialNumber }),
            ...(changes.pin !== undefined && { pin: changes.pin }),
          };
          if (Object.keys(set).length === 0) {
            const row = await devices().where('id', '=', deviceId).where(_asRead(expected)).executeTakeFirst();
            return row ? toDevice(row) : null;
          }
          // D27: a new zone cuts the days elsewhere, so the device's per-day figures are rebuilt in
          // the same transaction, under the lock of the device's state row that every segment write
          // takes (D44), taken first in a statement of its own. A new zone also gives that row a new
          // version, so a telemetry write planned in the old zone plans again (D35).
          return inTransaction(db, async (trx) => {
            if (set.time_zone !== undefined && !(await lockDeviceState(trx, deviceId))) return null;
            // D54: the change applies only to the device as the writer read it, checked by the update itself.
            const row = await trx
              .updateTable('devices')
              .set(set)
              .where('id', '=', deviceId)
              .where(_asRead(expected))
              .returning(DEVICE_COLUMNS)
              .executeTakeFirst();
            if (!row) return null;
            if (set.time_zone !== undefined) {
              const state = await sql<{ figures_time_zone: string | null }>`
                update device_states set figures_time_zone = figures_time_zone where device_id = ${deviceId}
                returning figures_time_zone`.execute(trx);
              const zone = state.rows[0]?.figures_time_zone ?? null;
              if (zone !== null && zone !== row.time_zone) await rebuildDeviceFigures(trx, deviceId);
            }
            return toDevice(row);
          });
        }),
      ),
  };
}

/** The condition that a device row still has the fields of `expected` (D54); always true without one. */
function _asRead(expected: Device | undefined) {
  return (eb: ExpressionBuilder<FleetHoursDatabase, 'devices'>) =>
    expected === undefined
      ? sql<boolean>`true`
      : eb.and([
          eb('name', '=', expected.name),
          eb('imei', '=', expected.imei),
          sql<boolean>`registration is not distinct from ${expected.registration}::text`,
          eb('model', '=', expected.model),
          eb('status', '=', expected.status),
          eb('time_zone', '=', expected.timeZone),
          sql<boolean>`tags = ${[...expected.tags]}::text[]`,
          sql<boolean>`oem_name is not distinct from ${expected.oemName}::text`,
          sql<boolean>`equipment_model is not distinct from ${expected.equipmentModel}::text`,
          sql<boolean>`serial_number is not distinct from ${expected.serialNumber}::text`,
          sql<boolean>`pin is not distinct from ${expected.pin}::text`,
        ]);
}

export function toDevice(row: {
  id: number;
  account_id: number;
  name: string;
  imei: string;
  registration: string | null;
  model: string;
  status: string;
  time_zone: string;
  tags: string[];
  oem_name: string | null;
  equipment_model: string | null;
  serial_number: string | null;
  pin: string | null;
  last_reported_at: number | null;
}): Device {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    imei: row.imei,
    registration: row.registration,
    model: row.model,
    status: row.status,
    timeZone: row.time_zone,
    lastReportedAt: secondsOrNull(row.last_reported_at),
    tags: Object.freeze([...row.tags]),
    oemName: row.oem_name,
    equipmentModel: row.equipment_model,
    serialNumber: row.serial_number,
    pin: row.pin,
  };
}
