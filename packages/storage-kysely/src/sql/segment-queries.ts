import type { SegmentInput, SegmentState } from '@fleet-hours/core';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { FIGURE_DEVICE_COLUMNS, type FigureDevice } from './daily-figures.js';
import type { FleetHoursDatabase } from '../schema/database-schema.js';

/** A segment row as the queries below select it: instants as epoch seconds. */
interface SegmentRow {
  readonly started_at: number;
  readonly ended_at: number | null;
  readonly state: SegmentState;
}

/**
 * The device's segments that overlap `[start, end)` (either side may be open), as two index range
 * scans joined by `union all`:
 *
 * - closed segments: `started_at` in `[start − longest, end)` on the `(device_id, started_at)`
 *   primary key, then `ended_at > start`. A closed segment that reaches into the window started
 *   less than its own length before `start`, and no closed segment of the device is longer than
 *   `device_states.longest_segment_seconds`: the scan is bounded on both sides, so a 7-day window never
 *   reads the device's history.
 * - the open segment (at most one per device), from its partial index, when it starts before `end`.
 *
 * Selects `started_at`, `ended_at` (epoch seconds, float8: exact for whole seconds) and `state`.
 */
export function overlappingSegments(
  deviceId: number | RawBuilder<number>,
  start: number | RawBuilder<number> | undefined,
  end: number | RawBuilder<number> | undefined,
): RawBuilder<SegmentRow> {
  const beforeEnd = end === undefined ? sql`` : sql`and started_at < to_timestamp(${end}::float8)`;
  const reachesStart =
    start === undefined
      ? sql``
      : sql`and ended_at > to_timestamp(${start}::float8)
            and started_at >= to_timestamp(${start}::float8 - (select longest_segment_seconds from device_states where device_id = ${deviceId}))`;
  return sql<SegmentRow>`
    select date_part('epoch', started_at) as started_at, date_part('epoch', ended_at) as ended_at, state
      from engine_segments
     where device_id = ${deviceId} and ended_at is not null ${beforeEnd} ${reachesStart}
    union all
    select date_part('epoch', started_at), null, state
      from engine_segments
     where device_id = ${deviceId} and ended_at is null ${beforeEnd}`;
}

/**
 * The overlapping segments of many requests in one statement (D49, P129): each request's
 * {@link overlappingSegments} (the same bounded scans) in a lateral join, by request then start.
 */
export async function listOverlappingMany(
  db: Kysely<FleetHoursDatabase>,
  requests: readonly { readonly index: number; readonly deviceId: number; readonly start: number; readonly end: number }[],
): Promise<(SegmentInput & { readonly request: number })[]> {
  const perRequest = overlappingSegments(sql<number>`request.device_id`, sql<number>`request.start_at`, sql<number>`request.end_at`);
  const { rows } = await sql<SegmentRow & { readonly request: number }>`
    select request.request, segment.started_at, segment.ended_at, segment.state
      from unnest(${requests.map((request) => request.index)}::int[], ${requests.map((request) => request.deviceId)}::int[],
                  ${requests.map((request) => request.start)}::float8[], ${requests.map((request) => request.end)}::float8[])
           as request(request, device_id, start_at, end_at)
     cross join lateral (${perRequest}) as segment
     order by request.request, segment.started_at`.execute(db);
  return rows.map((row) => ({ request: Number(row.request), ..._segment(row) }));
}

/** Reads the overlapping segments (see {@link overlappingSegments}) in time order. */
export async function listOverlapping(
  db: Kysely<FleetHoursDatabase>,
  deviceId: number,
  start: number | undefined,
  end: number | undefined,
): Promise<SegmentInput[]> {
  const { rows } = await sql<SegmentRow>`${overlappingSegments(deviceId, start, end)} order by started_at`.execute(db);
  return rows.map(_segment);
}

function _segment(row: SegmentRow): SegmentInput {
  return { startedAt: Number(row.started_at), endedAt: row.ended_at === null ? null : Number(row.ended_at), state: row.state };
}

/**
 * One query for every bucket `[b[i], b[i+1])` of a window, from the device's per-day figures
 * (D27: the cost grows with the days of the window, never with the device's history):
 *
 * - the day rows (`engine_day_figures`, closed segments only) that overlap the window, one index
 *   range scan. A row that lies inside one bucket counts whole for it: `width_bucket(x, b)`
 *   binary-searches the boundaries for the bucket of its start, and the row fits when it ends by
 *   the next boundary. For `/hours/daily` every past day is such a row.
 * - the row of the day that holds `now`, when the window ends at `now` in that row's bucket
 *   (today, for `/hours` and `/hours/daily` up to today): the row less what its closed segments
 *   hold after `now` (a live tail, D22; a segment stamped ahead, P1). Those are the closed
 *   segments that end after `now`: they start at most the device's longest segment before it, a
 *   short range scan (the day's segments up to `now` would be all of today's). When the longest
 *   segment reaches back past the day's start, the row is counted as the next kind instead.
 * - every other overlapping row (it straddles a boundary, or reaches outside the window) is
 *   counted from the segments instead: the closed
 *   segments in that part of the window, clipped to it. Adjacent such parts are joined first
 *   (gaps and islands), so that each run of them costs one bounded index scan (see
 *   {@link overlappingSegments}) however many days it holds. The runs pass through an array
 *   and `unnest`, which the planner expects to be few (they are: usually one, today), and the
 *   scan is a lateral subquery it cannot flatten (`offset 0`), so it stays a range scan per run
 *   whatever the table statistics say.
 * - the open segment (never in the figures), clipped to the window and ending at `now`.
 *
 * The pieces of the last two are split over the buckets they touch: `width_bucket` finds the
 * first and last, and `unnest` over that slice of the boundaries gives one row per bucket (the
 * planner expects a few rows from it, where `generate_series` would make it expect a thousand per
 * piece and cost the statement as if it were huge; `offset 0` keeps derived columns computed once).
 * Estimates that stay small keep the plan cheap to run: no JIT compilation, no parallel workers.
 * This is exact for any boundaries, whatever zone the figures were cut in: day rows never
 * overlap and hold every second of every closed segment, so each second is counted once, from
 * a row or from its segment. Buckets without engine time return no row.
 *
 * Returns rows `{ bucket (1-based), moving_seconds, idle_seconds }`.
 */
export function sumByBucket(deviceId: number, boundaries: readonly number[], now: number): RawBuilder<BucketRow> {
  return sumByBucketOf(
    {
      deviceId: sql<number>`${deviceId}::int`,
      boundaries: sql<number[]>`${boundaries}::float8[]`,
      windowStart: sql<number>`${boundaries[0]!}::float8`,
      windowEnd: sql<number>`${boundaries[boundaries.length - 1]!}::float8`,
    },
    now,
  );
}

/**
 * The device and window {@link sumByBucketOf} reads, as SQL expressions: parameters for one
 * device ({@link sumByBucket}), or the columns of a request row when a page of the fleet runs the
 * same query for each of its devices in one statement (D32, `sql/fleet-queries.ts`).
 */
export interface WindowSql {
  /** `integer`. */
  readonly deviceId: RawBuilder<number>;
  /** `float8[]`: the boundaries, epoch seconds. */
  readonly boundaries: RawBuilder<number[]>;
  /** `float8`: the first boundary. */
  readonly windowStart: RawBuilder<number>;
  /** `float8`: the last boundary. */
  readonly windowEnd: RawBuilder<number>;
}

/** {@link sumByBucket} over SQL expressions of the device and window: the one place of this query. */
export function sumByBucketOf({ deviceId, boundaries, windowStart, windowEnd }: WindowSql, now: number): RawBuilder<BucketRow> {
  return sql<BucketRow>`
    with bounds as (
      -- The device's longest closed segment bounds every scan of its segments below (see overlappingSegments).
      select ${boundaries}::float8[] as b, (select longest_segment_seconds from device_states where device_id = ${deviceId})::float8 as longest
    ),
    day as (
      select figure.day_start::float8 as day_start, figure.day_end::float8 as day_end,
             figure.moving_seconds::float8 as moving_seconds, figure.idle_seconds::float8 as idle_seconds,
             width_bucket(figure.day_start::float8, bounds.b) as bucket
        from engine_day_figures as figure cross join bounds
       where figure.device_id = ${deviceId}
         and figure.day_start >= (${windowStart} - ${LONGEST_DAY_SECONDS}::float8)::bigint
         and figure.day_start < ${windowEnd}::bigint
         and figure.day_end > ${windowStart}::bigint
    ),
    sorted as (
      select day.*, day.bucket between 1 and cardinality(bounds.b) - 1 and day.day_end <= bounds.b[day.bucket + 1] as whole,
             coalesce(day.bucket = cardinality(bounds.b) - 1 and ${windowEnd}::float8 = ${now}::float8
                      and day.day_end > ${now}::float8 and day.day_start <= ${now}::float8 - bounds.longest, false) as to_now
        from day cross join bounds
    ),
    cut as (
      select greatest(day_start, ${windowStart}::float8) as lo, least(day_end, ${windowEnd}::float8) as hi,
             lag(least(day_end, ${windowEnd}::float8)) over (order by day_start) as previous_hi
        from sorted where not whole and not to_now
    ),
    island as (
      select unnest(packed.lo) as lo, unnest(packed.hi) as hi
        from (
               select array_agg(grouped.lo) as lo, array_agg(grouped.hi) as hi
                 from (
                        select min(lo) as lo, max(hi) as hi
                          from (select lo, hi, count(*) filter (where previous_hi is distinct from lo) over (order by lo) as island from cut) as numbered
                         group by island
                      ) as grouped
             ) as packed
    ),
    piece as (
      select greatest(segment.lo, cut.lo) as lo, least(segment.hi, cut.hi) as hi, segment.state
        from island as cut
       cross join bounds
       cross join lateral (
             select date_part('epoch', started_at) as lo, date_part('epoch', ended_at) as hi, state
               from engine_segments
              where device_id = ${deviceId} and ended_at is not null
                and started_at < to_timestamp(cut.hi) and ended_at > to_timestamp(cut.lo)
                and started_at >= to_timestamp(cut.lo - bounds.longest)
             offset 0
           ) as segment
      union all
      select greatest(date_part('epoch', started_at), ${windowStart}::float8), least(${now}::float8, ${windowEnd}::float8), state
        from engine_segments
       where device_id = ${deviceId} and ended_at is null
    )
    select counted.bucket, sum(counted.moving_seconds) as moving_seconds, sum(counted.idle_seconds) as idle_seconds
      from (
             select bucket, moving_seconds, idle_seconds from sorted where whole
             union all
             select today.bucket, today.moving_seconds - after_now.moving_seconds, today.idle_seconds - after_now.idle_seconds
               from sorted as today
              cross join bounds
              cross join lateral (
                    select coalesce(sum(least(date_part('epoch', ended_at), today.day_end) - greatest(date_part('epoch', started_at), ${now}::float8)) filter (where state = 'moving'), 0) as moving_seconds,
                           coalesce(sum(least(date_part('epoch', ended_at), today.day_end) - greatest(date_part('epoch', started_at), ${now}::float8)) filter (where state = 'idle'), 0) as idle_seconds
                      from engine_segments
                     where device_id = ${deviceId} and ended_at is not null and ended_at > to_timestamp(${now}::float8)
                       and started_at >= to_timestamp(${now}::float8 - bounds.longest) and started_at < to_timestamp(today.day_end)
                  ) as after_now
              where today.to_now
             union all
             select part.bucket,
                    case when part.state = 'moving' then least(part.hi, bounds.b[part.bucket + 1]) - greatest(part.lo, bounds.b[part.bucket]) else 0 end,
                    case when part.state = 'idle' then least(part.hi, bounds.b[part.bucket + 1]) - greatest(part.lo, bounds.b[part.bucket]) else 0 end
               from (
                      select span.first + split.position::int - 1 as bucket, span.lo, span.hi, span.state
                        from (
                               select width_bucket(piece.lo, bounds.b) as first,
                                      least(width_bucket(piece.hi, bounds.b), cardinality(bounds.b) - 1) as last,
                                      piece.lo, piece.hi, piece.state
                                 from piece cross join bounds
                                where piece.hi > piece.lo
                               offset 0
                             ) as span
                       cross join bounds
                       cross join lateral unnest(bounds.b[span.first:span.last]) with ordinality as split(bucket_start, position)
                    ) as part
              cross join bounds
              where least(part.hi, bounds.b[part.bucket + 1]) > greatest(part.lo, bounds.b[part.bucket])
           ) as counted
     group by counted.bucket`;
}

/**
 * The longest a local day can be, with margin: day rows that reach into a window start at most
 * this long before it. (Days are 23 to 25 hours today; historic zone changes made a few up to
 * about 48.)
 */
const LONGEST_DAY_SECONDS = 3 * 86_400;

/** A row of {@link sumByBucket}. */
export interface BucketRow {
  readonly bucket: number;
  readonly moving_seconds: number;
  readonly idle_seconds: number;
}

/**
 * The meter's figures (D3) at a cost that does not grow with history (D27): the first start (the
 * minimum of the primary key, one index probe), the device's lifetime totals of closed segments
 * (kept by every write, see `sql/daily-figures.ts`), corrected at read time by what cannot be final:
 * the open segment counts up to `now`, and a closed segment ending after `now` (a live tail, a
 * clock ahead) loses its seconds after `now` (P1). Those are found by bounded index scans: the
 * ones that started by `now` start at most the longest segment before it (as in
 * {@link overlappingSegments}), the others start after it; the two ranges are scanned apart so
 * that the planner sees two small ranges, not one open-ended one. Always one row.
 */
export function summarize(deviceId: number, now: number): RawBuilder<SummaryRow> {
  return summarizeOf(sql<number>`${deviceId}::int`, now);
}

/**
 * {@link summarize} over an SQL expression of the device id (`integer`): a parameter for one
 * device, or a column of a request row for a page of the fleet (D32): the one place of this query.
 */
export function summarizeOf(deviceId: RawBuilder<number>, now: number): RawBuilder<SummaryRow> {
  return sql<SummaryRow>`
    select first.first_started_at, engine.moving_seconds, engine.idle_seconds
      from (select date_part('epoch', min(started_at)) as first_started_at from engine_segments where device_id = ${deviceId}) as first,
           (${engineSecondsAtNowOf(deviceId, now)}) as engine`;
}

/**
 * The moving and idle seconds of a device up to `now` (D3): its closed segments' totals kept in
 * its state row, plus what the segments that end after now, start after it or are still open add
 * or take away (a few index probes, D27). {@link summarizeOf} without the first segment's start.
 * `now` is a number (a parameter) or an SQL expression of type `float8`.
 */
export function engineSecondsAtNowOf(
  deviceId: RawBuilder<number>,
  now: number | RawBuilder<number>,
): RawBuilder<{ moving_seconds: number; idle_seconds: number }> {
  // `now` as a parameter, or as an expression of the caller (`planFree`, so that its plan stays generic, P38).
  const at = typeof now === 'number' ? sql`${now}::float8` : now;
  return sql`
    select totals.moving_seconds + live.moving_seconds as moving_seconds,
           totals.idle_seconds + live.idle_seconds as idle_seconds
      from (select coalesce(sum(closed_moving_seconds), 0)::float8 as moving_seconds, coalesce(sum(closed_idle_seconds), 0)::float8 as idle_seconds
              from device_states where device_id = ${deviceId}) as totals,
           (select coalesce(sum(late.seconds) filter (where late.state = 'moving'), 0) as moving_seconds,
                   coalesce(sum(late.seconds) filter (where late.state = 'idle'), 0) as idle_seconds
              from (
                     select state, greatest(date_part('epoch', started_at), ${at}) - date_part('epoch', ended_at) as seconds
                       from engine_segments
                      where device_id = ${deviceId} and ended_at is not null and ended_at > to_timestamp(${at})
                        and started_at >= to_timestamp(${at} - (select longest_segment_seconds from device_states where device_id = ${deviceId}))
                        and started_at <= to_timestamp(${at})
                     union all
                     select state, date_part('epoch', started_at) - date_part('epoch', ended_at)
                       from engine_segments
                      where device_id = ${deviceId} and ended_at is not null and started_at > to_timestamp(${at})
                     union all
                     select state, greatest(0, ${at} - date_part('epoch', started_at))
                       from engine_segments
                      where device_id = ${deviceId} and ended_at is null
                   ) as late) as live`;
}

/** The row of {@link summarize}. */
export interface SummaryRow {
  readonly first_started_at: number | null;
  readonly moving_seconds: number;
  readonly idle_seconds: number;
}

/**
 * Locks the device's state row (`device_states`, D44) for the rest of the transaction: the one lock
 * every write of the device's points, segments and figures takes (D35), whether it is a telemetry
 * write, an import, a repair or a change of the device's zone. A statement of its own.
 *
 * @returns `false` when there is no such device.
 */
export async function lockDeviceState(trx: Kysely<FleetHoursDatabase>, deviceId: number): Promise<boolean> {
  const { rows } = await sql`select device_id from device_states where device_id = ${deviceId} for update`.execute(trx);
  return rows.length > 0;
}

/**
 * Locks the device's state row (D44) for the rest of the transaction and reads its `last_reported_at` and what
 * its figures need (`FigureDevice`): concurrent writes of one device take turns, so the stored
 * segments a write reads cannot change before it commits (D1). The lock is a statement of its own
 * and the read comes after it (D35): under READ COMMITTED a statement that waited for the lock would
 * read its subqueries (`has_figures`) from the snapshot taken before the wait. No row: no such device.
 * The same read brings the retention horizon recorded in the data (D45, `telemetry_horizon`), so an
 * import checks it without a round trip of its own.
 */
export async function lockDevice(
  trx: Kysely<FleetHoursDatabase>,
  deviceId: number,
): Promise<({ readonly last_reported_at: number | null; readonly horizon: number | null } & FigureDevice) | undefined> {
  const locked = await lockDeviceState(trx, deviceId);
  if (!locked) return undefined;
  const { rows } = await sql<{ last_reported_at: number | null; horizon: number | null } & FigureDevice>`
    select (select date_part('epoch', last_reported_at) from device_states where device_id = devices.id) as last_reported_at,
           (select date_part('epoch', horizon) from telemetry_horizon) as horizon, ${FIGURE_DEVICE_COLUMNS}
      from devices where id = ${deviceId}`.execute(trx);
  return rows[0];
}
