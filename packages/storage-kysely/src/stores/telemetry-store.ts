import {
  BeyondRetentionError,
  DEFAULT_TELEMETRY_OPTIONS,
  UnknownDeviceError,
  type DevicePosition,
  type DeviceTelemetryPoint,
  type FleetHoursStore,
  type TelemetryPoint,
  type TelemetryWriteDevice,
} from '@fleet-hours/core';
import {
  assertEpochSeconds,
  assertTelemetryPoints,
  newestPosition,
  planTelemetrySegments,
  planTelemetryWrite,
  type SourcedSegment,
} from '@fleet-hours/core/adapter';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { FIGURE_DEVICE_COLUMNS, type FigureDevice } from '../sql/daily-figures.js';
import { keepPositions, writeDevices, writeDevicesIfUnchanged, type DeviceWrite } from '../sql/device-writes.js';
import { isId, planFree, secondsOrNull } from '../sql/sql-values.js';
import { guard } from './storage-error.js';
import { ensurePointPartitions, isMissingPartition, monthStart, nextMonthStart } from '../sql/point-partitions.js';
import type { FleetHoursDatabase } from '../schema/database-schema.js';
import { inTransaction } from '../sql/in-transaction.js';

/** The methods of the storage port on telemetry points (D20–D26). */
export type TelemetryStore = Pick<FleetHoursStore, 'writeTelemetry' | 'listTelemetryPoints' | 'listDevicePositions'>;

/**
 * Telemetry on Kysely: a batch is written whole or not at all. One statement reads the batch's
 * devices and each one's stored points around its share and the segments they can touch
 * (`_readForWrite`); `_planWrites` plans each device's points and segments in the core; one
 * statement writes the points, segments, figures and records of all of them
 * (`writeDevicesIfUnchanged`), only if no write of these devices came between: else the write
 * reads and plans again. A write of one position, or of a shared batch of any number of devices, is
 * two round trips. A write that takes more than one statement, or a device that other writes keep
 * changing, is written in a transaction under the devices' row locks instead (`_lockDevices`, then
 * the same read, then `writeDevices`). A batch of duplicates writes nothing. Every refusal comes
 * before the first write, so a refusal writes nothing. Why each path is serially equivalent (D35):
 * docs/decisions.md, "Concurrency".
 */
export function telemetryStore(db: Kysely<FleetHoursDatabase>): TelemetryStore {
  return {
    listTelemetryPoints: ({ deviceId, start, end }) =>
      guard(async () => {
        if (start !== undefined) assertEpochSeconds('start', start);
        if (end !== undefined) assertEpochSeconds('end', end);
        if (!isId(deviceId)) return [];
        const from = start === undefined ? sql`` : sql`and "time" >= to_timestamp(${start}::float8)`;
        const until = end === undefined ? sql`` : sql`and "time" < to_timestamp(${end}::float8)`;
        const { rows } = await sql<PointRow>`
          select date_part('epoch', "time") as time, ignition, speed_kmh
            from telemetry_points where device_id = ${deviceId} ${from} ${until} order by "time"`.execute(db);
        return rows.map(_toPoint);
      }),

    listDevicePositions: ({ deviceIds }) =>
      guard(async () => {
        const ids = [...new Set(deviceIds.filter(isId))];
        if (ids.length === 0) return [];
        const { rows } = await sql<{ device_id: number; time: number; latitude: number; longitude: number }>`
          select device_id, date_part('epoch', "time") as time, latitude, longitude
            from device_positions where device_id = any(${planFree(ids, 'integer[]')}) order by device_id`.execute(db);
        return rows.map((row) => ({
          deviceId: Number(row.device_id),
          time: Number(row.time),
          latitude: Number(row.latitude),
          longitude: Number(row.longitude),
        }));
      }),

    writeTelemetry: (input) =>
      guard(async () => {
        // D42: a point of a month no partition covers yet (none created ahead, or one dropped
        // since) fails its statement whole: the batch's months are then created (under their
        // lock, so concurrent writes create each once) and the write runs again. A store over a
        // caller's transaction cannot run again after a failed statement: it makes sure first.
        const span = () => {
          let [from, to] = [Infinity, -Infinity];
          for (const point of input.points) [from, to] = [Math.min(from, point.time), Math.max(to, point.time)];
          return { from, to };
        };
        if (db.isTransaction && input.points.length > 0) {
          assertTelemetryPoints(input.points, { now: input.now });
          await ensurePointPartitions(db, span());
        }
        try {
          return await _writeTelemetry(db, input);
        } catch (error) {
          if (db.isTransaction || !isMissingPartition(error)) throw error;
          await ensurePointPartitions(db, span());
          return _writeTelemetry(db, input);
        }
      }),
  };
}

/** `writeTelemetry` (see {@link telemetryStore}). */
async function _writeTelemetry(
  db: Kysely<FleetHoursDatabase>,
  { accountId, points, now }: Parameters<TelemetryStore['writeTelemetry']>[0],
): ReturnType<TelemetryStore['writeTelemetry']> {
  // D26 and the shape of every point, before the database is asked anything.
  assertTelemetryPoints(points, { now });
  if (points.length === 0) return { accepted: 0, duplicates: 0, devices: [] };
  const asked = _askedSpans(points);
  // Read, plan, then write only if no write of these devices came between: two round trips.
  for (let attempt = 0; attempt < UNLOCKED_ATTEMPTS; attempt += 1) {
    const planned = _planWrites(points, await _readForWrite(db, accountId, asked, now));
    await keepPositions(db, planned.positionsAlone);
    if (planned.writes.length === 0) return planned.result;
    const outcome = await writeDevicesIfUnchanged(db, planned.writes, planned.versions);
    if (outcome === 'written') return planned.result;
    if (outcome === 'unfit') break;
  }
  // The same under the devices' locks, in a transaction: for a write of several statements,
  // and for a device that other writes keep changing.
  // D35: the locks first, in a statement of their own, and only then the read. Under READ
  // COMMITTED a statement reads the snapshot taken when it began: one that both waited for a
  // lock and read would plan from what the write it waited for had not yet committed.
  return inTransaction(db, async (trx) => {
    const locked = await _lockDevices(trx, accountId, asked);
    const read = (await _readForWrite(trx, accountId, asked, now)).filter((device) => locked.has(device.id));
    const planned = _planWrites(points, read);
    await keepPositions(trx, planned.positionsAlone);
    await writeDevices(trx, planned.writes);
    return planned.result;
  });
}

/**
 * How often a write reads and plans without a lock before it takes the devices' locks: a write
 * of the same device that comes between makes it plan again (two writes of one device at once
 * are rare: a tracker sends in order, and a client waits for its answer).
 */
const UNLOCKED_ATTEMPTS = 3;

/** A device of a batch as read for the write: what the write reads of its row, its stored points and segments around its share. */
interface _ReadDevice extends FigureDevice {
  readonly id: number;
  readonly imei: string;
  readonly last_reported_at: number | null;
  /** The `xmin` of the device's `device_states` row (D44), as text: every write of the device changes it. */
  readonly version: string;
  readonly points: TelemetryPoint[];
  readonly segments: SourcedSegment[];
  /** D45: the retention horizon recorded in the data (epoch seconds), `null` when no point was ever dropped. */
  readonly horizon: number | null;
}

/** The points of a batch by how they name their device, and the span of each name's points. */
interface _AskedSpans {
  readonly byId: Map<number, { earliest: number; latest: number }>;
  readonly byImei: Map<string, { earliest: number; latest: number }>;
}

function _askedSpans(points: readonly DeviceTelemetryPoint[]): _AskedSpans {
  const asked: _AskedSpans = { byId: new Map(), byImei: new Map() };
  const widen = <K>(spans: Map<K, { earliest: number; latest: number }>, key: K, time: number) => {
    const span = spans.get(key);
    if (!span) spans.set(key, { earliest: time, latest: time });
    else {
      if (time < span.earliest) span.earliest = time;
      if (time > span.latest) span.latest = time;
    }
  };
  for (const point of points) {
    if (point.imei !== undefined) widen(asked.byImei, point.imei, point.time);
    else if (isId(point.deviceId)) widen(asked.byId, point.deviceId, point.time);
  }
  return asked;
}

/**
 * Plans a batch against what was read of its devices: each point goes to the active device of the
 * account it names by id or IMEI (D25), and the first point that names none refuses the batch (the
 * same for a missing, inactive or foreign device), before anything is written. Then, per device,
 * `planTelemetryWrite` plans the points and `planTelemetrySegments` the segments (D23 checked
 * there; it ignores segments outside the span).
 */
function _planWrites(points: readonly DeviceTelemetryPoint[], read: readonly _ReadDevice[]) {
  // D45: a point before the recorded horizon refuses its batch: before it everything is final.
  const horizon = read[0]?.horizon ?? null;
  if (horizon !== null) {
    const index = points.findIndex((point) => point.time < horizon);
    if (index >= 0) throw new BeyondRetentionError({ index, time: points[index]!.time, horizon });
  }
  const byId = new Map<number, _ReadDevice>();
  const byImei = new Map<string, _ReadDevice>();
  for (const device of read) {
    byId.set(device.id, device);
    byImei.set(device.imei, device);
  }
  const shares = new Map<_ReadDevice, TelemetryPoint[]>();
  const positioned = new Map<_ReadDevice, DeviceTelemetryPoint[]>();
  points.forEach((point, index) => {
    const device = point.imei !== undefined ? byImei.get(point.imei) : byId.get(point.deviceId);
    if (device === undefined) throw new UnknownDeviceError(index, point);
    let share = shares.get(device);
    if (!share) shares.set(device, (share = []));
    share.push({ time: point.time, ignition: point.ignition, speedKmh: point.speedKmh });
    if (point.latitude !== undefined) {
      if (!positioned.has(device)) positioned.set(device, []);
      positioned.get(device)!.push(point);
    }
  });
  // Issue 34 (P119): each device's newest position of the batch, duplicates included.
  const positions = new Map<number, DevicePosition>();
  for (const [device, share] of positioned) positions.set(device.id, newestPosition(device.id, share)!);
  let accepted = 0;
  let duplicates = 0;
  const devices: TelemetryWriteDevice[] = [];
  const writes: DeviceWrite[] = [];
  const versions = new Map<number, string>();
  for (const [device, batch] of [...shares].sort(([a], [b]) => a.id - b.id)) {
    const deviceId = device.id;
    const stored = device.points;
    const plan = planTelemetryWrite({ batch, stored, lastReportedAt: secondsOrNull(device.last_reported_at) });
    accepted += plan.accepted;
    duplicates += plan.duplicates;
    versions.set(deviceId, device.version);
    devices.push({
      deviceId,
      imei: device.imei,
      timeZone: device.time_zone,
      lastReportedAt: plan.lastReportedAt,
      accepted: plan.accepted,
      duplicates: plan.duplicates,
    });
    if (!plan.segmentRange) continue;
    const position = positions.get(deviceId);
    positions.delete(deviceId);

    const change = planTelemetrySegments({ deviceId, plan, segments: device.segments });
    // New seconds are inserted, changed ones updated: a plain insert costs about half an upsert,
    // and no other write adds points of this device before this one (its row's lock, or its
    // version checked by the write).
    const storedTimes = new Set(stored.map((point) => point.time));
    writes.push({
      deviceId,
      device,
      insertedPoints: plan.writes.filter((point) => !storedTimes.has(point.time)),
      updatedPoints: plan.writes.filter((point) => storedTimes.has(point.time)),
      removed: change.removed,
      added: change.added,
      source: 'telemetry',
      lastReportedAt: plan.lastReportedAt,
      settledAt: secondsOrNull(device.last_reported_at),
      position: position ?? null,
    });
  }
  // The positions left are of devices whose points were all duplicates: kept on their own.
  return { writes, versions, positionsAlone: [...positions.values()], result: { accepted, duplicates, devices } };
}

/** A `telemetry_points` row, its time as epoch seconds. */
interface PointRow {
  readonly time: number;
  readonly ignition: boolean;
  readonly speed_kmh: number;
}

function _toPoint(row: PointRow): TelemetryPoint {
  return { time: Number(row.time), ignition: row.ignition, speedKmh: Number(row.speed_kmh) };
}

/**
 * Locks the state rows (`device_states`, D44) of the batch's devices (the active devices of the
 * account named by id or IMEI) in id order for the rest of the transaction, as `lockDevice` locks one: concurrent writes of one
 * device take turns, and writes of several never deadlock. A statement of its own (D35): the read
 * that follows takes its snapshot after every write it waited for has committed.
 *
 * @returns The ids of the rows locked.
 */
async function _lockDevices(trx: Kysely<FleetHoursDatabase>, accountId: number, asked: _AskedSpans): Promise<Set<number>> {
  if (!isId(accountId)) return new Set();
  const { rows } = await sql<{ id: number }>`
    select device_id as id from device_states
     where device_id in (
             select id from devices
              where account_id = ${planFree(accountId, 'integer')} and status = 'active'
                and (id = any(${planFree([...asked.byId.keys()], 'integer[]')}) or imei = any(${planFree([...asked.byImei.keys()], 'text[]')})))
     order by device_id
       for update`.execute(trx);
  return new Set(rows.map((row) => Number(row.id)));
}

/**
 * The batch's devices and what each device's share reads: the active devices of the account named
 * by id or IMEI, and for each, from the earliest to the latest point naming it:
 *
 * - its stored points from the last one before `earliest` through the first one after `latest`
 *   (what `planTelemetryWrite` needs: one range scan of the primary key, its ends found by two
 *   index probes), in time order as one JSON array: one value for the driver to parse instead of
 *   a row of a dozen columns per point, which costs a late batch among many stored points more
 *   than its own planning (P37);
 * - its segments of both sources that can touch the span the plan will find (what
 *   `planTelemetrySegments` needs; it ignores the ones outside the span). The span starts at or
 *   after the first of those points and ends at or before the last, or, when no point follows the
 *   batch, at most `maxGapSeconds` after `latest` (D22's tail): segments are read for that range,
 *   both ends inclusive, as bounded index scans (closed segments from `start − longest`, and the
 *   open one), as `listSourcedSegments` does.
 *
 * Each device is read by a lateral subquery: one round trip for a batch of any number of devices.
 * The same statement reads the retention horizon recorded in the data (D45: one row of a
 * one-row table, an init plan run once per statement), so the check costs the write no round trip.
 *
 * D42, P57: a batch within the months near `now` (the live case) is read by a statement whose text
 * names those months ({@link _nearMonths}), so that its plan holds only their partitions: on
 * PostgreSQL 15 a plan locks and opens every partition it holds at each execution (what that cost:
 * docs/decisions.md, P57). A device whose
 * neighbour may lie outside those months (none found inside, and `last_reported_at`, which is never
 * older than its newest point (D26), does not rule one out) is read again by the statement over
 * every month: the answer is the same either way.
 */
async function _readForWrite(db: Kysely<FleetHoursDatabase>, accountId: number, asked: _AskedSpans, now: number): Promise<_ReadDevice[]> {
  if (!isId(accountId)) return [];
  const near = _nearMonths(asked, now);
  if (near === null) return _readDevices(db, accountId, asked, null);
  const read = await _readDevices(db, accountId, asked, near);
  const undecided = read.filter((device) => !device.decided);
  if (undecided.length === 0) return read;
  const again = await _readDevices(db, accountId, _askedOf(asked, undecided), null);
  return [...read.filter((device) => device.decided), ...again];
}

/** Months written into the read's text (epoch seconds, UTC month starts): `[from, to)`. */
interface _Months {
  readonly from: number;
  readonly to: number;
}

/**
 * The months the read of a live batch names: those its points fall in (one, but near a month's end
 * two), when they lie within the previous month through the one after the current; else `null`.
 * P74: only the batch's own months, not the three around now: each month is a partition that every
 * reference of the points' table in the plan locks and opens at each execution, and the read names
 * the table four times. A device whose point before the batch lies in an earlier month (its first
 * report of a month) is read again over every month, once. A server prepares a text per month (and
 * per pair of months at their turn), not one per batch.
 */
function _nearMonths(asked: _AskedSpans, now: number): _Months | null {
  const current = monthStart(now);
  const lowest = monthStart(current - 1);
  const highest = nextMonthStart(nextMonthStart(current));
  let [from, to] = [Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY];
  for (const spans of [asked.byId, asked.byImei] as const) {
    for (const span of spans.values()) {
      if (span.earliest < lowest || span.latest >= highest) return null;
      from = Math.min(from, monthStart(span.earliest));
      to = Math.max(to, nextMonthStart(span.latest));
    }
  }
  return { from, to };
}

/** The spans of `asked` that name one of `devices`. */
function _askedOf(asked: _AskedSpans, devices: readonly _ReadDevice[]): _AskedSpans {
  const ids = new Set(devices.map((device) => device.id));
  const imeis = new Set(devices.map((device) => device.imei));
  return {
    byId: new Map([...asked.byId].filter(([id]) => ids.has(id))),
    byImei: new Map([...asked.byImei].filter(([imei]) => imeis.has(imei))),
  };
}

/**
 * The statement of {@link _readForWrite}: over every month when `months` is `null`; else over
 * `months` only, each device's `decided` saying whether its neighbours were found there.
 */
async function _readDevices(
  db: Kysely<FleetHoursDatabase>,
  accountId: number,
  asked: _AskedSpans,
  months: _Months | null,
): Promise<(_ReadDevice & { readonly decided: boolean })[]> {
  const ids = [...asked.byId.keys()];
  const imeis = [...asked.byImei.keys()];
  // The months as literals (our own instants): the plan holds only their partitions.
  const monthsFrom = months && sql`${sql.lit(new Date(months.from * 1000).toISOString())}::timestamptz`;
  const monthsTo = months && sql`${sql.lit(new Date(months.to * 1000).toISOString())}::timestamptz`;
  const inMonths = months ? sql`and "time" >= ${monthsFrom} and "time" < ${monthsTo}` : sql``;
  const { previous, following } = _neighbours(months, monthsFrom, monthsTo, inMonths);
  // Within the months, a neighbour not found there is known to be none only for a device without
  // points (no last_reported_at), or, after the batch, one whose newest point is before their end.
  const decided = months
    ? sql`(span.previous_at is not null or span.last_reported_at is null)
          and (span.next_at is not null or span.last_reported_at is null or span.last_reported_at < ${months.to}::float8)`
    : sql`true`;
  // Found once per device (in `span`, materialized: P68), then used where needed: each reference
  // of the partitioned table costs its partitions' index scans at the statement's start.
  const first = sql`coalesce(span.previous_at, to_timestamp(span.earliest))`;
  const next = sql`span.next_at`;
  const last = sql`coalesce(${next}, to_timestamp(span.latest))`;
  const reach = sql`coalesce(${next}, to_timestamp(span.latest + ${DEFAULT_TELEMETRY_OPTIONS.maxGapSeconds}::float8))`;
  const spans = [...[...asked.byId.values()], ...[...asked.byImei.values()]];
  const { rows } = await sql<Omit<_ReadDevice, 'points' | 'segments'> & { decided: boolean } & Partial<AroundRow>>`
    with asked as (
      select * from unnest(${planFree([...ids, ...imeis.map(() => null)], 'integer[]')}, ${planFree([...ids.map(() => null), ...imeis], 'text[]')},
                           ${planFree(
                             spans.map((span) => span.earliest),
                             'float8[]',
                           )}, ${planFree(
                             spans.map((span) => span.latest),
                             'float8[]',
                           )}) as asked(id, imei, earliest, latest)
    ),
    found as (
      select id, imei, state.version, state.last_reported_at, state.reported_at, ${FIGURE_DEVICE_COLUMNS}
        from devices
             cross join lateral (select xmin::text as version, date_part('epoch', last_reported_at) as last_reported_at,
                                        last_reported_at as reported_at
                                   from device_states where device_id = devices.id) as state
       where account_id = ${planFree(accountId, 'integer')} and status = 'active'
         and (id = any(${planFree(ids, 'integer[]')}) or imei = any(${planFree(imeis, 'text[]')}))
       order by id
    ),
    spanned as (
      select found.*,
             (select min(asked.earliest) from asked where asked.id = found.id or asked.imei = found.imei) as earliest,
             (select max(asked.latest) from asked where asked.id = found.id or asked.imei = found.imei) as latest
        from found
    ),
    -- P68: materialized, so that each neighbour is one subquery run once per device. Inlined, every
    -- use of previous_at and next_at below would be a copy of its subquery: more scans of the
    -- partitioned table at each execution, and a plan many times slower to make.
    span as materialized (
      select span.*, ${previous} as previous_at, ${following} as next_at from spanned as span
    )
    select span.id, span.imei, span.version, span.last_reported_at, span.time_zone, span.figures_time_zone, span.has_figures,
           ${decided} as decided, (select date_part('epoch', horizon) from telemetry_horizon) as horizon, around.*
      from span
      left join lateral (
        select false as segment, null::float8 as time, null::float8 as ended_at, null::text as state, null::text as source, stored.points
          from (select json_agg(json_build_array(date_part('epoch', "time"), ignition, speed_kmh) order by "time") as points
                  from telemetry_points
                 where device_id = span.id and "time" >= ${first} and "time" <= ${last} ${inMonths}) as stored
         where stored.points is not null
        union all
        select true, date_part('epoch', started_at), date_part('epoch', ended_at), state, source, null
          from engine_segments
         where device_id = span.id and ended_at is not null and started_at <= ${reach} and ended_at >= ${first}
           and started_at >= ${first} - make_interval(secs => (select longest_segment_seconds from device_states where device_id = span.id))
        union all
        select true, date_part('epoch', started_at), null, state, source, null
          from engine_segments
         where device_id = span.id and ended_at is null and started_at <= ${reach}
      ) as around on true`.execute(db);
  const devices = new Map<number, _ReadDevice & { readonly decided: boolean }>();
  for (const row of rows) {
    const id = Number(row.id);
    let device = devices.get(id);
    if (!device) {
      device = {
        id,
        imei: row.imei,
        version: row.version,
        last_reported_at: row.last_reported_at,
        time_zone: row.time_zone,
        figures_time_zone: row.figures_time_zone,
        has_figures: row.has_figures,
        decided: row.decided,
        horizon: row.horizon === null || row.horizon === undefined ? null : Number(row.horizon),
        points: [],
        segments: [],
      };
      devices.set(id, device);
    }
    if (row.segment === false) for (const [time, ignition, speedKmh] of row.points!) device.points.push({ time, ignition, speedKmh });
    else if (row.segment === true) {
      device.segments.push({
        startedAt: Number(row.time!),
        endedAt: row.ended_at === null || row.ended_at === undefined ? null : Number(row.ended_at),
        state: row.state!,
        source: row.source!,
      });
    }
  }
  return [...devices.values()];
}

/**
 * The SQL of each device's stored neighbours in {@link _readDevices} (over `span`): the point
 * before the batch (`previous`) and the one after it (`following`), within `months` when given.
 */
function _neighbours(
  months: _Months | null,
  monthsFrom: RawBuilder<unknown> | null,
  monthsTo: RawBuilder<unknown> | null,
  inMonths: RawBuilder<unknown>,
): { previous: RawBuilder<unknown>; following: RawBuilder<unknown> } {
  // Each neighbour is looked for in the month of its end of the span first (one partition,
  // pruned at run time), and in the months beyond only when that month has none (D42): a write that
  // continues a device's history touches one partition, not every older or newer one.
  const earliestMonth = sql`date_trunc('month', to_timestamp(span.earliest), 'UTC')`;
  const latestMonthEnd = sql`(date_trunc('month', to_timestamp(span.latest), 'UTC') + interval '1 month')`;
  // P69: each neighbour as the first row of an ordered index scan (`order by … limit 1`), not as
  // `max()`/`min()`: over a partitioned table the planner may aggregate every point of the device in
  // the range instead (it did, in a cached plan made while the device had few points: a live write
  // then read all of its device's points of the months before it).
  const previousIn = (lower: RawBuilder<unknown>) => sql`(select "time" from telemetry_points
                               where device_id = span.id and "time" < to_timestamp(span.earliest) and "time" >= ${lower} ${inMonths}
                               order by "time" desc limit 1)`;
  const followingIn = (upper: RawBuilder<unknown>) => sql`(select "time" from telemetry_points
                              where device_id = span.id and "time" > to_timestamp(span.latest) and "time" < ${upper} ${inMonths}
                              order by "time" limit 1)`;
  const searchedPrevious = months
    ? previousIn(monthsFrom!)
    : sql`coalesce(${previousIn(earliestMonth)},
                   (select "time" from telemetry_points where device_id = span.id and "time" < ${earliestMonth} order by "time" desc limit 1))`;
  const searchedFollowing = months
    ? followingIn(monthsTo!)
    : sql`coalesce(${followingIn(latestMonthEnd)},
                   (select "time" from telemetry_points where device_id = span.id and "time" >= ${latestMonthEnd} order by "time" limit 1))`;
  // P69: a batch after the device's last report (the live case) needs no search. `last_reported_at`
  // is never older than the device's newest point (D26), so no point follows such a batch, and when
  // a point is stored at that instant (one probe of the key: the month holding it may have been
  // dropped since) it is the point before the batch. A device without `last_reported_at` has no
  // points. Every other batch searches (`coalesce` and `case` run only what they need). The probe is a
  // scalar subquery, not `exists`: PostgreSQL may run an `exists` correlated by equality as one
  // hashed scan of every point of the months (it did: 1.6 ms a Traccar forward).
  const previous = sql`case when span.reported_at is not null
                            then coalesce(case when to_timestamp(span.earliest) > span.reported_at
                                               then (select "time" from telemetry_points
                                                      where device_id = span.id and "time" = span.reported_at ${inMonths}) end,
                                          ${searchedPrevious}) end`;
  const following = sql`case when span.reported_at is null or to_timestamp(span.latest) > span.reported_at then null
                             else ${searchedFollowing} end`;
  return { previous, following };
}

/** A row of {@link _readForWrite}'s stored data: the device's points (`points`) or a segment (`time` its start, `ended_at`, `state`, `source`). */
interface AroundRow {
  readonly segment: boolean;
  readonly time: number | null;
  readonly ended_at: number | null;
  readonly state: SourcedSegment['state'] | null;
  readonly source: SourcedSegment['source'] | null;
  /** The stored points in time order, as `[time, ignition, speed_kmh]`: one JSON value, parsed at once rather than a row each. */
  readonly points: readonly (readonly [number, boolean, number])[] | null;
}
