import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { summarizeSegments } from './summarize-segments.js';
import type { CountableSegment } from './sum-by-bucket.js';
import { bruteSumByBucket } from '../testing/oracle.js';

describe('summarizeSegments() (D3)', () => {
  it('is null and zeros without segments', () => {
    expect(summarizeSegments([], 1000)).toEqual({ firstStartedAt: null, movingSeconds: 0, idleSeconds: 0 });
  });

  it('sums every segment and reports the start of the earliest, in any order', () => {
    const segments: CountableSegment[] = [
      { startedAt: 500, endedAt: 560, state: 'moving' },
      { startedAt: 100, endedAt: 130, state: 'idle' },
      { startedAt: 200, endedAt: 260, state: 'moving' },
    ];
    expect(summarizeSegments(segments, 1000)).toEqual({ firstStartedAt: 100, movingSeconds: 120, idleSeconds: 30 });
  });

  it('counts an open segment up to now', () => {
    expect(summarizeSegments([{ startedAt: 10, endedAt: null, state: 'moving' }], 70)).toEqual({
      firstStartedAt: 10,
      movingSeconds: 60,
      idleSeconds: 0,
    });
  });

  it('counts nothing after now, even of a closed segment', () => {
    expect(summarizeSegments([{ startedAt: 10, endedAt: 100, state: 'idle' }], 40)).toEqual({
      firstStartedAt: 10,
      movingSeconds: 0,
      idleSeconds: 30,
    });
    expect(summarizeSegments([{ startedAt: 50, endedAt: null, state: 'idle' }], 40)).toEqual({
      firstStartedAt: 50,
      movingSeconds: 0,
      idleSeconds: 0,
    });
  });

  it('equals a second-by-second count from the first start up to now', () => {
    const segmentsArbitrary = fc
      .array(fc.tuple(fc.integer({ min: 0, max: 50 }), fc.integer({ min: 1, max: 100 }), fc.boolean()), { minLength: 1, maxLength: 15 })
      .map((pieces) => {
        let cursor = 0;
        return pieces.map(([gap, length, moving], index): CountableSegment => {
          const startedAt = cursor + gap;
          cursor = startedAt + length;
          return { startedAt, endedAt: index === pieces.length - 1 && moving ? null : cursor, state: moving ? 'moving' : 'idle' };
        });
      });
    fc.assert(
      fc.property(segmentsArbitrary, fc.integer({ min: 0, max: 2000 }), (segments, now) => {
        const summary = summarizeSegments(segments, now);
        const [counted] = bruteSumByBucket(segments, [0, Math.max(0, now)], now);
        expect(summary).toEqual({ firstStartedAt: segments[0]!.startedAt, ...counted });
      }),
      { numRuns: 200 },
    );
  });
});
