import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SegmentInput } from '../types.js';
import { aempPage, aempPageCount, aempSeriesInstants } from './aemp-series.js';
import { parseAempWindow } from './aemp-window.js';
import type { InvalidParameterError } from '../errors/errors.js';

describe('AEMP time series and pages (D64, P121)', () => {
  it('D64: one instant at the end of every run ended in the window, then the window end or now', () => {
    const segments: SegmentInput[] = [
      { startedAt: 50, endedAt: 120, state: 'idle' },
      { startedAt: 120, endedAt: 200, state: 'moving' },
      { startedAt: 300, endedAt: 400, state: 'moving' },
      { startedAt: 900, endedAt: 1100, state: 'idle' },
    ];
    expect(aempSeriesInstants({ segments, start: 100, end: 1000, now: 5000 })).toEqual([200, 400, 1000]);
    // Now before the window end: the last value at now; a run not yet ended at now has no value of its own.
    expect(aempSeriesInstants({ segments, start: 100, end: 2000, now: 1050 })).toEqual([200, 400, 1050]);
    // A run ending exactly at the window end is one value.
    expect(aempSeriesInstants({ segments, start: 0, end: 400, now: 5000 })).toEqual([200, 400]);
    expect(aempSeriesInstants({ segments, start: 6000, end: 7000, now: 5000 })).toEqual([]);
  });

  it('D64: against an oracle walking every second, for random segments', () => {
    const segmentsArbitrary = fc
      .array(fc.tuple(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 1, max: 6 })), { maxLength: 12 })
      .map((gaps) => {
        let at = 0;
        return gaps.map(([gap, length]): SegmentInput => {
          const startedAt = at + gap;
          at = startedAt + length;
          return { startedAt, endedAt: at, state: length % 2 === 0 ? 'idle' : 'moving' };
        });
      });
    fc.assert(
      fc.property(segmentsArbitrary, fc.nat(60), fc.nat(60), fc.nat(80), (segments, start, span, now) => {
        const end = start + span;
        const running = (second: number) => segments.some((segment) => segment.startedAt <= second && second < segment.endedAt!);
        const expected: number[] = [];
        for (let t = start; t <= Math.min(end, now); t += 1) if (t > 0 && running(t - 1) && !running(t)) expected.push(t);
        if (Math.min(end, now) >= start && expected.at(-1) !== Math.min(end, now)) expected.push(Math.min(end, now));
        expect(aempSeriesInstants({ segments, start, end, now })).toEqual(expected);
      }),
    );
  });

  it('D64: 100 a page from 1; at least one page; past the last is null', () => {
    expect(aempPageCount(0)).toBe(1);
    expect(aempPageCount(100)).toBe(1);
    expect(aempPageCount(101)).toBe(2);
    const items = Array.from({ length: 250 }, (_, index) => index);
    expect(aempPage(items, 3)).toEqual({ items: items.slice(200), lastPage: 3 });
    expect(aempPage(items, 4)).toBeNull();
    expect(aempPage(items, 0)).toBeNull();
    expect(aempPage([], 1)).toEqual({ items: [], lastPage: 1 });
  });
});

describe('parseAempWindow (D64, P123)', () => {
  it('P123: datetimes in UTC, or dates: the start of the start date, the end of the end date', () => {
    expect(parseAempWindow('2026-11-01T06:00:00Z', '2026-11-01T07:30:05Z')).toEqual({ start: 1_793_512_800, end: 1_793_518_205 });
    expect(parseAempWindow('2026-11-01', '2026-11-01')).toEqual({ start: 1_793_491_200, end: 1_793_577_600 });
  });

  it('P123: anything else is refused naming the parameter; an end before the start names endUTC', () => {
    const refusal = (start: string, end: string) => {
      try {
        parseAempWindow(start, end);
      } catch (error) {
        return error as InvalidParameterError;
      }
      throw new Error('not refused');
    };
    for (const bad of ['2026-11-01T06:00:00+01:00', '2026-11-01T06:00:00.5Z', '2026-13-01', 'yesterday', '0000-01-01'])
      expect(refusal(bad, '2026-11-02').parameter).toBe('startUTC');
    expect(refusal('2026-11-01', '2026-02-30').parameter).toBe('endUTC');
    expect(refusal('2026-11-02', '2026-11-01T00:00:00Z').message).toMatch(/^Parameter endUTC "2026-11-01T00:00:00Z" is before startUTC/);
  });
});
