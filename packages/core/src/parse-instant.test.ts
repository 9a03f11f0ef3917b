import fc from 'fast-check';
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
