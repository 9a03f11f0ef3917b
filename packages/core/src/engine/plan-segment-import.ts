import { assertEpochSeconds } from '../time/assert-epoch-seconds.js';
import { InvalidSegmentError, SegmentOverlapError, type SegmentConflict } from '../errors/errors.js';
import { raiseLastReportedAt } from '../telemetry/plan-telemetry-write.js';
import type { EpochSeconds, SegmentInput } from '../types.js';

/** What a store must write to apply an import batch (D1, P6). */
export interface SegmentImportPlan {
  /** New segments, in time order. */
  readonly insert: readonly SegmentInput[];
  /** Stored open segments to close: the stored segment starting at `startedAt` gets `endedAt`. */
  readonly close: readonly { readonly startedAt: EpochSeconds; readonly endedAt: EpochSeconds }[];
  /** Segments identical to stored ones or repeated inside the batch. */
  readonly skipped: number;
  /**
   * The device's `lastReportedAt` after the batch (P6): the batch's report (`reportedAt`, default
   * the latest instant in the batch) when that is later than the device's current value, else the
   * current value; `null` only while the device has never reported. Stores write exactly this.
   */
  readonly lastReportedAt: EpochSeconds | null;
}

/** The instant range a batch touches: the stored segments a store must pass to {@link planSegmentImport}. */
export interface SegmentSpan {
  /** Epoch seconds, the earliest start in the batch. */
  readonly start: number;
  /** Epoch seconds, the latest end; `null` when the batch holds an open segment. */
  readonly end: number | null;
}

/**
 * Checks one imported segment's shape.
 *
 * @param segment The segment.
 * @param row 1-based position in the batch, for the message.
 * @throws {InvalidSegmentError} (a `RangeError`) When an instant is not whole epoch seconds of the years 0001–9999 (see
 *   `assertEpochSeconds`), `endedAt` is not after `startedAt`, or the state is unknown.
 */
function _assertSegment(segment: SegmentInput, row: number): void {
  try {
    assertEpochSeconds('started_at', segment.startedAt);
    if (segment.endedAt !== null) assertEpochSeconds('ended_at', segment.endedAt);
  } catch (error) {
    throw new InvalidSegmentError(row, (error as Error).message);
  }
  if (segment.endedAt !== null && segment.endedAt <= segment.startedAt) {
    throw new InvalidSegmentError(row, 'ended_at must be after started_at');
  }
  if (segment.state !== 'moving' && segment.state !== 'idle') {
    throw new InvalidSegmentError(row, `state must be "moving" or "idle", got ${JSON.stringify(segment.state)}`);
  }
}

/**
 * The span of stored segments that can conflict with a batch: every stored segment of the device
 * that overlaps `[start, end)` (an open stored segment overlaps everything after its start) must be
 * handed to {@link planSegmentImport}. Checks every row first, so a store that calls it before
 * reading refuses a malformed batch (milliseconds, say) before touching its database.
 *
 * @param incoming The batch.
 * @returns The span, or `null` for an empty batch.
 * @throws {RangeError} For a malformed segment, naming its row (as {@link planSegmentImport}).
 * @example
 * ```ts
 * import { segmentSpan } from '@fleet-hours/core/adapter';
 * segmentSpan([{ startedAt: 10, endedAt: 20, state: 'idle' }, { startedAt: 30, endedAt: null, state: 'moving' }]); // { start: 10, end: null }
 * ```
 */
export function segmentSpan(incoming: readonly SegmentInput[]): SegmentSpan | null {
  if (incoming.length === 0) return null;
  let start = Infinity;
  let end: number | null = -Infinity;
  incoming.forEach((segment, index) => _assertSegment(segment, index + 1));
  for (const segment of incoming) {
    start = Math.min(start, segment.startedAt);
    if (segment.endedAt === null) end = null;
    else if (end !== null) end = Math.max(end, segment.endedAt);
  }
  return { start, end };
}

/**
 * Decides what an import batch writes, by the rules of D1: a segment identical to a stored one is
 * skipped (so re-importing a file is harmless); an open stored segment is closed by importing it
 * again with its end, and importing the open version of a segment already stored closed is skipped
 * too (P8); any other overlap, with stored segments or inside the batch, refuses the whole
 * batch. It also decides the device's new `lastReportedAt` (P6). Every store applies imports
 * through this function so the rules live in one place.
 *
 * @param input `incoming`: the batch for one device; `stored`: that device's stored segments that
 *   overlap {@link segmentSpan} of the batch (more is allowed, fewer is not); `reportedAt`: epoch
 *   seconds of the report, default the latest instant in the batch; `lastReportedAt`: the device's
 *   current value, default `null`.
 * @returns The inserts, closes, the count skipped and the device's `lastReportedAt` after the batch.
 * @throws {RangeError} For a malformed segment, naming its row, or a `reportedAt` that is not epoch seconds.
 * @throws {SegmentOverlapError} For any overlap, naming the rows.
 * @example
 * ```ts
 * import { planSegmentImport } from '@fleet-hours/core/adapter';
 * const plan = planSegmentImport({
 *   incoming: [{ startedAt: 0, endedAt: 60, state: 'idle' }],
 *   stored: [{ startedAt: 0, endedAt: null, state: 'idle' }],
 *   lastReportedAt: 30,
 * });
 * plan.close; // [{ startedAt: 0, endedAt: 60 }]
 * plan.lastReportedAt; // 60
 * ```
 */
export function planSegmentImport(input: {
  readonly incoming: readonly SegmentInput[];
  readonly stored: readonly SegmentInput[];
  readonly reportedAt?: EpochSeconds | undefined;
  readonly lastReportedAt?: EpochSeconds | null | undefined;
}): SegmentImportPlan {
  if (input.reportedAt !== undefined) assertEpochSeconds('reportedAt', input.reportedAt);
  const storedByStart = new Map<number, SegmentInput>();
  for (const segment of input.stored) storedByStart.set(segment.startedAt, segment);

  const seen = new Map<string, number>();
  const insert: { segment: SegmentInput; row: number }[] = [];
  const closeByStart = new Map<number, number>();
  let skipped = 0;

  input.incoming.forEach((segment, index) => {
    const row = index + 1;
    _assertSegment(segment, row);
    const identity = `${segment.startedAt}|${segment.endedAt}|${segment.state}`;
    if (seen.has(identity)) {
      skipped += 1;
      return;
    }
    seen.set(identity, row);
    const stored = storedByStart.get(segment.startedAt);
    const sameStored = stored !== undefined && stored.state === segment.state;
    // Identical, or the open version of a segment already stored closed: nothing new.
    if (sameStored && (stored.endedAt === segment.endedAt || segment.endedAt === null)) {
      skipped += 1;
      return;
    }
    if (sameStored && stored.endedAt === null && segment.endedAt !== null && !closeByStart.has(segment.startedAt)) {
      closeByStart.set(segment.startedAt, segment.endedAt);
      return;
    }
    insert.push({ segment, row });
  });

  // Sweep every interval that will exist after the import (stored ones as closed by this batch,
  // plus the inserts) in start order; an interval starting before the furthest end seen so far
  // overlaps the interval that reached that end.
  type Interval = { start: number; end: number; row: number | null; stored: SegmentInput | null };
  const intervals: Interval[] = [];
  for (const segment of input.stored) {
    const end = closeByStart.get(segment.startedAt) ?? segment.endedAt ?? Infinity;
    intervals.push({ start: segment.startedAt, end, row: null, stored: segment });
  }
  for (const { segment, row } of insert) {
    intervals.push({ start: segment.startedAt, end: segment.endedAt ?? Infinity, row, stored: null });
  }
  intervals.sort((a, b) => a.start - b.start || (a.row ?? 0) - (b.row ?? 0));

  const conflicts: SegmentConflict[] = [];
  let reach: Interval | null = null;
  for (const interval of intervals) {
    if (reach && interval.start < reach.end && (interval.row !== null || reach.row !== null)) {
      const [mine, other] = interval.row !== null ? [interval, reach] : [reach, interval];
      conflicts.push({
        row: mine.row!,
        otherRow: other.row,
        stored: other.stored && { startedAt: other.stored.startedAt, endedAt: other.stored.endedAt, state: other.stored.state },
      });
    }
    if (!reach || interval.end > reach.end) reach = interval;
  }
  if (conflicts.length > 0) {
    conflicts.sort((a, b) => a.row - b.row);
    throw new SegmentOverlapError(conflicts);
  }

  return {
    insert: insert.map(({ segment }) => segment).sort((a, b) => a.startedAt - b.startedAt),
    close: [...closeByStart].map(([startedAt, endedAt]) => ({ startedAt, endedAt })),
    skipped,
    lastReportedAt: raiseLastReportedAt(input.lastReportedAt ?? null, input.reportedAt ?? _latestInstant(input.incoming)),
  };
}

/** The latest instant a batch holds: the latest end, or start for an open segment; `null` when empty. */
function _latestInstant(incoming: readonly SegmentInput[]): EpochSeconds | null {
  let latest: EpochSeconds | null = null;
  for (const segment of incoming) {
    const instant = segment.endedAt ?? segment.startedAt;
    if (latest === null || instant > latest) latest = instant;
  }
  return latest;
}
