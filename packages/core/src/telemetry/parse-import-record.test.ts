import { describe, expect, it } from 'vitest';
import { parseSegmentRecord, parseTelemetryRecord, type ImportRecord } from './parse-import-record.js';

const errorOf = (run: () => unknown): Error => {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected an error');
};

describe('parseSegmentRecord() (D1)', () => {
  it('reads an NDJSON object with instants carrying an offset', () => {
    expect(parseSegmentRecord({ started_at: '2026-03-08T07:30:00-05:00', ended_at: '2026-03-08T12:31:00Z', state: 'moving' })).toEqual({
      startedAt: 1_772_973_000,
      endedAt: 1_772_973_060,
      state: 'moving',
    });
  });

  it('reads a segment still running from ended_at null, absent or empty (a CSV cell)', () => {
    const open = { startedAt: 0, endedAt: null, state: 'idle' };
    expect(parseSegmentRecord({ started_at: '1970-01-01T00:00:00Z', ended_at: null, state: 'idle' })).toEqual(open);
    expect(parseSegmentRecord({ started_at: '1970-01-01T00:00:00Z', state: 'idle' })).toEqual(open);
    expect(parseSegmentRecord({ started_at: '1970-01-01T00:00:00Z', ended_at: '  ', state: 'idle' })).toEqual(open);
  });

  it('trims CSV cells and floors fractional seconds', () => {
    expect(parseSegmentRecord({ started_at: ' 1970-01-01T00:00:00.9Z ', ended_at: '1970-01-01T00:01:00.2Z', state: ' idle ' })).toEqual({
      startedAt: 0,
      endedAt: 60,
      state: 'idle',
    });
  });

  it('names the field at fault', () => {
    expect(errorOf(() => parseSegmentRecord({ ended_at: null, state: 'idle' })).message).toBe('Field started_at is missing');
    expect(errorOf(() => parseSegmentRecord({ started_at: '2026-03-08T07:30:00', state: 'idle' })).message).toBe(
      'Field started_at "2026-03-08T07:30:00" is not an ISO 8601 instant with an offset',
    );
    expect(errorOf(() => parseSegmentRecord({ started_at: '1970-01-01T00:00:00Z', ended_at: 'soon', state: 'idle' })).message).toBe(
      'Field ended_at "soon" is not an ISO 8601 instant with an offset',
    );
    expect(errorOf(() => parseSegmentRecord({ started_at: '1970-01-01T00:00:00Z', state: 'parked' })).message).toBe(
      'Field state must be "moving" or "idle", got "parked"',
    );
    expect(errorOf(() => parseSegmentRecord({ started_at: '1970-01-01T00:00:00Z' })).message).toBe('Field state is missing');
  });

  it('says a value of the wrong type is wrong, not missing (epoch numbers are not instants)', () => {
    const error = errorOf(() => parseSegmentRecord({ started_at: 1_772_973_000, state: 'idle' }));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toBe('Field started_at must be text, got 1772973000');
    expect(errorOf(() => parseSegmentRecord({ started_at: '1970-01-01T00:00:00Z', state: true })).message).toBe(
      'Field state must be text, got true',
    );
  });

  it('refuses an ended_at not after started_at', () => {
    const error = errorOf(() =>
      parseSegmentRecord({ started_at: '1970-01-01T00:01:00Z', ended_at: '1970-01-01T00:01:00Z', state: 'idle' }),
    );
    expect(error).toBeInstanceOf(RangeError);
    expect(error.message).toBe('Field ended_at must be after started_at');
  });

  it('refuses a record that is not an object with a TypeError', () => {
    for (const record of [null, [], 'started_at', 5]) {
      const error = errorOf(() => parseSegmentRecord(record as unknown as ImportRecord));
      expect(error).toBeInstanceOf(TypeError);
      expect(error.message).toBe('Expected an object with named fields');
    }
  });
});

describe('parseTelemetryRecord() (D2)', () => {
  it('reads an NDJSON object with a boolean ignition and a numeric speed', () => {
    expect(parseTelemetryRecord({ time: '1970-01-01T00:01:00Z', ignition: true, speed_kmh: 12.5 })).toEqual({
      time: 60,
      ignition: true,
      speedKmh: 12.5,
    });
  });

  it('reads a CSV row: ignition true/false/1/0 in any case, speed as decimal text', () => {
    const row = (ignition: string, speed: string) => parseTelemetryRecord({ time: '1970-01-01T00:01:00Z', ignition, speed_kmh: speed });
    expect(row('true', '12.5')).toEqual({ time: 60, ignition: true, speedKmh: 12.5 });
    expect(row('TRUE', '0')).toEqual({ time: 60, ignition: true, speedKmh: 0 });
    expect(row(' 1 ', ' 7 ')).toEqual({ time: 60, ignition: true, speedKmh: 7 });
    expect(row('False', '.5')).toEqual({ time: 60, ignition: false, speedKmh: 0.5 });
    expect(row('0', '1e2')).toEqual({ time: 60, ignition: false, speedKmh: 100 });
  });

  it('refuses an ignition that is not true or false, naming the field', () => {
    for (const ignition of ['yes', 'on', '', 2, null, undefined]) {
      const error = errorOf(() => parseTelemetryRecord({ time: '1970-01-01T00:00:00Z', ignition, speed_kmh: '0' }));
      expect(error).toBeInstanceOf(TypeError);
      expect(error.message).toMatch(/^Field ignition must be true or false, got /);
    }
  });

  it('refuses a speed that is negative, missing or not plain decimal notation', () => {
    for (const speed of [
      '-1',
      -1,
      '',
      '   ',
      'fast',
      '0x10',
      '0b1',
      'Infinity',
      Number.NaN,
      Number.POSITIVE_INFINITY,
      null,
      undefined,
      '5 km/h',
    ]) {
      const error = errorOf(() => parseTelemetryRecord({ time: '1970-01-01T00:00:00Z', ignition: 'true', speed_kmh: speed }));
      expect(error).toBeInstanceOf(RangeError);
      expect(error.message).toMatch(/^Field speed_kmh must be a number ≥ 0, got /);
    }
  });

  it('names a time that is missing, not an instant, or a number', () => {
    expect(errorOf(() => parseTelemetryRecord({ ignition: true, speed_kmh: 0 })).message).toBe('Field time is missing');
    expect(errorOf(() => parseTelemetryRecord({ time: 'noon', ignition: true, speed_kmh: 0 })).message).toBe(
      'Field time "noon" is not an ISO 8601 instant with an offset',
    );
    expect(errorOf(() => parseTelemetryRecord({ time: 60, ignition: true, speed_kmh: 0 })).message).toBe('Field time must be text, got 60');
  });

  it("refuses a time before 0001-01-02T00:00:00Z, the read API's first date, and a speed that is not finite (D37)", () => {
    const early = errorOf(() => parseTelemetryRecord({ time: '0001-01-01T23:59:59Z', ignition: true, speed_kmh: 0 }));
    expect(early).toBeInstanceOf(RangeError);
    expect(early.message).toBe(
      'Field time must be an instant from 0001-01-02T00:00:00Z to 9999-12-30T23:59:59Z, got "0001-01-01T23:59:59Z"',
    );
    expect(parseTelemetryRecord({ time: '0001-01-02T00:00:00Z', ignition: true, speed_kmh: 0 }).time).toBe(
      Date.parse('0001-01-02T00:00:00Z') / 1000,
    );
    for (const speed of ['1e400', JSON.parse('1e400') as number, Number.NEGATIVE_INFINITY, 'NaN']) {
      expect(errorOf(() => parseTelemetryRecord({ time: '1970-01-01T00:00:00Z', ignition: 'true', speed_kmh: speed })).message).toMatch(
        /^Field speed_kmh must be a number ≥ 0, got /,
      );
    }
  });
});
