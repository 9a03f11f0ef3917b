import { showValue } from './telemetry-clock.js';
import type { EpochSeconds } from '../types.js';

/** Issue 34: the newest position a device's points carried (by the points' time, not their arrival). */
export interface DevicePosition {
  readonly deviceId: number;
  /** The time of the point that carried it, epoch seconds. */
  readonly time: EpochSeconds;
  /** Degrees north, −90…90. */
  readonly latitude: number;
  /** Degrees east, −180…180. */
  readonly longitude: number;
}

/** What a point may carry of a position. */
interface _Positioned {
  readonly time: number;
  readonly latitude?: number | undefined;
  readonly longitude?: number | undefined;
}

/**
 * P119: whether position `a` replaces position `b` as a device's newest: a later time, and at the
 * same second the larger latitude, then the larger longitude. A total order, so the newest of any
 * set of points is the same whatever their split into batches and their order (the stores keep
 * the greatest, comparing each batch's newest with the stored one).
 */
export function isNewerPosition(a: Omit<DevicePosition, 'deviceId'>, b: Omit<DevicePosition, 'deviceId'> | null): boolean {
  if (b === null) return true;
  if (a.time !== b.time) return a.time > b.time;
  if (a.latitude !== b.latitude) return a.latitude > b.latitude;
  return a.longitude > b.longitude;
}

/**
 * The newest position among a device's points (see {@link isNewerPosition}), or `null` when none
 * carries one: one pass over the batch, so a write's cost per point does not grow (issue 34).
 *
 * @example
 * ```ts
 * import { newestPosition } from '@fleet-hours/core/adapter';
 * newestPosition(7, [{ time: 20, latitude: 1, longitude: 2 }, { time: 30 }, { time: 10, latitude: 5, longitude: 5 }]);
 * // { deviceId: 7, time: 20, latitude: 1, longitude: 2 }
 * ```
 */
export function newestPosition(deviceId: number, points: Iterable<_Positioned>): DevicePosition | null {
  let newest: DevicePosition | null = null;
  for (const point of points) {
    if (point.latitude === undefined || point.longitude === undefined) continue;
    const candidate = { deviceId, time: point.time, latitude: point.latitude, longitude: point.longitude };
    if (isNewerPosition(candidate, newest)) newest = candidate;
  }
  return newest;
}

/** The port's check of a point's position (see `assertTelemetryPoints`): both or neither, each finite and in range. */
export function assertPointPosition(point: _Positioned, index: number): void {
  if (point.latitude === undefined && point.longitude === undefined) return;
  for (const [field, limit] of [
    ['latitude', 90],
    ['longitude', 180],
  ] as const) {
    const value = point[field];
    if (typeof value !== 'number' || !Number.isFinite(value) || value < -limit || value > limit)
      throw new RangeError(
        `points[${index}].${field} must be a number from -${limit} to ${limit}, given with the other, got ${showValue(value)}`,
      );
  }
}
