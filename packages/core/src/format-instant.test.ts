import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatInstant } from './format-instant.js';
import { intlFormatInstant } from './testing/_oracle.js';

const ZONES = ['America/New_York', 'America/Sao_Paulo', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'Pacific/Apia', 'Europe/London', 'UTC', 'Pacific/Chatham', 'America/St_Johns'];

describe('formatInstant() (D9)', () => {
  it('shows the wall clock of the zone with its numeric offset', () => {
    expect(formatInstant(1_772_946_000, 'America/New_York')).toBe('2026-03-08T00:00:00-05:00');
    expect(formatInstant(1_773_028_799, 'America/New_York')).toBe('2026-03-08T23:59:59-04:00');
  });

  it('shows UTC as +00:00, never Z', () => {
    expect(formatInstant(0, 'UTC')).toBe('1970-01-01T00:00:00+00:00');
    expect(formatInstant(1_767_225_600, 'UTC')).toBe('2026-01-01T00:00:00+00:00');
  });

  it('shows a +05:45 offset (Asia/Kathmandu)', () => {
    expect(formatInstant(1_767_204_900, 'Asia/Kathmandu')).toBe('2026-01-01T00:00:00+05:45');
  });

  it('shows a -03:30 offset (America/St_Johns) and a +13:45 offset (Pacific/Chatham)', () => {
    expect(formatInstant(Date.UTC(2026, 0, 15, 3, 30) / 1000, 'America/St_Johns')).toBe('2026-01-15T00:00:00-03:30');
    expect(formatInstant(Date.UTC(2026, 0, 14, 10, 15) / 1000, 'Pacific/Chatham')).toBe('2026-01-15T00:00:00+13:45');
  });

  it('floors a fraction of a second to whole seconds', () => {
    expect(formatInstant(59.999, 'UTC')).toBe('1970-01-01T00:00:59+00:00');
    expect(formatInstant(-0.5, 'UTC')).toBe('1969-12-31T23:59:59+00:00');
  });

  it('keeps the seconds of a historic offset (Europe/Dublin mean time, -00:25:21) so the text stays exact (P4)', () => {
    expect(formatInstant(-2_000_000_000, 'Europe/Dublin')).toBe('1906-08-16T20:01:19-00:25:21');
  });

  it('agrees with Intl on random instants in every tested zone', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ZONES), fc.integer({ min: 1_262_304_000, max: 1_893_456_000 }), (timeZone, instant) => {
        expect(formatInstant(instant, timeZone)).toBe(intlFormatInstant(instant, timeZone));
      }),
      { numRuns: 300 },
    );
  });
});
