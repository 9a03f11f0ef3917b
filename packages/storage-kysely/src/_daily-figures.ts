/**
 * The figures that keep reads from growing with history (D27), maintained in the transaction of
 * every write that changes segments:
 *
 * - `engine_day_figures`: per device and local day of its zone, `[day_start, day_end)` in epoch
 *   seconds, the moving and idle seconds of its *closed* segments in that day (core's
 *   `dailyFigures`). Days without engine time have no row. Open segments are never in it: they
 *   are counted at read time, up to now.
 * - `devices.closed_moving_seconds` / `closed_idle_seconds`: the same over the device's whole
 *   history, for the meter (D3).
 * - `devices.figures_time_zone`: the zone the day rows were cut in. A write that finds it differs
 *   from `time_zone` (a zone changed outside Fleet Hours) rebuilds the device's figures instead of
 *   adding to them; `updateDevice` rebuilds them when it changes the zone.
 *
 * Reads (see `_segment-queries.ts`) stay exact whatever the figures' zone: the day rows only
 * have to tile time without overlapping, and a bucket that does not hold whole rows is counted
 * from the segments at its edges.
 */
import type { SegmentInput, SegmentState } from '@fleet-hours/core';
import { dailyFigures, type DayFigure } from '@fleet-hours/core/adapter';
import { sql, type Kysely } from 'kysely';
import { _isId } from './_sql-values.js';
import type { FleetHoursDatabase } from './database-schema.js';

/**
 * What a write reads of the device's row under its lock, for its figures (see `_writeDevices`).
 * `has_figures`: `closed_moving_seconds <> 0 or closed_idle_seconds <> 0 or exists (a day row of
 * the device)`; {@link _FIGURE_DEVICE_COLUMNS} selects it.
 */
export interface _FigureDevice {
  readonly time_zone: string;
  readonly figures_time_zone: string | null;
  readonly has_figures: boolean;
}

/** The columns of {@link _FigureDevice}, for a `select … from devices` (under the row's lock). */
export const _FIGURE_DEVICE_COLUMNS = sql`time_zone, figures_time_zone,
  closed_moving_seconds <> 0 or closed_idle_seconds <> 0 or exists (select 1 from engine_day_figures where device_id = devices.id) as has_figures`;

/** Rows written per statement. */
const FIGURE_CHUNK = 20_000;

/**
 * Recomputes a device's figures from its segments (in its current zone) and replaces the stored
 * ones; also raises `longest_segment_seconds` to the longest closed segment, so segments written
 * outside Fleet Hours are found by the window scans. The caller holds the device's row lock.
 *
 * @returns `false` when there is no such device.
 */
export async function _rebuildDeviceFigures(trx: Kysely<FleetHoursDatabase>, deviceId: number): Promise<boolean> {
  const expected = await _expectedFigures(trx, deviceId);
  if (!expected) return false;
  await sql`delete from engine_day_figures where device_id = ${deviceId}`.execute(trx);
  for (let offset = 0; offset < expected.days.length; offset += FIGURE_CHUNK) {
    await sql`
      insert into engine_day_figures (device_id, day_start, day_end, moving_seconds, idle_seconds)
      select ${deviceId}, change.day_start::bigint, change.day_end::bigint, change.moving::bigint, change.idle::bigint
        from ${_figureArrays(expected.days.slice(offset, offset + FIGURE_CHUNK))}`.execute(trx);
  }
  await sql`
    update devices
       set closed_moving_seconds = ${expected.movingSeconds}::bigint,
           closed_idle_seconds = ${expected.idleSeconds}::bigint,
           figures_time_zone = ${expected.timeZone}::text,
           longest_segment_seconds = greatest(longest_segment_seconds, ${expected.longestSegmentSeconds}::bigint)
     where id = ${deviceId}`.execute(trx);
  return true;
}

/** A device's figures as they should be, computed from its segments. */
export interface _ExpectedFigures {
  readonly timeZone: string;
  readonly days: readonly DayFigure[];
  readonly movingSeconds: number;
  readonly idleSeconds: number;
  readonly longestSegmentSeconds: number;
}

/** Reads every closed segment of the device and computes its figures; `null` when there is no such device. */
export async function _expectedFigures(db: Kysely<FleetHoursDatabase>, deviceId: number): Promise<_ExpectedFigures | null> {
  const device = (await sql<{ time_zone: string }>`select time_zone from devices where id = ${deviceId}`.execute(db)).rows[0];
  if (!device) return null;
  const { rows } = await sql<{ started_at: number; ended_at: number; state: SegmentState }>`
    select date_part('epoch', started_at) as started_at, date_part('epoch', ended_at) as ended_at, state
      from engine_segments
     where device_id = ${deviceId} and ended_at is not null
     order by started_at`.execute(db);
  const segments = rows.map((row) => ({ startedAt: Number(row.started_at), endedAt: Number(row.ended_at), state: row.state }));
  let longest = 0;
  for (const segment of segments) longest = Math.max(longest, segment.endedAt - segment.startedAt);
  const totals = _totals(segments, 1, { moving: 0, idle: 0 });
  return {
    timeZone: device.time_zone,
    days: dailyFigures(segments, device.time_zone),
    movingSeconds: totals.moving,
    idleSeconds: totals.idle,
    longestSegmentSeconds: longest,
  };
}

/** A device's figures as stored; `null` when there is no such device. */
export async function _storedFigures(db: Kysely<FleetHoursDatabase>, deviceId: number): Promise<_ExpectedFigures | null> {
  const device = (
    await sql<{ figures_time_zone: string | null; moving: number | string; idle: number | string; longest: number | string }>`
      select figures_time_zone, closed_moving_seconds as moving, closed_idle_seconds as idle, longest_segment_seconds as longest
        from devices where id = ${deviceId}`.execute(db)
  ).rows[0];
  if (!device) return null;
  const { rows } = await sql<{ day_start: number | string; day_end: number | string; moving_seconds: number | string; idle_seconds: number | string }>`
    select day_start, day_end, moving_seconds, idle_seconds from engine_day_figures where device_id = ${deviceId} order by day_start`.execute(db);
  return {
    timeZone: device.figures_time_zone ?? '',
    days: rows.map((row) => ({
      dayStart: Number(row.day_start),
      dayEnd: Number(row.day_end),
      movingSeconds: Number(row.moving_seconds),
      idleSeconds: Number(row.idle_seconds),
    })),
    movingSeconds: Number(device.moving),
    idleSeconds: Number(device.idle),
    longestSegmentSeconds: Number(device.longest),
  };
}

/** `unnest(…) as change(day_start, day_end, moving, idle)` over figures: four array parameters, whatever the count. */
function _figureArrays(figures: readonly DayFigure[]) {
  return sql`unnest(${figures.map((figure) => figure.dayStart)}::float8[],
                    ${figures.map((figure) => figure.dayEnd)}::float8[],
                    ${figures.map((figure) => figure.movingSeconds)}::float8[],
                    ${figures.map((figure) => figure.idleSeconds)}::float8[]) as change(day_start, day_end, moving, idle)`;
}

/** Adds `sign` × the seconds of closed segments to running totals. */
export function _totals(segments: readonly SegmentInput[], sign: 1 | -1, into: { moving: number; idle: number }): { moving: number; idle: number } {
  for (const segment of segments) {
    if (segment.endedAt === null) continue;
    if (segment.state === 'moving') into.moving += sign * (segment.endedAt - segment.startedAt);
    else into.idle += sign * (segment.endedAt - segment.startedAt);
  }
  return into;
}

/** The device ids an operator command covers: the one named (when it exists), or all, by id. */
export async function _deviceIds(db: Kysely<FleetHoursDatabase>, deviceId: number | undefined): Promise<number[]> {
  if (deviceId !== undefined && !_isId(deviceId)) return [];
  const { rows } =
    deviceId === undefined
      ? await sql<{ id: number }>`select id from devices order by id`.execute(db)
      : await sql<{ id: number }>`select id from devices where id = ${deviceId}`.execute(db);
  return rows.map((row) => Number(row.id));
}
