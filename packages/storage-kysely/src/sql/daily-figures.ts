/**
 * The figures that keep reads from growing with history (D27), maintained in the transaction of
 * every write that changes segments:
 *
 * - `engine_day_figures`: per device and local day of its zone, `[day_start, day_end)` in epoch
 *   seconds, the moving and idle seconds of its *closed* segments in that day (core's
 *   `dailyFigures`). Days without engine time have no row. Open segments are never in it: they
 *   are counted at read time, up to now. Each row also holds the device's engine time in every
 *   earlier row (`moving_before_seconds`, `idle_before_seconds`, P56): the engine seconds up to
 *   any instant are then one row and that day's segments (`sql/engine-before.ts`).
 * - `device_states.closed_moving_seconds` / `closed_idle_seconds`: the same over the device's whole
 *   history, for the meter (D3).
 * - `device_states.figures_time_zone`: the zone the day rows were cut in. A write that finds it differs
 *   from `time_zone` (a zone changed outside Fleet Hours) rebuilds the device's figures instead of
 *   adding to them; `updateDevice` rebuilds them when it changes the zone.
 *
 * Reads (see `sql/segment-queries.ts`) stay exact whatever the figures' zone: the day rows only
 * have to tile time without overlapping, and a bucket that does not hold whole rows is counted
 * from the segments at its edges.
 */
import type { SegmentInput, SegmentSource, SegmentState } from '@fleet-hours/core';
import { dailyFigures, type DayFigure } from '@fleet-hours/core/adapter';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { isId } from './sql-values.js';
import type { FleetHoursDatabase } from '../schema/database-schema.js';

/**
 * What a write reads of the device's row under its lock, for its figures (see `writeDevices`).
 * `has_figures`: `closed_moving_seconds <> 0 or closed_idle_seconds <> 0 or exists (a day row of
 * the device)`; {@link FIGURE_DEVICE_COLUMNS} selects it.
 */
export interface FigureDevice {
  readonly time_zone: string;
  readonly figures_time_zone: string | null;
  readonly has_figures: boolean;
}

/** The columns of {@link FigureDevice}, for a `select … from devices` (under the lock of the device's `device_states` row, D44). */
export const FIGURE_DEVICE_COLUMNS = sql`time_zone, (select figures_time_zone from device_states where device_id = devices.id) as figures_time_zone,
  coalesce((select closed_moving_seconds <> 0 or closed_idle_seconds <> 0 from device_states where device_id = devices.id), false)
    or exists (select 1 from engine_day_figures where device_id = devices.id) as has_figures`;

/** Rows written per statement. */
const FIGURE_CHUNK = 20_000;

/** Rows read per statement by the chunked reads of a device's history (D36): memory stays flat whatever its size. */
export const READ_CHUNK = 10_000;

/**
 * Recomputes a device's figures from its segments (in its current zone) and replaces the stored
 * ones; also raises `longest_segment_seconds` to the longest closed segment, so segments written
 * outside Fleet Hours are found by the window scans. The segments are read `chunkSize` at a time
 * in time order (D36: a device with millions of segments is rebuilt in flat memory), and the
 * device's state row (D44) is always updated. The caller holds the lock of that row.
 * `asInMigration0003` writes the schema migration 0003 runs in: the totals in `devices` (before
 * 0009, D44) and day rows without running totals (before 0007, P56).
 *
 * @returns `false` when there is no such device.
 */
export async function rebuildDeviceFigures(
  trx: Kysely<FleetHoursDatabase>,
  deviceId: number,
  chunkSize = READ_CHUNK,
  asInMigration0003 = false,
): Promise<boolean> {
  const device = (await sql<{ time_zone: string }>`select time_zone from devices where id = ${deviceId}`.execute(trx)).rows[0];
  if (!device) return false;
  await sql`delete from engine_day_figures where device_id = ${deviceId}`.execute(trx);
  const figures = new DayFigureAccumulator(device.time_zone);
  const stateTable = asInMigration0003 ? 'devices' : 'device_states';
  const before = asInMigration0003 ? null : { moving: 0, idle: 0 };
  for await (const segments of segmentChunks(trx, deviceId, chunkSize)) await _insertFigures(trx, deviceId, figures.add(segments), before);
  await _insertFigures(trx, deviceId, figures.finish(), before);
  await sql`
    update ${sql.table(stateTable)}
       set closed_moving_seconds = ${figures.movingSeconds}::bigint,
           closed_idle_seconds = ${figures.idleSeconds}::bigint,
           figures_time_zone = ${device.time_zone}::text,
           longest_segment_seconds = greatest(longest_segment_seconds, ${figures.longestSegmentSeconds}::bigint)
     where ${sql.ref(stateTable === 'devices' ? 'id' : 'device_id')} = ${deviceId}`.execute(trx);
  // P58: figures rebuilt from segments written outside Fleet Hours make whatever was remembered of them doubtful.
  if (!asInMigration0003) await raiseServiceMemoVersion(trx, deviceId);
  return true;
}

/**
 * Raises a device's memo version (P58): nothing remembered of its service before counts any more.
 * For changes made outside the write statement of `sql/device-writes.ts` and the triggers of
 * migration 0012 (a rebuild, a repair).
 */
export async function raiseServiceMemoVersion(trx: Kysely<FleetHoursDatabase>, deviceId: number): Promise<void> {
  await sql`
    insert into service_memos as memo (device_id, version)
    select id, 1 from devices where id = ${deviceId}
    on conflict (device_id) do update set version = memo.version + 1`.execute(trx);
}

/**
 * Inserts days given in ascending order, each with the running totals of the days before it (P56):
 * `before` holds the totals of every day inserted so far and moves past the days given (`null`:
 * the rows have no running totals yet, see {@link rebuildDeviceFigures}).
 */
async function _insertFigures(
  trx: Kysely<FleetHoursDatabase>,
  deviceId: number,
  days: readonly DayFigure[],
  before: { moving: number; idle: number } | null,
): Promise<void> {
  for (let offset = 0; offset < days.length; offset += FIGURE_CHUNK) {
    const slice = days.slice(offset, offset + FIGURE_CHUNK);
    if (before === null) {
      await sql`
        insert into engine_day_figures (device_id, day_start, day_end, moving_seconds, idle_seconds)
        select ${deviceId}, change.day_start::bigint, change.day_end::bigint, change.moving::bigint, change.idle::bigint
          from ${_figureArrays(runningTotals(slice, { moving: 0, idle: 0 }))}`.execute(trx);
      continue;
    }
    await sql`
      insert into engine_day_figures (device_id, day_start, day_end, moving_seconds, idle_seconds, moving_before_seconds, idle_before_seconds)
      select ${deviceId}, change.day_start::bigint, change.day_end::bigint, change.moving::bigint, change.idle::bigint,
             change.moving_before::bigint, change.idle_before::bigint
        from ${_figureArrays(runningTotals(slice, before))}`.execute(trx);
  }
}

/** A day with the device's engine time before it (P56). */
export interface RunningDay extends DayFigure {
  readonly movingBeforeSeconds: number;
  readonly idleBeforeSeconds: number;
}

/**
 * Days in ascending order with their running totals (P56), starting from `before` (the totals of
 * every earlier day), which is moved past them.
 */
export function runningTotals(days: readonly DayFigure[], before: { moving: number; idle: number }): RunningDay[] {
  return days.map((day) => {
    const running = { ...day, movingBeforeSeconds: before.moving, idleBeforeSeconds: before.idle };
    before.moving += day.movingSeconds;
    before.idle += day.idleSeconds;
    return running;
  });
}

/** A stored segment with its source (D23; `null` when not asked for), instants as epoch seconds. */
export interface StoredSegment {
  readonly startedAt: number;
  readonly endedAt: number | null;
  readonly state: SegmentState;
  readonly source: SegmentSource | null;
}

/**
 * Every segment of a device, both sources, open ones included, in time order, `chunkSize` rows per
 * statement: keyset pagination on the primary key `(device_id, started_at)` (D36). `withSource`
 * reads each one's source (migration 0003 rebuilds figures before the column exists).
 */
export async function* segmentChunks(
  db: Kysely<FleetHoursDatabase>,
  deviceId: number,
  chunkSize: number,
  withSource = false,
): AsyncGenerator<StoredSegment[]> {
  const source = withSource ? sql`source` : sql`null`;
  let after: number | null = null;
  for (;;) {
    const from: RawBuilder<unknown> = after === null ? sql`` : sql`and started_at > to_timestamp(${after}::float8)`;
    const { rows } = await sql<{ started_at: number; ended_at: number | null; state: SegmentState; source: SegmentSource | null }>`
      select date_part('epoch', started_at) as started_at, date_part('epoch', ended_at) as ended_at, state, ${source} as source
        from engine_segments where device_id = ${deviceId} ${from} order by started_at limit ${chunkSize}`.execute(db);
    const segments = rows.map((row) => ({
      startedAt: Number(row.started_at),
      endedAt: row.ended_at === null ? null : Number(row.ended_at),
      state: row.state,
      source: row.source,
    }));
    if (segments.length > 0) yield segments;
    if (segments.length < chunkSize) return;
    after = segments[segments.length - 1]!.startedAt;
  }
}

/**
 * A device's figures (D27) computed from its segments a chunk at a time (D36): give it the segments
 * in start order ({@link segmentChunks}); each {@link add} returns the days no later segment can
 * reach (they end at or before the last start given: every later segment starts there or after),
 * {@link finish} the rest. Only the days of the last segments are held, however long the history.
 */
export class DayFigureAccumulator {
  longestSegmentSeconds = 0;
  /** Days given out so far. */
  dayCount = 0;
  readonly #pending = new Map<number, { dayEnd: number; moving: number; idle: number }>();
  readonly #totals = { moving: 0, idle: 0 };

  constructor(readonly timeZone: string) {}

  /** Moving seconds of every closed segment added: the lifetime total the meter reads. */
  get movingSeconds(): number {
    return this.#totals.moving;
  }

  /** Idle seconds of every closed segment added. */
  get idleSeconds(): number {
    return this.#totals.idle;
  }

  /** Adds segments (open ones are left out, as in `dailyFigures`) and returns the days now final, ascending. */
  add(segments: readonly SegmentInput[]): DayFigure[] {
    const closed = segments.filter((segment) => segment.endedAt !== null);
    for (const segment of closed) this.longestSegmentSeconds = Math.max(this.longestSegmentSeconds, segment.endedAt! - segment.startedAt);
    addSegmentSeconds(closed, 1, this.#totals);
    for (const day of dailyFigures(closed, this.timeZone)) {
      const held = this.#pending.get(day.dayStart);
      if (held) {
        held.moving += day.movingSeconds;
        held.idle += day.idleSeconds;
      } else this.#pending.set(day.dayStart, { dayEnd: day.dayEnd, moving: day.movingSeconds, idle: day.idleSeconds });
    }
    const lastStart = segments.length > 0 ? segments[segments.length - 1]!.startedAt : -Infinity;
    return this.#release((dayEnd) => dayEnd <= lastStart);
  }

  /** The days still held, ascending: call once the last segment was added. */
  finish(): DayFigure[] {
    return this.#release(() => true);
  }

  #release(isFinal: (dayEnd: number) => boolean): DayFigure[] {
    const days: DayFigure[] = [];
    for (const [dayStart, day] of this.#pending) {
      if (!isFinal(day.dayEnd)) continue;
      days.push({ dayStart, dayEnd: day.dayEnd, movingSeconds: day.moving, idleSeconds: day.idle });
      this.#pending.delete(dayStart);
    }
    this.dayCount += days.length;
    return days.sort((a, b) => a.dayStart - b.dayStart);
  }
}

/** `unnest(…) as change(day_start, day_end, moving, idle, moving_before, idle_before)` over figures: six array parameters, whatever the count. */
function _figureArrays(figures: readonly RunningDay[]) {
  return sql`unnest(${figures.map((figure) => figure.dayStart)}::float8[],
                    ${figures.map((figure) => figure.dayEnd)}::float8[],
                    ${figures.map((figure) => figure.movingSeconds)}::float8[],
                    ${figures.map((figure) => figure.idleSeconds)}::float8[],
                    ${figures.map((figure) => figure.movingBeforeSeconds)}::float8[],
                    ${figures.map((figure) => figure.idleBeforeSeconds)}::float8[]) as change(day_start, day_end, moving, idle, moving_before, idle_before)`;
}

/** Adds `sign` × the seconds of closed segments to running totals. */
export function addSegmentSeconds(
  segments: readonly SegmentInput[],
  sign: 1 | -1,
  into: { moving: number; idle: number },
): { moving: number; idle: number } {
  for (const segment of segments) {
    if (segment.endedAt === null) continue;
    if (segment.state === 'moving') into.moving += sign * (segment.endedAt - segment.startedAt);
    else into.idle += sign * (segment.endedAt - segment.startedAt);
  }
  return into;
}

/**
 * The ids of every device, or of the one named (when it exists), ascending, read `chunkSize` at a
 * time by keyset on the primary key: an operator command never holds every id at once (D36).
 */
export async function* deviceIdPages(
  db: Kysely<FleetHoursDatabase>,
  deviceId: number | undefined,
  chunkSize: number,
): AsyncGenerator<number> {
  if (deviceId !== undefined) {
    if (!isId(deviceId)) return;
    const { rows } = await sql<{ id: number }>`select id from devices where id = ${deviceId}`.execute(db);
    if (rows[0]) yield Number(rows[0].id);
    return;
  }
  let after = 0;
  for (;;) {
    const { rows } = await sql<{ id: number }>`select id from devices where id > ${after} order by id limit ${chunkSize}`.execute(db);
    for (const row of rows) yield Number(row.id);
    if (rows.length < chunkSize) return;
    after = Number(rows[rows.length - 1]!.id);
  }
}
