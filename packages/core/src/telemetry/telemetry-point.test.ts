import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidTelemetryPointError, parseTelemetryPoint, type RawTelemetryPoint } from './telemetry-point.js';

const NOW = Date.UTC(2026, 10, 23, 15, 0, 0) / 1000;

function failure(raw: unknown, options: { now: number; maxAheadSeconds?: number } = { now: NOW }): InvalidTelemetryPointError {
  try {
    parseTelemetryPoint(raw as RawTelemetryPoint, options);
  } catch (error) {
    if (error instanceof InvalidTelemetryPointError) return error;
    throw error;
  }
  throw new Error(`Expected ${JSON.stringify(raw)} to be refused`);
}

describe('parseTelemetryPoint() (D20, D26)', () => {
  it('reads an ISO 8601 time with Z or an offset, or epoch seconds, flooring a fraction (P3)', () => {
    expect(parseTelemetryPoint({ time: '2026-11-23T15:00:00.999Z', ignition: true, speed_kmh: 12.5 }, { now: NOW })).toEqual({
      time: NOW,
      ignition: true,
      speedKmh: 12.5,
    });
    expect(parseTelemetryPoint({ time: '2026-11-23T10:00:00-05:00', ignition: false, speed_kmh: 0 }, { now: NOW }).time).toBe(NOW);
    expect(parseTelemetryPoint({ time: NOW - 0.5, ignition: true, speed_kmh: 0 }, { now: NOW }).time).toBe(NOW - 1);
    expect(parseTelemetryPoint({ time: 59.9, ignition: true, speed_kmh: 0 }, { now: NOW }).time).toBe(59);
    expect(parseTelemetryPoint({ time: -0.5, ignition: true, speed_kmh: 0 }, { now: NOW }).time).toBe(-1);
  });

  it('stores a speed of -0 as 0, so equal points compare equal (D21)', () => {
    expect(Object.is(parseTelemetryPoint({ time: 0, ignition: true, speed_kmh: -0 }, { now: NOW }).speedKmh, 0)).toBe(true);
  });

  it('ignores other fields (device_id and imei are the caller’s)', () => {
    expect(
      parseTelemetryPoint({ time: 0, ignition: true, speed_kmh: 3, device_id: 4, imei: 'x' } as RawTelemetryPoint, { now: NOW }),
    ).toEqual({
      time: 0,
      ignition: true,
      speedKmh: 3,
    });
  });

  it('names the field of a missing value', () => {
    expect(failure({ ignition: true, speed_kmh: 0 })).toMatchObject({ field: 'time', message: 'time is missing' });
    expect(failure({ time: '', ignition: true, speed_kmh: 0 })).toMatchObject({ field: 'time', message: 'time is missing' });
    expect(failure({ time: 0, speed_kmh: 0 })).toMatchObject({ field: 'ignition', message: 'ignition is missing' });
    expect(failure({ time: 0, ignition: null, speed_kmh: 0 })).toMatchObject({ field: 'ignition', message: 'ignition is missing' });
    expect(failure({ time: 0, ignition: true })).toMatchObject({ field: 'speed_kmh', message: 'speed_kmh is missing' });
    expect(failure(null)).toMatchObject({ field: 'time', message: 'time is missing' });
  });

  it('refuses a speed that is not a finite number ≥ 0, quoting it as the ingestion API shows', () => {
    expect(failure({ time: 0, ignition: true, speed_kmh: -3 })).toMatchObject({
      field: 'speed_kmh',
      message: 'speed_kmh must be a number ≥ 0, got -3',
    });
    expect(failure({ time: 0, ignition: true, speed_kmh: '12' }).message).toBe('speed_kmh must be a number ≥ 0, got "12"');
    expect(failure({ time: 0, ignition: true, speed_kmh: Number.NaN }).message).toBe('speed_kmh must be a number ≥ 0, got NaN');
    expect(failure({ time: 0, ignition: true, speed_kmh: Number.POSITIVE_INFINITY }).message).toBe(
      'speed_kmh must be a number ≥ 0, got Infinity',
    );
  });

  it('refuses a speed that is not finite, whatever its sign or source (D37)', () => {
    // JSON cannot write NaN or Infinity, but 1e400 parses to Infinity.
    expect(failure({ time: 0, ignition: true, speed_kmh: JSON.parse('1e400') as number })).toMatchObject({
      field: 'speed_kmh',
      message: 'speed_kmh must be a number ≥ 0, got Infinity',
    });
    expect(failure({ time: 0, ignition: true, speed_kmh: Number.NEGATIVE_INFINITY })).toMatchObject({
      field: 'speed_kmh',
      message: 'speed_kmh must be a number ≥ 0, got -Infinity',
    });
    expect(failure({ time: 0, ignition: true, speed_kmh: Number.NaN }).field).toBe('speed_kmh');
    expect(parseTelemetryPoint({ time: 0, ignition: true, speed_kmh: Number.MAX_VALUE }, { now: NOW }).speedKmh).toBe(Number.MAX_VALUE);
  });

  it('refuses an ignition that is not a boolean', () => {
    expect(failure({ time: 0, ignition: 'true', speed_kmh: 0 })).toMatchObject({
      field: 'ignition',
      message: 'ignition must be true or false, got "true"',
    });
    expect(failure({ time: 0, ignition: 1, speed_kmh: 0 }).message).toBe('ignition must be true or false, got 1');
  });

  it('refuses a time that is neither an ISO 8601 instant with an offset nor finite epoch seconds', () => {
    const message = (value: string) => `time must be an ISO 8601 instant with an offset or epoch seconds, got ${value}`;
    expect(failure({ time: '2026-11-23T15:00:00', ignition: true, speed_kmh: 0 })).toMatchObject({
      field: 'time',
      message: message('"2026-11-23T15:00:00"'),
    });
    expect(failure({ time: 'yesterday', ignition: true, speed_kmh: 0 }).message).toBe(message('"yesterday"'));
    expect(failure({ time: true, ignition: true, speed_kmh: 0 }).message).toBe(message('true'));
    expect(failure({ time: Number.NaN, ignition: true, speed_kmh: 0 }).message).toBe(message('NaN'));
    expect(failure({ time: { at: 1 }, ignition: true, speed_kmh: 0 }).message).toBe(message('{"at":1}'));
    expect(failure({ time: 'x'.repeat(100), ignition: true, speed_kmh: 0 }).message).toBe(message(`"${'x'.repeat(56)}...`));
  });

  it('refuses a time before 0001-01-02T00:00:00Z, the first date the read API serves, or after 9999-12-30 (D37, D50)', () => {
    const message = (shown: string) => `time must be an instant from 0001-01-02T00:00:00Z to 9999-12-30T23:59:59Z, got ${shown}`;
    const first = Date.parse('0001-01-02T00:00:00Z') / 1000;
    expect(parseTelemetryPoint({ time: first, ignition: true, speed_kmh: 0 }, { now: NOW }).time).toBe(first);
    expect(parseTelemetryPoint({ time: '0001-01-02T00:00:00Z', ignition: true, speed_kmh: 0 }, { now: NOW }).time).toBe(first);
    expect(failure({ time: first - 1, ignition: true, speed_kmh: 0 })).toMatchObject({
      field: 'time',
      message: message(String(first - 1)),
    });
    // The first day of the year 0001: stored, it made a meter `since` in the year 0000 west of Greenwich.
    expect(failure({ time: '0001-01-01T00:00:00Z', ignition: true, speed_kmh: 0 })).toMatchObject({
      field: 'time',
      message: message('"0001-01-01T00:00:00Z"'),
    });
    expect(failure({ time: '0001-01-02T00:00:00+00:01', ignition: true, speed_kmh: 0 }).field).toBe('time');
    expect(failure({ time: '-000001-12-31T23:59:59Z', ignition: true, speed_kmh: 0 }).message).toBe(message('"-000001-12-31T23:59:59Z"'));
    expect(failure({ time: 1e300, ignition: true, speed_kmh: 0 }).message).toBe(message('1e+300'));
    expect(failure({ time: -1e300, ignition: true, speed_kmh: 0 }).message).toBe(message('-1e+300'));
    // The upper bound, with a clock that far ahead so only the range speaks.
    const last = Date.parse('9999-12-30T23:59:59Z') / 1000;
    expect(parseTelemetryPoint({ time: '9999-12-30T23:59:59.5Z', ignition: true, speed_kmh: 0 }, { now: last }).time).toBe(last);
    for (const time of ['9999-12-31T00:00:00Z', '+010000-01-01T00:00:00Z']) {
      expect(failure({ time, ignition: true, speed_kmh: 0 }, { now: last + 100_000 }).message).toBe(message(`"${time}"`));
    }
  });

  it('refuses a time more than 300 s ahead of now, and accepts one exactly 300 s ahead (D26)', () => {
    expect(parseTelemetryPoint({ time: NOW + 300, ignition: true, speed_kmh: 0 }, { now: NOW }).time).toBe(NOW + 300);
    expect(parseTelemetryPoint({ time: NOW + 300.9, ignition: true, speed_kmh: 0 }, { now: NOW }).time).toBe(NOW + 300);
    // The clock is floored too (P3): 0.999 s past NOW is still NOW.
    expect(failure({ time: NOW + 301, ignition: true, speed_kmh: 0 }, { now: NOW + 0.999 }).field).toBe('time');
    expect(failure({ time: NOW + 301, ignition: true, speed_kmh: 0 })).toMatchObject({
      field: 'time',
      message: `time must be at most 300 s ahead of the server clock, got ${NOW + 301} (301 s ahead)`,
    });
    expect(failure({ time: '2026-11-23T15:10:00Z', ignition: true, speed_kmh: 0 }).message).toBe(
      'time must be at most 300 s ahead of the server clock, got "2026-11-23T15:10:00Z" (600 s ahead)',
    );
    expect(failure({ time: NOW + 61, ignition: true, speed_kmh: 0 }, { now: NOW, maxAheadSeconds: 60 }).message).toMatch(
      /^time must be at most 60 s ahead/,
    );
    // Old points are fine: trackers upload buffers late (D20).
    expect(parseTelemetryPoint({ time: 0, ignition: true, speed_kmh: 0 }, { now: NOW }).time).toBe(0);
  });

  it('refuses options that make no sense', () => {
    expect(() => parseTelemetryPoint({ time: 0, ignition: true, speed_kmh: 0 }, { now: Number.NaN })).toThrow(
      'Option now must be epoch seconds, got NaN',
    );
    expect(() => parseTelemetryPoint({ time: 0, ignition: true, speed_kmh: 0 }, { now: 0, maxAheadSeconds: -1 })).toThrow(RangeError);
  });

  it('accepts exactly the points whose fields are in range, on random input', () => {
    const value = fc.oneof(fc.double(), fc.integer(), fc.boolean(), fc.string(), fc.constant(null), fc.constant(undefined));
    fc.assert(
      fc.property(
        fc.record({
          time: fc.oneof(fc.double({ min: -1e12, max: 1e12 }), value),
          ignition: value,
          speed_kmh: fc.oneof(fc.double(), value),
        }),
        (raw) => {
          const valid =
            typeof raw.time === 'number' &&
            Number.isFinite(raw.time) &&
            Math.floor(raw.time) >= -62_135_596_800 &&
            Math.floor(raw.time) <= NOW + 300 &&
            typeof raw.ignition === 'boolean' &&
            typeof raw.speed_kmh === 'number' &&
            raw.speed_kmh >= 0 &&
            Number.isFinite(raw.speed_kmh);
          if (typeof raw.time === 'string') return; // Reading ISO text is parseInstant's, tested there.
          if (valid) {
            expect(parseTelemetryPoint(raw, { now: NOW })).toEqual({
              time: Math.floor(raw.time as number) + 0,
              ignition: raw.ignition,
              speedKmh: (raw.speed_kmh as number) + 0,
            });
          } else {
            expect(() => parseTelemetryPoint(raw, { now: NOW })).toThrow(InvalidTelemetryPointError);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
