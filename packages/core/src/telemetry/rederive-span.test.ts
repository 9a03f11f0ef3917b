import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mergePoints, type PointMerge } from './merge-points.js';
import { rederivationSpan, rederiveSpan, type RederivationSpan, type SpanRederivation } from './rederive-span.js';
import { oracleHours, oracleMergedPoints, type OracleOptions } from '../testing/telemetry-oracle.js';
import type { TelemetryPoint } from './telemetry-point.js';
import { telemetryToSegments, type TelemetryOptions } from './telemetry-to-segments.js';
import { deliveriesArbitrary } from '../testing/deliveries.js';
import type { SegmentInput } from '../types.js';

const on = (time: number, speedKmh: number): TelemetryPoint => ({ time, ignition: true, speedKmh });
const off = (time: number): TelemetryPoint => ({ time, ignition: false, speedKmh: 0 });
const idle = (startedAt: number, endedAt: number): SegmentInput => ({ startedAt, endedAt, state: 'idle' });
const moving = (startedAt: number, endedAt: number): SegmentInput => ({ startedAt, endedAt, state: 'moving' });

/**
 * A store as an implementer would write one: it keeps points and segments and, per write, does what
 * the contract of rederivationSpan / rederiveSpan says, reading only the span.
 */
class TestStore {
  readonly points = new Map<number, TelemetryPoint>();
  segments: SegmentInput[] = [];
  /** The same store kept up to date through `removed` / `added` instead of `segments`. */
  diffSegments: SegmentInput[] = [];

  constructor(
    private readonly options: Omit<TelemetryOptions, 'tail'> = {},
    private readonly neighboursOnly = false,
  ) {}

  write(batch: readonly TelemetryPoint[]): { merge: PointMerge; span: RederivationSpan | null; result: SpanRederivation | null } {
    const merge = mergePoints(
      batch.flatMap((point) => this.points.get(point.time) ?? []),
      batch,
    );
    const written = merge.writes.map((point) => point.time);
    let storedTimes = [...this.points.keys()].sort((a, b) => a - b);
    if (this.neighboursOnly && written.length > 0) {
      // What a SQL store looks up: max(time) < earliest written, min(time) > latest written.
      const earliest = Math.min(...written);
      const latest = Math.max(...written);
      const before = storedTimes.filter((time) => time < earliest).at(-1);
      const after = storedTimes.find((time) => time > latest);
      storedTimes = [before, after].filter((time) => time !== undefined);
    }
    const span = rederivationSpan({ written, storedTimes });
    for (const point of merge.writes) this.points.set(point.time, point);
    if (!span) return { merge, span, result: null };

    const inSpan = (time: number) => time >= span.firstPoint && (span.lastPoint === null || time <= span.lastPoint);
    const touches = (segment: SegmentInput) =>
      segment.endedAt! >= span.firstPoint && (span.lastPoint === null || segment.startedAt <= span.lastPoint);
    const result = rederiveSpan(
      { span, points: [...this.points.values()].filter((point) => inSpan(point.time)), segments: this.segments.filter(touches) },
      this.options,
    );
    this.segments = [...this.segments.filter((segment) => !touches(segment)), ...result.segments].sort((a, b) => a.startedAt - b.startedAt);
    const removed = new Set(result.removed.map((segment) => JSON.stringify(segment)));
    this.diffSegments = [...this.diffSegments.filter((segment) => !removed.has(JSON.stringify(segment))), ...result.added].sort(
      (a, b) => a.startedAt - b.startedAt,
    );
    return { merge, span, result };
  }

  all(): TelemetryPoint[] {
    return [...this.points.values()];
  }
}

function storeWith(points: readonly TelemetryPoint[]): TestStore {
  const store = new TestStore();
  store.write(points);
  expect(store.segments).toEqual(telemetryToSegments(points));
  return store;
}

describe('rederivationSpan() (D20)', () => {
  it('runs from the stored point before the earliest written point to the stored point after the latest', () => {
    expect(rederivationSpan({ written: [150, 130], storedTimes: [0, 100, 200, 300] })).toEqual({ firstPoint: 100, lastPoint: 200 });
    expect(rederivationSpan({ written: [150], storedTimes: [0, 100, 200, 300] })).toEqual({ firstPoint: 100, lastPoint: 200 });
    // Written points that are already stored (a changed point) are not their own neighbours.
    expect(rederivationSpan({ written: [100, 200], storedTimes: [0, 100, 200, 300] })).toEqual({ firstPoint: 0, lastPoint: 300 });
    expect(rederivationSpan({ written: [50, 250], storedTimes: [0, 100, 200, 300] })).toEqual({ firstPoint: 0, lastPoint: 300 });
  });

  it('starts at the earliest written point when nothing is stored before it, and runs into the tail when nothing is stored after', () => {
    expect(rederivationSpan({ written: [-5], storedTimes: [0, 100] })).toEqual({ firstPoint: -5, lastPoint: 0 });
    expect(rederivationSpan({ written: [400], storedTimes: [0, 100] })).toEqual({ firstPoint: 100, lastPoint: null });
    expect(rederivationSpan({ written: [7, 3], storedTimes: [] })).toEqual({ firstPoint: 3, lastPoint: null });
    expect(rederivationSpan({ written: [0, 100], storedTimes: [0, 100] })).toEqual({ firstPoint: 0, lastPoint: null });
  });

  it('needs only the two neighbours from a store that looks them up', () => {
    expect(rederivationSpan({ written: [150, 130], storedTimes: [100, 200] })).toEqual({ firstPoint: 100, lastPoint: 200 });
    expect(rederivationSpan({ written: [150], storedTimes: [100] })).toEqual({ firstPoint: 100, lastPoint: null });
  });

  it('is null when nothing was written', () => {
    expect(rederivationSpan({ written: [], storedTimes: [0, 100] })).toBeNull();
  });
});

describe('rederiveSpan() (D20, D22)', () => {
  it('places a late point inside stored data, splitting a segment that straddles both span edges', () => {
    const store = storeWith([on(0, 0), on(60, 0), on(120, 0)]);
    expect(store.segments).toEqual([idle(0, 420)]);
    const { span, result } = store.write([on(90, 50)]);
    expect(span).toEqual({ firstPoint: 60, lastPoint: 120 });
    expect(result).toEqual({
      start: 60,
      end: 120,
      segments: [idle(0, 90), moving(90, 120), idle(120, 420)],
      removed: [idle(0, 420)],
      added: [idle(0, 90), moving(90, 120), idle(120, 420)],
    });
    expect(store.segments).toEqual(telemetryToSegments(store.all()));
  });

  it('joins two stretches across a gap that a late point fills', () => {
    const store = storeWith([on(0, 0), on(600, 0)]);
    expect(store.segments).toEqual([idle(0, 300), idle(600, 900)]);
    const { result } = store.write([on(300, 0)]);
    expect(result).toMatchObject({ start: 0, end: 600, segments: [idle(0, 900)], added: [idle(0, 900)] });
    expect(store.segments).toEqual([idle(0, 900)]);
  });

  it('adds a point at the very start, before every stored point', () => {
    const store = storeWith([on(100, 0), on(200, 0)]);
    expect(store.write([on(0, 0)]).result).toMatchObject({ start: 0, end: 100, segments: [idle(0, 500)], removed: [idle(100, 500)] });
    expect(store.write([on(-1000, 50)]).result).toMatchObject({
      start: -1000,
      end: 0,
      segments: [moving(-1000, -700), idle(0, 500)],
      added: [moving(-1000, -700)],
    });
    // An ignition-off point at the start covers nothing: nothing changes.
    expect(store.write([off(-2000)]).result).toMatchObject({ start: -2000, end: -1000, removed: [], added: [] });
    expect(store.segments).toEqual(telemetryToSegments(store.all()));
  });

  it('extends the live tail with a point after the newest, and starts anew after a silence longer than the cap (D22)', () => {
    const store = storeWith([on(0, 0)]);
    expect(store.segments).toEqual([idle(0, 300)]);
    expect(store.write([on(100, 0)]).result).toMatchObject({ start: 0, end: 400, segments: [idle(0, 400)] });
    expect(store.write([on(1000, 50)]).result).toMatchObject({
      start: 100,
      end: 1300,
      segments: [idle(0, 400), moving(1000, 1300)],
      added: [moving(1000, 1300)],
    });
    expect(store.segments).toEqual([idle(0, 400), moving(1000, 1300)]);
  });

  it('lowers the provisional tail when a late report inside it says the engine went off (D22)', () => {
    const store = storeWith([on(0, 50)]);
    expect(store.write([off(100)]).result).toMatchObject({
      segments: [moving(0, 100)],
      removed: [moving(0, 300)],
      added: [moving(0, 100)],
    });
  });

  it('keeps a segment that only touches the span edge, and joins one that continues in the same state', () => {
    const store = storeWith([on(0, 0), on(100, 50)]);
    expect(store.segments).toEqual([idle(0, 100), moving(100, 400)]);
    expect(store.write([on(200, 0)]).result).toEqual({
      start: 100,
      end: 500,
      segments: [idle(0, 100), moving(100, 200), idle(200, 500)],
      removed: [moving(100, 400)],
      added: [moving(100, 200), idle(200, 500)],
    });

    const joined = storeWith([on(0, 0), off(100), on(200, 0)]);
    expect(joined.segments).toEqual([idle(0, 100), idle(200, 500)]);
    // A second report at 100 with the ignition on turns the stored "off" on (D21).
    const { merge, result } = joined.write([on(100, 0)]);
    expect(merge.outcomes).toEqual(['changed']);
    expect(result).toMatchObject({ start: 0, end: 200, segments: [idle(0, 500)] });
  });

  it('writes and re-derives nothing for a resend', () => {
    const batch = [on(0, 0), on(30, 40), off(90)];
    const store = storeWith(batch);
    const before = store.segments;
    expect(store.write(batch)).toMatchObject({ merge: { writes: [], accepted: 0, duplicates: 3 }, span: null, result: null });
    expect(store.segments).toBe(before);
  });

  it('re-derives a batch that reaches over stored points on both sides', () => {
    const store = storeWith([on(100, 0), on(200, 0)]);
    const { span, result } = store.write([on(0, 50), on(150, 50), on(250, 50)]);
    expect(span).toEqual({ firstPoint: 0, lastPoint: null });
    expect(result).toMatchObject({
      start: 0,
      end: 550,
      segments: [moving(0, 100), idle(100, 150), moving(150, 200), idle(200, 250), moving(250, 550)],
    });
  });

  it('takes the thresholds of D2 as options and ends the tail at the newest point plus the cap', () => {
    const store = new TestStore({ maxGapSeconds: 60, movingSpeedKmh: 10 });
    store.write([on(0, 8)]);
    expect(store.segments).toEqual([idle(0, 60)]);
    expect(store.write([on(30, 12)]).result).toMatchObject({ start: 0, end: 90, segments: [idle(0, 30), moving(30, 90)] });
  });

  it('refuses input that breaks its contract', () => {
    const span = { firstPoint: 100, lastPoint: 200 };
    const points = [on(100, 0), on(200, 0)];
    expect(() => rederiveSpan({ span, points: [...points, on(300, 0)], segments: [] })).toThrow(
      'Point at 300 lies outside the span 100–200',
    );
    expect(() => rederiveSpan({ span, points: [on(50, 0), ...points], segments: [] })).toThrow(RangeError);
    expect(() => rederiveSpan({ span, points: [on(200, 0)], segments: [] })).toThrow(
      'The point at firstPoint 100 is missing from the points',
    );
    expect(() => rederiveSpan({ span, points: [on(100, 0)], segments: [] })).toThrow(
      'The point at lastPoint 200 is missing from the points',
    );
    expect(() => rederiveSpan({ span: { firstPoint: 100, lastPoint: null }, points: [on(100, 0)], segments: [idle(0, 50)] })).toThrow(
      'Segment 0–50 neither overlaps nor touches the span 100–tail',
    );
    expect(() => rederiveSpan({ span, points, segments: [idle(250, 300)] })).toThrow(RangeError);
    expect(() => rederiveSpan({ span, points, segments: [{ startedAt: 150, endedAt: null, state: 'idle' }] })).toThrow(
      'Segment at 150 is open: telemetry segments are closed (D22)',
    );
    // Stored segments never overlap: two that do are not what the store should hold.
    expect(() => rederiveSpan({ span, points, segments: [idle(0, 110), moving(50, 120)] })).toThrow('Segments overlap at 50');
    expect(() => rederiveSpan({ span, points, segments: [] }, { maxGapSeconds: 0 })).toThrow(RangeError);
  });
});

describe('live telemetry, one write at a time (D20, D21, D22)', () => {
  const timeArbitrary = fc.oneof(
    { weight: 3, arbitrary: fc.integer({ min: 0, max: 2400 }) },
    // A handful of seconds that many points share: same-second collisions (D21).
    { weight: 1, arbitrary: fc.constantFrom(0, 1, 300, 301, 600, 1200) },
  );
  const pointArbitrary = fc.record({
    time: timeArbitrary,
    ignition: fc.oneof({ weight: 2, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
    speedKmh: fc.oneof(fc.constantFrom(0, 4.9, 5, 30), fc.double({ min: 0, max: 120, noNaN: true })),
  });
  const optionsArbitrary = fc.record({ movingSpeedKmh: fc.constantFrom(5, 10), maxGapSeconds: fc.constantFrom(300, 60, 1, 500) });

  /** Random batches, resends of some of them, delivered in a random order. */
  const deliveries = deliveriesArbitrary(fc.array(fc.array(pointArbitrary, { minLength: 1, maxLength: 10 }), { maxLength: 8 }));

  it('keeps exactly the segments of deriving all points at once after every write, and the hours of a second-by-second oracle', () => {
    fc.assert(
      fc.property(deliveries, optionsArbitrary, fc.boolean(), ([batches, deliveries], options, neighboursOnly) => {
        const store = new TestStore(options, neighboursOnly);
        const delivered: TelemetryPoint[] = [];
        const seen = new Set<string>();
        for (const batch of deliveries) {
          const { merge } = store.write(batch);
          const key = JSON.stringify(batch);
          // A batch sent before changes nothing the second time (D21).
          if (seen.has(key)) expect(merge).toMatchObject({ writes: [], accepted: 0, duplicates: batch.length });
          seen.add(key);
          delivered.push(...batch);
          expect(store.all().sort((a, b) => a.time - b.time)).toEqual(oracleMergedPoints(delivered));
          expect(store.segments).toEqual(telemetryToSegments(delivered, options));
          expect(store.diffSegments).toEqual(store.segments);
        }

        const all = batches.flat();
        const oracleOptions: OracleOptions = { ...options, tail: 'live' };
        const fromSegments = { movingSeconds: 0, idleSeconds: 0 };
        for (const segment of store.segments) {
          const seconds = segment.endedAt! - segment.startedAt;
          if (segment.state === 'moving') fromSegments.movingSeconds += seconds;
          else fromSegments.idleSeconds += seconds;
        }
        expect(fromSegments).toEqual(oracleHours(all, oracleOptions));
      }),
      { numRuns: 400 },
    );
  });

  it('re-derives only around the write: no segment it removes or adds lies outside the span', () => {
    fc.assert(
      fc.property(deliveries, ([, deliveries]) => {
        const store = new TestStore();
        for (const batch of deliveries) {
          const { result } = store.write(batch);
          if (!result) continue;
          for (const segment of [...result.removed, ...result.added]) {
            expect(segment.endedAt! >= result.start && segment.startedAt <= result.end).toBe(true);
          }
        }
      }),
      { numRuns: 200 },
    );
  });
});
