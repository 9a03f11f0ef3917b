import { DEFAULT_TELEMETRY_OPTIONS, UnknownDeviceError, type DeviceTelemetryPoint, type FleetHoursStore, type TelemetryPoint, type TelemetryWriteDevice } from '@fleet-hours/core';
import { assertEpochSeconds, assertTelemetryPoints, planTelemetrySegments, planTelemetryWrite, type SourcedSegment } from '@fleet-hours/core/adapter';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { _joinCtes, type _FigureDevice } from './_daily-figures.js';
import { _applySegmentChanges, _recordSet } from './_segment-queries.js';
import { _isId, _seconds } from './_sql-values.js';
import { _guard } from './_storage-error.js';
import type { FleetHoursDatabase } from './database-schema.js';

/** The methods of the storage port on telemetry points (D20–D26). */
export type _TelemetryStore = Pick<FleetHoursStore, 'writeTelemetry' | 'listTelemetryPoints'>;

/** Points written per statement: three array parameters each, far from any limit. */
const POINT_CHUNK = 50_000;

/**
 * Telemetry on Kysely: a batch is one transaction (every point or none); its devices are looked up
 * and row-locked in id order by one statement (as `_lockDevice` locks one), so concurrent writes of
 * one device take turns and writes of several devices never deadlock. Each device's share follows
 * the core's plan: one statement reads the stored points around the batch and the segments they
 * can touch (`_pointsAndSegments`), `planTelemetryWrite` plans the points and
 * `planTelemetrySegments` the segments (D23 checked there; it ignores segments outside the span),
 * then new points are inserted, changed ones updated, and the segment changes written through
 * `_applySegmentChanges`, in one statement with the points and the device's record when each fits
 * one chunk (a one-position write: begin, the lock, one read, one write, commit).
 * A batch of duplicates writes nothing. Every refusal comes before the
 * device's first write; a refusal at a later device rolls back the earlier ones with the transaction.
 */
export function _telemetryStore(db: Kysely<FleetHoursDatabase>): _TelemetryStore {
  return {
    listTelemetryPoints: ({ deviceId, start, end }) =>
      _guard(async () => {
        if (start !== undefined) assertEpochSeconds('start', start);
        if (end !== undefined) assertEpochSeconds('end', end);
        if (!_isId(deviceId)) return [];
        const from = start === undefined ? sql`` : sql`and "time" >= to_timestamp(${start}::float8)`;
        const until = end === undefined ? sql`` : sql`and "time" < to_timestamp(${end}::float8)`;
        const { rows } = await sql<PointRow>`
          select date_part('epoch', "time") as time, ignition, speed_kmh
            from telemetry_points where device_id = ${deviceId} ${from} ${until} order by "time"`.execute(db);
        return rows.map(_toPoint);
      }),

    writeTelemetry: ({ accountId, points, now }) =>
      _guard(async () => {
        // D26 and the shape of every point, before the database is asked anything.
        assertTelemetryPoints(points, { now });
        if (points.length === 0) return { accepted: 0, duplicates: 0, devices: [] };
        return db.transaction().execute(async (trx) => {
          const batches = await _batchesByDevice(trx, accountId, points);
          let accepted = 0;
          let duplicates = 0;
          const devices: TelemetryWriteDevice[] = [];
          // In id order: two writes that share devices lock them in the same order.
          const shares = [...batches].sort(([a], [b]) => a - b).map(([deviceId, share]) => {
            let earliest = Infinity;
            let latest = -Infinity;
            for (const point of share.points) {
              if (point.time < earliest) earliest = point.time;
              if (point.time > latest) latest = point.time;
            }
            return { deviceId, ...share, earliest, latest };
          });
          // Every device's stored points and segments around its share, in one statement.
          const read = await _pointsAndSegments(trx, shares);
          for (const { deviceId, points: batch, device } of shares) {
            const around = read.get(deviceId) ?? { points: [], segments: [] };
            const stored = around.points;
            const plan = planTelemetryWrite({ batch, stored, lastReportedAt: _seconds(device.last_reported_at) });
            accepted += plan.accepted;
            duplicates += plan.duplicates;
            devices.push({ deviceId, imei: device.imei, timeZone: device.time_zone, lastReportedAt: plan.lastReportedAt, accepted: plan.accepted, duplicates: plan.duplicates });
            if (!plan.segmentRange) continue;

            const change = planTelemetrySegments({ deviceId, plan, segments: around.segments });
            // New seconds are inserted, changed ones updated: a plain insert costs about half an
            // upsert, and under the device's lock no other write adds points of this device.
            const storedTimes = new Set(stored.map((point) => point.time));
            const inserts = plan.writes.filter((point) => !storedTimes.has(point.time));
            const updates = plan.writes.filter((point) => storedTimes.has(point.time));
            let longest = 0;
            for (const segment of change.added) if (segment.endedAt !== null) longest = Math.max(longest, segment.endedAt - segment.startedAt);
            // One chunk of each (the common case): the points go in the segments' statement, and
            // the device's record in its row's update there: the whole write is one statement.
            const ctes: RawBuilder<unknown>[] = [];
            if (inserts.length <= POINT_CHUNK && updates.length <= POINT_CHUNK) {
              if (inserts.length > 0) ctes.push(sql`inserted_points as (${_insertPoints(deviceId, inserts)})`);
              if (updates.length > 0) ctes.push(sql`updated_points as (${_updatePoints(deviceId, updates)})`);
            } else {
              for (let offset = 0; offset < inserts.length; offset += POINT_CHUNK) {
                await _insertPoints(deviceId, inserts.slice(offset, offset + POINT_CHUNK)).execute(trx);
              }
              for (let offset = 0; offset < updates.length; offset += POINT_CHUNK) {
                await _updatePoints(deviceId, updates.slice(offset, offset + POINT_CHUNK)).execute(trx);
              }
            }
            await _applySegmentChanges(trx, deviceId, { removed: change.removed, added: change.added, source: 'telemetry' }, device, {
              ctes: _joinCtes(ctes),
              deviceSet: _recordSet(plan.lastReportedAt, longest),
            });
          }
          return { accepted, duplicates, devices };
        });
      }),
  };
}

/** A device of a batch, as locked: its share of the points and what the write reads of its row. */
interface _DeviceBatch {
  readonly points: TelemetryPoint[];
  readonly device: _FigureDevice & { readonly imei: string; readonly last_reported_at: number | null };
}

/**
 * The batch's points by device id, each device an active device of the account named by id or
 * IMEI (D25). The first point that names none refuses the batch, the same for a missing, inactive
 * or foreign device. The same statement locks the devices' rows in id order for the rest of the
 * transaction (as `_lockDevice`) and reads what the write needs of them.
 */
async function _batchesByDevice(trx: Kysely<FleetHoursDatabase>, accountId: number, points: readonly DeviceTelemetryPoint[]): Promise<Map<number, _DeviceBatch>> {
  const ids = new Set<number>();
  const imeis = new Set<string>();
  for (const point of points) {
    if (point.imei !== undefined) imeis.add(point.imei);
    else if (_isId(point.deviceId)) ids.add(point.deviceId);
  }
  const byId = new Map<number, number>();
  const byImei = new Map<string, number>();
  const devices = new Map<number, _DeviceBatch['device']>();
  if (_isId(accountId)) {
    const { rows } = await sql<{ id: number; imei: string; last_reported_at: number | null } & _FigureDevice>`
      select id, imei, date_part('epoch', last_reported_at) as last_reported_at, time_zone, figures_time_zone,
             closed_moving_seconds <> 0 or closed_idle_seconds <> 0 or exists (select 1 from engine_day_figures where device_id = devices.id) as has_figures
        from devices
       where account_id = ${accountId} and status = 'active'
         and (id = any(${[...ids]}::integer[]) or imei = any(${[...imeis]}::text[]))
       order by id
         for update`.execute(trx);
    for (const row of rows) {
      if (ids.has(row.id)) byId.set(row.id, row.id);
      if (imeis.has(row.imei)) byImei.set(row.imei, row.id);
      devices.set(row.id, row);
    }
  }
  const batches = new Map<number, _DeviceBatch>();
  points.forEach((point, index) => {
    const deviceId = point.imei !== undefined ? byImei.get(point.imei) : byId.get(point.deviceId);
    if (deviceId === undefined) throw new UnknownDeviceError(index, point);
    let batch = batches.get(deviceId);
    if (!batch) batches.set(deviceId, (batch = { points: [], device: devices.get(deviceId)! }));
    batch.points.push({ time: point.time, ignition: point.ignition, speedKmh: point.speedKmh });
  });
  return batches;
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
 * In one statement, what each device's share of a batch reads: its stored points from the last
 * one before `earliest` through the first one after `latest` (what `planTelemetryWrite` needs: one
 * range scan of the primary key, its ends found by two index probes), and its segments of both
 * sources that can touch the span the plan will find (what `planTelemetrySegments` needs; it
 * ignores the ones outside the span). The span starts at or after the first of those points and
 * ends at or before the last, or, when no point follows the batch, at most `maxGapSeconds` after
 * `latest` (D22's tail): segments are read for that range, both ends inclusive, as bounded index
 * scans (closed segments from `start − longest`, and the open one), as `_listSourcedSegments` does.
 * The devices come as arrays and each is read by a lateral subquery: one round trip for a batch of
 * any number of devices.
 */
async function _pointsAndSegments(
  trx: Kysely<FleetHoursDatabase>,
  shares: readonly { readonly deviceId: number; readonly earliest: number; readonly latest: number }[],
): Promise<Map<number, { points: TelemetryPoint[]; segments: SourcedSegment[] }>> {
  const first = sql`coalesce((select max("time") from telemetry_points where device_id = span.device_id and "time" < to_timestamp(span.earliest)),
                             to_timestamp(span.earliest))`;
  const next = sql`(select min("time") from telemetry_points where device_id = span.device_id and "time" > to_timestamp(span.latest))`;
  const last = sql`coalesce(${next}, to_timestamp(span.latest))`;
  const reach = sql`coalesce(${next}, to_timestamp(span.latest + ${DEFAULT_TELEMETRY_OPTIONS.maxGapSeconds}::float8))`;
  const { rows } = await sql<AroundRow & { device_id: number }>`
    select span.device_id, around.*
      from unnest(${shares.map((share) => share.deviceId)}::integer[], ${shares.map((share) => share.earliest)}::float8[], ${shares.map((share) => share.latest)}::float8[])
           as span(device_id, earliest, latest)
     cross join lateral (
       select false as segment, date_part('epoch', "time") as time, null::float8 as ended_at, ignition, speed_kmh, null::text as state, null::text as source
         from telemetry_points
        where device_id = span.device_id and "time" >= ${first} and "time" <= ${last}
       union all
       select true, date_part('epoch', started_at), date_part('epoch', ended_at), null, null, state, source
         from engine_segments
        where device_id = span.device_id and ended_at is not null and started_at <= ${reach} and ended_at >= ${first}
          and started_at >= ${first} - make_interval(secs => (select longest_segment_seconds from devices where id = span.device_id))
       union all
       select true, date_part('epoch', started_at), null, null, null, state, source
         from engine_segments
        where device_id = span.device_id and ended_at is null and started_at <= ${reach}
     ) as around`.execute(trx);
  const byDevice = new Map<number, { points: TelemetryPoint[]; segments: SourcedSegment[] }>();
  for (const row of rows) {
    let read = byDevice.get(row.device_id);
    if (!read) byDevice.set(row.device_id, (read = { points: [], segments: [] }));
    if (!row.segment) read.points.push(_toPoint(row as PointRow));
    else {
      read.segments.push({
        startedAt: Number(row.time),
        endedAt: row.ended_at === null ? null : Number(row.ended_at),
        state: row.state!,
        source: row.source!,
      });
    }
  }
  // Points in time order, as planTelemetryWrite takes them (a union keeps no order).
  for (const read of byDevice.values()) read.points.sort((a, b) => a.time - b.time);
  return byDevice;
}

/** A row of {@link _pointsAndSegments}: a point (`time`, `ignition`, `speed_kmh`) or a segment (`time` its start, `ended_at`, `state`, `source`). */
interface AroundRow {
  readonly segment: boolean;
  readonly time: number;
  readonly ended_at: number | null;
  readonly ignition: boolean;
  readonly speed_kmh: number;
  readonly state: SourcedSegment['state'] | null;
  readonly source: SourcedSegment['source'] | null;
}

/** The three arrays a statement takes for points: times, ignition as text `t` / `f`, speeds. */
function _pointArrays(points: readonly TelemetryPoint[]): RawBuilder<unknown> {
  // Ignition goes as text: postgres.js would send a JS boolean array as a scalar `boolean`
  // parameter, and PGlite serializes a `boolean[]` parameter from booleans only.
  return sql`unnest(${points.map((point) => point.time)}::float8[],
                    ${points.map((point) => (point.ignition ? 't' : 'f'))}::text[]::boolean[],
                    ${points.map((point) => point.speedKmh)}::float8[]) as batch(time, ignition, speed_kmh)`;
}

/** Inserts points of seconds the device has no point for, in one statement. */
function _insertPoints(deviceId: number, points: readonly TelemetryPoint[]): RawBuilder<unknown> {
  return sql`
    insert into telemetry_points (device_id, "time", ignition, speed_kmh)
    select ${deviceId}, to_timestamp(batch.time), batch.ignition, batch.speed_kmh from ${_pointArrays(points)}`;
}

/** Replaces stored points by their merge with the batch (D21), in one statement. */
function _updatePoints(deviceId: number, points: readonly TelemetryPoint[]): RawBuilder<unknown> {
  return sql`
    update telemetry_points as point
       set ignition = batch.ignition, speed_kmh = batch.speed_kmh
      from ${_pointArrays(points)}
     where point.device_id = ${deviceId} and point."time" = to_timestamp(batch.time)`;
}
