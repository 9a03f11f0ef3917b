import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { telemetryToSegments, type TelemetryPoint } from './telemetry-to-segments.js';
import { oracleSegments } from '../testing/telemetry-oracle.js';
import { simulateTelemetry } from '../testing/oracle.js';

const on = (time: number, speedKmh: number): TelemetryPoint => ({ time, ignition: true, speedKmh });
const off = (time: number): TelemetryPoint => ({ time, ignition: false, speedKmh: 0 });

describe('telemetryToSegments() (D2, D21, D22)', () => {
  it('turns points into idle and moving segments, each point covering the time until the next', () => {
    expect(telemetryToSegments([on(0, 0), on(60, 40), off(120)])).toEqual([
      { startedAt: 0, endedAt: 60, state: 'idle' },
      { startedAt: 60, endedAt: 120, state: 'moving' },
    ]);
  });

  it('moves at 5 km/h and idles below it', () => {
    expect(telemetryToSegments([on(0, 4.99), on(10, 5), on(20, 0), off(30)])).toEqual([
      { startedAt: 0, endedAt: 10, state: 'idle' },
      { startedAt: 10, endedAt: 20, state: 'moving' },
      { startedAt: 20, endedAt: 30, state: 'idle' },
    ]);
  });

  it('counts no engine time while ignition is off, whatever the speed', () => {
    expect(telemetryToSegments([{ time: 0, ignition: false, speedKmh: 80 }, on(100, 0), off(160)])).toEqual([
      { startedAt: 100, endedAt: 160, state: 'idle' },
    ]);
  });

  it('caps what one point covers at 300 s: no hours are invented across data loss', () => {
    expect(telemetryToSegments([on(0, 50), on(1000, 50), off(1060)])).toEqual([
      { startedAt: 0, endedAt: 300, state: 'moving' },
      { startedAt: 1000, endedAt: 1060, state: 'moving' },
    ]);
    expect(telemetryToSegments([on(0, 50), on(300, 50), off(400)])).toEqual([{ startedAt: 0, endedAt: 400, state: 'moving' }]);
    expect(telemetryToSegments([on(0, 50), on(301, 50), off(400)])).toEqual([
      { startedAt: 0, endedAt: 300, state: 'moving' },
      { startedAt: 301, endedAt: 400, state: 'moving' },
    ]);
  });

  it('lets the newest point run live for the gap cap, as a closed segment (D22)', () => {
    expect(telemetryToSegments([on(0, 0)])).toEqual([{ startedAt: 0, endedAt: 300, state: 'idle' }]);
    expect(telemetryToSegments([on(0, 0), on(10, 0)])).toEqual([{ startedAt: 0, endedAt: 310, state: 'idle' }]);
    expect(telemetryToSegments([on(0, 0), on(10, 50)])).toEqual([
      { startedAt: 0, endedAt: 10, state: 'idle' },
      { startedAt: 10, endedAt: 310, state: 'moving' },
    ]);
    expect(telemetryToSegments([on(0, 0), on(10, 0)], { maxGapSeconds: 60 })).toEqual([{ startedAt: 0, endedAt: 70, state: 'idle' }]);
    // An engine switched off stops counting at once, whatever the tail.
    expect(telemetryToSegments([on(0, 0), off(10)])).toEqual([{ startedAt: 0, endedAt: 10, state: 'idle' }]);
    expect(telemetryToSegments([])).toEqual([]);
  });

  it("with tail 'none', lets the last point cover no time (the former P7, for converting files to segments)", () => {
    expect(telemetryToSegments([on(0, 0)], { tail: 'none' })).toEqual([]);
    expect(telemetryToSegments([on(0, 0), on(10, 0)], { tail: 'none' })).toEqual([{ startedAt: 0, endedAt: 10, state: 'idle' }]);
    expect(telemetryToSegments([], { tail: 'none' })).toEqual([]);
  });

  it('merges adjacent stretches of one state into one segment', () => {
    expect(telemetryToSegments([on(0, 10), on(10, 20), on(20, 30), on(30, 0), on(40, 1), off(50)])).toEqual([
      { startedAt: 0, endedAt: 30, state: 'moving' },
      { startedAt: 30, endedAt: 50, state: 'idle' },
    ]);
  });

  it('sorts unsorted input by time', () => {
    expect(telemetryToSegments([off(120), on(60, 40), on(0, 0)])).toEqual([
      { startedAt: 0, endedAt: 60, state: 'idle' },
      { startedAt: 60, endedAt: 120, state: 'moving' },
    ]);
  });

  it('merges points of one second, ignition on if either is on and the higher speed, in either order (D21)', () => {
    for (const points of [
      [on(0, 0), on(60, 40), off(60), off(120)],
      [on(0, 0), off(60), on(60, 40), off(120)],
    ]) {
      expect(telemetryToSegments(points)).toEqual([
        { startedAt: 0, endedAt: 60, state: 'idle' },
        { startedAt: 60, endedAt: 120, state: 'moving' },
      ]);
    }
    // Off at 80 km/h and on at 3 km/h in one second: on, and moving at 80.
    expect(telemetryToSegments([{ time: 0, ignition: false, speedKmh: 80 }, on(0, 3), off(30)])).toEqual([
      { startedAt: 0, endedAt: 30, state: 'moving' },
    ]);
    // Two points in one second that floors to it (P3).
    expect(telemetryToSegments([on(10.2, 3), off(10.9), off(20)])).toEqual([{ startedAt: 10, endedAt: 20, state: 'idle' }]);
  });

  it('floors fractional times to whole seconds (P3)', () => {
    expect(telemetryToSegments([on(0.9, 0), on(10.5, 0), off(20.99)])).toEqual([{ startedAt: 0, endedAt: 20, state: 'idle' }]);
  });

  it('takes both thresholds as options', () => {
    const points = [on(0, 8), on(100, 12), off(700)];
    expect(telemetryToSegments(points, { movingSpeedKmh: 10, maxGapSeconds: 60 })).toEqual([
      { startedAt: 0, endedAt: 60, state: 'idle' },
      { startedAt: 100, endedAt: 160, state: 'moving' },
    ]);
    expect(telemetryToSegments(points, { maxGapSeconds: 600 })).toEqual([{ startedAt: 0, endedAt: 700, state: 'moving' }]);
  });

  it('refuses a point without a valid time or with an invalid speed, naming its 1-based position', () => {
    expect(() => telemetryToSegments([on(0, 0), on(Number.NaN, 0)])).toThrow('Telemetry point 2 has no valid time');
    expect(() => telemetryToSegments([on(0, -1)])).toThrow('Telemetry point 1 has an invalid speed -1');
    expect(() => telemetryToSegments([on(0, Number.POSITIVE_INFINITY)])).toThrow(RangeError);
  });

  it('refuses options out of range: a gap that is not a positive whole number of seconds, a negative speed, an unknown tail', () => {
    for (const maxGapSeconds of [0, -5, 2.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => telemetryToSegments([on(0, 0), on(10, 0)], { maxGapSeconds })).toThrow(RangeError);
    }
    expect(() => telemetryToSegments([on(0, 0)], { movingSpeedKmh: -1 })).toThrow('Option movingSpeedKmh must be a number ≥ 0, got -1');
    expect(() => telemetryToSegments([on(0, 0)], { movingSpeedKmh: Number.NaN })).toThrow(RangeError);
    expect(() => telemetryToSegments([on(0, 0)], { tail: 'open' as 'live' })).toThrow('Option tail must be "live" or "none", got "open"');
  });

  it('returns closed, non-overlapping segments in time order with whole-second ends', () => {
    const segments = telemetryToSegments([on(5, 0), on(3, 50), off(7), on(9, 0), on(12, 0)]);
    for (const [index, segment] of segments.entries()) {
      expect(Number.isInteger(segment.startedAt) && Number.isInteger(segment.endedAt)).toBe(true);
      expect(segment.endedAt! > segment.startedAt).toBe(true);
      if (index > 0) expect(segment.startedAt >= segments[index - 1]!.endedAt!).toBe(true);
    }
  });

  const pointArbitrary = fc.record({
    time: fc.oneof(fc.integer({ min: 0, max: 1500 }), fc.double({ min: 0, max: 1500, noNaN: true }), fc.constantFrom(0, 100, 400, 401)),
    ignition: fc.boolean(),
    speedKmh: fc.oneof(fc.constantFrom(0, 4.9, 5, 5.1, 10), fc.double({ min: 0, max: 120, noNaN: true })),
  });
  const optionsArbitrary = fc.record({
    movingSpeedKmh: fc.constantFrom(0, 5, 10),
    maxGapSeconds: fc.integer({ min: 1, max: 400 }),
    tail: fc.constantFrom('live' as const, 'none' as const),
  });

  it('equals a second-by-second walk of D2, D21 and D22 on random telemetry and thresholds', () => {
    fc.assert(
      fc.property(fc.array(pointArbitrary, { maxLength: 30 }), fc.option(optionsArbitrary, { nil: undefined }), (points, options) => {
        expect(telemetryToSegments(points, options)).toEqual(
          oracleSegments(points, options ?? { movingSpeedKmh: 5, maxGapSeconds: 300, tail: 'live' }),
        );
      }),
      { numRuns: 300 },
    );
  });

  it('depends only on the set of points, never on their order (D20)', () => {
    fc.assert(
      fc.property(
        fc
          .array(pointArbitrary, { maxLength: 30 })
          .chain((points) => fc.tuple(fc.constant(points), fc.shuffledSubarray(points, { minLength: points.length }))),
        ([points, shuffled]) => {
          expect(telemetryToSegments(shuffled)).toEqual(telemetryToSegments(points));
        },
      ),
      { numRuns: 200 },
    );
  });

  it("with tail 'none' and one point per second, equals the import-era simulation of D2", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(pointArbitrary, { maxLength: 30, selector: (point) => Math.floor(point.time) }),
        fc.record({ movingSpeedKmh: fc.constantFrom(0, 5, 10), maxGapSeconds: fc.integer({ min: 1, max: 400 }) }),
        (points, options) => {
          expect(telemetryToSegments(points, { ...options, tail: 'none' })).toEqual(simulateTelemetry(points, options));
        },
      ),
      { numRuns: 200 },
    );
  });
});
