import fc from 'fast-check';
import { Temporal } from 'temporal-polyfill';
import { describe, expect, it } from 'vitest';
import { checkHourMeterReading } from '../maintenance/hour-meter.js';
import { checkServiceSchedule } from '../maintenance/service-status.js';
import { parseSegmentRecord, parseTelemetryRecord } from '../telemetry/parse-import-record.js';
import { parseTelemetryPoint } from '../telemetry/telemetry-point.js';
import { formatInstant } from './format-instant.js';
import { EARLIEST_GIVEN_INSTANT, givenInstantRangeMessage, isGivenInstantInRange, LATEST_GIVEN_INSTANT } from './instant-floor.js';
import { parseInstant } from './parse-instant.js';

// The oracle's edges, read by Temporal rather than taken from the code under test.
const FIRST = Number(Temporal.Instant.from('0001-01-02T00:00:00Z').epochMilliseconds / 1000);
const LAST = Number(Temporal.Instant.from('9999-12-30T23:59:59Z').epochMilliseconds / 1000);
// The widest offsets of tzdb (local mean times of Manila, Juneau, Metlakatla) and the everyday ones.
const ZONES = [
  'UTC',
  'America/New_York',
  'Asia/Manila',
  'America/Juneau',
  'America/Metlakatla',
  'Pacific/Kiritimati',
  'Etc/GMT+12',
  'Asia/Kolkata',
];

/** Whole epoch seconds of `text` as Temporal reads it (a fraction floored), or `null` when Temporal refuses it. */
function oracleSeconds(text: string): number | null {
  try {
    const nanoseconds = Temporal.Instant.from(text).epochNanoseconds;
    const seconds = nanoseconds / 1_000_000_000n - (nanoseconds % 1_000_000_000n < 0n ? 1n : 0n);
    return Number(seconds);
  } catch {
    return null;
  }
}

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

/** Instants as a person types them, crowded at both ends of the range: 4-digit and extended years, odd days, any offset. */
const typedInstant = fc
  .record({
    year: fc.oneof(
      fc.integer({ min: 0, max: 2 }).map((year) => pad(year, 4)),
      fc.integer({ min: 9998, max: 9999 }).map((year) => pad(year, 4)),
      fc.integer({ min: 1900, max: 2100 }).map((year) => pad(year, 4)),
      fc.constantFrom('-000001', '+000000', '+000001', '+009999', '+010000'),
    ),
    month: fc.integer({ min: 1, max: 12 }),
    day: fc.oneof(fc.constantFrom(1, 2, 30, 31), fc.integer({ min: 1, max: 31 })),
    hour: fc.integer({ min: 0, max: 23 }),
    minute: fc.integer({ min: 0, max: 59 }),
    second: fc.integer({ min: 0, max: 59 }),
    fraction: fc.option(fc.stringMatching(/^[0-9]{1,9}$/), { nil: undefined }),
    offset: fc.oneof(
      fc.constant('Z'),
      fc
        .record({ sign: fc.constantFrom('+', '-'), hours: fc.integer({ min: 0, max: 23 }), minutes: fc.constantFrom(0, 30, 59) })
        .map(({ sign, hours, minutes }) => `${sign}${pad(hours)}:${pad(minutes)}`),
    ),
  })
  .map(
    ({ year, month, day, hour, minute, second, fraction, offset }) =>
      `${year}-${pad(month)}-${pad(day)}T${pad(hour)}:${pad(minute)}:${pad(second)}${fraction === undefined ? '' : `.${fraction}`}${offset}`,
  );

/** Each entry that reads a typed instant, as the core exposes it: its epoch seconds, or the refusal. */
const ENTRIES: readonly { readonly field: string; readonly read: (text: string) => number }[] = [
  { field: 'started_at', read: (text) => parseSegmentRecord({ started_at: text, ended_at: null, state: 'idle' }).startedAt },
  { field: 'ended_at', read: (text) => parseSegmentRecord({ started_at: '0001-01-02T00:00:00Z', ended_at: text, state: 'idle' }).endedAt! },
  { field: 'time', read: (text) => parseTelemetryRecord({ time: text, ignition: true, speed_kmh: 0 }).time },
  // The wire's clock far ahead, so that only the range decides.
  {
    field: 'time',
    read: (text) => parseTelemetryPoint({ time: text, ignition: true, speed_kmh: 0 }, { now: 1e12, maxAheadSeconds: 1e12 }).time,
  },
];

describe('the one range of every instant a person gives (D50)', () => {
  it('D50 runs from 0001-01-02T00:00:00Z to 9999-12-30T23:59:59Z, both taken', () => {
    expect([EARLIEST_GIVEN_INSTANT, LATEST_GIVEN_INSTANT]).toEqual([FIRST, LAST]);
    for (const [instant, taken] of [
      [FIRST - 1, false],
      [FIRST, true],
      [0, true],
      [LAST, true],
      [LAST + 1, false],
      [Number.NaN, false],
    ] as const) {
      expect(isGivenInstantInRange(instant), String(instant)).toBe(taken);
    }
    expect(givenInstantRangeMessage('--at', '"0001-01-01T00:00:00Z"')).toBe(
      '--at must be an instant from 0001-01-02T00:00:00Z to 9999-12-30T23:59:59Z, got "0001-01-01T00:00:00Z"',
    );
  });

  it("D50 named cases: the issue's 0001-01-01, a fraction before the floor, the year 0000, the last second, the year 10000", () => {
    const refused = [
      '0001-01-01T00:00:00Z',
      '0001-01-01T23:59:59.999Z',
      '0001-01-02T00:00:00+00:01',
      '0000-06-01T00:00:00Z',
      '9999-12-31T00:00:00Z',
      '+010000-01-01T00:00:00Z',
    ];
    for (const text of refused) {
      expect(() => parseSegmentRecord({ started_at: text, ended_at: null, state: 'moving' }), text).toThrow(
        `Field started_at must be an instant from 0001-01-02T00:00:00Z to 9999-12-30T23:59:59Z, got "${text}"`,
      );
    }
    expect(parseTelemetryRecord({ time: '0001-01-02T00:00:00Z', ignition: true, speed_kmh: 0 }).time).toBe(FIRST);
    expect(parseTelemetryRecord({ time: '9999-12-30T23:59:59.999Z', ignition: true, speed_kmh: 0 }).time).toBe(LAST);
    expect(formatInstant(FIRST, 'America/New_York')).toBe('0001-01-01T19:03:58-04:56:02');
    expect(formatInstant(LAST, 'Asia/Manila')).toMatch(/^9999-12-31T/);
  });

  it('D50 a reading or a last service outside the range is refused naming read_at or last_done_at, before the future is looked at', () => {
    const now = 1_790_000_000;
    expect(() => checkHourMeterReading({ readAt: FIRST - 1, readingSeconds: 0 }, now)).toThrow(
      `read_at must be an instant from 0001-01-02T00:00:00Z to 9999-12-30T23:59:59Z, got ${FIRST - 1}`,
    );
    expect(() => checkHourMeterReading({ readAt: FIRST, readingSeconds: 0 }, now)).not.toThrow();
    const schedule = {
      ...{ deviceId: 1, name: 'Oil', intervalSeconds: 3600, intervalDays: null, dueSoonSeconds: null, dueSoonDays: null },
      ...{ lastDoneAt: LAST + 1, lastDoneHourMeterSeconds: null },
    };
    expect(() => checkServiceSchedule(schedule, LAST + 10)).toThrow(
      `last_done_at must be an instant from 0001-01-02T00:00:00Z to 9999-12-30T23:59:59Z, got ${LAST + 1}`,
    );
  });

  it("D50 property: any instant a person types is refused naming the field, or round-trips exactly through the API's formatting, never in the year 0000", () => {
    fc.assert(
      fc.property(typedInstant, fc.constantFrom(...ENTRIES), fc.constantFrom(...ZONES), (text, entry, timeZone) => {
        const expected = oracleSeconds(text);
        const taken = expected !== null && expected >= FIRST && expected <= LAST;
        let seconds: number;
        try {
          seconds = entry.read(text);
        } catch (error) {
          expect(taken, `${text} refused: ${(error as Error).message}`).toBe(false);
          expect((error as Error).message).toMatch(new RegExp(`^(Field )?${entry.field} `));
          return;
        }
        expect(taken, `${text} taken as ${seconds}`).toBe(true);
        expect(seconds).toBe(expected);
        const shown = formatInstant(seconds, timeZone);
        // Four digits of a year from 0001 to 9999: never 0000, never a sign.
        expect(shown).toMatch(/^(?!0000)\d{4}-/);
        expect(parseInstant(shown)).toBe(seconds);
      }),
      { numRuns: 400 },
    );
  });
});
