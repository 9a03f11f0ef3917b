/**
 * The check of one device behind `verifyStore` (D36): every derived datum against its source, read
 * in chunks of `chunkSize` rows by keyset on the primary keys, so memory stays flat whatever the
 * device's history:
 *
 * 1. telemetry segments against what the core derives from the stored points (D2, D21, D22),
 *    both streams walked side by side in time order;
 * 2. per-day figures against the closed segments, in the device's zone, with their running totals
 *    (P56), and the lifetime totals and `longest_segment_seconds` against the same segments (D27);
 * 3. `last_reported_at` against the newest stored point or imported segment instant (D26, P6).
 *
 * With `repair`, differing telemetry segments are replaced by the derived ones as the walk passes
 * them, differing figures are rebuilt from the (repaired) segments, and the device's row is always
 * updated: the caller holds the row's lock, and the update is what tells an optimistic telemetry
 * write that planned before the repair to read and plan again (P37).
 */
import { telemetryToSegments, type BucketSeconds, type SegmentInput, type SegmentState, type TelemetryPoint } from '@fleet-hours/core';
import type { DayFigure } from '@fleet-hours/core/adapter';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import {
  DayFigureAccumulator,
  raiseServiceMemoVersion,
  rebuildDeviceFigures,
  segmentChunks,
  type RunningDay,
} from '../sql/daily-figures.js';
import { pointsKeptFrom } from '../sql/point-partitions.js';
import type { FleetHoursDatabase } from '../schema/database-schema.js';

/** Where a device's stored figures (D27) differ from what its segments say. */
export type DailyFiguresMismatch =
  /** One local day: `null` on a side that has no row for it. */
  | {
      readonly deviceId: number;
      readonly kind: 'day';
      readonly dayStart: number;
      readonly expected: DayFigure | null;
      readonly stored: DayFigure | null;
    }
  /** The lifetime totals of closed segments that the meter reads. */
  | { readonly deviceId: number; readonly kind: 'totals'; readonly expected: BucketSeconds; readonly stored: BucketSeconds }
  /** The days were cut in another zone than the device's (`null`: never built, yet there are segments). */
  | { readonly deviceId: number; readonly kind: 'time_zone'; readonly expected: string; readonly stored: string | null }
  /** The engine time a day row holds of the days before it (P56) is not what the rows before it hold. */
  | {
      readonly deviceId: number;
      readonly kind: 'running_total';
      readonly dayStart: number;
      readonly expected: BucketSeconds;
      readonly stored: BucketSeconds;
    }
  /** `longest_segment_seconds` is shorter than a closed segment: window scans could miss it. */
  | { readonly deviceId: number; readonly kind: 'longest_segment'; readonly expected: number; readonly stored: number };

/**
 * One difference between a derived datum and its source (D36), for `verifyStore`: the figure
 * kinds of {@link DailyFiguresMismatch}, and
 *
 * - `telemetry_segments`: in `[start, end)` (epoch seconds) the stored telemetry segments are not
 *   those the stored points give (D2, D21, D22); `expected` holds the seconds of the derived
 *   segments there that are not stored, `stored` those of the stored ones that are not derived.
 * - `last_reported_at`: the device's record is not the newest stored point or imported segment
 *   instant (D26; epoch seconds, `null` for none). A device with imported segments may hold a
 *   later value (an import's `reportedAt`, P6), never an earlier one.
 */
export type StoreDifference =
  | DailyFiguresMismatch
  | {
      readonly deviceId: number;
      readonly kind: 'telemetry_segments';
      readonly start: number;
      readonly end: number;
      readonly expected: BucketSeconds;
      readonly stored: BucketSeconds;
    }
  | { readonly deviceId: number; readonly kind: 'last_reported_at'; readonly expected: number | null; readonly stored: number | null };

/** How {@link checkDevice} runs. */
export interface CheckOptions {
  readonly repair: boolean;
  /** Rows per statement at most. */
  readonly chunkSize: number;
  /** Differences listed per kind at most; the others are counted in `omitted`. */
  readonly detailLimit: number;
}

/** What {@link checkDevice} found (and, with `repair`, fixed). */
export interface DeviceCheck {
  readonly differences: readonly StoreDifference[];
  readonly omitted: number;
}

/** The device row as the check reads it. */
interface _DeviceRow {
  readonly time_zone: string;
  readonly figures_time_zone: string | null;
  readonly moving: number | string;
  readonly idle: number | string;
  readonly longest: number | string;
  readonly last_reported_at: number | null;
}

/**
 * Checks one device (see the file's comment); `null` when there is no such device. Every statement
 * reads at most `chunkSize` rows. Verification runs in a snapshot the caller opened (repeatable
 * read); repair under the device's row lock, taken by the caller in a statement of its own.
 */
export async function checkDevice(trx: Kysely<FleetHoursDatabase>, deviceId: number, options: CheckOptions): Promise<DeviceCheck | null> {
  const device = (
    await sql<_DeviceRow>`
      select devices.time_zone, state.figures_time_zone, state.closed_moving_seconds as moving, state.closed_idle_seconds as idle,
             state.longest_segment_seconds as longest, date_part('epoch', state.last_reported_at) as last_reported_at
        from devices join device_states as state on state.device_id = devices.id
       where devices.id = ${deviceId}`.execute(trx)
  ).rows[0];
  if (!device) return null;
  const found = new _Differences(options.detailLimit);
  // D43: where the stored points begin; segments are compared with points only from there.
  const keptFrom = await pointsKeptFrom(trx);
  const newestPoint = await _checkTelemetrySegments(trx, deviceId, options, found, keptFrom);
  const figuresDiffer = found.count;
  const reported = await _checkFigures(trx, deviceId, device, options, found);
  const figuresChanged = found.count > figuresDiffer;

  const stored = device.last_reported_at === null ? null : Number(device.last_reported_at);
  const newest = _later(newestPoint, reported.newestImported);
  // An import may have reported a later instant than it held (`reportedAt`, P6): with imported
  // segments only an earlier value is wrong.
  // D43: a record older than where points begin, and not older than what is left, came from dropped points.
  const fromDropped = keptFrom !== null && stored !== null && stored < keptFrom && (newest === null || newest <= stored);
  const wrong =
    !fromDropped && (newest === null ? stored !== null : stored === null || stored < newest || (!reported.hasImports && stored !== newest));
  if (wrong) found.add({ deviceId, kind: 'last_reported_at', expected: newest, stored });

  if (options.repair) {
    if (figuresChanged) await rebuildDeviceFigures(trx, deviceId, options.chunkSize);
    // Always: the row's new version makes a telemetry write planned before this repair plan again (P37).
    const lastReportedAt = wrong ? newest : stored;
    await sql`update device_states set last_reported_at = to_timestamp(${lastReportedAt}::float8) where device_id = ${deviceId}`.execute(
      trx,
    );
  }
  return { differences: found.list, omitted: found.omitted };
}

/** The differences of a device, at most `detailLimit` listed per kind. */
class _Differences {
  readonly list: StoreDifference[] = [];
  omitted = 0;
  readonly #perKind = new Map<StoreDifference['kind'], number>();

  constructor(private readonly detailLimit: number) {}

  /** Every difference found so far, listed or omitted. */
  get count(): number {
    return this.list.length + this.omitted;
  }

  add(difference: StoreDifference): void {
    const seen = this.#perKind.get(difference.kind) ?? 0;
    this.#perKind.set(difference.kind, seen + 1);
    if (seen < this.detailLimit) this.list.push(difference);
    else this.omitted += 1;
  }
}

function _later(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  return b === null || a > b ? a : b;
}

// ── 1. Telemetry segments against the points ─────────────────────────────────────────────────

/**
 * Walks the segments derived from the points and the stored telemetry segments side by side in
 * start order; runs of segments on one side only that touch or overlap are one difference. With
 * `repair`, stored-only segments are deleted and derived-only ones inserted, a chunk at a time.
 * That is safe while the stored segments are still being read: a segment is written only once the
 * stored side was read past its start (keyset: later reads begin after it) or to its end.
 *
 * @returns The newest point's time (`null`: no points).
 */
async function _checkTelemetrySegments(
  trx: Kysely<FleetHoursDatabase>,
  deviceId: number,
  options: CheckOptions,
  found: _Differences,
  keptFrom: number | null,
): Promise<number | null> {
  const points = { newest: null as number | null };
  const derived = new _Peekable(_derivedSegments(trx, deviceId, options.chunkSize, points));
  const stored = new _Peekable(_storedTelemetrySegments(trx, deviceId, options.chunkSize, keptFrom));
  // D43: below where points begin there is nothing to compare with. The segment that runs across
  // that instant (started before it, its points dropped) is derived from the kept points as one
  // starting at the first of them: the same segment, cut; it is taken as agreeing when it ends the same.
  const across = keptFrom === null ? undefined : await _segmentAcross(trx, deviceId, keptFrom);
  const first = await derived.peek();
  if (
    across !== undefined &&
    first !== undefined &&
    first.state === across.state &&
    first.endedAt === across.endedAt &&
    (across.endedAt === null || across.endedAt > first.startedAt)
  )
    derived.take();
  const writes = new _SegmentWrites(trx, deviceId);
  const ranges = new _DifferingRanges(deviceId, found);
  for (;;) {
    const want = await derived.peek();
    const have = await stored.peek();
    if (want === undefined && have === undefined) break;
    if (want !== undefined && have !== undefined && _same(want, have)) {
      derived.take();
      stored.take();
      continue;
    }
    // The earlier start differs; at one start, both sides do.
    const takeWant = want !== undefined && (have === undefined || want.startedAt <= have.startedAt);
    const takeHave = have !== undefined && (want === undefined || have.startedAt <= want.startedAt);
    if (takeHave) {
      ranges.note(stored.take()!, 'stored');
      if (options.repair) writes.remove(have!);
    }
    if (takeWant) {
      ranges.note(derived.take()!, 'expected');
      if (options.repair) writes.add(want!);
    }
    if (writes.length >= options.chunkSize) await writes.flush();
  }
  ranges.close();
  await writes.flush();
  return points.newest;
}

/** Segments found on one side only, in start order, gathered into runs that touch or overlap: one difference each. */
class _DifferingRanges {
  #range: {
    start: number;
    end: number;
    expected: { movingSeconds: number; idleSeconds: number };
    stored: { movingSeconds: number; idleSeconds: number };
  } | null = null;

  constructor(
    private readonly deviceId: number,
    private readonly found: _Differences,
  ) {}

  note(segment: SegmentInput, side: 'expected' | 'stored'): void {
    const end = segment.endedAt ?? segment.startedAt;
    if (this.#range && segment.startedAt > this.#range.end) this.close();
    const range = (this.#range ??= {
      start: segment.startedAt,
      end,
      expected: { movingSeconds: 0, idleSeconds: 0 },
      stored: { movingSeconds: 0, idleSeconds: 0 },
    });
    range.end = Math.max(range.end, end);
    range[side][segment.state === 'moving' ? 'movingSeconds' : 'idleSeconds'] += end - segment.startedAt;
  }

  close(): void {
    if (this.#range) this.found.add({ deviceId: this.deviceId, kind: 'telemetry_segments', ...this.#range });
    this.#range = null;
  }
}

function _same(a: SegmentInput, b: SegmentInput): boolean {
  return a.startedAt === b.startedAt && a.endedAt === b.endedAt && a.state === b.state;
}

/**
 * The device's telemetry segments as the core derives them from all its stored points
 * (`telemetryToSegments`, D2, D21, D22), read `chunkSize` points at a time by keyset on
 * `(device_id, time)`. A point covers up to the next point, so each chunk's last point is derived
 * with the next chunk (it ends this one with `tail: 'none'`, covering nothing, and starts the
 * next); only the very last chunk runs live (D22). A segment that reaches a chunk's end is held
 * until the next chunk shows whether it goes on, as the core joins a stretch of one state.
 */
async function* _derivedSegments(
  trx: Kysely<FleetHoursDatabase>,
  deviceId: number,
  chunkSize: number,
  seen: { newest: number | null },
): AsyncGenerator<SegmentInput> {
  let carried: TelemetryPoint | undefined;
  let held: { startedAt: number; endedAt: number; state: SegmentState } | undefined;
  for (;;) {
    const from: RawBuilder<unknown> = carried === undefined ? sql`` : sql`and "time" > to_timestamp(${carried.time}::float8)`;
    const { rows } = await sql<{ time: number; ignition: boolean; speed_kmh: number }>`
      select date_part('epoch', "time") as time, ignition, speed_kmh
        from telemetry_points where device_id = ${deviceId} ${from} order by "time" limit ${chunkSize}`.execute(trx);
    const chunk = rows.map((row) => ({ time: Number(row.time), ignition: row.ignition, speedKmh: Number(row.speed_kmh) }));
    const last = chunk.length < chunkSize;
    const points = carried === undefined ? chunk : [carried, ...chunk];
    for (const segment of telemetryToSegments(points, { tail: last ? 'live' : 'none' })) {
      const endedAt = segment.endedAt!;
      if (held && held.endedAt === segment.startedAt && held.state === segment.state) held.endedAt = endedAt;
      else {
        if (held) yield held;
        held = { startedAt: segment.startedAt, endedAt, state: segment.state };
      }
    }
    if (chunk.length > 0) carried = chunk[chunk.length - 1];
    if (last) break;
  }
  seen.newest = carried?.time ?? null;
  if (held) yield held;
}

/** The last stored telemetry segment of the device that starts before `instant` (D43: where points begin), if any. */
async function _segmentAcross(trx: Kysely<FleetHoursDatabase>, deviceId: number, instant: number): Promise<SegmentInput | undefined> {
  if (instant === -Infinity) return undefined;
  const { rows } = await sql<{ started_at: number; ended_at: number | null; state: SegmentState }>`
    select date_part('epoch', started_at) as started_at, date_part('epoch', ended_at) as ended_at, state
      from engine_segments where device_id = ${deviceId} and source = 'telemetry' and started_at < ${_timestamp(instant)}
     order by started_at desc limit 1`.execute(trx);
  const row = rows[0];
  return row && { startedAt: Number(row.started_at), endedAt: row.ended_at === null ? null : Number(row.ended_at), state: row.state };
}

/** An instant as a `timestamptz`, `Infinity` as `'infinity'`. */
function _timestamp(instant: number): RawBuilder<unknown> {
  return instant === Infinity ? sql`'infinity'::timestamptz` : sql`to_timestamp(${instant}::float8)`;
}

/**
 * The device's stored telemetry segments in start order, `chunkSize` per statement (keyset on
 * `(device_id, started_at)`), from `keptFrom` on (D43: where points begin; `null`: all).
 */
async function* _storedTelemetrySegments(
  trx: Kysely<FleetHoursDatabase>,
  deviceId: number,
  chunkSize: number,
  keptFrom: number | null,
): AsyncGenerator<SegmentInput> {
  let after: number | null = null;
  for (;;) {
    const from: RawBuilder<unknown> =
      after !== null
        ? sql`and started_at > to_timestamp(${after}::float8)`
        : keptFrom === null
          ? sql``
          : sql`and started_at >= ${_timestamp(keptFrom)}`;
    const { rows } = await sql<{ started_at: number; ended_at: number | null; state: SegmentState }>`
      select date_part('epoch', started_at) as started_at, date_part('epoch', ended_at) as ended_at, state
        from engine_segments where device_id = ${deviceId} and source = 'telemetry' ${from}
       order by started_at limit ${chunkSize}`.execute(trx);
    for (const row of rows)
      yield { startedAt: Number(row.started_at), endedAt: row.ended_at === null ? null : Number(row.ended_at), state: row.state };
    if (rows.length < chunkSize) return;
    after = Number(rows[rows.length - 1]!.started_at);
  }
}

/** An async iterator whose next value can be looked at before it is taken. */
class _Peekable<T> {
  #next: IteratorResult<T> | undefined;

  constructor(private readonly iterator: AsyncIterator<T>) {}

  async peek(): Promise<T | undefined> {
    this.#next ??= await this.iterator.next();
    return this.#next.done ? undefined : this.#next.value;
  }

  /** The value {@link peek} returned, taken. */
  take(): T | undefined {
    const value = this.#next?.done ? undefined : this.#next?.value;
    if (!this.#next?.done) this.#next = undefined;
    return value;
  }
}

/** Telemetry segments a repair replaces, written a chunk at a time: deletions first, so a segment re-added at the same start is no conflict. */
class _SegmentWrites {
  #removed: number[] = [];
  #added: SegmentInput[] = [];

  constructor(
    private readonly trx: Kysely<FleetHoursDatabase>,
    private readonly deviceId: number,
  ) {}

  get length(): number {
    return this.#removed.length + this.#added.length;
  }

  remove(segment: SegmentInput): void {
    this.#removed.push(segment.startedAt);
  }

  add(segment: SegmentInput): void {
    this.#added.push(segment);
  }

  async flush(): Promise<void> {
    const removed = this.#removed.splice(0);
    const added = this.#added.splice(0);
    if (removed.length > 0) {
      await sql`
        delete from engine_segments
         where device_id = ${this.deviceId} and source = 'telemetry'
           and started_at in (select to_timestamp(start) from unnest(${removed}::float8[]) as named(start))`.execute(this.trx);
    }
    if (added.length > 0) {
      // An imported segment at the same start (D23 broken outside Fleet Hours) is left alone: the check after the repair reports it.
      await sql`
        insert into engine_segments (device_id, started_at, ended_at, state, source)
        select ${this.deviceId}, to_timestamp(segment.started_at), to_timestamp(segment.ended_at), segment.state, 'telemetry'
          from unnest(${added.map((segment) => segment.startedAt)}::float8[], ${added.map((segment) => segment.endedAt)}::float8[],
                      ${added.map((segment) => segment.state)}::text[]) as segment(started_at, ended_at, state)
        on conflict do nothing`.execute(this.trx);
    }
    if (removed.length > 0 || added.length > 0) await raiseServiceMemoVersion(this.trx, this.deviceId);
  }
}

// ── 2. Figures, totals and the longest segment against the segments ─────────────────────────

/**
 * Computes the figures of the device's closed segments a chunk at a time (its zone, D27) and walks
 * them beside the stored day rows (keyset on `(device_id, day_start)`); then the totals, the zone
 * the days were cut in and the longest segment.
 *
 * @returns What `last_reported_at` is checked against from the segments: the newest instant of an
 *   imported segment (its end, or its start while open) and whether there is any.
 */
async function _checkFigures(
  trx: Kysely<FleetHoursDatabase>,
  deviceId: number,
  device: _DeviceRow,
  options: CheckOptions,
  found: _Differences,
): Promise<{ readonly newestImported: number | null; readonly hasImports: boolean }> {
  const figures = new DayFigureAccumulator(device.time_zone);
  const storedDays = new _Peekable(_storedDays(trx, deviceId, options.chunkSize));
  let newestImported: number | null = null;
  // Each stored row's running totals against the rows before it (P56), while every row before it
  // agrees with its segments: a day that differs is named once, as a day (its repair rebuilds every
  // running total), not again in the totals of every row after it.
  const storedBefore = { moving: 0, idle: 0 };
  let daysAgree = true;
  const compare = async (expected: DayFigure | null) => {
    for (
      let have = await storedDays.peek();
      have !== undefined && (expected === null || have.dayStart <= expected.dayStart);
      have = await storedDays.peek()
    ) {
      storedDays.take();
      if (daysAgree && (have.movingBeforeSeconds !== storedBefore.moving || have.idleBeforeSeconds !== storedBefore.idle)) {
        found.add({
          deviceId,
          kind: 'running_total',
          dayStart: have.dayStart,
          expected: { movingSeconds: storedBefore.moving, idleSeconds: storedBefore.idle },
          stored: { movingSeconds: have.movingBeforeSeconds, idleSeconds: have.idleBeforeSeconds },
        });
      }
      storedBefore.moving += have.movingSeconds;
      storedBefore.idle += have.idleSeconds;
      if (expected !== null && have.dayStart === expected.dayStart) {
        const same =
          have.dayEnd === expected.dayEnd && have.movingSeconds === expected.movingSeconds && have.idleSeconds === expected.idleSeconds;
        if (!same) {
          found.add({ deviceId, kind: 'day', dayStart: expected.dayStart, expected, stored: _dayOf(have) });
          daysAgree = false;
        }
        return;
      }
      found.add({ deviceId, kind: 'day', dayStart: have.dayStart, expected: null, stored: _dayOf(have) });
      daysAgree = false;
    }
    if (expected !== null) {
      found.add({ deviceId, kind: 'day', dayStart: expected.dayStart, expected, stored: null });
      daysAgree = false;
    }
  };
  for await (const segments of segmentChunks(trx, deviceId, options.chunkSize, true)) {
    for (const segment of segments)
      if (segment.source === 'import') newestImported = _later(newestImported, segment.endedAt ?? segment.startedAt);
    for (const day of figures.add(segments)) await compare(day);
  }
  for (const day of figures.finish()) await compare(day);
  await compare(null);

  const storedZone = device.figures_time_zone;
  if (storedZone !== device.time_zone && (storedZone !== null || figures.dayCount > 0)) {
    found.add({ deviceId, kind: 'time_zone', expected: device.time_zone, stored: storedZone });
  }
  const expected = { movingSeconds: figures.movingSeconds, idleSeconds: figures.idleSeconds };
  const stored = { movingSeconds: Number(device.moving), idleSeconds: Number(device.idle) };
  if (expected.movingSeconds !== stored.movingSeconds || expected.idleSeconds !== stored.idleSeconds)
    found.add({ deviceId, kind: 'totals', expected, stored });
  if (Number(device.longest) < figures.longestSegmentSeconds) {
    found.add({ deviceId, kind: 'longest_segment', expected: figures.longestSegmentSeconds, stored: Number(device.longest) });
  }
  return { newestImported, hasImports: newestImported !== null };
}

/** The device's stored day rows in order, `chunkSize` per statement. */
/** A stored row's day, without its running totals. */
function _dayOf({ dayStart, dayEnd, movingSeconds, idleSeconds }: RunningDay): DayFigure {
  return { dayStart, dayEnd, movingSeconds, idleSeconds };
}

async function* _storedDays(trx: Kysely<FleetHoursDatabase>, deviceId: number, chunkSize: number): AsyncGenerator<RunningDay> {
  let after: number | null = null;
  for (;;) {
    const from: RawBuilder<unknown> = after === null ? sql`` : sql`and day_start > ${after}`;
    const { rows } = await sql<{
      day_start: number | string;
      day_end: number | string;
      moving_seconds: number | string;
      idle_seconds: number | string;
      moving_before_seconds: number | string;
      idle_before_seconds: number | string;
    }>`
      select day_start, day_end, moving_seconds, idle_seconds, moving_before_seconds, idle_before_seconds from engine_day_figures
       where device_id = ${deviceId} ${from} order by day_start limit ${chunkSize}`.execute(trx);
    for (const row of rows) {
      yield {
        dayStart: Number(row.day_start),
        dayEnd: Number(row.day_end),
        movingSeconds: Number(row.moving_seconds),
        idleSeconds: Number(row.idle_seconds),
        movingBeforeSeconds: Number(row.moving_before_seconds),
        idleBeforeSeconds: Number(row.idle_before_seconds),
      };
    }
    if (rows.length < chunkSize) return;
    after = Number(rows[rows.length - 1]!.day_start);
  }
}
