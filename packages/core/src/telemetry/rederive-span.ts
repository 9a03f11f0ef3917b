import type { TelemetryPoint } from './telemetry-point.js';
import { DEFAULT_TELEMETRY_OPTIONS, telemetryToSegments, type TelemetryOptions } from './telemetry-to-segments.js';
import type { SegmentInput, SegmentState } from '../types.js';

/**
 * The stored points a write must re-read to bring a device's telemetry segments up to date (D20).
 * Both ends are point times, inclusive.
 */
export interface RederivationSpan {
  /** The stored point just before the earliest written point; the earliest written point itself when none is earlier. */
  readonly firstPoint: number;
  /** The stored point just after the latest written point; `null` when none is later (the span then runs through the live tail, D22). */
  readonly lastPoint: number | null;
}

/** What {@link rederivationSpan} needs. */
export interface RederivationSpanInput {
  /** Times of the points the write inserted or changed: `mergePoints(…).writes`, any order. */
  readonly written: readonly number[];
  /**
   * The device's stored point times in ascending order, from before or after the write (the
   * neighbours are the same). Only the neighbours matter: a SQL store can pass just the two times
   * it looked up, `max(time) < min(written)` and `min(time) > max(written)`, whichever exist.
   */
  readonly storedTimes: readonly number[];
}

/**
 * Where a write re-derives (D20): from the stored point before its earliest written point to the
 * stored point after its latest. Points outside the span keep their coverage (a point covers up to
 * the next point, D2), so only the segments around the write can change.
 *
 * @param input The written times and the stored times.
 * @returns The span, or `null` when nothing was written (a batch of duplicates changes nothing).
 * @example
 * ```ts
 * import { rederivationSpan } from '@fleet-hours/core/adapter';
 * rederivationSpan({ written: [150, 130], storedTimes: [0, 100, 200, 300] }); // { firstPoint: 100, lastPoint: 200 }
 * rederivationSpan({ written: [400], storedTimes: [0, 100, 200, 300] }); // { firstPoint: 300, lastPoint: null }
 * rederivationSpan({ written: [], storedTimes: [0, 100] }); // null
 * ```
 */
export function rederivationSpan(input: RederivationSpanInput): RederivationSpan | null {
  if (input.written.length === 0) return null;
  let earliest = Infinity;
  let latest = -Infinity;
  for (const time of input.written) {
    if (time < earliest) earliest = time;
    if (time > latest) latest = time;
  }
  const times = input.storedTimes;
  const before = _countBefore(times, (time) => time < earliest) - 1;
  const after = _countBefore(times, (time) => time <= latest);
  return {
    firstPoint: before >= 0 ? times[before]! : earliest,
    lastPoint: after < times.length ? times[after]! : null,
  };
}

/** What {@link rederiveSpan} needs: the span and what the store holds in it after writing the points. */
export interface RederiveSpanInput {
  readonly span: RederivationSpan;
  /**
   * Every stored point, after the write, with `span.firstPoint ≤ time ≤ span.lastPoint` (every
   * point from `span.firstPoint` on when `lastPoint` is `null`). Any order.
   */
  readonly points: readonly TelemetryPoint[];
  /**
   * Every stored *telemetry* segment of the device (never an imported one, D23) that overlaps or
   * touches the span: `endedAt ≥ span.firstPoint` and (`span.lastPoint` is `null` or
   * `startedAt ≤ span.lastPoint`). All closed. These are the segments the result replaces.
   */
  readonly segments: readonly SegmentInput[];
}

/** The result of {@link rederiveSpan}. */
export interface SpanRederivation {
  /** The re-derived stretch of time, `[start, end)`: `span.firstPoint` up to `span.lastPoint`, or up to the newest point plus the gap cap (D22). */
  readonly start: number;
  readonly end: number;
  /** What replaces every segment of the input, in time order: delete those, insert these. */
  readonly segments: readonly SegmentInput[];
  /** The same change as a difference: input segments that are not in `segments` (delete them)… */
  readonly removed: readonly SegmentInput[];
  /** …and segments that were not in the input (insert them). Both empty when nothing changed. */
  readonly added: readonly SegmentInput[];
}

/**
 * Re-derives a device's telemetry segments around a write (D20, D22), so that a store keeps them
 * up to date without reading all its points. Replacing the input segments by the result gives
 * exactly `telemetryToSegments(all stored points)`.
 *
 * Inside `[start, end)` every second is derived again from `points` (the point at `lastPoint`
 * only bounds the one before it). Outside it nothing changes, but a segment that straddles or
 * touches an edge is part of the input and of the result: its part outside the span is kept and
 * joined to a re-derived segment of the same state that meets it, so the result is again maximal
 * segments, as if all points had been derived at once.
 *
 * @param input The span, its points and the segments it touches (see {@link RederiveSpanInput}).
 * @param options The thresholds of D2; the same for every write of a device.
 * @returns The replacement segments, as a whole and as a difference.
 * @throws {RangeError} When the input breaks its contract: a point outside the span, the point at
 *   `firstPoint` or `lastPoint` missing, a segment open or away from the span, segments that overlap.
 * @example
 * ```ts
 * import { rederiveSpan } from '@fleet-hours/core/adapter';
 * // Stored: idle at 0 and at 600 (two 300 s stretches); a late point at 300 joins them.
 * rederiveSpan({
 *   span: { firstPoint: 0, lastPoint: 600 },
 *   points: [
 *     { time: 0, ignition: true, speedKmh: 0 },
 *     { time: 300, ignition: true, speedKmh: 0 },
 *     { time: 600, ignition: true, speedKmh: 0 },
 *   ],
 *   segments: [{ startedAt: 0, endedAt: 300, state: 'idle' }, { startedAt: 600, endedAt: 900, state: 'idle' }],
 * });
 * // { start: 0, end: 600,
 * //   segments: [{ startedAt: 0, endedAt: 900, state: 'idle' }],
 * //   removed: [{ startedAt: 0, endedAt: 300, state: 'idle' }, { startedAt: 600, endedAt: 900, state: 'idle' }],
 * //   added: [{ startedAt: 0, endedAt: 900, state: 'idle' }] }
 * ```
 */
export function rederiveSpan(input: RederiveSpanInput, options: Omit<TelemetryOptions, 'tail'> = {}): SpanRederivation {
  const { span, points, segments } = input;
  const { firstPoint, lastPoint } = span;
  let hasFirst = false;
  let hasLast = false;
  let newest = -Infinity;
  for (const point of points) {
    if (point.time < firstPoint || (lastPoint !== null && point.time > lastPoint)) {
      throw new RangeError(`Point at ${point.time} lies outside the span ${_describe(span)}`);
    }
    if (point.time === firstPoint) hasFirst = true;
    if (point.time === lastPoint) hasLast = true;
    if (point.time > newest) newest = point.time;
  }
  if (!hasFirst) throw new RangeError(`The point at firstPoint ${firstPoint} is missing from the points`);
  if (lastPoint !== null && !hasLast) throw new RangeError(`The point at lastPoint ${lastPoint} is missing from the points`);

  // `telemetryToSegments` owns the rule (and checks the options): the point at `lastPoint` covers
  // nothing here, because what it covers lies outside the span and is already stored.
  const derived = telemetryToSegments(points, { ...options, tail: lastPoint === null ? 'live' : 'none' });
  const start = firstPoint;
  const end = lastPoint ?? newest + (options.maxGapSeconds ?? DEFAULT_TELEMETRY_OPTIONS.maxGapSeconds);

  const pieces: { startedAt: number; endedAt: number; state: SegmentState }[] = [];
  for (const segment of segments) {
    if (segment.endedAt === null) throw new RangeError(`Segment at ${segment.startedAt} is open: telemetry segments are closed (D22)`);
    if (segment.endedAt < start || segment.startedAt > end) {
      throw new RangeError(`Segment ${segment.startedAt}–${segment.endedAt} neither overlaps nor touches the span ${_describe(span)}`);
    }
    // What lies outside [start, end) was derived from points outside the span and stays.
    if (segment.startedAt < start)
      pieces.push({ startedAt: segment.startedAt, endedAt: Math.min(segment.endedAt, start), state: segment.state });
    if (segment.endedAt > end) pieces.push({ startedAt: Math.max(segment.startedAt, end), endedAt: segment.endedAt, state: segment.state });
  }
  for (const segment of derived) pieces.push({ startedAt: segment.startedAt, endedAt: segment.endedAt!, state: segment.state });
  pieces.sort((a, b) => a.startedAt - b.startedAt);

  const result: { startedAt: number; endedAt: number; state: SegmentState }[] = [];
  for (const piece of pieces) {
    const last = result[result.length - 1];
    if (last && piece.startedAt < last.endedAt) {
      throw new RangeError(`Segments overlap at ${piece.startedAt}: the stored segments given do not match the points`);
    }
    if (last && last.endedAt === piece.startedAt && last.state === piece.state) last.endedAt = piece.endedAt;
    else result.push({ ...piece });
  }

  const before = new Set(segments.map(_key));
  const after = new Set(result.map(_key));
  return {
    start,
    end,
    segments: result,
    removed: segments.filter((segment) => !after.has(_key(segment))),
    added: result.filter((segment) => !before.has(_key(segment))),
  };
}

/** How many of the ascending `times` come before the first that fails `isBefore` (binary search). */
function _countBefore(times: readonly number[], isBefore: (time: number) => boolean): number {
  let low = 0;
  let high = times.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (isBefore(times[middle]!)) low = middle + 1;
    else high = middle;
  }
  return low;
}

function _key(segment: SegmentInput): string {
  return `${segment.startedAt}/${segment.endedAt}/${segment.state}`;
}

function _describe(span: RederivationSpan): string {
  return `${span.firstPoint}–${span.lastPoint ?? 'tail'}`;
}
