import type { DevicePosition, SegmentInput, SegmentSource, SegmentState, TelemetryPoint } from '@fleet-hours/core';
import { changesSettledHistory, dailyFigureChanges, type DayFigure } from '@fleet-hours/core/adapter';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { rebuildDeviceFigures, addSegmentSeconds, type FigureDevice } from './daily-figures.js';
import type { FleetHoursDatabase } from '../schema/database-schema.js';
import { planFree } from './sql-values.js';

/**
 * What one write transaction changes of one device, under the device's row lock: the one shape in
 * which imports and telemetry hand their changes to {@link writeDevices}.
 */
export interface DeviceWrite {
  readonly deviceId: number;
  /** The device's row as the caller read it under the lock (see `FigureDevice`). */
  readonly device: FigureDevice;
  /** Points of seconds the device has no point for. */
  readonly insertedPoints?: readonly TelemetryPoint[];
  /** Stored points replaced by their merge with the batch (D21). */
  readonly updatedPoints?: readonly TelemetryPoint[];
  /** Segments to remove, each named by its start (the primary key is `(device_id, started_at)`). */
  readonly removed: readonly SegmentInput[];
  /** Segments to add, from `source` (D23). */
  readonly added: readonly SegmentInput[];
  readonly source: SegmentSource;
  /** The device's record (P6, D26): its `last_reported_at` as the write's plan decided it. */
  readonly lastReportedAt: number | null;
  /** Its `last_reported_at` before the write, read under the lock (or checked by the version): the settled instant of P58. */
  readonly settledAt: number | null;
  /** Issue 34 (P119): the newest position the batch's points of the device carried, kept when newer than the stored one. */
  readonly position?: DevicePosition | null;
}

/** Rows of each kind written per statement: an array parameter per column, far from any limit. */
const POINT_CHUNK = 50_000;
const SEGMENT_CHUNK = 50_000;
const FIGURE_CHUNK = 20_000;

/**
 * The one way points, segments and everything derived from segments change inside a write
 * transaction, for any number of devices at once (a shared Traccar batch, an import, a late
 * batch): the points, the segments, the per-day figures and lifetime totals (D27) and each
 * device's record, in one statement of fixed text when every kind fits one chunk (the common case,
 * whatever the number of devices: prepared once per connection). Each kind goes as one array per
 * column, with the device id of each row, so the text never depends on the batch.
 *
 * - Stored rows are found by primary-key probes, one per row named (`ctid = any(array(select
 *   (select ctid …) …))`, a scalar subquery the planner cannot turn into a join), and changed
 *   points are upserted: no plan reads a whole table or a device's history, whatever the table
 *   statistics say (D27).
 * - The segments added are inserted after the removed ones are deleted (the insertion reads the
 *   deletion's count; PostgreSQL runs the expressions of one statement in no set order): a
 *   segment removed and added again with the same start (a tail that grew), or a new open segment
 *   after the removed one, is then no conflict. More removals than a chunk are deleted first, in
 *   statements of their own.
 * - Figures cut in another zone than the device's (or of unknown zone, yet not empty) cannot take
 *   a change cut in this one: that device's figures are rebuilt from its segments afterwards.
 *
 * The callers hold every device's state row lock (D44), so the rows read are the rows changed.
 */
export async function writeDevices(trx: Kysely<FleetHoursDatabase>, writes: readonly DeviceWrite[]): Promise<void> {
  await _write(trx, writes, undefined);
}

/**
 * {@link writeDevices} without a transaction or a lock held: one statement that locks the devices'
 * state rows (`device_states`, D44: never the `devices` rows, a reference table in a distributed
 * layout) and writes only if each is still the version the caller read (`versions`: device id →
 * the state row's `xmin` as text; every write of a device updates that row, so a write that came
 * between changed it). `'written'`, or `'changed'` (nothing written: read again and plan again), or `'unfit'`
 * (nothing written: the write takes more than one statement, or a rebuild of figures; write it in a
 * transaction under the lock instead).
 */
export async function writeDevicesIfUnchanged(
  db: Kysely<FleetHoursDatabase>,
  writes: readonly DeviceWrite[],
  versions: ReadonlyMap<number, string>,
): Promise<'written' | 'changed' | 'unfit'> {
  return _write(db, writes, versions);
}

async function _write(
  trx: Kysely<FleetHoursDatabase>,
  writes: readonly DeviceWrite[],
  versions: ReadonlyMap<number, string> | undefined,
): Promise<'written' | 'changed' | 'unfit'> {
  const points = { inserted: new _Rows<_PointRow>(POINT_COLUMNS), updated: new _Rows<_PointRow>(POINT_COLUMNS) };
  const removed = new _Rows<_RemovedRow>(REMOVED_COLUMNS);
  const added = new _Rows<_AddedRow>(ADDED_COLUMNS);
  const figures = new _Rows<_FigureRow>(FIGURE_COLUMNS);
  const records = new _Rows<_RecordRow>(RECORD_COLUMNS);
  const positions = new _Rows<_PositionRow>(POSITION_COLUMNS);
  const rebuilt: number[] = [];
  for (const write of writes) {
    const { deviceId, device } = write;
    if (write.position) positions.push(write.position);
    _pushPoints(points.inserted, deviceId, write.insertedPoints);
    _pushPoints(points.updated, deviceId, write.updatedPoints);
    for (const segment of write.removed) removed.push({ deviceId, startedAt: segment.startedAt });
    let longest = 0;
    for (const segment of write.added) {
      added.push({ deviceId, startedAt: segment.startedAt, endedAt: segment.endedAt, state: segment.state, source: write.source });
      if (segment.endedAt !== null) longest = Math.max(longest, segment.endedAt - segment.startedAt);
    }
    // Open segments change no figure.
    const closedRemoved = write.removed.filter((segment) => segment.endedAt !== null);
    const closedAdded = write.added.filter((segment) => segment.endedAt !== null);
    const changesFigures = closedRemoved.length > 0 || closedAdded.length > 0;
    const rebuild =
      changesFigures && device.figures_time_zone !== device.time_zone && (device.figures_time_zone !== null || device.has_figures);
    let totals = { moving: 0, idle: 0 };
    if (rebuild) rebuilt.push(deviceId);
    else if (changesFigures) {
      const changed: DayFigure[] = dailyFigureChanges({ removed: closedRemoved, added: closedAdded }, device.time_zone);
      for (const day of changed)
        figures.push({ deviceId, dayStart: day.dayStart, dayEnd: day.dayEnd, moving: day.movingSeconds, idle: day.idleSeconds });
      totals = addSegmentSeconds(closedAdded, 1, addSegmentSeconds(closedRemoved, -1, totals));
    }
    records.push({
      deviceId,
      moving: totals.moving,
      idle: totals.idle,
      figures: changesFigures && !rebuild ? 't' : 'f',
      lastReportedAt: write.lastReportedAt,
      longest,
      memo: changesSettledHistory({ removed: write.removed, added: write.added, settledAt: write.settledAt }) ? 't' : 'f',
    });
  }

  if (versions) {
    if (
      rebuilt.length > 0 ||
      points.inserted.length > POINT_CHUNK ||
      points.updated.length > POINT_CHUNK ||
      removed.length > SEGMENT_CHUNK ||
      added.length > SEGMENT_CHUNK ||
      figures.length > FIGURE_CHUNK
    ) {
      return 'unfit';
    }
    const checked = [...versions];
    const { rows } = await _writeStatement({
      versions: { deviceId: checked.map(([deviceId]) => deviceId), version: checked.map(([, version]) => version) },
      insertedPoints: points.inserted.take(POINT_CHUNK),
      updatedPoints: points.updated.take(POINT_CHUNK),
      removed: removed.take(SEGMENT_CHUNK),
      added: added.take(SEGMENT_CHUNK),
      figures: figures.take(FIGURE_CHUNK),
      records: records.take(Infinity),
      positions: positions.take(Infinity),
    }).execute(trx);
    return rows[0]?.written ? 'written' : 'changed';
  }
  // More removals than a chunk: all but the last chunk first, so that no insertion comes before its removal.
  while (removed.length > SEGMENT_CHUNK) await _writeStatement({ removed: removed.take(SEGMENT_CHUNK) }).execute(trx);
  let first = true;
  while (first || points.inserted.length > 0 || points.updated.length > 0 || added.length > 0 || figures.length > 0) {
    await _writeStatement({
      insertedPoints: points.inserted.take(POINT_CHUNK),
      updatedPoints: points.updated.take(POINT_CHUNK),
      removed: removed.take(SEGMENT_CHUNK),
      added: added.take(SEGMENT_CHUNK),
      figures: figures.take(FIGURE_CHUNK),
      records: first ? records.take(Infinity) : undefined,
      positions: first ? positions.take(Infinity) : undefined,
    }).execute(trx);
    first = false;
  }
  for (const deviceId of rebuilt) await rebuildDeviceFigures(trx, deviceId);
  return 'written';
}

/**
 * A device's points appended to `rows` column by column: a batch of 10,000 points made an object
 * per point and a loop over its names for each (P69: a tenth of the native write's own time).
 */
function _pushPoints(rows: _Rows<_PointRow>, deviceId: number, points: readonly TelemetryPoint[] | undefined): void {
  if (points === undefined) return;
  const columns = rows.columns;
  for (const point of points) {
    columns.deviceId.push(deviceId);
    columns.time.push(point.time);
    columns.ignition.push(point.ignition ? 't' : 'f');
    columns.speedKmh.push(point.speedKmh);
  }
}

/** Rows as one array per named column, taken from the front a chunk at a time. */
class _Rows<Row extends object> {
  readonly #names: readonly (keyof Row)[];
  readonly #columns: _Columns<Row>;
  #taken = 0;

  constructor(names: readonly (keyof Row)[]) {
    this.#names = names;
    this.#columns = _noRows(names);
  }

  get length(): number {
    return this.#columns[this.#names[0]!].length - this.#taken;
  }

  push(row: Row): void {
    for (const name of this.#names) this.#columns[name].push(row[name]);
  }

  /** The columns rows are added to, for a caller that adds many rows a column at a time. */
  get columns(): _Columns<Row> {
    return this.#columns;
  }

  /** The next `count` rows (or fewer), as columns. */
  take(count: number): _Columns<Row> {
    const total = this.#columns[this.#names[0]!].length;
    const from = this.#taken;
    this.#taken = Math.min(total, from + count);
    if (from === 0 && this.#taken === total) return this.#columns;
    const taken = _noRows(this.#names);
    for (const name of this.#names) taken[name] = this.#columns[name].slice(from, this.#taken);
    return taken;
  }
}

/** Rows of one kind as one array per column, by name: the statement reads each by its name. */
type _Columns<Row> = { [Name in keyof Row]: Row[Name][] };

function _noRows<Row extends object>(names: readonly (keyof Row)[]): _Columns<Row> {
  return Object.fromEntries(names.map((name) => [name, []])) as unknown as _Columns<Row>;
}

/** Booleans go as text: postgres.js would send a JS boolean array as a scalar `boolean` parameter, and PGlite serializes a `boolean[]` parameter from booleans only. */
type _Flag = 't' | 'f';
interface _PointRow {
  readonly deviceId: number;
  readonly time: number;
  readonly ignition: _Flag;
  readonly speedKmh: number;
}
const POINT_COLUMNS: readonly (keyof _PointRow)[] = ['deviceId', 'time', 'ignition', 'speedKmh'];
const REMOVED_COLUMNS: readonly (keyof _RemovedRow)[] = ['deviceId', 'startedAt'];
const ADDED_COLUMNS: readonly (keyof _AddedRow)[] = ['deviceId', 'startedAt', 'endedAt', 'state', 'source'];
const FIGURE_COLUMNS: readonly (keyof _FigureRow)[] = ['deviceId', 'dayStart', 'dayEnd', 'moving', 'idle'];
const RECORD_COLUMNS: readonly (keyof _RecordRow)[] = ['deviceId', 'moving', 'idle', 'figures', 'lastReportedAt', 'longest', 'memo'];
const VERSION_COLUMNS: readonly (keyof _VersionRow)[] = ['deviceId', 'version'];
const POSITION_COLUMNS: readonly (keyof _PositionRow)[] = ['deviceId', 'time', 'latitude', 'longitude'];
type _PositionRow = DevicePosition;
interface _RemovedRow {
  readonly deviceId: number;
  readonly startedAt: number;
}
interface _AddedRow {
  readonly deviceId: number;
  readonly startedAt: number;
  readonly endedAt: number | null;
  readonly state: SegmentState;
  readonly source: SegmentSource;
}
interface _FigureRow {
  readonly deviceId: number;
  readonly dayStart: number;
  readonly dayEnd: number;
  readonly moving: number;
  readonly idle: number;
}
/** A device's record: what its row gains (totals of closed segments), whether its figures were kept in its zone, its `last_reported_at`, its longest new segment. */
interface _RecordRow {
  readonly deviceId: number;
  readonly moving: number;
  readonly idle: number;
  readonly figures: _Flag;
  readonly lastReportedAt: number | null;
  readonly longest: number;
  /** P58: the write changes engine time before the settled instant, so the device's memo version rises. */
  readonly memo: _Flag;
}
interface _VersionRow {
  readonly deviceId: number;
  /** The row's `xmin` as the caller read it, as text. */
  readonly version: string;
}

/** Columns of each kind; a kind not given writes nothing. */
interface _StatementRows {
  /** Device ids and the `xmin` (as text) each row must still have: the statement writes nothing otherwise. */
  readonly versions?: _Columns<_VersionRow>;
  readonly insertedPoints?: _Columns<_PointRow>;
  readonly updatedPoints?: _Columns<_PointRow>;
  readonly removed?: _Columns<_RemovedRow>;
  readonly added?: _Columns<_AddedRow>;
  readonly figures?: _Columns<_FigureRow>;
  readonly records?: _Columns<_RecordRow> | undefined;
  readonly positions?: _Columns<_PositionRow> | undefined;
}

/** The statement of {@link writeDevices}: one text whatever it holds (see there). */
function _writeStatement(rows: _StatementRows) {
  const pi = rows.insertedPoints ?? _noRows<_PointRow>(POINT_COLUMNS);
  const pu = rows.updatedPoints ?? _noRows<_PointRow>(POINT_COLUMNS);
  const r = rows.removed ?? _noRows<_RemovedRow>(REMOVED_COLUMNS);
  const a = rows.added ?? _noRows<_AddedRow>(ADDED_COLUMNS);
  const f = rows.figures ?? _noRows<_FigureRow>(FIGURE_COLUMNS);
  const d = rows.records ?? _noRows<_RecordRow>(RECORD_COLUMNS);
  const v = rows.versions ?? _noRows<_VersionRow>(VERSION_COLUMNS);
  const p = rows.positions ?? _noRows<_PositionRow>(POSITION_COLUMNS);
  return sql<{ written: boolean }>`
    with locked as (
      select device_id as id, xmin::text as version from device_states where device_id = any(${planFree(v.deviceId, 'integer[]')}) order by device_id for update
    ),
    -- Every device checked still has the row the caller read (none checked: the caller holds the locks).
    unchanged as (
      select not exists (
               select 1 from unnest(${planFree(v.deviceId, 'integer[]')}, ${planFree(v.version, 'text[]')}) as expected(device_id, version)
                 left join locked on locked.id = expected.device_id
                where locked.version is distinct from expected.version) as ok
    ),
    inserted_points as (
      insert into telemetry_points (device_id, "time", ignition, speed_kmh)
      select point.device_id, to_timestamp(point.time), point.ignition, point.speed_kmh
        from unnest(${planFree(pi.deviceId, 'integer[]')}, ${planFree(pi.time, 'float8[]')}, ${planFree(pi.ignition, 'text[]')}::boolean[], ${planFree(pi.speedKmh, 'float8[]')}) as point(device_id, time, ignition, speed_kmh)
       where (select ok from unchanged)
    ),
    updated_points as (
      insert into telemetry_points (device_id, "time", ignition, speed_kmh)
      select point.device_id, to_timestamp(point.time), point.ignition, point.speed_kmh
        from unnest(${planFree(pu.deviceId, 'integer[]')}, ${planFree(pu.time, 'float8[]')}, ${planFree(pu.ignition, 'text[]')}::boolean[], ${planFree(pu.speedKmh, 'float8[]')}) as point(device_id, time, ignition, speed_kmh)
       where (select ok from unchanged)
      on conflict (device_id, "time") do update set ignition = excluded.ignition, speed_kmh = excluded.speed_kmh
    ),
    removed_segments as (
      delete from engine_segments
       where (select ok from unchanged)
         and ctid = any(array(
               select (select segment.ctid from engine_segments as segment
                        where segment.device_id = named.device_id and segment.started_at = to_timestamp(named.started_at))
                 from unnest(${planFree(r.deviceId, 'integer[]')}, ${planFree(r.startedAt, 'float8[]')}) as named(device_id, started_at)))
      returning 1
    ),
    added_segments as (
      insert into engine_segments (device_id, started_at, ended_at, state, source)
      select segment.device_id, to_timestamp(segment.started_at), to_timestamp(segment.ended_at), segment.state, segment.source
        from unnest(${planFree(a.deviceId, 'integer[]')}, ${planFree(a.startedAt, 'float8[]')}, ${planFree(a.endedAt, 'float8[]')}, ${planFree(a.state, 'text[]')}, ${planFree(a.source, 'text[]')})
             as segment(device_id, started_at, ended_at, state, source)
       where (select count(*) from removed_segments) >= 0 and (select ok from unchanged)
    ),
    -- Each changed day (a change of nothing is left out: it would only add an empty row) with what
    -- the device's changed days before it add (P56: the running totals of later rows move by that much).
    figure_changes as (
      select change.device_id, change.day_start::bigint as day_start, change.day_end::bigint as day_end,
             change.moving::bigint as moving, change.idle::bigint as idle,
             coalesce(sum(change.moving::bigint) over earlier, 0) as moving_shift,
             coalesce(sum(change.idle::bigint) over earlier, 0) as idle_shift,
             lead(change.day_start::bigint) over (partition by change.device_id order by change.day_start) as next_day_start
        from unnest(${planFree(f.deviceId, 'integer[]')}, ${planFree(f.dayStart, 'float8[]')}, ${planFree(f.dayEnd, 'float8[]')}, ${planFree(f.moving, 'float8[]')}, ${planFree(f.idle, 'float8[]')})
             as change(device_id, day_start, day_end, moving, idle)
       where change.moving <> 0 or change.idle <> 0
      window earlier as (partition by change.device_id order by change.day_start rows between unbounded preceding and 1 preceding)
    ),
    -- A day the change leaves without engine time loses its row (days without engine time have none).
    figures_emptied as (
      delete from engine_day_figures
       where (select ok from unchanged)
         and ctid = any(array(
               select (select figure.ctid from engine_day_figures as figure
                        where figure.device_id = change.device_id and figure.day_start = change.day_start
                          and figure.moving_seconds + change.moving = 0 and figure.idle_seconds + change.idle = 0)
                 from figure_changes as change))
      returning device_id, day_start
    ),
    -- Every other changed day is added to or created. Its running totals (P56) are those at the end of the device's row before it
    -- (one probe backwards on the key, in the statement's snapshot: before this write) plus what
    -- the changed days before it add.
    figures as (
      insert into engine_day_figures as figure (device_id, day_start, day_end, moving_seconds, idle_seconds, moving_before_seconds, idle_before_seconds)
      select change.device_id, change.day_start, change.day_end, change.moving, change.idle,
             coalesce(previous.moving_through, 0) + change.moving_shift, coalesce(previous.idle_through, 0) + change.idle_shift
        from figure_changes as change
        left join lateral (
               select earlier.moving_before_seconds + earlier.moving_seconds as moving_through,
                      earlier.idle_before_seconds + earlier.idle_seconds as idle_through
                 from engine_day_figures as earlier
                where earlier.device_id = change.device_id and earlier.day_start < change.day_start
                order by earlier.day_start desc limit 1
             ) as previous on true
       where (select ok from unchanged)
         and not exists (select 1 from figures_emptied as emptied where emptied.device_id = change.device_id and emptied.day_start = change.day_start)
      on conflict (device_id, day_start) do update
         set moving_seconds = figure.moving_seconds + excluded.moving_seconds,
             idle_seconds = figure.idle_seconds + excluded.idle_seconds,
             moving_before_seconds = excluded.moving_before_seconds,
             idle_before_seconds = excluded.idle_before_seconds
    ),
    -- The device's unchanged rows after a changed day take what the changed days before them add
    -- (P56): each row between one changed day and the next (or after the last) is found by a range
    -- probe on the key, so a write at the live edge (no later rows) reads nothing here, and a late
    -- one touches the rows after it. The changed rows themselves are the insertion's, and a
    -- statement changes a row once.
    figures_shifted as (
      update engine_day_figures as figure
         set (moving_before_seconds, idle_before_seconds) = (
               select figure.moving_before_seconds + change.moving_shift + change.moving, figure.idle_before_seconds + change.idle_shift + change.idle
                 from figure_changes as change
                where change.device_id = figure.device_id and change.day_start < figure.day_start
                order by change.day_start desc limit 1)
       where (select ok from unchanged)
         and figure.ctid = any(array(
               select later.ctid
                 from figure_changes as change
                cross join lateral (
                      select ctid from engine_day_figures as later_figure
                       where later_figure.device_id = change.device_id and later_figure.day_start > change.day_start
                         and (change.next_day_start is null or later_figure.day_start < change.next_day_start)
                      offset 0
                    ) as later))
    ),
    recorded as (
      update device_states
       set closed_moving_seconds = closed_moving_seconds + record.moving::bigint,
           closed_idle_seconds = closed_idle_seconds + record.idle::bigint,
           figures_time_zone = case when record.figures then (select time_zone from devices where id = record.device_id) else figures_time_zone end,
           last_reported_at = to_timestamp(record.last_reported_at),
           longest_segment_seconds = greatest(longest_segment_seconds, record.longest::bigint)
      from unnest(${planFree(d.deviceId, 'integer[]')}, ${planFree(d.moving, 'float8[]')}, ${planFree(d.idle, 'float8[]')}, ${planFree(d.figures, 'text[]')}::boolean[], ${planFree(d.lastReportedAt, 'float8[]')}, ${planFree(d.longest, 'float8[]')})
           as record(device_id, moving, idle, figures, last_reported_at, longest)
       where device_states.device_id = record.device_id and (select ok from unchanged)
    ),
    -- P58: a device whose engine time changed before its settled instant raises its memo version.
    memo_raised as (
      insert into service_memos as memo (device_id, version)
      select record.device_id, 1 from unnest(${planFree(d.deviceId, 'integer[]')}, ${planFree(d.memo, 'text[]')}::boolean[]) as record(device_id, raise)
       where record.raise and (select ok from unchanged)
      on conflict (device_id) do update set version = memo.version + 1
    ),
    -- P53: each device written asks for a check of its events (D40), in this statement: a committed
    -- write always leaves its check behind. A check clears the row at the version it read.
    events_to_check as (
      insert into event_checks as pending (device_id)
      select record.device_id from unnest(${planFree(d.deviceId, 'integer[]')}) as record(device_id)
       where (select ok from unchanged)
      on conflict (device_id) do update set version = pending.version + 1
    ),
    -- Issue 34 (P119): each device's newest position, replaced only by a newer one (time, then
    -- latitude, then longitude), so the split and order of batches do not matter.
    positions_kept as (${positionUpsert(p, sql`where (select ok from unchanged)`)})
    select ok as written from unchanged`;
}

/** The upsert of positions (columns of {@link DevicePosition}) into `device_positions`: a stored one is replaced only by a newer one. */
function positionUpsert(p: _Columns<_PositionRow>, condition: RawBuilder<unknown>) {
  return sql`
      insert into device_positions as position (device_id, "time", latitude, longitude)
      select given.device_id, to_timestamp(given.time), given.latitude, given.longitude
        from unnest(${planFree(p.deviceId, 'integer[]')}, ${planFree(p.time, 'float8[]')}, ${planFree(p.latitude, 'float8[]')}, ${planFree(p.longitude, 'float8[]')})
             as given(device_id, time, latitude, longitude)
       ${condition}
      on conflict (device_id) do update set "time" = excluded."time", latitude = excluded.latitude, longitude = excluded.longitude
       where (excluded."time", excluded.latitude, excluded.longitude) > (position."time", position.latitude, position.longitude)`;
}

/**
 * Issue 34 (P119): positions of devices whose batch wrote nothing else (every point a duplicate,
 * D21): kept as a write keeps them, newer only. The upsert is monotone, so it needs no lock.
 */
export async function keepPositions(db: Kysely<FleetHoursDatabase>, positions: readonly DevicePosition[]): Promise<void> {
  if (positions.length === 0) return;
  const rows = new _Rows<_PositionRow>(POSITION_COLUMNS);
  for (const position of positions) rows.push(position);
  await positionUpsert(rows.take(Infinity), sql``).execute(db);
}
