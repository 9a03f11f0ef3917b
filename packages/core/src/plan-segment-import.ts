import { SegmentOverlapError, type SegmentConflict } from './errors.js';
import type { SegmentInput, SegmentState } from './types.js';

/** What a store must write to apply an import batch (D1). */
export interface SegmentImportPlan {
  /** New segments, in time order. */
  readonly insert: readonly SegmentInput[];
  /** Stored open segments to close: the stored segment starting at `startedAt` gets `endedAt`. */
  readonly close: readonly { readonly startedAt: number; readonly endedAt: number }[];
  /** Segments identical to stored ones or repeated inside the batch. */
  readonly skipped: number;
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
 * @throws {RangeError} When an instant is not a whole number, `endedAt` is not after `startedAt`, or the state is unknown.
 */
function _assertSegment(segment: SegmentInput, row: number): void {
  if (!Number.isSafeInteger(segment.startedAt)) throw new RangeError(`Row ${row}: started_at must be whole epoch seconds`);
  if (segment.endedAt !== null && !Number.isSafeInteger(segment.endedAt)) {
    throw new RangeError(`Row ${row}: ended_at must be whole epoch seconds or null`);
  }
  if (segment.endedAt !== null && segment.endedAt <= segment.startedAt) {
    throw new RangeError(`Row ${row}: ended_at must be after started_at`);
  }
  if (segment.state !== 'moving' && segment.state !== 'idle') {
    throw new RangeError(`Row ${row}: state must be "moving" or "idle", got ${JSON.stringify(segment.state)}`);
  }
}

/**
 * The span of stored segments that can conflict with a batch: every stored segment of the device
 * that overlaps `[start, end)` (an open stored segment overlaps everything after its start) must be
 * handed to {@link planSegmentImport}.
 *
 * @param incoming The batch.
 * @returns The span, or `null` for an empty batch.
 * @example
 * ```ts
 * import { segmentSpan } from '@fleet-hours/core';
 * segmentSpan([{ startedAt: 10, endedAt: 20, state: 'idle' }, { startedAt: 30, endedAt: null, state: 'moving' }]); // { start: 10, end: null }
 * ```
 */
export function segmentSpan(incoming: readonly SegmentInput[]): SegmentSpan | null {
  if (incoming.length === 0) return null;
  let start = Infinity;
  let end: number | null = -Infinity;
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
 * too; any other overlap, with stored segments or inside the batch, refuses the whole
 * batch. Every store applies imports through this function so the rules live in one place.
 *
 * @param input `incoming`: the batch for one device; `stored`: that device's stored segments that
 *   overlap {@link segmentSpan} of the batch (more is allowed, fewer is not).
 * @returns The inserts, closes and the count skipped.
 * @throws {RangeError} For a malformed segment, naming its row.
 * @throws {SegmentOverlapError} For any overlap, naming the rows.
 * @example
 * ```ts
 * import { planSegmentImport } from '@fleet-hours/core';
 * const plan = planSegmentImport({
 *   incoming: [{ startedAt: 0, endedAt: 60, state: 'idle' }],
 *   stored: [{ startedAt: 0, endedAt: null, state: 'idle' }],
 * });
 * plan.close; // [{ startedAt: 0, endedAt: 60 }]
 * ```
 */
export function planSegmentImport(input: {
  readonly incoming: readonly SegmentInput[];
  readonly stored: readonly SegmentInput[];
}): SegmentImportPlan {
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
  };
}
