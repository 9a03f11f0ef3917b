import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sumSegmentsByBucket, type CountableSegment } from './sum-by-bucket.js';
import { bruteSumByBucket } from '../testing/oracle.js';

describe('sumSegmentsByBucket()', () => {
  it('clips a segment to the buckets it touches', () => {
    expect(sumSegmentsByBucket([{ startedAt: 50, endedAt: 150, state: 'idle' }], [0, 100, 200], 1000)).toEqual([
      { movingSeconds: 0, idleSeconds: 50 },
      { movingSeconds: 0, idleSeconds: 50 },
    ]);
  });

  it('splits moving and idle seconds', () => {
    const segments: CountableSegment[] = [
      { startedAt: 0, endedAt: 30, state: 'moving' },
      { startedAt: 30, endedAt: 100, state: 'idle' },
      { startedAt: 120, endedAt: 180, state: 'moving' },
    ];
    expect(sumSegmentsByBucket(segments, [0, 60, 200], 1000)).toEqual([
      { movingSeconds: 30, idleSeconds: 30 },
      { movingSeconds: 60, idleSeconds: 40 },
    ]);
  });

  it('counts nothing outside [first boundary, last boundary)', () => {
    const segments: CountableSegment[] = [
      { startedAt: -100, endedAt: 10, state: 'idle' },
      { startedAt: 90, endedAt: 500, state: 'moving' },
      { startedAt: 600, endedAt: 700, state: 'moving' },
    ];
    expect(sumSegmentsByBucket(segments, [0, 100], 1000)).toEqual([{ movingSeconds: 10, idleSeconds: 10 }]);
  });

  it('counts an open segment up to now, and not at all when it starts at or after now (D1)', () => {
    expect(sumSegmentsByBucket([{ startedAt: 10, endedAt: null, state: 'moving' }], [0, 50, 100], 70)).toEqual([
      { movingSeconds: 40, idleSeconds: 0 },
      { movingSeconds: 20, idleSeconds: 0 },
    ]);
    expect(sumSegmentsByBucket([{ startedAt: 70, endedAt: null, state: 'moving' }], [0, 100], 70)).toEqual([
      { movingSeconds: 0, idleSeconds: 0 },
    ]);
  });

  it('counts a closed segment as stored, whatever now is', () => {
    expect(sumSegmentsByBucket([{ startedAt: 10, endedAt: 90, state: 'idle' }], [0, 100], 20)).toEqual([
      { movingSeconds: 0, idleSeconds: 80 },
    ]);
  });

  it('gives zero-length buckets (a day that does not exist locally) zero seconds and skips them', () => {
    expect(sumSegmentsByBucket([{ startedAt: 0, endedAt: 200, state: 'idle' }], [0, 100, 100, 100, 200], 1000)).toEqual([
      { movingSeconds: 0, idleSeconds: 100 },
      { movingSeconds: 0, idleSeconds: 0 },
      { movingSeconds: 0, idleSeconds: 0 },
      { movingSeconds: 0, idleSeconds: 100 },
    ]);
  });

  it('returns no buckets for fewer than two boundaries', () => {
    expect(sumSegmentsByBucket([{ startedAt: 0, endedAt: 10, state: 'idle' }], [5], 100)).toEqual([]);
    expect(sumSegmentsByBucket([{ startedAt: 0, endedAt: 10, state: 'idle' }], [], 100)).toEqual([]);
  });

  it('accepts any iterable of segments, in any order', () => {
    function* generate(): Generator<CountableSegment> {
      yield { startedAt: 60, endedAt: 70, state: 'idle' };
      yield { startedAt: 0, endedAt: 10, state: 'idle' };
    }
    expect(sumSegmentsByBucket(generate(), [0, 50, 100], 100)).toEqual([
      { movingSeconds: 0, idleSeconds: 10 },
      { movingSeconds: 0, idleSeconds: 10 },
    ]);
  });

  it('equals a second-by-second count on random segments, boundaries and now', () => {
    const segmentsArbitrary = fc
      .array(fc.tuple(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 1, max: 120 }), fc.boolean()), { maxLength: 20 })
      .chain((pieces) =>
        fc.boolean().map((lastOpen) => {
          let cursor = -50;
          return pieces.map(([gap, length, moving], index): CountableSegment => {
            const startedAt = cursor + gap;
            cursor = startedAt + length;
            return { startedAt, endedAt: lastOpen && index === pieces.length - 1 ? null : cursor, state: moving ? 'moving' : 'idle' };
          });
        }),
      )
      .chain((segments) => fc.shuffledSubarray(segments, { minLength: segments.length, maxLength: segments.length }));
    const boundariesArbitrary = fc
      .array(fc.integer({ min: -100, max: 2500 }), { minLength: 0, maxLength: 12 })
      .map((instants) => instants.sort((a, b) => a - b));
    fc.assert(
      fc.property(segmentsArbitrary, boundariesArbitrary, fc.integer({ min: -100, max: 3000 }), (segments, boundaries, now) => {
        expect(sumSegmentsByBucket(segments, boundaries, now)).toEqual(bruteSumByBucket(segments, boundaries, now));
      }),
      { numRuns: 300 },
    );
  });
});
