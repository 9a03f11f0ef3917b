import type { SegmentInput, SegmentState } from '@fleet-hours/core';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { FleetHoursDatabase } from './database-schema.js';

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
 *   `devices.longest_segment_seconds`: the scan is bounded on both sides, so a 7-day window never
 *   reads the device's history.
 * - the open segment (at most one per device), from its partial index, when it starts before `end`.
 *
 * Selects `started_at`, `ended_at` (epoch seconds, float8: exact for whole seconds) and `state`.
 */
export function _overlappingSegments(deviceId: number, start: number | undefined, end: number | undefined): RawBuilder<SegmentRow> {
  const beforeEnd = end === undefined ? sql`` : sql`and started_at < to_timestamp(${end}::float8)`;
  const reachesStart =
    start === undefined
      ? sql``
      : sql`and ended_at > to_timestamp(${start}::float8)
            and started_at >= to_timestamp(${start}::float8 - (select longest_segment_seconds from devices where id = ${deviceId}))`;
  return sql<SegmentRow>`
    select date_part('epoch', started_at) as started_at, date_part('epoch', ended_at) as ended_at, state
      from engine_segments
     where device_id = ${deviceId} and ended_at is not null ${beforeEnd} ${reachesStart}
    union all
    select date_part('epoch', started_at), null, state
      from engine_segments
     where device_id = ${deviceId} and ended_at is null ${beforeEnd}`;
}

/** Reads the overlapping segments (see {@link _overlappingSegments}) in time order. */
export async function _listOverlapping(
  db: Kysely<FleetHoursDatabase>,
  deviceId: number,
  start: number | undefined,
  end: number | undefined,
): Promise<SegmentInput[]> {
  const { rows } = await sql<SegmentRow>`${_overlappingSegments(deviceId, start, end)} order by started_at`.execute(db);
  return rows.map((row) => ({
    startedAt: Number(row.started_at),
    endedAt: row.ended_at === null ? null : Number(row.ended_at),
    state: row.state,
  }));
}

/**
 * One query for every bucket `[b[i], b[i+1])` of a window: the overlapping segments (bounded
 * index scans), each clipped to the window with open ones ending at `now`, then split over the
 * buckets it touches. `width_bucket(x, b)` binary-searches the boundaries array for the bucket of
 * an instant, so a segment costs O(log buckets) plus one row per bucket it spans (a set-returning
 * function in the select list, which PostgreSQL evaluates far more cheaply than a lateral
 * function scan); the seconds are summed per bucket and state. `offset 0` keeps each derived
 * column computed once per row instead of inlined into every expression that uses it. A window
 * of one bucket (`/hours`) needs none of that: a plain sum. Buckets without engine time return no row.
 *
 * Returns rows `{ bucket (1-based), moving_seconds, idle_seconds }`.
 */
export function _sumByBucket(deviceId: number, boundaries: readonly number[], now: number): RawBuilder<BucketRow> {
  const windowStart = boundaries[0]!;
  const windowEnd = boundaries[boundaries.length - 1]!;
  const clipped = sql`
    select greatest(started_at, ${windowStart}::float8) as lo,
           least(coalesce(ended_at, ${now}::float8), ${windowEnd}::float8) as hi,
           state
      from (${_overlappingSegments(deviceId, windowStart, windowEnd)}) as segment
    offset 0`;
  if (boundaries.length === 2) {
    return sql<BucketRow>`
      select 1 as bucket,
             coalesce(sum(c.hi - c.lo) filter (where c.state = 'moving'), 0) as moving_seconds,
             coalesce(sum(c.hi - c.lo) filter (where c.state = 'idle'), 0) as idle_seconds
        from (${clipped}) as c
       where c.hi > c.lo`;
  }
  const bounds = sql`${boundaries}::float8[]`;
  return sql<BucketRow>`
    with bounds as (select ${bounds} as b)
    select piece.bucket,
           coalesce(sum(least(piece.hi, bounds.b[piece.bucket + 1]) - greatest(piece.lo, bounds.b[piece.bucket])) filter (where piece.state = 'moving'), 0) as moving_seconds,
           coalesce(sum(least(piece.hi, bounds.b[piece.bucket + 1]) - greatest(piece.lo, bounds.b[piece.bucket])) filter (where piece.state = 'idle'), 0) as idle_seconds
      from (
             select generate_series(width_bucket(c.lo, bounds.b), least(width_bucket(c.hi, bounds.b), cardinality(bounds.b) - 1)) as bucket,
                    c.lo, c.hi, c.state
               from (${clipped}) as c cross join bounds
              where c.hi > c.lo
             offset 0
           ) as piece
     cross join bounds
     where least(piece.hi, bounds.b[piece.bucket + 1]) > greatest(piece.lo, bounds.b[piece.bucket])
     group by piece.bucket`;
}

/** A row of {@link _sumByBucket}. */
export interface BucketRow {
  readonly bucket: number;
  readonly moving_seconds: number;
  readonly idle_seconds: number;
}

/**
 * The meter's figures (D3) in one aggregate over the device's segments (an index-only scan of the
 * primary key): the first start, and the moving and idle seconds up to `now`.
 */
export function _summarize(deviceId: number, now: number): RawBuilder<SummaryRow> {
  return sql<SummaryRow>`
    select date_part('epoch', min(started_at)) as first_started_at,
           coalesce(sum(greatest(0, least(coalesce(date_part('epoch', ended_at), ${now}::float8), ${now}::float8) - date_part('epoch', started_at)))
                    filter (where state = 'moving'), 0) as moving_seconds,
           coalesce(sum(greatest(0, least(coalesce(date_part('epoch', ended_at), ${now}::float8), ${now}::float8) - date_part('epoch', started_at)))
                    filter (where state = 'idle'), 0) as idle_seconds
      from engine_segments
     where device_id = ${deviceId}`;
}

/** The row of {@link _summarize}. */
export interface SummaryRow {
  readonly first_started_at: number | null;
  readonly moving_seconds: number;
  readonly idle_seconds: number;
}

/**
 * Locks the device row for the rest of the transaction and reads its `last_reported_at`: concurrent
 * imports of one device take turns, so the stored segments an import reads cannot change before it
 * commits (D1). No row: no such device.
 */
export function _lockDevice(deviceId: number): RawBuilder<{ readonly last_reported_at: number | null }> {
  return sql<{ last_reported_at: number | null }>`
    select date_part('epoch', last_reported_at) as last_reported_at from devices where id = ${deviceId} for update`;
}

/** Inserts segments of one device in one statement: three array parameters, whatever the count. */
export function _insertSegments(deviceId: number, segments: readonly SegmentInput[]): RawBuilder<unknown> {
  return sql`
    insert into engine_segments (device_id, started_at, ended_at, state)
    select ${deviceId}, to_timestamp(batch.started_at), to_timestamp(batch.ended_at), batch.state
      from unnest(${segments.map((segment) => segment.startedAt)}::float8[],
                  ${segments.map((segment) => segment.endedAt)}::float8[],
                  ${segments.map((segment) => segment.state)}::text[]) as batch(started_at, ended_at, state)`;
}

/** Closes open segments of one device (the one starting at `startedAt` gets `endedAt`) in one statement. */
export function _closeSegments(deviceId: number, closes: readonly { readonly startedAt: number; readonly endedAt: number }[]): RawBuilder<unknown> {
  return sql`
    update engine_segments as segment
       set ended_at = to_timestamp(closing.ended_at)
      from unnest(${closes.map((close) => close.startedAt)}::float8[], ${closes.map((close) => close.endedAt)}::float8[]) as closing(started_at, ended_at)
     where segment.device_id = ${deviceId} and segment.started_at = to_timestamp(closing.started_at) and segment.ended_at is null`;
}

/**
 * Records an import on the device: `last_reported_at` as the import plan decided it (P6), and the
 * longest closed segment raised to `longest` seconds (it bounds {@link _overlappingSegments}' scan).
 */
export function _recordImport(deviceId: number, lastReportedAt: number | null, longest: number): RawBuilder<unknown> {
  return sql`
    update devices
       set last_reported_at = to_timestamp(${lastReportedAt}::float8),
           longest_segment_seconds = greatest(longest_segment_seconds, ${longest}::bigint)
     where id = ${deviceId}`;
}

/** Deletes segments of one device, each named by its start (the primary key is `(device_id, started_at)`), in one statement. */
export function _deleteSegments(deviceId: number, startedAts: readonly number[]): RawBuilder<unknown> {
  return sql`
    delete from engine_segments
     where device_id = ${deviceId} and started_at = any(select to_timestamp(start) from unnest(${startedAts}::float8[]) as start)`;
}

/** What one write changes in a device's segments: segments to remove (by start) and segments to add. */
export interface _SegmentChanges {
  readonly removed: readonly SegmentInput[];
  readonly added: readonly SegmentInput[];
}

/**
 * The one way segments of a device change inside a write transaction (imports and telemetry
 * re-derivation alike), so that everything derived from segments is kept up to date in the same
 * transaction. The caller holds the device's row lock ({@link _lockDevice}).
 */
export async function _applySegmentChanges(trx: Kysely<FleetHoursDatabase>, deviceId: number, changes: _SegmentChanges): Promise<void> {
  for (let offset = 0; offset < changes.removed.length; offset += SEGMENT_CHUNK) {
    await _deleteSegments(deviceId, changes.removed.slice(offset, offset + SEGMENT_CHUNK).map((segment) => segment.startedAt)).execute(trx);
  }
  for (let offset = 0; offset < changes.added.length; offset += SEGMENT_CHUNK) {
    await _insertSegments(deviceId, changes.added.slice(offset, offset + SEGMENT_CHUNK)).execute(trx);
  }
}

/** Rows written per statement: a few array parameters each, far from any limit. */
const SEGMENT_CHUNK = 50_000;
