/**
 * The hour meter (D38) through the core's public functions: `readingAt`, `hourMeterBoundaries`
 * and `hourMeterValues` composed as the service composes them, with the engine seconds between the
 * boundaries summed here from raw segments, and `checkHourMeterReading`.
 */
import { describe, expect, it } from 'vitest';
import {
  checkHourMeterReading,
  hourMeterBoundaries,
  hourMeterValues,
  InvalidParameterError,
  MAX_HOUR_METER_SECONDS,
  readingAt,
  type BucketSeconds,
  type HourMeterReading,
  type HourMeterValue,
  type SegmentInput,
} from '../index.js';
import { thrownBy } from '../testing/refusal.js';

const HOUR = 3600;
const DAY = 24 * HOUR;
/** 2026-06-01T00:00:00Z. */
const T0 = Date.UTC(2026, 5, 1) / 1000;
const NOW = T0 + 5 * HOUR;

/** Moving T0 to T0 + 2 h; idle from T0 + 3 h, still open at now: 4 h of engine time by now. */
const SEGMENTS: readonly SegmentInput[] = [
  { startedAt: T0, endedAt: T0 + 2 * HOUR, state: 'moving' },
  { startedAt: T0 + 3 * HOUR, endedAt: null, state: 'idle' },
];

const reading = (id: number, readAt: number, readingSeconds: number): HourMeterReading => ({
  id,
  deviceId: 7,
  readAt,
  readingSeconds,
  recordedAt: NOW,
});

/** Moving and idle seconds of the segments within [start, end), an open segment counting up to now. */
function secondsBetween(segments: readonly SegmentInput[], start: number, end: number, now: number): BucketSeconds {
  const sums = { movingSeconds: 0, idleSeconds: 0 };
  for (const segment of segments) {
    const overlap = Math.min(end, segment.endedAt ?? now) - Math.max(start, segment.startedAt);
    if (overlap <= 0) continue;
    if (segment.state === 'moving') sums.movingSeconds += overlap;
    else sums.idleSeconds += overlap;
  }
  return sums;
}

/** The hour meter at each instant, as the service computes it: the boundaries, their sums, the values. */
function hourMeterAt(
  readings: readonly HourMeterReading[],
  instants: readonly number[],
  segments: readonly SegmentInput[] = SEGMENTS,
  now = NOW,
): HourMeterValue[] {
  const boundaries = hourMeterBoundaries(readings, instants, now);
  const buckets = boundaries.slice(1).map((end, index) => secondsBetween(segments, boundaries[index]!, end, now));
  const meter = secondsBetween(segments, -Infinity, now, now);
  return hourMeterValues({ readings, instants, boundaries, buckets, engineSeconds: meter.movingSeconds + meter.idleSeconds });
}

describe('hour meter (D38)', () => {
  it('D38: without any reading the hour meter is the meter, uncalibrated (readAt null)', () => {
    expect(hourMeterAt([], [NOW, T0 + HOUR, T0 + 4 * HOUR])).toEqual([
      { seconds: 4 * HOUR, readAt: null },
      { seconds: HOUR, readAt: null },
      { seconds: 3 * HOUR, readAt: null },
    ]);
  });

  it('D38: the latest reading at or before the instant plus the engine seconds since it, an open segment up to now', () => {
    const readings = [reading(1, T0 + HOUR, 1000 * HOUR)];
    expect(hourMeterAt(readings, [NOW, T0 + HOUR])).toEqual([
      { seconds: 1000 * HOUR + HOUR + 2 * HOUR, readAt: T0 + HOUR },
      // At the reading's own instant, the reading itself.
      { seconds: 1000 * HOUR, readAt: T0 + HOUR },
    ]);
  });

  it('D38: before the first reading the hour meter is still the uncalibrated meter', () => {
    const readings = [reading(1, T0 + HOUR, 1000 * HOUR)];
    expect(hourMeterAt(readings, [T0 + HOUR - 1, T0 + 30 * 60])).toEqual([
      { seconds: HOUR - 1, readAt: null },
      { seconds: 30 * 60, readAt: null },
    ]);
  });

  it('D38: a reading recorded for the past re-bases everything after it and nothing before it', () => {
    const instants = [T0 + HOUR, T0 + 4 * HOUR, NOW];
    const first = [reading(1, T0, 500 * HOUR)];
    expect(hourMeterAt(first, instants)).toEqual([
      { seconds: 501 * HOUR, readAt: T0 },
      { seconds: 503 * HOUR, readAt: T0 },
      { seconds: 504 * HOUR, readAt: T0 },
    ]);
    // Recorded later, read at T0 + 2.5 h: every instant after it counts from it.
    const both = [...first, reading(2, T0 + 2.5 * HOUR, 2000 * HOUR)];
    expect(hourMeterAt(both, instants)).toEqual([
      { seconds: 501 * HOUR, readAt: T0 },
      { seconds: 2001 * HOUR, readAt: T0 + 2.5 * HOUR },
      { seconds: 2002 * HOUR, readAt: T0 + 2.5 * HOUR },
    ]);
  });

  it('D38, D39: a service recorded between two readings counts from the earlier one', () => {
    const readings = [reading(1, T0, 100 * HOUR), reading(2, T0 + 4 * HOUR, 300 * HOUR)];
    const lastDoneAt = T0 + 1.5 * HOUR;
    expect(hourMeterAt(readings, [NOW, lastDoneAt])).toEqual([
      { seconds: 301 * HOUR, readAt: T0 + 4 * HOUR },
      { seconds: 101.5 * HOUR, readAt: T0 },
    ]);
    expect(hourMeterBoundaries(readings, [NOW, lastDoneAt], NOW)).toEqual([T0, lastDoneAt, T0 + 4 * HOUR, NOW]);
  });

  it('D38: a reading lower than an earlier one (a replaced meter) is taken as it is', () => {
    const readings = [reading(1, T0, 10_000 * HOUR), reading(2, T0 + 2.5 * HOUR, 0)];
    expect(hourMeterAt(readings, [T0 + 2 * HOUR, NOW])).toEqual([
      { seconds: 10_002 * HOUR, readAt: T0 },
      { seconds: 2 * HOUR, readAt: T0 + 2.5 * HOUR },
    ]);
    expect(() => checkHourMeterReading({ readAt: T0 + 2.5 * HOUR, readingSeconds: 0 }, NOW)).not.toThrow();
  });

  it('D38: of two readings at one instant the one recorded last (the higher id) counts, in whatever order they come', () => {
    const earlier = reading(4, T0 + HOUR, 50 * HOUR);
    const later = reading(9, T0 + HOUR, 60 * HOUR);
    for (const readings of [
      [earlier, later],
      [later, earlier],
    ]) {
      expect(readingAt(readings, NOW)).toBe(later);
      expect(hourMeterAt(readings, [NOW])).toEqual([{ seconds: 63 * HOUR, readAt: T0 + HOUR }]);
    }
  });

  it('readingAt(): the latest reading at or before the instant, null when every reading is after it', () => {
    const readings = [reading(1, T0 + 2 * HOUR, 2), reading(2, T0, 1), reading(3, T0 + 4 * HOUR, 3)];
    expect(readingAt(readings, T0 + 3 * HOUR)?.id).toBe(1);
    expect(readingAt(readings, T0 + 4 * HOUR)?.id).toBe(3);
    expect(readingAt(readings, T0 - 1)).toBeNull();
    expect(readingAt([], NOW)).toBeNull();
  });

  it('hourMeterBoundaries(): now alone without readings; never an instant after now', () => {
    expect(hourMeterBoundaries([], [NOW], NOW)).toEqual([NOW]);
    expect(hourMeterBoundaries([], [NOW, T0, T0, NOW], NOW)).toEqual([T0, NOW]);
    expect(() => hourMeterBoundaries([], [NOW + 1], NOW)).toThrow(RangeError);
  });

  it('P44: the sums asked start at the earliest reading or instant needed, never at the first report', () => {
    const readings = [reading(1, T0 - 400 * DAY, 1), reading(2, NOW - 30 * DAY, 2)];
    // The hour meter now counts from the reading of 30 days ago: the older one is not asked about.
    expect(hourMeterBoundaries(readings, [NOW], NOW)).toEqual([NOW - 30 * DAY, NOW]);
    // Uncalibrated at an instant: from that instant on (the meter's total minus what came after).
    expect(hourMeterBoundaries([], [NOW, NOW - DAY], NOW)).toEqual([NOW - DAY, NOW]);
  });

  it('hourMeterValues(): refuses buckets that do not match the boundaries', () => {
    expect(() => hourMeterValues({ readings: [], instants: [NOW], boundaries: [T0, NOW], buckets: [], engineSeconds: 0 })).toThrow(
      RangeError,
    );
  });
});

describe('checkHourMeterReading() (D38)', () => {
  const refusal = (readAt: number, readingSeconds: number) =>
    thrownBy(InvalidParameterError, () => checkHourMeterReading({ readAt, readingSeconds }, NOW));

  it('accepts a reading at now and at any earlier instant, from 0 to the maximum', () => {
    expect(() => checkHourMeterReading({ readAt: NOW, readingSeconds: 0 }, NOW)).not.toThrow();
    expect(() => checkHourMeterReading({ readAt: 0, readingSeconds: MAX_HOUR_METER_SECONDS }, NOW)).not.toThrow();
  });

  it('refuses a reading in the future or at a fractional instant, naming read_at', () => {
    for (const readAt of [NOW + 1, T0 + 0.5, Number.NaN]) {
      const error = refusal(readAt, HOUR);
      expect(error.parameter).toBe('read_at');
      expect(error.message).toBe('read_at must be an instant that is not in the future');
    }
  });

  it('refuses a negative, fractional or too large value, naming reading_seconds', () => {
    for (const readingSeconds of [-1, 1.5, MAX_HOUR_METER_SECONDS + 1, Number.NaN, Number.POSITIVE_INFINITY]) {
      const error = refusal(T0, readingSeconds);
      expect(error.parameter).toBe('reading_seconds');
      expect(error.message).toBe(`reading_seconds must be a whole number of seconds from 0 to ${MAX_HOUR_METER_SECONDS}`);
    }
  });
});
