import { InvalidParameterError } from '../errors/errors.js';
import { givenInstantRangeMessage, isGivenInstantInRange } from '../time/instant-floor.js';
import { checkHourMeterSeconds } from './service-status.js';
import type { BucketSeconds, EpochSeconds, HourMeterReading } from '../types.js';

/** The hour meter at one instant (D38). */
export interface HourMeterValue {
  /** Hour-meter seconds at the instant. */
  readonly seconds: number;
  /** Epoch seconds of the reading it counts from; `null` when no reading is at or before the instant (uncalibrated). */
  readonly readAt: EpochSeconds | null;
}

/**
 * The latest reading at or before `instant` (D38); of two readings at one instant, the one recorded
 * last (the higher id).
 *
 * @param readings A device's readings, in any order.
 * @param instant Epoch seconds.
 * @returns The reading, or `null` when none is at or before `instant`.
 */
export function readingAt(readings: readonly HourMeterReading[], instant: EpochSeconds): HourMeterReading | null {
  let found: HourMeterReading | null = null;
  for (const reading of readings) {
    if (reading.readAt > instant) continue;
    if (found === null || reading.readAt > found.readAt || (reading.readAt === found.readAt && reading.id > found.id)) found = reading;
  }
  return found;
}

/**
 * The instants at which the engine seconds up to `now` must be known to compute the hour meter at
 * `instants` (D38): each instant and the reading it counts from, sorted, without repeats, `now`
 * last. Sum the device's segments over the buckets between them (one `sumSegmentSeconds` call;
 * none when only `now` is returned) and pass the sums to {@link hourMeterValues}. The range starts
 * at the earliest instant or reading needed, never at the first report: the cost follows the time
 * since the readings and instants asked about, not the device's history (D27).
 *
 * @param readings The device's readings.
 * @param instants Epoch seconds, each at most `now`.
 * @param now Epoch seconds.
 * @returns Non-decreasing boundaries ending with `now`.
 * @throws {RangeError} When an instant is after `now`.
 * @example
 * ```ts
 * import { hourMeterBoundaries } from '@fleet-hours/core';
 * hourMeterBoundaries([{ id: 1, deviceId: 7, readAt: 1000, readingSeconds: 36_000, recordedAt: 1000 }], [5000], 9000);
 * // [1000, 5000, 9000]
 * ```
 */
export function hourMeterBoundaries(
  readings: readonly HourMeterReading[],
  instants: readonly EpochSeconds[],
  now: EpochSeconds,
): EpochSeconds[] {
  const needed = new Set<EpochSeconds>([now]);
  for (const instant of instants) {
    if (instant > now) throw new RangeError(`hour meter asked at ${instant}, after now (${now})`);
    needed.add(instant);
    const reading = readingAt(readings, instant);
    if (reading) needed.add(reading.readAt);
  }
  return [...needed].sort((a, b) => a - b);
}

/**
 * The hour meter at each of `instants` (D38): the latest reading at or before the instant plus the
 * engine seconds (moving + idle) from that reading to the instant; without such a reading, the
 * device's engine seconds up to the instant (the meter, uncalibrated).
 *
 * @param input `readings` and `instants` as given to {@link hourMeterBoundaries}; `boundaries` what
 *   it returned; `buckets` the device's moving and idle seconds between them (one per pair);
 *   `engineSeconds` the meter's engine seconds at `now` (all segments, open ones up to `now`).
 * @returns One value per instant, in order.
 * @example
 * ```ts
 * import { hourMeterValues } from '@fleet-hours/core';
 * const readings = [{ id: 1, deviceId: 7, readAt: 1000, readingSeconds: 36_000, recordedAt: 1000 }];
 * hourMeterValues({
 *   readings, instants: [9000], boundaries: [1000, 9000],
 *   buckets: [{ movingSeconds: 600, idleSeconds: 60 }], engineSeconds: 5000,
 * });
 * // [{ seconds: 36660, readAt: 1000 }]
 * ```
 */
export function hourMeterValues(input: {
  readonly readings: readonly HourMeterReading[];
  readonly instants: readonly EpochSeconds[];
  readonly boundaries: readonly EpochSeconds[];
  readonly buckets: readonly BucketSeconds[];
  readonly engineSeconds: number;
}): HourMeterValue[] {
  const { readings, instants, boundaries, buckets, engineSeconds } = input;
  if (buckets.length !== Math.max(0, boundaries.length - 1)) {
    throw new RangeError(`hourMeterValues: ${buckets.length} buckets for ${boundaries.length} boundaries`);
  }
  // Engine seconds from each boundary up to now: the sums of the buckets after it.
  const untilNow = new Map<EpochSeconds, number>();
  let after = 0;
  for (let index = boundaries.length - 1; index >= 0; index -= 1) {
    const bucket = buckets[index];
    if (bucket) after += bucket.movingSeconds + bucket.idleSeconds;
    untilNow.set(boundaries[index]!, after);
  }
  const since = (instant: EpochSeconds) => {
    const seconds = untilNow.get(instant);
    if (seconds === undefined) throw new RangeError(`hourMeterValues: ${instant} is not one of the boundaries`);
    return seconds;
  };
  return instants.map((instant) => {
    const reading = readingAt(readings, instant);
    if (reading === null) return { seconds: engineSeconds - since(instant), readAt: null };
    return { seconds: reading.readingSeconds + since(reading.readAt) - since(instant), readAt: reading.readAt };
  });
}

/**
 * Checks a reading before it is stored (D38): `readAt` an instant within the range of every given
 * instant (D50) and not after `now`, `readingSeconds`
 * a whole number of seconds from 0 to `MAX_HOUR_METER_SECONDS`. A reading lower than an earlier
 * one is allowed (meters get replaced).
 *
 * @param reading The reading's instant and value.
 * @param now Epoch seconds.
 * @throws {InvalidParameterError} Naming `read_at` or `reading_seconds`.
 */
export function checkHourMeterReading(
  reading: { readonly readAt: EpochSeconds; readonly readingSeconds: number },
  now: EpochSeconds,
): void {
  // D50: the one range of every instant a person gives, before the future is looked at.
  if (Number.isFinite(reading.readAt) && !isGivenInstantInRange(reading.readAt)) {
    throw new InvalidParameterError('read_at', givenInstantRangeMessage('read_at', String(reading.readAt)));
  }
  if (!Number.isSafeInteger(reading.readAt) || reading.readAt > now) {
    throw new InvalidParameterError('read_at', 'read_at must be an instant that is not in the future');
  }
  checkHourMeterSeconds('reading_seconds', reading.readingSeconds);
}
