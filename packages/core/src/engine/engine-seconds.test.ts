import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addBuckets, toEngineSeconds } from './engine-seconds.js';
import { SEGMENT_STATES } from '../types.js';

describe('toEngineSeconds()', () => {
  it('makes engine seconds the sum of moving and idle', () => {
    expect(toEngineSeconds({ movingSeconds: 60, idleSeconds: 30 })).toEqual({ engineSeconds: 90, movingSeconds: 60, idleSeconds: 30 });
    expect(toEngineSeconds({ movingSeconds: 0, idleSeconds: 0 })).toEqual({ engineSeconds: 0, movingSeconds: 0, idleSeconds: 0 });
  });

  it('keeps engine = moving + idle for any figures', () => {
    fc.assert(
      fc.property(fc.nat(), fc.nat(), (movingSeconds, idleSeconds) => {
        const { engineSeconds, movingSeconds: moving, idleSeconds: idle } = toEngineSeconds({ movingSeconds, idleSeconds });
        expect([moving, idle]).toEqual([movingSeconds, idleSeconds]);
        expect(engineSeconds).toBe(moving + idle);
      }),
    );
  });
});

describe('addBuckets()', () => {
  it('adds buckets field by field', () => {
    expect(
      addBuckets([
        { movingSeconds: 1, idleSeconds: 2 },
        { movingSeconds: 3, idleSeconds: 4 },
      ]),
    ).toEqual({ movingSeconds: 4, idleSeconds: 6 });
  });

  it('is zero for no buckets and takes any iterable', () => {
    expect(addBuckets([])).toEqual({ movingSeconds: 0, idleSeconds: 0 });
    expect(addBuckets(new Set([{ movingSeconds: 5, idleSeconds: 0 }]))).toEqual({ movingSeconds: 5, idleSeconds: 0 });
  });
});

describe('SEGMENT_STATES', () => {
  it('lists moving and idle, the two states of D1', () => {
    expect(SEGMENT_STATES).toEqual(['moving', 'idle']);
  });
});
