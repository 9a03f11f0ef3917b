import fc from 'fast-check';
import { Temporal } from 'temporal-polyfill';
import { describe, expect, it } from 'vitest';
import { formatInstant } from './format-instant.js';
import { parseInstant } from './parse-instant.js';

describe('parseInstant()', () => {
  it('parses an instant with a numeric offset or Z into epoch seconds', () => {
    expect(parseInstant('2026-03-08T07:30:00-05:00')).toBe(1_772_973_000);
    expect(parseInstant('2026-03-08T12:30:00Z')).toBe(1_772_973_000);
    expect(parseInstant('2026-03-08T18:15:00+05:45')).toBe(1_772_973_000);
  });

  it('floors a fraction of a second, before and after 1970', () => {
    expect(parseInstant('1970-01-01T00:01:00.900Z')).toBe(60);
    expect(parseInstant('2026-03-08T07:30:00.999-05:00')).toBe(1_772_973_000);
    expect(parseInstant('1969-12-31T23:59:59.5Z')).toBe(-1);
  });

  it('refuses text without an offset, a bare date, or garbage, with a RangeError', () => {
    for (const text of ['2026-03-08T07:30:00', '2026-03-08', 'now', '', '2026-02-30T00:00:00Z']) {
      expect(() => parseInstant(text)).toThrow(RangeError);
    }
    expect(() => parseInstant('2026-03-08T07:30:00')).toThrow(
      'Cannot parse instant "2026-03-08T07:30:00": expected ISO 8601 with an offset, e.g. 2026-03-08T07:30:00-05:00',
    );
  });

  it('refuses a value that is not a string', () => {
    expect(() => parseInstant(1_772_973_000 as unknown as string)).toThrow('Cannot parse instant 1772973000: expected an ISO 8601 string');
  });

  it('reads back what formatInstant() writes (D9)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('America/New_York', 'Asia/Kathmandu', 'Pacific/Chatham', 'UTC', 'Europe/Dublin'),
        fc.integer({ min: -3_000_000_000, max: 4_000_000_000 }),
        (timeZone, instant) => {
          expect(parseInstant(formatInstant(instant, timeZone))).toBe(instant);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('parseInstant(): the common form, read without Temporal', () => {
  const twoDigits = (max: number) => fc.integer({ min: 0, max }).map((value) => String(value).padStart(2, '0'));
  // Text of the common form, valid or not: impossible days (02-30), hours 24, leap seconds, -00:00.
  const commonText = fc
    .record({
      year: fc.integer({ min: 0, max: 9999 }).map((value) => String(value).padStart(4, '0')),
      month: twoDigits(13),
      day: twoDigits(32),
      hour: twoDigits(24),
      minute: twoDigits(60),
      second: twoDigits(60),
      fraction: fc.option(fc.stringMatching(/^[0-9]{1,9}$/), { nil: undefined }),
      offset: fc.oneof(
        fc.constant('Z'),
        fc.tuple(fc.constantFrom('+', '-'), twoDigits(24), twoDigits(60)).map(([sign, hours, minutes]) => `${sign}${hours}:${minutes}`),
      ),
    })
    .map(
      (parts) =>
        `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${parts.fraction === undefined ? '' : `.${parts.fraction}`}${parts.offset}`,
    );

  /** The oracle: Temporal itself, floored to whole seconds, or the refusal. */
  const temporal = (text: string): number | 'refused' => {
    try {
      return Math.floor(Temporal.Instant.from(text).epochMilliseconds / 1000);
    } catch {
      return 'refused';
    }
  };
  const parsed = (text: string): number | 'refused' => {
    try {
      return parseInstant(text);
    } catch (error) {
      expect(error).toBeInstanceOf(RangeError);
      return 'refused';
    }
  };

  it('gives what Temporal.Instant.from gives on random text of the form, valid or not', () => {
    fc.assert(
      fc.property(commonText, (text) => {
        expect(parsed(text)).toBe(temporal(text));
      }),
      { numRuns: 3_000 },
    );
  });

  it('gives what Temporal gives on the named edges: leap day, leap second, year 99, -00:00, 24:00, 30 February', () => {
    for (const text of [
      '2024-02-29T23:59:59Z',
      '2023-02-29T00:00:00Z',
      '2026-02-30T00:00:00Z',
      '2016-12-31T23:59:60Z',
      '0099-06-01T00:00:00Z',
      '0100-03-01T00:00:00+01:00',
      '2026-11-23T15:15:42.000-00:00',
      '2026-11-23T24:00:00Z',
      '2026-11-23T15:15:42.123456789+23:59',
      '1969-12-31T23:59:59.999Z',
    ]) {
      expect(parsed(text), text).toBe(temporal(text));
    }
    expect(parseInstant('2026-11-23T15:15:42.000+00:00')).toBe(Date.UTC(2026, 10, 23, 15, 15, 42) / 1000);
  });
});
