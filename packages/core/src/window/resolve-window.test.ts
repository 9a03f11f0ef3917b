import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Temporal } from 'temporal-polyfill';
import { InvalidParameterError } from '../errors/errors.js';
import { parseWindowQuery } from './parse-window-query.js';
import { resolveWindow, type ResolveWindowInput } from './resolve-window.js';
import { addDays, intlFormatInstant, intlLocalDate, oracleWindow } from '../testing/oracle.js';
import { thrownBy } from '../testing/refusal.js';

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
const NY = 'America/New_York';
/** 2026-03-12T15:04:05-04:00, a Thursday. */
const NOW = Date.UTC(2026, 2, 12, 19, 4, 5) / 1000;

/** The input as a query gives it: `from` and `to` as text, parsed once by `parseWindowQuery` (D7). */
type QueryInput = Omit<ResolveWindowInput, 'from' | 'to'> & { readonly from?: string | undefined; readonly to?: string | undefined };

/** `resolveWindow()` of a query's dates, as the service runs it. */
const resolve = ({ from, to, ...rest }: QueryInput) => resolveWindow({ ...rest, ...parseWindowQuery({ from, to }) });

const refusal = (input: QueryInput): InvalidParameterError => thrownBy(InvalidParameterError, () => resolve(input));

describe('resolveWindow()', () => {
  describe('dates (D4)', () => {
    it('resolves from to the start of its day and to to the last second of its day', () => {
      const window = resolve({ from: '2026-01-05', to: '2026-01-06', now: NOW, timeZone: NY });
      expect(window.fromDate.toString()).toBe('2026-01-05');
      expect(window.toDate.toString()).toBe('2026-01-06');
      expect(window.start).toBe(Date.UTC(2026, 0, 5, 5) / 1000);
      expect(window.end).toBe(Date.UTC(2026, 0, 7, 5) / 1000);
      expect(window.reportedTo).toBe(window.end - 1);
      expect(window.from).toBe('2026-01-05T00:00:00-05:00');
      expect(window.to).toBe('2026-01-06T23:59:59-05:00');
      expect(window.clamped).toBe(false);
      expect(window.timeZone).toBe(NY);
    });

    it('accepts from equal to to: one whole day', () => {
      const window = resolve({ from: '2026-01-05', to: '2026-01-05', now: NOW, timeZone: 'UTC' });
      expect(window.end - window.start).toBe(86_400);
      expect([window.from, window.to]).toEqual(['2026-01-05T00:00:00+00:00', '2026-01-05T23:59:59+00:00']);
    });

    it('resolves a to in the future to the end of that day, not to now', () => {
      const window = resolve({ from: '2026-03-12', to: '2026-03-14', now: NOW, timeZone: NY });
      expect(window.end).toBe(Date.UTC(2026, 2, 15, 4) / 1000);
      expect(window.to).toBe('2026-03-14T23:59:59-04:00');
    });
  });

  describe('defaults (D5)', () => {
    it('without from and to, ends now and starts at the local date seven days before today (P5)', () => {
      const window = resolve({ now: NOW, timeZone: NY });
      expect(window.toDate.toString()).toBe('2026-03-12');
      expect(window.fromDate.toString()).toBe('2026-03-05');
      expect(window.start).toBe(Date.UTC(2026, 2, 5, 5) / 1000);
      expect(window.end).toBe(NOW);
      expect(window.reportedTo).toBe(NOW);
      expect(window.from).toBe('2026-03-05T00:00:00-05:00');
      expect(window.to).toBe('2026-03-12T15:04:05-04:00');
    });

    it('floors a fractional now to the whole second, for the end and the reported to', () => {
      const window = resolve({ now: NOW + 0.999, timeZone: NY });
      expect(window.end).toBe(NOW);
      expect(window.to).toBe('2026-03-12T15:04:05-04:00');
    });

    it('takes "today" in the device zone: the same instant is a different date in Kathmandu and New York', () => {
      const lateEvening = Date.UTC(2026, 2, 12, 20, 0) / 1000; // 16:00 in New York, 01:45 next day in Kathmandu
      expect(resolve({ now: lateEvening, timeZone: NY }).toDate.toString()).toBe('2026-03-12');
      expect(resolve({ now: lateEvening, timeZone: 'Asia/Kathmandu' }).toDate.toString()).toBe('2026-03-13');
    });

    it('without from but with to, starts seven local days before to', () => {
      const window = resolve({ to: '2026-02-10', now: NOW, timeZone: NY });
      expect(window.fromDate.toString()).toBe('2026-02-03');
      expect(window.to).toBe('2026-02-10T23:59:59-05:00');
    });

    it('with from but without to, ends now', () => {
      const window = resolve({ from: '2026-03-01', now: NOW, timeZone: NY });
      expect(window.from).toBe('2026-03-01T00:00:00-05:00');
      expect(window.end).toBe(NOW);
      expect(window.to).toBe('2026-03-12T15:04:05-04:00');
    });

    it('takes defaultDays as an option', () => {
      expect(resolve({ now: NOW, timeZone: NY, defaultDays: 0 }).fromDate.toString()).toBe('2026-03-12');
      expect(resolve({ now: NOW, timeZone: NY, defaultDays: 30 }).fromDate.toString()).toBe('2026-02-10');
    });
  });

  describe('clamp (D6)', () => {
    it('clamps a from older than 365 days to the local date of to minus 365 days', () => {
      const window = resolve({ from: '2020-01-01', to: '2026-03-08', now: NOW, timeZone: NY });
      expect(window.clamped).toBe(true);
      expect(window.fromDate.toString()).toBe('2025-03-08');
      expect(window.from).toBe('2025-03-08T00:00:00-05:00');
      expect(window.to).toBe('2026-03-08T23:59:59-04:00');
    });

    it('keeps a from exactly 365 days back, and raises one 366 days back by one day', () => {
      const exact = resolve({ from: '2025-03-08', to: '2026-03-08', now: NOW, timeZone: NY });
      expect([exact.clamped, exact.fromDate.toString()]).toEqual([false, '2025-03-08']);
      const over = resolve({ from: '2025-03-07', to: '2026-03-08', now: NOW, timeZone: NY });
      expect([over.clamped, over.fromDate.toString()]).toEqual([true, '2025-03-08']);
    });

    it('clamps against today when to is missing, and never refuses for length', () => {
      const window = resolve({ from: '1970-01-01', now: NOW, timeZone: NY });
      expect(window.clamped).toBe(true);
      expect(window.fromDate.toString()).toBe('2025-03-12');
      expect(window.end).toBe(NOW);
    });

    it('counts the 365 days over a leap day by the calendar', () => {
      const window = resolve({ from: '2000-01-01', to: '2024-12-31', now: NOW, timeZone: 'UTC' });
      expect(window.fromDate.toString()).toBe('2024-01-01');
    });

    it('takes maxDays as an option', () => {
      const window = resolve({ from: '2026-01-01', to: '2026-01-31', now: NOW, timeZone: 'UTC', maxDays: 10 });
      expect([window.clamped, window.fromDate.toString()]).toEqual([true, '2026-01-21']);
    });

    it('never starts before 0001-01-02, the first supported date, even by default or by the clamp (P26)', () => {
      const byDefault = resolve({ to: '0001-01-04', now: NOW, timeZone: 'Pacific/Kiritimati' });
      expect([byDefault.clamped, byDefault.fromDate.toString()]).toEqual([true, '0001-01-02']);
      expect(byDefault.start).toBeGreaterThanOrEqual(-62_135_596_800);
      const byLength = resolve({ from: '0001-01-02', to: '0001-12-31', now: NOW, timeZone: 'UTC', maxDays: 30 });
      expect(byLength.fromDate.toString()).toBe('0001-12-01');
    });
  });

  describe("bad input (D7; malformed, impossible and repeated dates are parseWindowQuery()'s)", () => {
    it('refuses a from after to, naming from, also when given dates directly', () => {
      const error = refusal({ from: '2026-03-09', to: '2026-03-08', now: NOW, timeZone: NY });
      expect(error).toBeInstanceOf(InvalidParameterError);
      expect(error.parameter).toBe('from');
      expect(error.message).toBe('Parameter from "2026-03-09" is after to "2026-03-08"');
      const date = (text: string) => Temporal.PlainDate.from(text);
      expect(() => resolveWindow({ from: date('2026-03-09'), to: date('2026-03-08'), now: NOW, timeZone: NY })).toThrow(
        'Parameter from "2026-03-09" is after to "2026-03-08"',
      );
    });

    it('refuses a from after today when to is missing', () => {
      const error = refusal({ from: '2026-03-13', now: NOW, timeZone: NY });
      expect(error.parameter).toBe('from');
      expect(error.message).toBe('Parameter from "2026-03-13" is after today (2026-03-12) in America/New_York');
    });

    it('checks from after to after the clamp: a clamped from is never after to', () => {
      expect(() => resolve({ from: '1900-01-01', to: '2026-03-08', now: NOW, timeZone: NY })).not.toThrow();
    });
  });

  describe('DST and odd zones, exact seconds and text', () => {
    const cases: { name: string; timeZone: string; date: string; seconds: number; from: string; to: string }[] = [
      {
        name: 'America/New_York 2026-03-08 is 23 hours',
        timeZone: NY,
        date: '2026-03-08',
        seconds: 82_800,
        from: '2026-03-08T00:00:00-05:00',
        to: '2026-03-08T23:59:59-04:00',
      },
      {
        name: 'America/New_York 2026-11-01 is 25 hours',
        timeZone: NY,
        date: '2026-11-01',
        seconds: 90_000,
        from: '2026-11-01T00:00:00-04:00',
        to: '2026-11-01T23:59:59-05:00',
      },
      {
        name: 'America/Sao_Paulo 2018-11-04 starts at 01:00 and is 23 hours',
        timeZone: 'America/Sao_Paulo',
        date: '2018-11-04',
        seconds: 82_800,
        from: '2018-11-04T01:00:00-02:00',
        to: '2018-11-04T23:59:59-02:00',
      },
      {
        name: 'Australia/Lord_Howe 2026-04-05 is 24.5 hours (30-minute shift back)',
        timeZone: 'Australia/Lord_Howe',
        date: '2026-04-05',
        seconds: 88_200,
        from: '2026-04-05T00:00:00+11:00',
        to: '2026-04-05T23:59:59+10:30',
      },
      {
        name: 'Australia/Lord_Howe 2026-10-04 is 23.5 hours (30-minute shift forward)',
        timeZone: 'Australia/Lord_Howe',
        date: '2026-10-04',
        seconds: 84_600,
        from: '2026-10-04T00:00:00+10:30',
        to: '2026-10-04T23:59:59+11:00',
      },
      {
        name: 'Asia/Kathmandu (+05:45) is 24 hours',
        timeZone: 'Asia/Kathmandu',
        date: '2026-03-08',
        seconds: 86_400,
        from: '2026-03-08T00:00:00+05:45',
        to: '2026-03-08T23:59:59+05:45',
      },
      {
        name: 'UTC is 24 hours, shown as +00:00',
        timeZone: 'UTC',
        date: '2026-03-08',
        seconds: 86_400,
        from: '2026-03-08T00:00:00+00:00',
        to: '2026-03-08T23:59:59+00:00',
      },
    ];
    for (const { name, timeZone, date, seconds, from, to } of cases) {
      it(`resolves one day in ${name}`, () => {
        const window = resolve({ from: date, to: date, now: NOW, timeZone });
        expect(window.end - window.start).toBe(seconds);
        expect(window.from).toBe(from);
        expect(window.to).toBe(to);
      });
    }

    it('resolves Pacific/Apia 2011-12-30, a day that does not exist locally, to zero seconds; its to is the second before its from', () => {
      const window = resolve({ from: '2011-12-30', to: '2011-12-30', now: NOW, timeZone: 'Pacific/Apia' });
      expect(window.end - window.start).toBe(0);
      expect(window.start).toBe(Date.UTC(2011, 11, 30, 10) / 1000);
      expect(window.from).toBe('2011-12-31T00:00:00+14:00');
      expect(window.to).toBe('2011-12-29T23:59:59-10:00');
    });

    it('resolves Pacific/Apia 2011-12-29..31 to two whole days (172800 s)', () => {
      const window = resolve({ from: '2011-12-29', to: '2011-12-31', now: NOW, timeZone: 'Pacific/Apia' });
      expect(window.end - window.start).toBe(172_800);
      expect([window.from, window.to]).toEqual(['2011-12-29T00:00:00-10:00', '2011-12-31T23:59:59+14:00']);
    });
  });

  describe('against an Intl oracle', () => {
    const today = (now: number, timeZone: string) => intlLocalDate(now, timeZone);

    it('applies dates, defaults and refusals like the oracle in random zones (D4–D7)', () => {
      fc.assert(
        fc.property(
          fc.constantFrom(...ZONES),
          fc.integer({ min: 1_262_304_000, max: 1_893_456_000 }),
          fc.option(fc.integer({ min: -40, max: 3 }), { nil: undefined }),
          fc.option(fc.integer({ min: -2, max: 20 }), { nil: undefined }),
          (timeZone, now, toOffset, fromBack) => {
            const to = toOffset === undefined ? undefined : addDays(today(now, timeZone), toOffset);
            const from = fromBack === undefined ? undefined : addDays(to ?? today(now, timeZone), -fromBack);
            const expected = oracleWindow({ from, to, now, timeZone });
            if (expected.refused) {
              expect(refusal({ from, to, now, timeZone }).parameter).toBe('from');
              return;
            }
            const window = resolve({ from, to, now, timeZone });
            expect(window.fromDate.toString()).toBe(expected.fromDate);
            expect(window.toDate.toString()).toBe(expected.toDate);
            expect(window.start).toBe(expected.start);
            expect(window.end).toBe(expected.end);
            expect(window.reportedTo).toBe(expected.reportedTo);
            expect(window.from).toBe(intlFormatInstant(expected.start, timeZone));
            expect(window.to).toBe(intlFormatInstant(expected.reportedTo, timeZone));
          },
        ),
        { numRuns: 200 },
      );
    });

    it('clamps long windows to 365 local days before to, like the oracle (D6)', () => {
      fc.assert(
        fc.property(
          fc.constantFrom(...ZONES),
          fc.integer({ min: 1_262_304_000, max: 1_893_456_000 }),
          fc.option(fc.integer({ min: -400, max: 0 }), { nil: undefined }),
          fc.integer({ min: 300, max: 3000 }),
          (timeZone, now, toOffset, fromBack) => {
            const to = toOffset === undefined ? undefined : addDays(today(now, timeZone), toOffset);
            const from = addDays(to ?? today(now, timeZone), -fromBack);
            const expected = oracleWindow({ from, to, now, timeZone });
            if (expected.refused) throw new Error('a long window is never refused');
            const window = resolve({ from, to, now, timeZone });
            expect(window.clamped).toBe(fromBack > 365);
            expect(window.clamped).toBe(expected.clamped);
            expect(window.fromDate.toString()).toBe(expected.fromDate);
            expect(window.start).toBe(expected.start);
            expect(window.end).toBe(expected.end);
            expect(window.from).toBe(intlFormatInstant(expected.start, timeZone));
          },
        ),
        { numRuns: 150 },
      );
    });
  });
});
