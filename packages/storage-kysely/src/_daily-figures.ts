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
import { dailyFigureChanges, dailyFigures, type DayFigure } from '@fleet-hours/core/adapter';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { _isId } from './_sql-values.js';
import type { FleetHoursDatabase } from './database-schema.js';

/** What one write changes in a device's segments (see `_applySegmentChanges`). */
export interface _FigureChanges {
  readonly removed: readonly SegmentInput[];
  readonly added: readonly SegmentInput[];
}

/**
 * What {@link _applyFigureChanges} reads of the device's row, under its lock: a caller that read it
 * with the lock passes it. `has_figures`: `closed_moving_seconds <> 0 or closed_idle_seconds <> 0 or
 * exists (a day row of the device)`.
 */
export interface _FigureDevice {
  readonly time_zone: string;
  readonly figures_time_zone: string | null;
  readonly has_figures: boolean;
}

/** Rows written per statement. */
const FIGURE_CHUNK = 20_000;

/**
 * What a write's caller still has to write when it hands its segment changes over, so that the
 * common write is one statement: common table expressions on other tables (`name as (…)`, joined
 * by commas; a later one may depend on an earlier one by name), and assignments to the device's
 * row (`column = …`, joined by commas). They run before the figures are rebuilt (which reads the
 * segments), or in the figures' statement.
 */
export interface _PendingWrite {
  readonly ctes?: RawBuilder<unknown>;
  readonly deviceSet?: RawBuilder<unknown>;
}

/** Joins the expressions given (skipping the missing ones) for a `with`; `undefined` when there are none. */
export function _joinCtes(ctes: readonly (RawBuilder<unknown> | undefined)[]): RawBuilder<unknown> | undefined {
  const present = ctes.filter((cte) => cte !== undefined);
  return present.length > 0 ? sql.join(present) : undefined;
}

/** Runs a pending write on its own: the expressions, then the assignments to the device's row. */
export async function _writePending(trx: Kysely<FleetHoursDatabase>, deviceId: number, pending: _PendingWrite | undefined): Promise<void> {
  const ctes = pending?.ctes;
  const deviceSet = pending?.deviceSet;
  if (deviceSet) await sql`${ctes ? sql`with ${ctes} ` : sql``}update devices set ${deviceSet} where id = ${deviceId}`.execute(trx);
  else if (ctes) await sql`with ${ctes} select 1`.execute(trx);
}

/**
 * Adds a write's changes to the device's figures, in the write's transaction (the caller holds the
 * device's row lock). Open segments change no figure. `read`: the device's row as the caller read
 * it under the lock (see {@link _FigureDevice}), else it is read here. `pending`: what the caller
 * still has to write, the segments included (see {@link _PendingWrite}): in the common case, one
 * chunk of figures in the device's zone, it all goes in one statement with the day rows and the
 * totals (they write different tables, and the device's row once).
 */
export async function _applyFigureChanges(
  trx: Kysely<FleetHoursDatabase>,
  deviceId: number,
  changes: _FigureChanges,
  read?: _FigureDevice,
  pending?: _PendingWrite,
): Promise<void> {
  const removed = changes.removed.filter((segment) => segment.endedAt !== null);
  const added = changes.added.filter((segment) => segment.endedAt !== null);
  if (removed.length === 0 && added.length === 0) return _writePending(trx, deviceId, pending);
  const device =
    read ??
    (
      await sql<_FigureDevice>`
        select time_zone, figures_time_zone,
               closed_moving_seconds <> 0 or closed_idle_seconds <> 0 or exists (select 1 from engine_day_figures where device_id = ${deviceId}) as has_figures
          from devices where id = ${deviceId}`.execute(trx)
    ).rows[0];
  if (!device) return _writePending(trx, deviceId, pending);
  // Figures cut in another zone (or of unknown zone, yet not empty) cannot take a change cut in
  // this one: rebuild them from the segments as they now are.
  if (device.figures_time_zone !== device.time_zone && (device.figures_time_zone !== null || device.has_figures)) {
    await _writePending(trx, deviceId, pending);
    await _rebuildDeviceFigures(trx, deviceId);
    return;
  }
  const changed = dailyFigureChanges({ removed, added }, device.time_zone);
  const totals = _totals(added, 1, _totals(removed, -1, { moving: 0, idle: 0 }));
  const totalsSet = sql`closed_moving_seconds = closed_moving_seconds + ${totals.moving}::bigint,
                        closed_idle_seconds = closed_idle_seconds + ${totals.idle}::bigint,
                        figures_time_zone = time_zone`;
  // The device's row is updated once: its totals with the caller's assignments.
  const deviceSet = pending?.deviceSet ? sql`${totalsSet}, ${pending.deviceSet}` : totalsSet;
  if (changed.length <= FIGURE_CHUNK) {
    // The common case, one chunk: the caller's writes, the day rows and the totals in one statement.
    await _writePending(trx, deviceId, { ctes: _joinCtes([pending?.ctes, changed.length > 0 ? _figureWrites(deviceId, changed) : undefined]), deviceSet });
    return;
  }
  await _writePending(trx, deviceId, { ctes: pending?.ctes });
  for (let offset = 0; offset < changed.length; offset += FIGURE_CHUNK) {
    await sql`with ${_figureWrites(deviceId, changed.slice(offset, offset + FIGURE_CHUNK))} select 1`.execute(trx);
  }
  await _writePending(trx, deviceId, { deviceSet });
}

/**
 * Adds changes to the device's day rows, as two expressions of one statement (see
 * {@link _PendingWrite}): a day the change leaves without engine time loses its row (days without
 * engine time have none), every other changed day is added to or created. The caller holds the
 * device's lock, so the rows read are the rows changed. The upsert reads the deletion's days, so
 * it runs after it; a change of nothing is skipped (it would only add an empty row).
 */
function _figureWrites(deviceId: number, changes: readonly DayFigure[]): RawBuilder<unknown> {
  return sql`
    figure_changes as (select * from ${_figureArrays(changes)}),
    figures_emptied as (
      delete from engine_day_figures as figure
       using figure_changes as change
       where figure.device_id = ${deviceId} and figure.day_start = change.day_start::bigint
         and figure.moving_seconds + change.moving::bigint = 0 and figure.idle_seconds + change.idle::bigint = 0
      returning figure.day_start
    ),
    figures as (
      insert into engine_day_figures as figure (device_id, day_start, day_end, moving_seconds, idle_seconds)
      select ${deviceId}, change.day_start::bigint, change.day_end::bigint, change.moving::bigint, change.idle::bigint
        from figure_changes as change
       where (change.moving <> 0 or change.idle <> 0)
         and change.day_start::bigint not in (select day_start from figures_emptied)
      on conflict (device_id, day_start) do update
         set moving_seconds = figure.moving_seconds + excluded.moving_seconds,
             idle_seconds = figure.idle_seconds + excluded.idle_seconds
    )`;
}

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
function _totals(segments: readonly SegmentInput[], sign: 1 | -1, into: { moving: number; idle: number }): { moving: number; idle: number } {
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
