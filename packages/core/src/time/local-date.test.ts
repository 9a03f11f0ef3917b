import fc from 'fast-check';
import { Temporal } from 'temporal-polyfill';
import { describe, expect, it } from 'vitest';
import { InvalidParameterError } from '../errors/errors.js';
import { localDateAt, parseLocalDate, startOfLocalDay } from './local-date.js';
import { daysBetween, intlLocalDate, intlStartOfDay } from '../testing/oracle.js';
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

const refusal = (run: () => unknown): InvalidParameterError => thrownBy(InvalidParameterError, run);

describe('parseLocalDate() (D4, D7)', () => {
  it('parses a strict YYYY-MM-DD date', () => {
    const date = parseLocalDate('from', '2026-03-08');
    expect(date).toBeInstanceOf(Temporal.PlainDate);
    expect(date.toString()).toBe('2026-03-08');
  });

  it('accepts 2024-02-29, a leap day', () => {
    expect(parseLocalDate('to', '2024-02-29').toString()).toBe('2024-02-29');
  });

  it('refuses an impossible date such as 2025-02-30 or 2025-02-29, naming the parameter', () => {
    for (const text of ['2025-02-30', '2025-02-29', '2026-04-31', '2026-13-01', '2026-00-10', '2026-01-00']) {
      const error = refusal(() => parseLocalDate('to', text));
      expect(error.parameter).toBe('to');
      expect(error.message).toBe(`Cannot parse to "${text}": no such day`);
    }
  });

  it('refuses malformed text, naming the parameter', () => {
    for (const text of [
      '',
      '2026-3-8',
      '2026/03/08',
      '20260308',
      '2026-03-08T00:00',
      ' 2026-03-08',
      '2026-03-08 ',
      '2026-03-08\n',
      'yesterday',
      '+2026-03-08',
      '٢٠٢٦-٠٣-٠٨',
    ]) {
      const error = refusal(() => parseLocalDate('from', text));
      expect(error.parameter).toBe('from');
      expect(error.message).toBe(`Cannot parse from "${text}": expected a date as YYYY-MM-DD`);
    }
  });

  it('round-trips every real date', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true }),
        (instant) => {
          const text = instant.toISOString().slice(0, 10);
          expect(parseLocalDate('from', text).toString()).toBe(text);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('startOfLocalDay() (D4)', () => {
  const start = (date: string, timeZone: string) => startOfLocalDay(Temporal.PlainDate.from(date), timeZone);

  it('is local midnight on an ordinary day', () => {
    expect(start('2026-01-15', 'UTC')).toBe(Date.UTC(2026, 0, 15) / 1000);
    expect(start('2026-01-15', 'America/New_York')).toBe(Date.UTC(2026, 0, 15, 5) / 1000);
    expect(start('2026-01-15', 'Asia/Kathmandu')).toBe(Date.UTC(2026, 0, 14, 18, 15) / 1000);
  });

  it('is 01:00 on America/Sao_Paulo 2018-11-04, a day whose midnight does not exist', () => {
    expect(start('2018-11-04', 'America/Sao_Paulo')).toBe(1_541_300_400); // 2018-11-04T01:00:00-02:00
    expect(start('2018-11-04', 'America/Sao_Paulo')).toBe(Date.UTC(2018, 10, 4, 3) / 1000);
  });

  it('is the start of the next day for Pacific/Apia 2011-12-30, a day that does not exist locally', () => {
    expect(start('2011-12-30', 'Pacific/Apia')).toBe(start('2011-12-31', 'Pacific/Apia'));
    expect(start('2011-12-31', 'Pacific/Apia')).toBe(Date.UTC(2011, 11, 30, 10) / 1000); // 2011-12-31T00:00:00+14:00
  });

  it('equals the first instant of the date found by stepping through Intl, in every tested zone', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ZONES), fc.integer({ min: 0, max: 365 * 20 }), (timeZone, offset) => {
        const date = Temporal.PlainDate.from('2010-01-01').add({ days: offset }).toString();
        expect(start(date, timeZone)).toBe(intlStartOfDay(date, timeZone));
      }),
      { numRuns: 150 },
    );
  });
});

describe('localDateAt()', () => {
  it('reads the wall-calendar date of the zone', () => {
    expect(localDateAt(0, 'America/New_York').toString()).toBe('1969-12-31');
    expect(localDateAt(0, 'UTC').toString()).toBe('1970-01-01');
    expect(localDateAt(Date.UTC(2026, 0, 14, 18, 15) / 1000, 'Asia/Kathmandu').toString()).toBe('2026-01-15');
    expect(localDateAt(Date.UTC(2026, 0, 14, 18, 15) / 1000 - 1, 'Asia/Kathmandu').toString()).toBe('2026-01-14');
  });

  it('never shows 2011-12-30 in Pacific/Apia: the last second of the 29th is followed by the 31st', () => {
    const jump = Date.UTC(2011, 11, 30, 10) / 1000;
    expect(localDateAt(jump - 1, 'Pacific/Apia').toString()).toBe('2011-12-29');
    expect(localDateAt(jump, 'Pacific/Apia').toString()).toBe('2011-12-31');
  });

  it('agrees with Intl on random instants in every tested zone', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ZONES), fc.integer({ min: 1_262_304_000, max: 1_893_456_000 }), (timeZone, instant) => {
        expect(localDateAt(instant, timeZone).toString()).toBe(intlLocalDate(instant, timeZone));
      }),
      { numRuns: 300 },
    );
  });
});

// The references: Temporal called directly, as these functions did before they read the zone's
// offsets once per year from a cache.
const temporalStartOfDay = (date: Temporal.PlainDate, timeZone: string) => date.toZonedDateTime({ timeZone }).epochMilliseconds / 1000;
const temporalLocalDate = (epochSeconds: number, timeZone: string) =>
  Temporal.Instant.fromEpochMilliseconds(epochSeconds * 1000)
    .toZonedDateTimeISO(timeZone)
    .toPlainDate();

const ALL_ZONES = [...new Set([...Intl.supportedValuesOf('timeZone'), 'UTC', 'US/Eastern', 'Asia/Calcutta'])];
const FIRST_1900 = Date.UTC(1900, 0, 1) / 1000;
const LAST_2100 = Date.UTC(2100, 11, 31, 23, 59, 59) / 1000;

describe('startOfLocalDay() and localDateAt() from cached zone offsets agree with Temporal', () => {
  it('give the same day starts as Temporal on random dates in every IANA zone from 1900 to 2100 (D4)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ALL_ZONES),
        fc.integer({ min: 0, max: daysBetween('1900-01-01', '2100-12-31') }),
        (timeZone, offset) => {
          const date = Temporal.PlainDate.from('1900-01-01').add({ days: offset });
          expect(startOfLocalDay(date, timeZone)).toBe(temporalStartOfDay(date, timeZone));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('give the same local dates as Temporal at random instants and around day starts in every IANA zone', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ALL_ZONES), fc.integer({ min: FIRST_1900, max: LAST_2100 }), (timeZone, instant) => {
        expect(localDateAt(instant, timeZone)).toEqual(temporalLocalDate(instant, timeZone));
        const dayStart = temporalStartOfDay(temporalLocalDate(instant, timeZone), timeZone);
        for (const around of [dayStart - 1, dayStart, dayStart + 1]) {
          expect(localDateAt(around, timeZone)).toEqual(temporalLocalDate(around, timeZone));
        }
      }),
      { numRuns: 500 },
    );
  });

  it('stay exact after more zone-years were asked for than the bounded cache holds', () => {
    const zones = Intl.supportedValuesOf('timeZone');
    const dates = Array.from({ length: 11 }, (_, index) => Temporal.PlainDate.from({ year: 2020 + index, month: 3, day: 29 }));
    for (let round = 0; round < 2; round += 1) {
      for (const date of dates) {
        for (const timeZone of zones) expect(startOfLocalDay(date, timeZone)).toBe(temporalStartOfDay(date, timeZone));
      }
    }
  }, 60_000);

  it('keep the seconds of local mean time: Europe/Dublin 1906 days start at 00:25:21 UTC (P4)', () => {
    const start = Date.UTC(1906, 5, 1, 0, 25, 21) / 1000;
    expect(startOfLocalDay(Temporal.PlainDate.from('1906-06-01'), 'Europe/Dublin')).toBe(start);
    expect(localDateAt(start, 'Europe/Dublin').toString()).toBe('1906-06-01');
    expect(localDateAt(start - 1, 'Europe/Dublin').toString()).toBe('1906-05-31');
  });

  it('behave as Temporal at and beyond the ends of the usual years, and in another calendar', () => {
    for (const text of ['-000001-12-31', '0000-01-01', '9999-12-31', '+010000-01-01', '+100001-01-01', '-100001-06-30']) {
      for (const timeZone of ['America/New_York', 'Asia/Kathmandu', 'Pacific/Apia', 'UTC']) {
        const date = Temporal.PlainDate.from(text);
        expect(startOfLocalDay(date, timeZone)).toBe(temporalStartOfDay(date, timeZone));
        const instant = temporalStartOfDay(date, timeZone) + 3600;
        expect(localDateAt(instant, timeZone)).toEqual(temporalLocalDate(instant, timeZone));
      }
    }
    const gregory = Temporal.PlainDate.from('2018-11-04').withCalendar('gregory');
    expect(startOfLocalDay(gregory, 'America/Sao_Paulo')).toBe(1_541_300_400);
  });

  it('refuse what Temporal refuses: an unknown zone, a fraction of a second', () => {
    expect(() => startOfLocalDay(Temporal.PlainDate.from('2026-01-01'), 'Mars/Base')).toThrow(RangeError);
    expect(() => localDateAt(0, 'Mars/Base')).toThrow(RangeError);
    expect(() => localDateAt(0.0005, 'UTC')).toThrow(RangeError);
  });
});
