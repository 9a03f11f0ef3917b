import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TelemetryOverlapError } from '../errors/errors.js';
import {
  assertSourcesApart,
  assertTelemetryPoints,
  planTelemetrySegments,
  planTelemetryWrite,
  raiseLastReportedAt,
} from './plan-telemetry-write.js';
import { InvalidTelemetryPointError, type TelemetryPoint } from './telemetry-point.js';
import { telemetryToSegments } from './telemetry-to-segments.js';
import type { DeviceTelemetryPoint, SegmentInput } from '../types.js';

const T0 = 1_767_225_600;

describe('assertTelemetryPoints() (D26)', () => {
  const point = (time: number): DeviceTelemetryPoint => ({ deviceId: 1, time, ignition: true, speedKmh: 0 });

  it('accepts a point up to 300 s ahead of now and refuses one beyond, naming its index', () => {
    expect(() => assertTelemetryPoints([point(T0), point(T0 + 300)], { now: T0 })).not.toThrow();
    const refusal = (() => {
      try {
        assertTelemetryPoints([point(T0), point(T0 + 301)], { now: T0 });
      } catch (error) {
        return error;
      }
      return null;
    })();
    expect(refusal).toBeInstanceOf(InvalidTelemetryPointError);
    expect(refusal).toMatchObject({
      field: 'time',
      index: 1,
      message: `time must be at most 300 s ahead of the server clock, got ${T0 + 301} (301 s ahead)`,
    });
  });

  it('refuses a malformed point with a RangeError naming it, before any clock check', () => {
    expect(() => assertTelemetryPoints([point(T0 + 10_000), { ...point(T0), time: T0 + 0.5 }], { now: T0 })).toThrow(
      new RangeError(`points[1].time must be whole epoch seconds, got "${T0 + 0.5}"`),
    );
    expect(() => assertTelemetryPoints([{ ...point(T0), speedKmh: -1 }], { now: T0 })).toThrow(
      new RangeError('points[0].speedKmh must be a number ≥ 0, got -1'),
    );
    expect(() => assertTelemetryPoints([{ time: T0, ignition: true, speedKmh: 0 } as DeviceTelemetryPoint], { now: T0 })).toThrow(
      new RangeError('points[0] must name its device by deviceId or by imei, got neither'),
    );
    expect(() => assertTelemetryPoints([{ ...point(T0), imei: '1' } as unknown as DeviceTelemetryPoint], { now: T0 })).toThrow(/not both/);
    expect(() => assertTelemetryPoints([point(T0)], { now: T0 * 1000 })).toThrow(
      /^now must be epoch seconds .* it looks like milliseconds/,
    );
  });
});

describe("assertTelemetryPoints() at the wire's edges (D37)", () => {
  const point = (time: number): DeviceTelemetryPoint => ({ deviceId: 1, time, ignition: true, speedKmh: 0 });
  const refusalOf = (points: readonly DeviceTelemetryPoint[]) => {
    try {
      assertTelemetryPoints(points, { now: T0 });
    } catch (error) {
      return error;
    }
    return null;
  };

  it("refuses a point before 0001-01-02T00:00:00Z, the read API's first date, naming time and its index, whoever writes it", () => {
    const first = Date.parse('0001-01-02T00:00:00Z') / 1000;
    expect(refusalOf([point(T0), point(first)])).toBeNull();
    const refusal = refusalOf([point(T0), point(first - 1)]);
    expect(refusal).toBeInstanceOf(InvalidTelemetryPointError);
    expect(refusal).toMatchObject({
      field: 'time',
      index: 1,
      message: `time must be an instant from 0001-01-02T00:00:00Z to 9999-12-30T23:59:59Z, got ${first - 1}`,
    });
  });

  it('refuses a non-finite speed and an imei PostgreSQL cannot store with a RangeError naming the point', () => {
    expect(refusalOf([{ ...point(T0), speedKmh: Number.POSITIVE_INFINITY }])).toEqual(
      new RangeError('points[0].speedKmh must be a number ≥ 0, got Infinity'),
    );
    expect(refusalOf([{ ...point(T0), speedKmh: Number.NaN }])).toEqual(new RangeError('points[0].speedKmh must be a number ≥ 0, got NaN'));
    const byImei = (imei: string): DeviceTelemetryPoint => ({ imei, time: T0, ignition: true, speedKmh: 0 });
    expect(refusalOf([byImei('35630704'), byImei('3563\u00000704')])).toEqual(
      new RangeError('points[1].imei must be text without NUL characters or unpaired surrogates, got "3563\\u00000704"'),
    );
    expect(refusalOf([byImei('35\ud800')])).toBeInstanceOf(RangeError);
    expect(refusalOf([byImei('35\udc00')])).toBeInstanceOf(RangeError);
    expect(refusalOf([byImei('35\ud83d\ude9a')])).toBeNull();
  });
});

describe('raiseLastReportedAt() (P6, D26)', () => {
  it('raises, never lowers; no report leaves it', () => {
    expect(raiseLastReportedAt(null, null)).toBeNull();
    expect(raiseLastReportedAt(null, 5)).toBe(5);
    expect(raiseLastReportedAt(10, 5)).toBe(10);
    expect(raiseLastReportedAt(10, 15)).toBe(15);
    expect(raiseLastReportedAt(10, null)).toBe(10);
  });
});

describe('planTelemetryWrite() and planTelemetrySegments() (D20–D23)', () => {
  it('a batch of duplicates plans nothing and keeps lastReportedAt', () => {
    const stored: TelemetryPoint[] = [{ time: T0, ignition: true, speedKmh: 10 }];
    const plan = planTelemetryWrite({ batch: stored, stored, lastReportedAt: T0 + 50 });
    expect(plan).toMatchObject({ writes: [], accepted: 0, duplicates: 1, span: null, segmentRange: null, lastReportedAt: T0 + 50 });
    expect(() => planTelemetrySegments({ deviceId: 1, plan, segments: [] })).toThrow(RangeError);
  });

  it('applied write after write, as a store does, keeps the segments equal to those of all points (D20)', () => {
    const pointArbitrary = fc.record({
      time: fc.integer({ min: T0, max: T0 + 3000 }),
      ignition: fc.boolean(),
      speedKmh: fc.constantFrom(0, 4, 5, 30),
    });
    fc.assert(
      fc.property(fc.array(fc.array(pointArbitrary, { minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 8 }), (batches) => {
        let points: TelemetryPoint[] = [];
        let segments: SegmentInput[] = [];
        let lastReportedAt: number | null = null;
        for (const batch of batches) {
          const plan = planTelemetryWrite({ batch, stored: points, lastReportedAt });
          lastReportedAt = plan.lastReportedAt;
          if (!plan.segmentRange) continue;
          const { start, end } = plan.segmentRange;
          const touching = segments.filter((segment) => segment.startedAt <= end && segment.endedAt! >= start);
          const change = planTelemetrySegments({
            deviceId: 1,
            plan,
            segments: touching.map((segment) => ({ ...segment, source: 'telemetry' as const })),
          });
          const written = new Map(points.map((point) => [point.time, point]));
          for (const point of plan.writes) written.set(point.time, point);
          points = [...written.values()].sort((a, b) => a.time - b.time);
          const removed = new Set(change.removed.map((segment) => segment.startedAt));
          segments = [...segments.filter((segment) => !removed.has(segment.startedAt)), ...change.added].sort(
            (a, b) => a.startedAt - b.startedAt,
          );
        }
        const all = batches.flat();
        expect(segments).toEqual(telemetryToSegments(all));
        expect(lastReportedAt).toBe(Math.max(...all.map((point) => point.time)));
      }),
      { numRuns: 200 },
    );
  });

  it('refuses telemetry that would overlap an imported segment, naming the first common instant (D23)', () => {
    const plan = planTelemetryWrite({ batch: [{ time: T0 + 100, ignition: true, speedKmh: 0 }], stored: [], lastReportedAt: null });
    const imported = { startedAt: T0 + 300, endedAt: T0 + 900, state: 'moving' as const, source: 'import' as const };
    expect(() => planTelemetrySegments({ deviceId: 7, plan, segments: [imported] })).toThrow(
      new TelemetryOverlapError({ deviceId: 7, instant: T0 + 300, written: 'telemetry' }),
    );
    // Touching is not overlapping.
    const touching = { ...imported, startedAt: T0 + 400 };
    expect(planTelemetrySegments({ deviceId: 7, plan, segments: [touching] }).added).toEqual([
      { startedAt: T0 + 100, endedAt: T0 + 400, state: 'idle' },
    ]);
  });

  it('ignores segments outside the segment range, so a store may read a wider range (D20)', () => {
    const stored = [{ time: T0, ignition: true, speedKmh: 0 }];
    const plan = planTelemetryWrite({ batch: [{ time: T0 + 100, ignition: true, speedKmh: 30 }], stored, lastReportedAt: T0 });
    const own = { startedAt: T0, endedAt: T0 + 300, state: 'idle' as const, source: 'telemetry' as const };
    const earlier = { startedAt: T0 - 900, endedAt: T0 - 600, state: 'moving' as const, source: 'telemetry' as const };
    const later = { startedAt: T0 + 1_000, endedAt: T0 + 1_200, state: 'moving' as const, source: 'import' as const };
    const wide = planTelemetrySegments({ deviceId: 7, plan, segments: [earlier, own, later] });
    expect(wide).toEqual(planTelemetrySegments({ deviceId: 7, plan, segments: [own] }));
    expect(wide.removed).toEqual([{ startedAt: T0, endedAt: T0 + 300, state: 'idle' }]);
  });
});

describe('assertSourcesApart() (D23)', () => {
  const listArbitrary = fc
    .array(fc.tuple(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 1, max: 30 }), fc.boolean()), { maxLength: 6 })
    .map((pieces) => {
      let cursor = 0;
      return pieces.map(([gap, length, open], index): SegmentInput => {
        const startedAt = cursor + gap;
        cursor = startedAt + length;
        return { startedAt, endedAt: open && index === pieces.length - 1 ? null : cursor, state: 'idle' };
      });
    });

  it('names the first instant both lists cover, found second by second', () => {
    fc.assert(
      fc.property(listArbitrary, listArbitrary, (incoming, other) => {
        const covers = (list: readonly SegmentInput[], second: number) =>
          list.some((segment) => segment.startedAt <= second && second < (segment.endedAt ?? Infinity));
        let expected: number | null = null;
        for (let second = 0; second < 1000 && expected === null; second += 1)
          if (covers(incoming, second) && covers(other, second)) expected = second;
        let instant: number | null = null;
        try {
          assertSourcesApart({ deviceId: 1, written: 'import', incoming, other });
        } catch (error) {
          expect(error).toBeInstanceOf(TelemetryOverlapError);
          instant = (error as TelemetryOverlapError).instant;
        }
        expect(instant).toBe(expected);
      }),
      { numRuns: 500 },
    );
  });

  it('says which write was refused, naming the device and the instant in UTC', () => {
    expect(() =>
      assertSourcesApart({
        deviceId: 3,
        written: 'import',
        incoming: [{ startedAt: T0, endedAt: null, state: 'idle' }],
        other: [{ startedAt: T0 + 60, endedAt: T0 + 120, state: 'moving' }],
      }),
    ).toThrow('Device 3: the import would overlap segments derived from telemetry at "2026-01-01T00:01:00Z": nothing was written');
  });
});
