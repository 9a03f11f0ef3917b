import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dayBuckets } from './day-buckets.js';
import { formatInstant } from './format-instant.js';
import { resolveWindow } from './resolve-window.js';
import { addDays, intlLocalDate } from './testing/_oracle.js';

const ZONES = ['America/New_York', 'America/Sao_Paulo', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'Pacific/Apia', 'Europe/London', 'UTC', 'Pacific/Chatham'];
const NOW = 1_900_000_000; // 2030: every window below lies in the past

const lengths = (boundaries: readonly number[]) => boundaries.slice(1).map((boundary, index) => boundary - boundaries[index]!);
const buckets = (timeZone: string, from: string, to: string) => dayBuckets(resolveWindow({ from, to, now: NOW, timeZone }));

describe('dayBuckets() (D8)', () => {
  it('gives one date per local day in ascending order and boundaries that tile the window', () => {
    const window = resolveWindow({ from: '2026-01-30', to: '2026-02-02', now: NOW, timeZone: 'UTC' });
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
    const window = resolveWindow({ from: '2026-03-11', now, timeZone: 'America/New_York' });
    const { dates, boundaries } = dayBuckets(window);
    expect(dates).toEqual(['2026-03-11', '2026-03-12']);
    expect(boundaries).toEqual([Date.UTC(2026, 2, 11, 4) / 1000, Date.UTC(2026, 2, 12, 4) / 1000, now]);
  });

  it('makes today a zero-length bucket when now is the first second of today', () => {
    const now = Date.UTC(2026, 2, 12, 4) / 1000;
    const { dates, boundaries } = dayBuckets(resolveWindow({ from: '2026-03-11', now, timeZone: 'America/New_York' }));
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
      expect(boundaries).toEqual([Date.UTC(2026, 2, 6, 18, 15) / 1000, Date.UTC(2026, 2, 7, 18, 15) / 1000, Date.UTC(2026, 2, 8, 18, 15) / 1000]);
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
