import fc from 'fast-check';
import { Temporal } from 'temporal-polyfill';
import { describe, expect, it } from 'vitest';
import { dayBuckets, type DayBuckets } from './day-buckets.js';
import { formatInstant } from '../time/format-instant.js';
import { parseWindowQuery } from './parse-window-query.js';
import { resolveWindow, type ResolveWindowInput, type ResolvedWindow } from './resolve-window.js';
import { addDays, daysBetween, intlLocalDate } from '../testing/oracle.js';

const ZONES = [
  'America/New_York',
  'America/Sao_Paulo',
  'Australia/Lord_Howe',
  'Asia/Kathmandu',
  'Pacific/Apia',
  'Europe/London',
  'UTC',
  'Pacific/Chatham',
];
const NOW = 1_900_000_000; // 2030: every window below lies in the past

/** resolveWindow over `from` / `to` given as text, parsed first as the HTTP layer does. */
const resolve = ({ from, to, ...rest }: Omit<ResolveWindowInput, 'from' | 'to'> & { from?: string; to?: string }) =>
  resolveWindow({ ...rest, ...parseWindowQuery({ from, to }) });
const lengths = (boundaries: readonly number[]) => boundaries.slice(1).map((boundary, index) => boundary - boundaries[index]!);
const buckets = (timeZone: string, from: string, to: string) => dayBuckets(resolve({ from, to, now: NOW, timeZone }));

describe('dayBuckets() (D8)', () => {
  it('gives one date per local day in ascending order and boundaries that tile the window', () => {
    const window = resolve({ from: '2026-01-30', to: '2026-02-02', now: NOW, timeZone: 'UTC' });
    const { dates, boundaries } = dayBuckets(window);
    expect(dates).toEqual(['2026-01-30', '2026-01-31', '2026-02-01', '2026-02-02']);
    expect(boundaries).toHaveLength(5);
    expect(boundaries[0]).toBe(window.start);
    expect(boundaries[4]).toBe(window.end);
    expect(lengths(boundaries)).toEqual([86_400, 86_400, 86_400, 86_400]);
  });

  it('gives a one-day window one bucket', () => {
    const { dates, boundaries } = buckets('UTC', '2026-01-30', '2026-01-30');
    expect(dates).toEqual(['2026-01-30']);
    expect(lengths(boundaries)).toEqual([86_400]);
  });

  it('ends the last bucket at now when to is missing (D5)', () => {
    const now = Date.UTC(2026, 2, 12, 19, 4, 5) / 1000; // 15:04:05 EDT
    const window = resolve({ from: '2026-03-11', now, timeZone: 'America/New_York' });
    const { dates, boundaries } = dayBuckets(window);
    expect(dates).toEqual(['2026-03-11', '2026-03-12']);
    expect(boundaries).toEqual([Date.UTC(2026, 2, 11, 4) / 1000, Date.UTC(2026, 2, 12, 4) / 1000, now]);
  });

  it('makes today a zero-length bucket when now is the first second of today', () => {
    const now = Date.UTC(2026, 2, 12, 4) / 1000;
    const { dates, boundaries } = dayBuckets(resolve({ from: '2026-03-11', now, timeZone: 'America/New_York' }));
    expect(dates).toEqual(['2026-03-11', '2026-03-12']);
    expect(lengths(boundaries)).toEqual([86_400, 0]);
  });

  describe('named DST cases, exact seconds and day starts', () => {
    it('America/New_York 2026-03-08 is one bucket of 23 hours', () => {
      const { dates, boundaries } = buckets('America/New_York', '2026-03-07', '2026-03-09');
      expect(dates).toEqual(['2026-03-07', '2026-03-08', '2026-03-09']);
      expect(lengths(boundaries)).toEqual([86_400, 82_800, 86_400]);
      expect(boundaries.map((instant) => formatInstant(instant, 'America/New_York'))).toEqual([
        '2026-03-07T00:00:00-05:00',
        '2026-03-08T00:00:00-05:00',
        '2026-03-09T00:00:00-04:00',
        '2026-03-10T00:00:00-04:00',
      ]);
    });

    it('America/New_York 2026-11-01 is one bucket of 25 hours', () => {
      const { dates, boundaries } = buckets('America/New_York', '2026-10-31', '2026-11-02');
      expect(dates).toEqual(['2026-10-31', '2026-11-01', '2026-11-02']);
      expect(lengths(boundaries)).toEqual([86_400, 90_000, 86_400]);
      expect(boundaries.map((instant) => formatInstant(instant, 'America/New_York'))).toEqual([
        '2026-10-31T00:00:00-04:00',
        '2026-11-01T00:00:00-04:00',
        '2026-11-02T00:00:00-05:00',
        '2026-11-03T00:00:00-05:00',
      ]);
    });

    it('America/Sao_Paulo 2018-11-04 starts at 01:00 and is 23 hours', () => {
      const { dates, boundaries } = buckets('America/Sao_Paulo', '2018-11-03', '2018-11-05');
      expect(dates).toEqual(['2018-11-03', '2018-11-04', '2018-11-05']);
      expect(lengths(boundaries)).toEqual([86_400, 82_800, 86_400]);
      expect(boundaries.map((instant) => formatInstant(instant, 'America/Sao_Paulo'))).toEqual([
        '2018-11-03T00:00:00-03:00',
        '2018-11-04T01:00:00-02:00',
        '2018-11-05T00:00:00-02:00',
        '2018-11-06T00:00:00-02:00',
      ]);
    });

    it('America/Sao_Paulo 2019-02-16 is 25 hours: its last hour repeats when clocks go back at midnight', () => {
      const { dates, boundaries } = buckets('America/Sao_Paulo', '2019-02-16', '2019-02-17');
      expect(dates).toEqual(['2019-02-16', '2019-02-17']);
      expect(lengths(boundaries)).toEqual([90_000, 86_400]);
      expect(formatInstant(boundaries[1]!, 'America/Sao_Paulo')).toBe('2019-02-17T00:00:00-03:00');
    });

    it('Australia/Lord_Howe 2026-04-05 (first Sunday of April) is 24.5 hours: a 30-minute shift', () => {
      const { dates, boundaries } = buckets('Australia/Lord_Howe', '2026-04-04', '2026-04-06');
      expect(dates).toEqual(['2026-04-04', '2026-04-05', '2026-04-06']);
      expect(lengths(boundaries)).toEqual([86_400, 88_200, 86_400]);
      expect(boundaries.map((instant) => formatInstant(instant, 'Australia/Lord_Howe'))).toEqual([
        '2026-04-04T00:00:00+11:00',
        '2026-04-05T00:00:00+11:00',
        '2026-04-06T00:00:00+10:30',
        '2026-04-07T00:00:00+10:30',
      ]);
    });

    it('Australia/Lord_Howe 2026-10-04 (first Sunday of October) is 23.5 hours: a 30-minute shift', () => {
      const { dates, boundaries } = buckets('Australia/Lord_Howe', '2026-10-03', '2026-10-05');
      expect(dates).toEqual(['2026-10-03', '2026-10-04', '2026-10-05']);
      expect(lengths(boundaries)).toEqual([86_400, 84_600, 86_400]);
      expect(boundaries.map((instant) => formatInstant(instant, 'Australia/Lord_Howe'))).toEqual([
        '2026-10-03T00:00:00+10:30',
        '2026-10-04T00:00:00+10:30',
        '2026-10-05T00:00:00+11:00',
        '2026-10-06T00:00:00+11:00',
      ]);
    });

    it('Asia/Kathmandu (+05:45) days start at 18:15 UTC and are 24 hours', () => {
      const { dates, boundaries } = buckets('Asia/Kathmandu', '2026-03-07', '2026-03-08');
      expect(dates).toEqual(['2026-03-07', '2026-03-08']);
      expect(boundaries).toEqual([
        Date.UTC(2026, 2, 6, 18, 15) / 1000,
        Date.UTC(2026, 2, 7, 18, 15) / 1000,
        Date.UTC(2026, 2, 8, 18, 15) / 1000,
      ]);
      expect(formatInstant(boundaries[1]!, 'Asia/Kathmandu')).toBe('2026-03-08T00:00:00+05:45');
    });

    it('Pacific/Apia 2011-12-30 does not exist locally: a zero-length bucket between two whole days (P2)', () => {
      const { dates, boundaries } = buckets('Pacific/Apia', '2011-12-29', '2011-12-31');
      expect(dates).toEqual(['2011-12-29', '2011-12-30', '2011-12-31']);
      expect(lengths(boundaries)).toEqual([86_400, 0, 86_400]);
      expect(boundaries.map((instant) => formatInstant(instant, 'Pacific/Apia'))).toEqual([
        '2011-12-29T00:00:00-10:00',
        '2011-12-31T00:00:00+14:00',
        '2011-12-31T00:00:00+14:00',
        '2012-01-01T00:00:00+14:00',
      ]);
    });

    it('UTC days are all 86400 seconds', () => {
      expect(lengths(buckets('UTC', '2026-03-01', '2026-03-31').boundaries).every((length) => length === 86_400)).toBe(true);
    });
  });

  it('puts every boundary at the first instant of its date, checked with Intl, over long windows in random zones', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ZONES),
        fc.integer({ min: 0, max: 365 * 19 }),
        fc.integer({ min: 0, max: 400 }),
        (timeZone, startOffset, length) => {
          const from = addDays('2010-01-01', startOffset);
          const { dates, boundaries } = buckets(timeZone, from, addDays(from, length));
          expect(dates).toHaveLength(Math.min(length, 365) + 1);
          expect(boundaries).toHaveLength(dates.length + 1);
          dates.forEach((date, index) => {
            if (index > 0) expect(date).toBe(addDays(dates[index - 1]!, 1));
            const boundary = boundaries[index]!;
            // The first instant of `date`: on or after it the local date is `date` (or later, for a
            // day that does not exist locally); one second before, it is earlier.
            expect(intlLocalDate(boundary, timeZone) >= date).toBe(true);
            expect(intlLocalDate(boundary - 1, timeZone) < date).toBe(true);
            expect(boundaries[index + 1]! >= boundary).toBe(true);
          });
          const last = dates[dates.length - 1]!;
          expect(intlLocalDate(boundaries[dates.length]! - 1, timeZone) <= last).toBe(true);
          expect(intlLocalDate(boundaries[dates.length]!, timeZone) > last).toBe(true);
        },
      ),
      { numRuns: 40 },
    );
  });
});

/**
 * The reference dayBuckets is checked against: Temporal called for every day, as dayBuckets did
 * before it read the zone's offsets once per year.
 */
function temporalDayBuckets(window: ResolvedWindow): DayBuckets {
  const dayCount = window.toDate.since(window.fromDate).days + 1;
  const dates = [window.fromDate.toString()];
  const boundaries = [window.start];
  for (let date = window.fromDate.add({ days: 1 }); dates.length < dayCount; date = date.add({ days: 1 })) {
    dates.push(date.toString());
    boundaries.push(Math.min(temporalStartOfDay(date, window.timeZone), window.end));
  }
  boundaries.push(window.end);
  return { dates, boundaries };
}

const temporalStartOfDay = (date: Temporal.PlainDate, timeZone: string) => date.toZonedDateTime({ timeZone }).epochMilliseconds / 1000;

// Zones whose days are hard: midnight skipped or repeated, half-hour and 45-minute offsets, a
// skipped date, local mean time with seconds, and no rules at all.
const HARD_ZONES = [
  'America/Sao_Paulo',
  'America/Havana',
  'Asia/Beirut',
  'Asia/Amman',
  'Australia/Lord_Howe',
  'Asia/Kathmandu',
  'Pacific/Apia',
  'Pacific/Chatham',
  'Europe/Dublin',
  'America/New_York',
  'UTC',
];
const ALL_ZONES = [...new Set([...Intl.supportedValuesOf('timeZone'), ...HARD_ZONES])];
const AFTER_2100 = Date.UTC(2101, 6, 1) / 1000; // now for the windows below: all in the past

describe('dayBuckets() computes from cached zone offsets exactly what Temporal gives per day (D4, D8)', () => {
  const compare = (timeZone: string, from: string, to: string) => {
    const window = resolve({ from, to, now: AFTER_2100, timeZone });
    expect(window.start).toBe(temporalStartOfDay(window.fromDate, timeZone));
    expect(window.end).toBe(temporalStartOfDay(window.toDate.add({ days: 1 }), timeZone));
    const result = dayBuckets(window);
    expect(result).toEqual(temporalDayBuckets(window));
    return result;
  };

  it.each([
    // zone, the hard day, its first instant (D9), its length in seconds
    ['America/Havana', '2024-03-10', '2024-03-10T01:00:00-04:00', 82_800], // midnight skipped
    ['America/Havana', '2024-11-03', '2024-11-03T00:00:00-04:00', 90_000], // 00:00–01:00 twice
    ['Asia/Beirut', '2024-03-31', '2024-03-31T01:00:00+03:00', 82_800], // midnight skipped
    ['Asia/Beirut', '2024-10-26', '2024-10-26T00:00:00+03:00', 90_000], // its last hour repeats
    ['Asia/Amman', '2021-03-26', '2021-03-26T01:00:00+03:00', 82_800], // midnight skipped
    ['Asia/Amman', '2021-10-29', '2021-10-29T00:00:00+03:00', 90_000], // midnight twice: the first
    ['America/Sao_Paulo', '2018-11-04', '2018-11-04T01:00:00-02:00', 82_800],
    ['Asia/Kathmandu', '1986-01-01', '1986-01-01T00:15:00+05:45', 85_500], // +05:30 to +05:45 at midnight
    ['Pacific/Apia', '2011-12-30', '2011-12-31T00:00:00+14:00', 0], // P2: the date does not exist
    ['Pacific/Chatham', '2026-04-05', '2026-04-05T00:00:00+13:45', 90_000],
    ['Pacific/Chatham', '2026-09-27', '2026-09-27T00:00:00+12:45', 82_800],
    ['Australia/Lord_Howe', '2026-10-04', '2026-10-04T00:00:00+10:30', 84_600],
    ['Europe/Dublin', '1906-06-01', '1906-06-01T00:00:00-00:25:21', 86_400], // P4: Dublin Mean Time
    ['Europe/Dublin', '1916-05-21', '1916-05-21T00:00:00-00:25:21', 82_800], // to Irish summer time
    ['Europe/Dublin', '1916-10-01', '1916-10-01T00:00:00+00:34:39', 88_479], // to GMT: 24 h 34 min 39 s
    ['America/New_York', '1900-01-01', '1900-01-01T00:00:00-05:00', 86_400],
    ['America/New_York', '2100-03-14', '2100-03-14T00:00:00-05:00', 82_800],
    ['America/New_York', '2100-11-07', '2100-11-07T00:00:00-04:00', 90_000],
    ['UTC', '1900-03-01', '1900-03-01T00:00:00+00:00', 86_400],
  ])('%s %s starts at %s and lasts %i seconds', (timeZone, date, start, length) => {
    const { dates, boundaries } = compare(timeZone, addDays(date, -1), addDays(date, 1));
    expect(dates[1]).toBe(date);
    expect(formatInstant(boundaries[1]!, timeZone)).toBe(start);
    expect(boundaries[2]! - boundaries[1]!).toBe(length);
  });

  it('agrees on the days around every offset change from 1900 to 2100 in the hard zones', () => {
    const last = Temporal.Instant.from('2101-01-01T00:00:00Z');
    for (const timeZone of HARD_ZONES) {
      let zoned: Temporal.ZonedDateTime | null = Temporal.Instant.from('1900-01-01T00:00:00Z').toZonedDateTimeISO(timeZone);
      while ((zoned = zoned.getTimeZoneTransition('next')) !== null && Temporal.Instant.compare(zoned.toInstant(), last) < 0) {
        const date = zoned.toPlainDate().toString();
        compare(timeZone, addDays(date, -2), addDays(date, 2));
      }
    }
  });

  it('agrees over random windows in every IANA zone from 1900 to 2100', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ALL_ZONES),
        fc.integer({ min: 0, max: daysBetween('1900-01-01', '2100-12-31') }),
        fc.integer({ min: 0, max: 400 }),
        (timeZone, startOffset, length) => {
          const from = addDays('1900-01-01', startOffset);
          compare(timeZone, from, addDays(from, length));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('writes dates as Temporal does at the ends of the four-digit years', () => {
    // Windows at the ends of the years never come from a query (P26), but dayBuckets itself is exact there too.
    const windowOf = (timeZone: string, from: string, to: string): ResolvedWindow => {
      const fromDate = Temporal.PlainDate.from(from);
      const toDate = Temporal.PlainDate.from(to);
      const start = temporalStartOfDay(fromDate, timeZone);
      const end = temporalStartOfDay(toDate.add({ days: 1 }), timeZone);
      const text = (instant: number) => formatInstant(instant, timeZone);
      return { timeZone, fromDate, toDate, start, end, reportedTo: end - 1, clamped: false, from: text(start), to: text(end - 1) };
    };
    const early = windowOf('Europe/Dublin', '-000001-12-29', '0000-01-03');
    expect(dayBuckets(early)).toEqual(temporalDayBuckets(early));
    expect(dayBuckets(early).dates).toEqual(['-000001-12-29', '-000001-12-30', '-000001-12-31', '0000-01-01', '0000-01-02', '0000-01-03']);
    const late = windowOf('America/New_York', '9999-12-28', '9999-12-31');
    expect(dayBuckets(late)).toEqual(temporalDayBuckets(late));
    expect(dayBuckets(late).dates).toEqual(['9999-12-28', '9999-12-29', '9999-12-30', '9999-12-31']);
    expect(compare('Asia/Kathmandu', '1900-02-27', '1900-03-01').dates).toEqual(['1900-02-27', '1900-02-28', '1900-03-01']);
    expect(compare('Asia/Kathmandu', '2000-02-28', '2000-03-01').dates).toEqual(['2000-02-28', '2000-02-29', '2000-03-01']);
  });

  it('gives a window of dates in another calendar the same buckets as Temporal', () => {
    const iso = resolve({ from: '2026-03-07', to: '2026-03-09', now: AFTER_2100, timeZone: 'America/New_York' });
    const window = { ...iso, fromDate: iso.fromDate.withCalendar('gregory'), toDate: iso.toDate.withCalendar('gregory') };
    expect(dayBuckets(window)).toEqual(temporalDayBuckets(window));
    expect(lengths(dayBuckets(window).boundaries)).toEqual([86_400, 82_800, 86_400]);
  });
});
