import type { SegmentInput, SegmentState } from './types.js';

/** One telemetry report (D2). */
export interface TelemetryPoint {
  /** Epoch seconds; a fraction is floored. */
  readonly time: number;
  readonly ignition: boolean;
  readonly speedKmh: number;
}

/** Thresholds of the telemetry conversion, with the product's defaults (D2). */
export interface TelemetryOptions {
  /** At or above this speed the vehicle is moving, below it idling. Default 5 km/h. */
  readonly movingSpeedKmh?: number;
  /** The longest time one point may cover. Default 300 s. */
  readonly maxGapSeconds?: number;
}

/**
 * Turns raw telemetry into engine segments (D2). Engine on = ignition true; moving = engine on
 * and speed ≥ `movingSpeedKmh`, idle below it. A point covers the time until the next point, but
 * never more than `maxGapSeconds`, so no hours are invented across data loss. The last point of
 * the input covers no time: nothing is known after it. Adjacent stretches of one state merge into
 * one segment.
 *
 * @param points Telemetry in any order; points at the same second keep their input order.
 * @param options Thresholds.
 * @returns Closed, non-overlapping segments in time order.
 * @throws {RangeError} For a point with a non-finite time or a negative or non-finite speed, or an
 *   option out of range (`maxGapSeconds` not a positive whole number, `movingSpeedKmh` negative).
 * @example
 * ```ts
 * import { telemetryToSegments } from '@fleet-hours/core';
 * telemetryToSegments([
 *   { time: 0, ignition: true, speedKmh: 0 },
 *   { time: 60, ignition: true, speedKmh: 40 },
 *   { time: 120, ignition: false, speedKmh: 0 },
 * ]);
 * // [{ startedAt: 0, endedAt: 60, state: 'idle' }, { startedAt: 60, endedAt: 120, state: 'moving' }]
 * ```
 */
export function telemetryToSegments(points: readonly TelemetryPoint[], options: TelemetryOptions = {}): SegmentInput[] {
  const movingSpeedKmh = options.movingSpeedKmh ?? 5;
  const maxGapSeconds = options.maxGapSeconds ?? 300;
  // Whole seconds only: a fractional gap would produce segment ends that no store accepts (D1).
  if (!Number.isSafeInteger(maxGapSeconds) || maxGapSeconds <= 0) {
    throw new RangeError(`Option maxGapSeconds must be a positive whole number of seconds, got ${maxGapSeconds}`);
  }
  if (!Number.isFinite(movingSpeedKmh) || movingSpeedKmh < 0) {
    throw new RangeError(`Option movingSpeedKmh must be a number ≥ 0, got ${movingSpeedKmh}`);
  }

  const ordered = points.map((point, index) => {
    if (!Number.isFinite(point.time)) throw new RangeError(`Telemetry point ${index + 1} has no valid time`);
    if (!Number.isFinite(point.speedKmh) || point.speedKmh < 0) {
      throw new RangeError(`Telemetry point ${index + 1} has an invalid speed ${String(point.speedKmh)}`);
    }
    return { time: Math.floor(point.time), ignition: point.ignition, speedKmh: point.speedKmh, index };
  });
  ordered.sort((a, b) => a.time - b.time || a.index - b.index);

  const segments: { startedAt: number; endedAt: number; state: SegmentState }[] = [];
  for (let index = 0; index + 1 < ordered.length; index += 1) {
    const point = ordered[index]!;
    if (!point.ignition) continue;
    const coveredUntil = Math.min(ordered[index + 1]!.time, point.time + maxGapSeconds);
    if (coveredUntil <= point.time) continue;
    const state: SegmentState = point.speedKmh >= movingSpeedKmh ? 'moving' : 'idle';
    const last = segments[segments.length - 1];
    if (last && last.state === state && last.endedAt === point.time) last.endedAt = coveredUntil;
    else segments.push({ startedAt: point.time, endedAt: coveredUntil, state });
  }
  return segments;
}
