import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assertEpochSeconds } from './assert-epoch-seconds.js';

describe('assertEpochSeconds()', () => {
  it('takes whole epoch seconds from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z', () => {
    // The limits from the JavaScript date parser, not from the implementation's constants.
    const earliest = new Date('0001-01-01T00:00:00Z').getTime() / 1000;
    const latest = new Date('9999-12-31T23:59:59Z').getTime() / 1000;
    for (const value of [earliest, latest, 0, -1, 1_767_225_600]) expect(() => assertEpochSeconds('now', value)).not.toThrow();
    expect(() => assertEpochSeconds('now', earliest - 1)).toThrow(RangeError);
    expect(() => assertEpochSeconds('now', latest + 1)).toThrow(RangeError);
  });

  it('refuses milliseconds, naming the field and saying it looks like milliseconds', () => {
    const ms = Date.UTC(2026, 0, 2); // what Date.now() + 86_400_000 gives on 2026-01-01
    expect(() => assertEpochSeconds('expiresAt', ms)).toThrow(
      new RangeError(
        'expiresAt must be epoch seconds between the years 0001 and 9999, got "1767312000000": it looks like milliseconds ("1767312000" in seconds)',
      ),
    );
    // A fraction of a millisecond (performance.timeOrigin + performance.now()) is still milliseconds.
    expect(() => assertEpochSeconds('now', ms + 0.25)).toThrow(/^now must be .* it looks like milliseconds \("1767312000" in seconds\)$/);
  });

  it('every millisecond count of an instant from 1979 to 9999 is refused as milliseconds', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('1979-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }),
        (date) => {
          expect(() => assertEpochSeconds('now', date.getTime())).toThrow(/looks like milliseconds/);
          expect(() => assertEpochSeconds('now', Math.floor(date.getTime() / 1000))).not.toThrow();
        },
      ),
    );
  });

  it('a value beyond the range that is not milliseconds either gets no hint', () => {
    expect(() => assertEpochSeconds('end', 1e21)).toThrow(
      new RangeError('end must be epoch seconds between the years 0001 and 9999, got "1e+21"'),
    );
  });

  it('a value just before the year 0001 is too early, not milliseconds', () => {
    expect(() => assertEpochSeconds('started_at', -62_135_604_000)).toThrow(
      new RangeError('started_at must be epoch seconds between the years 0001 and 9999, got "-62135604000"'),
    );
  });

  it('refuses fractions, NaN, infinities and non-numbers', () => {
    expect(() => assertEpochSeconds('now', 1.5)).toThrow(new RangeError('now must be whole epoch seconds, got "1.5"'));
    expect(() => assertEpochSeconds('now', Number.NaN)).toThrow(new RangeError('now must be whole epoch seconds, got "NaN"'));
    expect(() => assertEpochSeconds('start', Number.NEGATIVE_INFINITY)).toThrow(
      new RangeError('start must be whole epoch seconds, got "-Infinity"'),
    );
    expect(() => assertEpochSeconds('now', '1767225600' as unknown as number)).toThrow(
      new RangeError('now must be whole epoch seconds, got a string'),
    );
    expect(() => assertEpochSeconds('now', null as unknown as number)).toThrow(new RangeError('now must be whole epoch seconds, got null'));
  });
});
