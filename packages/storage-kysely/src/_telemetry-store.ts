import { UnknownDeviceError, type DeviceTelemetryPoint, type FleetHoursStore, type TelemetryPoint } from '@fleet-hours/core';
import { assertEpochSeconds, assertTelemetryPoints, planTelemetrySegments, planTelemetryWrite } from '@fleet-hours/core/adapter';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { _applySegmentChanges, _lockDevice, _recordImport } from './_segment-queries.js';
import { _listSourcedSegments } from './_sourced-segments.js';
import { _isId, _seconds } from './_sql-values.js';
import { _guard } from './_storage-error.js';
import type { FleetHoursDatabase } from './database-schema.js';

/** The methods of the storage port on telemetry points (D20–D26). */
export type _TelemetryStore = Pick<FleetHoursStore, 'writeTelemetry' | 'listTelemetryPoints'>;

/** Points written per statement: three array parameters each, far from any limit. */
const POINT_CHUNK = 50_000;

/**
 * Telemetry on Kysely: a batch is one transaction (every point or none); per device, in id order,
 * under its row lock (`_lockDevice`), so concurrent writes of one device take turns and writes of
 * several devices never deadlock. Each device's share follows the core's plan: `planTelemetryWrite`
 * over the stored points around the batch (one index range read), `planTelemetrySegments` over the
 * segments of its range (D23 checked there), then new points are inserted, changed ones updated,
 * and the segment changes written through `_applySegmentChanges`. Every refusal comes before the
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
          const devices: { deviceId: number; lastReportedAt: number | null }[] = [];
          // In id order: two writes that share devices lock them in the same order.
          for (const [deviceId, batch] of [...batches].sort(([a], [b]) => a - b)) {
            const device = (await _lockDevice(deviceId).execute(trx)).rows[0]!;
            let earliest = Infinity;
            let latest = -Infinity;
            for (const point of batch) {
              if (point.time < earliest) earliest = point.time;
              if (point.time > latest) latest = point.time;
            }
            const stored = (await _pointsAround(deviceId, earliest, latest).execute(trx)).rows.map(_toPoint);
            const plan = planTelemetryWrite({ batch, stored, lastReportedAt: _seconds(device.last_reported_at) });
            accepted += plan.accepted;
            duplicates += plan.duplicates;
            devices.push({ deviceId, lastReportedAt: plan.lastReportedAt });
            if (!plan.segmentRange) continue;

            const segments = await _listSourcedSegments(trx, deviceId, plan.segmentRange.start, plan.segmentRange.end);
            const change = planTelemetrySegments({ deviceId, plan, segments });
            // New seconds are inserted, changed ones updated: a plain insert costs about half an
            // upsert, and under the device's lock no other write adds points of this device.
            const storedTimes = new Set(stored.map((point) => point.time));
            const inserts = plan.writes.filter((point) => !storedTimes.has(point.time));
            const updates = plan.writes.filter((point) => storedTimes.has(point.time));
            for (let offset = 0; offset < inserts.length; offset += POINT_CHUNK) {
              await _insertPoints(deviceId, inserts.slice(offset, offset + POINT_CHUNK)).execute(trx);
            }
            for (let offset = 0; offset < updates.length; offset += POINT_CHUNK) {
              await _updatePoints(deviceId, updates.slice(offset, offset + POINT_CHUNK)).execute(trx);
            }
            await _applySegmentChanges(trx, deviceId, { removed: change.removed, added: change.added, source: 'telemetry' });
            let longest = 0;
            for (const segment of change.added) longest = Math.max(longest, segment.endedAt! - segment.startedAt);
            await _recordImport(deviceId, plan.lastReportedAt, longest).execute(trx);
          }
          return { accepted, duplicates, devices };
        });
      }),
  };
}

/**
 * The batch's points by device id, each device an active device of the account named by id or
 * IMEI (D25). The first point that names none refuses the batch, the same for a missing, inactive
 * or foreign device.
 */
async function _batchesByDevice(trx: Kysely<FleetHoursDatabase>, accountId: number, points: readonly DeviceTelemetryPoint[]): Promise<Map<number, TelemetryPoint[]>> {
  const ids = new Set<number>();
  const imeis = new Set<string>();
  for (const point of points) {
    if (point.imei !== undefined) imeis.add(point.imei);
    else if (_isId(point.deviceId)) ids.add(point.deviceId);
  }
  const byId = new Map<number, number>();
  const byImei = new Map<string, number>();
  if (_isId(accountId)) {
    const { rows } = await sql<{ id: number; imei: string }>`
      select id, imei from devices
       where account_id = ${accountId} and status = 'active'
         and (id = any(${[...ids]}::integer[]) or imei = any(${[...imeis]}::text[]))`.execute(trx);
    for (const row of rows) {
      if (ids.has(row.id)) byId.set(row.id, row.id);
      if (imeis.has(row.imei)) byImei.set(row.imei, row.id);
    }
  }
  const batches = new Map<number, TelemetryPoint[]>();
  points.forEach((point, index) => {
    const deviceId = point.imei !== undefined ? byImei.get(point.imei) : byId.get(point.deviceId);
    if (deviceId === undefined) throw new UnknownDeviceError(index, point);
    let batch = batches.get(deviceId);
    if (!batch) batches.set(deviceId, (batch = []));
    batch.push({ time: point.time, ignition: point.ignition, speedKmh: point.speedKmh });
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
 * The device's stored points from the last one before `earliest` through the first one after
 * `latest` (what `planTelemetryWrite` needs): one range scan of the primary key, its ends found by
 * two index probes.
 */
function _pointsAround(deviceId: number, earliest: number, latest: number): RawBuilder<PointRow> {
  return sql<PointRow>`
    select date_part('epoch', "time") as time, ignition, speed_kmh
      from telemetry_points
     where device_id = ${deviceId}
       and "time" >= coalesce((select max("time") from telemetry_points where device_id = ${deviceId} and "time" < to_timestamp(${earliest}::float8)),
                              to_timestamp(${earliest}::float8))
       and "time" <= coalesce((select min("time") from telemetry_points where device_id = ${deviceId} and "time" > to_timestamp(${latest}::float8)),
                              to_timestamp(${latest}::float8))`;
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
