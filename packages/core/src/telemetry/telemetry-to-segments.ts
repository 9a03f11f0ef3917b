import { mergeSameSecond } from './merge-points.js';
import type { TelemetryPoint } from './telemetry-point.js';
import type { SegmentInput, SegmentState } from '../types.js';

// The type lives in `telemetry-point.ts`; re-exported here for the modules that import it from this file.
export type { TelemetryPoint } from './telemetry-point.js';

/** Thresholds of the telemetry conversion, with the product's defaults (D2, D22). */
export interface TelemetryOptions {
  /** At or above this speed the vehicle is moving, below it idling. Default 5 km/h. */
  readonly movingSpeedKmh?: number;
  /** The longest time one point may cover. Default 300 s. */
  readonly maxGapSeconds?: number;
  /**
   * What the newest point covers. `'live'` (D22, the default): `maxGapSeconds`, as if the next
   * point were that far away; the segment is closed at `newest + maxGapSeconds` and readers cap it
   * at now (P1). `'none'` (the former P7): nothing, for converting a file into segments to import
   * (D1) without a tail that the next file's first segments would overlap.
   */
  readonly tail?: 'live' | 'none';
}

/**
 * The product's thresholds (D2) and tail rule (D22): moving from 5 km/h, at most 300 s per point,
 * the newest point running live.
 *
 * @example
 * ```ts
 * import { DEFAULT_TELEMETRY_OPTIONS } from '@fleet-hours/core';
 * DEFAULT_TELEMETRY_OPTIONS.maxGapSeconds; // 300
 * ```
 */
export const DEFAULT_TELEMETRY_OPTIONS: Readonly<Required<TelemetryOptions>> = Object.freeze({
  movingSpeedKmh: 5,
  maxGapSeconds: 300,
  tail: 'live',
});

/**
 * Turns raw telemetry into engine segments (D2, D21, D22). Points of one second merge into one
 * (D21: ignition on if either is on, the higher speed). Engine on = ignition true; moving = engine
 * on and speed ≥ `movingSpeedKmh`, idle below it. A point covers the time until the next point,
 * but never more than `maxGapSeconds`, so no hours are invented across data loss; the newest point
 * covers `maxGapSeconds` (D22, `tail: 'live'`) or nothing (`tail: 'none'`). Adjacent stretches of
 * one state merge into one segment. The result depends only on the set of points, never on their
 * order: this is "what D2 makes of all the stored points" of D20.
 *
 * @param points Telemetry in any order; a fractional time is floored (P3).
 * @param options Thresholds and the tail rule.
 * @returns Closed, non-overlapping segments in time order, with whole-second ends.
 * @throws {RangeError} For a point with a non-finite time or a negative or non-finite speed, or an
 *   option out of range (`maxGapSeconds` not a positive whole number, `movingSpeedKmh` negative,
 *   `tail` not `'live'` or `'none'`).
 * @example
 * ```ts
 * import { telemetryToSegments } from '@fleet-hours/core';
 * telemetryToSegments([
 *   { time: 0, ignition: true, speedKmh: 0 },
 *   { time: 60, ignition: true, speedKmh: 40 },
 *   { time: 120, ignition: true, speedKmh: 0 },
 * ]);
 * // [{ startedAt: 0, endedAt: 60, state: 'idle' }, { startedAt: 60, endedAt: 120, state: 'moving' },
 * //  { startedAt: 120, endedAt: 420, state: 'idle' }]   (the newest point runs live for 300 s, D22)
 * ```
 */
export function telemetryToSegments(points: readonly TelemetryPoint[], options: TelemetryOptions = {}): SegmentInput[] {
  const { movingSpeedKmh, maxGapSeconds, tail } = _resolveOptions(options);

  const ordered = points.map((point, index) => {
    if (!Number.isFinite(point.time)) throw new RangeError(`Telemetry point ${index + 1} has no valid time`);
    if (!Number.isFinite(point.speedKmh) || point.speedKmh < 0) {
      throw new RangeError(`Telemetry point ${index + 1} has an invalid speed ${String(point.speedKmh)}`);
    }
    const time = Math.floor(point.time);
    return time === point.time ? point : { time, ignition: point.ignition, speedKmh: point.speedKmh };
  });
  ordered.sort((a, b) => a.time - b.time);

  // One point per second (D21), merged in place.
  let count = 0;
  for (const point of ordered) {
    const previous = count > 0 ? ordered[count - 1]! : undefined;
    if (previous && previous.time === point.time) ordered[count - 1] = mergeSameSecond(previous, point);
    else ordered[count++] = point;
  }
  ordered.length = count;

  const segments: { startedAt: number; endedAt: number; state: SegmentState }[] = [];
  for (let index = 0; index < ordered.length; index += 1) {
    const point = ordered[index]!;
    if (!point.ignition) continue;
    const next = ordered[index + 1];
    if (!next && tail === 'none') break;
    const coveredUntil = next ? Math.min(next.time, point.time + maxGapSeconds) : point.time + maxGapSeconds;
    const state: SegmentState = point.speedKmh >= movingSpeedKmh ? 'moving' : 'idle';
    const last = segments[segments.length - 1];
    if (last && last.state === state && last.endedAt === point.time) last.endedAt = coveredUntil;
    else segments.push({ startedAt: point.time, endedAt: coveredUntil, state });
  }
  return segments;
}

function _resolveOptions(options: TelemetryOptions): Required<TelemetryOptions> {
  const movingSpeedKmh = options.movingSpeedKmh ?? DEFAULT_TELEMETRY_OPTIONS.movingSpeedKmh;
  const maxGapSeconds = options.maxGapSeconds ?? DEFAULT_TELEMETRY_OPTIONS.maxGapSeconds;
  const tail = options.tail ?? DEFAULT_TELEMETRY_OPTIONS.tail;
  // Whole seconds only: a fractional gap would produce segment ends that no store accepts (D1).
  if (!Number.isSafeInteger(maxGapSeconds) || maxGapSeconds <= 0) {
    throw new RangeError(`Option maxGapSeconds must be a positive whole number of seconds, got ${maxGapSeconds}`);
  }
  if (!Number.isFinite(movingSpeedKmh) || movingSpeedKmh < 0) {
    throw new RangeError(`Option movingSpeedKmh must be a number ≥ 0, got ${movingSpeedKmh}`);
  }
  if (tail !== 'live' && tail !== 'none') throw new RangeError(`Option tail must be "live" or "none", got ${JSON.stringify(tail)}`);
  return { movingSpeedKmh, maxGapSeconds, tail };
}
