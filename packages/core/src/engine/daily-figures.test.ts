import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dailyFigureChanges, dailyFigures, type DayFigure } from './daily-figures.js';
import { dayBuckets } from '../window/day-buckets.js';
import { localDateAt } from '../time/local-date.js';
import { resolveWindow } from '../window/resolve-window.js';
import { sumSegmentsByBucket, type CountableSegment } from './sum-by-bucket.js';
import { intlLocalDate, intlStartOfDay } from '../testing/oracle.js';
import type { SegmentInput } from '../types.js';

const ZONES = [
  'UTC',
  'America/New_York',
  'America/Sao_Paulo',
  'Asia/Beirut',
  'Australia/Lord_Howe',
  'Pacific/Apia',
  'Pacific/Chatham',
  'Asia/Kathmandu',
];
const FROM_2011 = 1_293_840_000;
const TO_2027 = 1_798_761_600;
const HOUR = 3600;
const DAY = 86_400;

/** Random closed (and sometimes open) segments, in time order, some longer than a day. */
const segmentsArbitrary = fc
  .record({
    anchor: fc.integer({ min: FROM_2011, max: TO_2027 }),
    pieces: fc.array(
      fc.record({
        gap: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 12 * HOUR })),
        length: fc.oneof(fc.integer({ min: 1, max: 2 * HOUR }), fc.integer({ min: 1, max: 3 * DAY })),
        moving: fc.boolean(),
        open: fc.boolean(),
      }),
      { maxLength: 12 },
    ),
  })
  .map(({ anchor, pieces }) => {
    let cursor = anchor;
    return pieces.map(({ gap, length, moving, open }, index): SegmentInput => {
      const startedAt = cursor + gap;
      cursor = startedAt + length;
      return { startedAt, endedAt: open && index === pieces.length - 1 ? null : cursor, state: moving ? 'moving' : 'idle' };
    });
  });

/** The day buckets of `dayBuckets` over the local dates from the first to the last instant of the segments. */
function bucketsAround(
  segments: readonly CountableSegment[],
  timeZone: string,
): { dates: readonly string[]; boundaries: readonly number[] } {
  const first = Math.min(...segments.map((segment) => segment.startedAt));
  const last = Math.max(...segments.map((segment) => segment.endedAt ?? segment.startedAt));
  const fromDate = localDateAt(first, timeZone).subtract({ days: 1 });
  const toDate = localDateAt(last, timeZone).add({ days: 1 });
  const window = resolveWindow({ from: fromDate, to: toDate, now: TO_2027 * 2, timeZone, maxDays: 100_000 });
  return dayBuckets(window);
}

/** The figures as sumSegmentsByBucket gives them over those day buckets: the read path they must match. */
function figuresByBuckets(segments: readonly CountableSegment[], timeZone: string): DayFigure[] {
  const closed = segments.filter((segment) => segment.endedAt !== null);
  if (closed.length === 0) return [];
  const { boundaries } = bucketsAround(closed, timeZone);
  const sums = sumSegmentsByBucket(closed, boundaries, 0);
  return sums.flatMap((sum, index) =>
    sum.movingSeconds + sum.idleSeconds === 0 ? [] : [{ dayStart: boundaries[index]!, dayEnd: boundaries[index + 1]!, ...sum }],
  );
}

describe('dailyFigures() (D27)', () => {
  it('counts every second of closed segments in the dayBuckets() day it falls in, in any zone', () => {
    fc.assert(
      fc.property(segmentsArbitrary, fc.constantFrom(...ZONES), (segments, timeZone) => {
        expect(dailyFigures(segments, timeZone)).toEqual(figuresByBuckets(segments, timeZone));
      }),
      { numRuns: 300 },
    );
  });

  it('gives the same figures for segments in any order', () => {
    fc.assert(
      fc.property(segmentsArbitrary, fc.constantFrom(...ZONES), (segments, timeZone) => {
        expect(dailyFigures([...segments].reverse(), timeZone)).toEqual(dailyFigures(segments, timeZone));
      }),
      { numRuns: 100 },
    );
  });

  it('leaves out open segments: they are counted at read time', () => {
    expect(dailyFigures([{ startedAt: 1_767_225_600, endedAt: null, state: 'moving' }], 'UTC')).toEqual([]);
  });

  it('splits a segment across local midnight, day starts agreeing with Intl (oracle)', () => {
    const timeZone = 'Europe/Berlin';
    const midnight = intlStartOfDay('2026-03-29', timeZone); // the 23-hour day
    const figures = dailyFigures([{ startedAt: midnight - HOUR, endedAt: midnight + 25 * HOUR, state: 'idle' }], timeZone);
    expect(figures).toEqual([
      { dayStart: intlStartOfDay('2026-03-28', timeZone), dayEnd: midnight, movingSeconds: 0, idleSeconds: HOUR },
      { dayStart: midnight, dayEnd: intlStartOfDay('2026-03-30', timeZone), movingSeconds: 0, idleSeconds: 23 * HOUR },
      {
        dayStart: intlStartOfDay('2026-03-30', timeZone),
        dayEnd: intlStartOfDay('2026-03-31', timeZone),
        movingSeconds: 0,
        idleSeconds: 2 * HOUR,
      },
    ]);
  });

  it('America/Sao_Paulo 2018-11-04 skipped its midnight: the day starts at 01:00 and lasts 23 hours', () => {
    const timeZone = 'America/Sao_Paulo';
    const dayStart = intlStartOfDay('2018-11-04', timeZone);
    expect(dayStart).toBe(1_541_300_400); // 01:00 -02:00
    const figures = dailyFigures([{ startedAt: dayStart - 60, endedAt: dayStart + 60, state: 'moving' }], timeZone);
    expect(figures).toEqual([
      { dayStart: intlStartOfDay('2018-11-03', timeZone), dayEnd: dayStart, movingSeconds: 60, idleSeconds: 0 },
      { dayStart, dayEnd: intlStartOfDay('2018-11-05', timeZone), movingSeconds: 60, idleSeconds: 0 },
    ]);
    expect(figures[1]!.dayEnd - figures[1]!.dayStart).toBe(23 * HOUR);
  });

  it('Asia/Beirut skips midnight every spring (2024-03-31 begins at 01:00)', () => {
    const timeZone = 'Asia/Beirut';
    const dayStart = intlStartOfDay('2024-03-31', timeZone);
    expect(intlLocalDate(dayStart - 1, timeZone)).toBe('2024-03-30');
    const [day] = dailyFigures([{ startedAt: dayStart, endedAt: dayStart + HOUR, state: 'idle' }], timeZone);
    expect(day).toEqual({ dayStart, dayEnd: intlStartOfDay('2024-04-01', timeZone), movingSeconds: 0, idleSeconds: HOUR });
  });

  it('Pacific/Apia 2011-12-30 does not exist: a segment across it lands on the 29th and the 31st only (P2)', () => {
    const timeZone = 'Pacific/Apia';
    const start31 = intlStartOfDay('2011-12-31', timeZone);
    const figures = dailyFigures([{ startedAt: start31 - HOUR, endedAt: start31 + HOUR, state: 'moving' }], timeZone);
    expect(figures.map((figure) => [intlLocalDate(figure.dayStart, timeZone), figure.movingSeconds])).toEqual([
      ['2011-12-29', HOUR],
      ['2011-12-31', HOUR],
    ]);
    expect(figures[0]!.dayEnd).toBe(start31);
  });

  it('covers the first and last days of the years 0001 to 9999', () => {
    const earliest = -62_135_596_800;
    const latest = 253_402_300_799;
    expect(dailyFigures([{ startedAt: earliest, endedAt: earliest + 60, state: 'idle' }], 'UTC')).toEqual([
      { dayStart: earliest, dayEnd: earliest + DAY, movingSeconds: 0, idleSeconds: 60 },
    ]);
    expect(dailyFigures([{ startedAt: latest - 60, endedAt: latest, state: 'moving' }], 'UTC')).toEqual([
      { dayStart: latest + 1 - DAY, dayEnd: latest + 1, movingSeconds: 60, idleSeconds: 0 },
    ]);
  });
});

describe('dailyFigureChanges() (D27)', () => {
  it('stored figures plus the changes of a write are the figures of the segments after it', () => {
    fc.assert(
      fc.property(segmentsArbitrary, fc.constantFrom(...ZONES), fc.integer({ min: 0, max: 2 ** 12 }), (segments, timeZone, keepMask) => {
        const removed = segments.filter((_, index) => (keepMask >> index) & 1);
        const kept = segments.filter((_, index) => !((keepMask >> index) & 1));
        const added = removed.map((segment) => ({
          ...segment,
          endedAt: segment.endedAt === null ? segment.startedAt + 60 : segment.endedAt,
        }));
        const totals = new Map<number, DayFigure>();
        for (const figure of [...dailyFigures([...kept, ...removed], timeZone), ...dailyFigureChanges({ removed, added }, timeZone)]) {
          const stored = totals.get(figure.dayStart);
          totals.set(figure.dayStart, {
            ...figure,
            movingSeconds: (stored?.movingSeconds ?? 0) + figure.movingSeconds,
            idleSeconds: (stored?.idleSeconds ?? 0) + figure.idleSeconds,
          });
        }
        const after = [...totals.values()]
          .filter((figure) => figure.movingSeconds + figure.idleSeconds !== 0)
          .sort((a, b) => a.dayStart - b.dayStart);
        expect(after).toEqual(dailyFigures([...kept, ...added], timeZone));
      }),
      { numRuns: 200 },
    );
  });

  it('leaves out days whose change is zero', () => {
    const segment: SegmentInput = { startedAt: 1_767_225_600, endedAt: 1_767_229_200, state: 'idle' };
    expect(dailyFigureChanges({ removed: [segment], added: [segment] }, 'UTC')).toEqual([]);
  });
});
