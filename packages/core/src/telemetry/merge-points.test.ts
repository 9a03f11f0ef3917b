import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mergePoints, mergeSameSecond } from './merge-points.js';
import { oracleMergedPoints } from '../testing/telemetry-oracle.js';
import type { TelemetryPoint } from './telemetry-point.js';
import { deliveriesArbitrary } from '../testing/deliveries.js';

const on = (time: number, speedKmh: number): TelemetryPoint => ({ time, ignition: true, speedKmh });
const off = (time: number, speedKmh = 0): TelemetryPoint => ({ time, ignition: false, speedKmh });

const pointArbitrary = fc.record({
  time: fc.integer({ min: 0, max: 20 }),
  ignition: fc.boolean(),
  speedKmh: fc.oneof(fc.constantFrom(0, 4.9, 5, 30), fc.double({ min: 0, max: 120, noNaN: true })),
});

/** Applies batches one at a time to a map of stored points through mergePoints. */
function deliver(batches: readonly (readonly TelemetryPoint[])[]): Map<number, TelemetryPoint> {
  const stored = new Map<number, TelemetryPoint>();
  for (const batch of batches) {
    const merge = mergePoints([...stored.values()], batch);
    for (const point of merge.writes) stored.set(point.time, point);
  }
  return stored;
}

const sorted = (points: Iterable<TelemetryPoint>) => [...points].sort((a, b) => a.time - b.time);

describe('mergeSameSecond() (D21)', () => {
  it('keeps the ignition on if either is on and the higher speed', () => {
    expect(mergeSameSecond(off(5, 30), on(5, 4))).toEqual(on(5, 30));
    expect(mergeSameSecond(on(5, 4), off(5, 30))).toEqual(on(5, 30));
    expect(mergeSameSecond(off(5, 1), off(5, 2))).toEqual(off(5, 2));
    expect(mergeSameSecond(on(5, 7), on(5, 7))).toEqual(on(5, 7));
  });

  it('refuses points of different seconds', () => {
    expect(() => mergeSameSecond(on(5, 0), on(6, 0))).toThrow('Cannot merge points of different seconds, got 5 and 6');
  });

  it('is commutative, associative and idempotent', () => {
    const sameSecond = fc
      .tuple(pointArbitrary, pointArbitrary, pointArbitrary)
      .map((points) => points.map((point) => ({ ...point, time: 3 })));
    fc.assert(
      fc.property(sameSecond, ([a, b, c]) => {
        expect(mergeSameSecond(a!, b!)).toEqual(mergeSameSecond(b!, a!));
        expect(mergeSameSecond(mergeSameSecond(a!, b!), c!)).toEqual(mergeSameSecond(a!, mergeSameSecond(b!, c!)));
        expect(mergeSameSecond(a!, a!)).toEqual(a);
      }),
    );
  });
});

describe('mergePoints() (D21)', () => {
  it('tells new, changed and duplicate points apart and writes one point per changed second, in time order', () => {
    const result = mergePoints([on(60, 10), off(120)], [on(180, 0), on(60, 10), on(60, 20), off(120), off(30)]);
    expect(result).toEqual({
      writes: [off(30), on(60, 20), on(180, 0)],
      inserted: 2,
      outcomes: ['new', 'duplicate', 'changed', 'duplicate', 'new'],
      accepted: 3,
      duplicates: 2,
    });
  });

  it('counts a point below the stored one in both fields as a duplicate: it changes nothing', () => {
    expect(mergePoints([on(60, 50)], [off(60, 10), on(60, 49.5)])).toMatchObject({
      writes: [],
      outcomes: ['duplicate', 'duplicate'],
      accepted: 0,
      duplicates: 2,
    });
    // Ignition on over a stored "off" is a change even at a lower speed.
    expect(mergePoints([off(60, 50)], [on(60, 10)])).toMatchObject({ writes: [on(60, 50)], inserted: 0, outcomes: ['changed'] });
  });

  it('judges every point against the stored state before the batch, so the order inside a batch does not change the counts', () => {
    for (const batch of [
      [on(5, 1), on(5, 9)],
      [on(5, 9), on(5, 1)],
    ]) {
      expect(mergePoints([], batch)).toEqual({ writes: [on(5, 9)], inserted: 1, outcomes: ['new', 'new'], accepted: 2, duplicates: 0 });
    }
    for (const batch of [
      [on(5, 1), on(5, 9)],
      [on(5, 9), on(5, 1)],
    ]) {
      expect(mergePoints([on(5, 4)], batch)).toMatchObject({ writes: [on(5, 9)], inserted: 0, accepted: 1, duplicates: 1 });
    }
  });

  it('writes nothing for a resent batch: everything is a duplicate', () => {
    const batch = [on(0, 0), on(10, 30), off(10), off(20)];
    const stored = deliver([batch]);
    expect(mergePoints([...stored.values()], batch)).toEqual({
      writes: [],
      inserted: 0,
      outcomes: ['duplicate', 'duplicate', 'duplicate', 'duplicate'],
      accepted: 0,
      duplicates: 4,
    });
  });

  it('ignores stored points of other seconds and tolerates two stored points of one second', () => {
    expect(mergePoints([on(1, 0), on(2, 0), on(2, 30)], [on(2, 30), on(3, 0)])).toMatchObject({
      writes: [on(3, 0)],
      outcomes: ['duplicate', 'new'],
    });
  });

  it('refuses a time that is not whole seconds: points are validated before they are merged', () => {
    expect(() => mergePoints([], [on(1.5, 0)])).toThrow('Telemetry point time must be whole epoch seconds, got 1.5');
  });

  it('stores the same points whatever the batching, order and resends (commutative, associative, idempotent)', () => {
    const deliveries = deliveriesArbitrary(fc.array(fc.array(pointArbitrary, { maxLength: 8 }), { maxLength: 6 }));
    fc.assert(
      fc.property(deliveries, ([batches, shuffled]) => {
        const expected = oracleMergedPoints(batches.flat());
        expect(sorted(deliver(shuffled).values())).toEqual(expected);
        expect(sorted(deliver([batches.flat()]).values())).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('counts every batch point once, and writes exactly the seconds that change', () => {
    fc.assert(
      fc.property(fc.array(pointArbitrary, { maxLength: 10 }), fc.array(pointArbitrary, { maxLength: 10 }), (storedPoints, batch) => {
        const stored = oracleMergedPoints(storedPoints);
        const result = mergePoints(stored, batch);
        expect(result.accepted + result.duplicates).toBe(batch.length);
        expect(result.outcomes.filter((outcome) => outcome !== 'duplicate')).toHaveLength(result.accepted);
        const before = new Map(stored.map((point) => [point.time, point]));
        const after = new Map(oracleMergedPoints([...stored, ...batch]).map((point) => [point.time, point]));
        const changed = [...after.values()].filter((point) => {
          const old = before.get(point.time);
          return !old || old.ignition !== point.ignition || old.speedKmh !== point.speedKmh;
        });
        expect(result.writes).toEqual(changed);
        expect(result.inserted).toBe(changed.filter((point) => !before.has(point.time)).length);
        batch.forEach((point, index) => {
          const old = before.get(point.time);
          const expected = !old ? 'new' : (old.ignition || !point.ignition) && old.speedKmh >= point.speedKmh ? 'duplicate' : 'changed';
          expect(result.outcomes[index]).toBe(expected);
        });
      }),
      { numRuns: 300 },
    );
  });
});
