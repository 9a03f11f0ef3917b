import fc from 'fast-check';
import { Temporal } from 'temporal-polyfill';
import { describe, expect, it } from 'vitest';
import { formatInstant } from './format-instant.js';
import { intlFormatInstant } from '../testing/oracle.js';

// 1900-01-01 to 2100-01-01, UTC.
const FROM_1900 = -2_208_988_800;
const TO_2100 = 4_102_444_800;
const ALL_ZONES = [...new Set([...Intl.supportedValuesOf('timeZone'), 'UTC', 'Europe/Dublin', 'Pacific/Apia', 'Asia/Calcutta'])];

/** The D9 text read from Temporal per call, field by field, with the offset to the second. */
function temporalFormatInstant(epochSeconds: number, timeZone: string): string {
  const zoned = Temporal.Instant.fromEpochMilliseconds(Math.floor(epochSeconds) * 1000).toZonedDateTimeISO(timeZone);
  const offset = zoned.offsetNanoseconds / 1e9;
  const absolute = Math.abs(offset);
  const two = (value: number) => String(value).padStart(2, '0');
  const seconds = absolute % 60 === 0 ? '' : `:${two(absolute % 60)}`;
  return `${zoned.toPlainDateTime().toString()}${offset < 0 ? '-' : '+'}${two(Math.floor(absolute / 3600))}:${two(Math.floor(absolute / 60) % 60)}${seconds}`;
}

const ZONES = [
  'America/New_York',
  'America/Sao_Paulo',
  'Australia/Lord_Howe',
  'Asia/Kathmandu',
  'Pacific/Apia',
  'Europe/London',
  'UTC',
  'Pacific/Chatham',
  'America/St_Johns',
];

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

  it('agrees with Temporal per call over every IANA zone and random instants 1900–2100, offsets with seconds included (P4)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ALL_ZONES), fc.integer({ min: FROM_1900, max: TO_2100 }), (timeZone, instant) => {
        expect(formatInstant(instant, timeZone)).toBe(temporalFormatInstant(instant, timeZone));
      }),
      { numRuns: 2000 },
    );
  });

  it('agrees with Intl over every IANA zone and random instants 1900–2100', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ALL_ZONES), fc.integer({ min: FROM_1900, max: TO_2100 }), (timeZone, instant) => {
        expect(formatInstant(instant, timeZone)).toBe(intlFormatInstant(instant, timeZone));
      }),
      { numRuns: 1000 },
    );
  });

  it('agrees with Temporal a second either side of every offset transition of sampled zones', () => {
    for (const timeZone of [
      'Europe/Dublin',
      'America/Sao_Paulo',
      'Pacific/Apia',
      'Australia/Lord_Howe',
      'Africa/Monrovia',
      'America/St_Johns',
    ]) {
      let zoned: Temporal.ZonedDateTime | null = Temporal.Instant.fromEpochMilliseconds(FROM_1900 * 1000).toZonedDateTimeISO(timeZone);
      while (zoned !== null && zoned.epochMilliseconds < TO_2100 * 1000) {
        const at = zoned.epochMilliseconds / 1000;
        for (const instant of [at - 1, at, at + 1]) expect(formatInstant(instant, timeZone)).toBe(temporalFormatInstant(instant, timeZone));
        zoned = zoned.getTimeZoneTransition('next');
      }
    }
  });

  it('writes years outside 0–9999 with a sign and six digits, through Temporal beyond years ±100,000', () => {
    expect(formatInstant(4_000_000_000_000, 'UTC')).toBe(temporalFormatInstant(4_000_000_000_000, 'UTC'));
    expect(formatInstant(-62_198_755_200, 'UTC')).toBe('-000001-01-01T00:00:00+00:00');
  });

  it('refuses an unknown zone with a RangeError', () => {
    expect(() => formatInstant(0, 'Mars/Olympus_Mons')).toThrow(RangeError);
  });
});
