import { describe, expect, it } from 'vitest';
import { UsageError } from './cli-errors.js';
import { durationUnit, formatDuration, readDays, readDuration, readInstantOrNow } from './option-values.js';

describe('readDuration() (D38, D39 on the command line)', () => {
  it('reads hours, minutes and seconds', () => {
    expect(readDuration('250h', '--every')).toBe(900_000);
    expect(readDuration('90m', '--every')).toBe(5_400);
    expect(readDuration('3600s', '--every')).toBe(3_600);
    expect(readDuration(' 12500H ', '--reading')).toBe(45_000_000);
  });

  it('reads decimals exactly, and refuses one that does not come to whole seconds', () => {
    expect(readDuration('1.5h', '--every')).toBe(5_400);
    expect(readDuration('1.1h', '--every')).toBe(3_960);
    expect(readDuration('0.25m', '--every')).toBe(15);
    expect(() => readDuration('0.5s', '--every')).toThrow(/^--every must come to whole seconds, got "0.5s"$/);
    expect(() => readDuration('1.0001h', '--due-soon')).toThrow(/^--due-soon must come to whole seconds, got "1.0001h"$/);
  });

  it('reads a sign, so that the range check of the core names the option (a zero or negative interval exits 1, not 2)', () => {
    expect(readDuration('-5h', '--every')).toBe(-18_000);
    expect(readDuration('+5h', '--every')).toBe(18_000);
    expect(readDuration('0h', '--every')).toBe(0);
  });

  it('refuses a unit it cannot read, no number, spaces inside and an overflow, naming the option', () => {
    for (const text of ['2d', '250 h', 'h', '', '1e3', '1h30m', '.5h', '5.h', 'ten']) {
      expect(() => readDuration(text, '--every'), text).toThrow(UsageError);
      expect(() => readDuration(text, '--every'), text).toThrow(/^--every must be a duration such as 250h, 90m or 3600s, got/);
    }
    expect(() => readDuration('99999999999999999h', '--reading')).toThrow(/^--reading is too long/);
  });

  it('refuses a bare number other than 0, which could be hours as easily as seconds, and says how to give the unit', () => {
    expect(() => readDuration('250', '--every')).toThrow(UsageError);
    expect(() => readDuration('250', '--every')).toThrow(/^--every 250: give a unit: 250h, 250m or 250s$/);
    expect(() => readDuration(' 1.5 ', '--due-soon')).toThrow(/^--due-soon 1.5: give a unit: 1.5h, 1.5m or 1.5s$/);
    // Zero needs no unit: it is zero in every one.
    expect(['0', '0.0', '-0'].map((text) => readDuration(text, '--last-done-hours'))).toEqual([0, 0, 0]);
  });
});

describe('durationUnit() and formatDuration(): what the CLI says back, in the unit the person typed', () => {
  it('finds the unit typed', () => {
    expect(['300h', '300H', ' 90m ', '3600s', '-5h', '1.5h'].map(durationUnit)).toEqual(['h', 'h', 'm', 's', 'h', 'h']);
  });

  it('writes seconds in that unit, exactly, else in the next smaller unit that is exact', () => {
    expect(formatDuration(1_080_000, 'h')).toBe('300h');
    expect(formatDuration(5_400, 'h')).toBe('1.5h');
    expect(formatDuration(5_400, 'm')).toBe('90m');
    expect(formatDuration(5_400, 's')).toBe('5400s');
    expect(formatDuration(3_601, 'h')).toBe('3601s');
    expect(formatDuration(3_630, 'h')).toBe('60.5m');
    expect(formatDuration(-18_000, 'h')).toBe('-5h');
  });
});

describe('readDays() (D39)', () => {
  it('reads a whole number of days with its sign, and the keyword for none', () => {
    expect(readDays('180', '--every-days')).toBe(180);
    expect(readDays('-3', '--every-days')).toBe(-3);
    expect(readDays('None', '--every-days', 'none')).toBeNull();
    expect(readDays('default', '--due-soon-days', 'default')).toBeNull();
  });

  it('refuses anything else naming the option and the keyword', () => {
    expect(() => readDays('none', '--due-soon-days')).toThrow(/^--due-soon-days must be a whole number of days, got "none"$/);
    expect(() => readDays('6mo', '--every-days', 'none')).toThrow(/^--every-days must be a whole number of days or "none", got "6mo"$/);
    expect(() => readDays('1.5', '--every-days')).toThrow(UsageError);
  });
});

describe('readInstantOrNow() (D38, D39)', () => {
  const now = 1_795_618_800;

  it('reads an instant with an offset or Z, dropping a fraction of a second, and now', () => {
    expect(readInstantOrNow('2026-11-20T07:00:00-05:00', '--at', now)).toBe(Date.UTC(2026, 10, 20, 12) / 1000);
    expect(readInstantOrNow('2026-11-20T12:00:00.900Z', '--at', now)).toBe(Date.UTC(2026, 10, 20, 12) / 1000);
    expect(readInstantOrNow('now', '--at', now)).toBe(now);
    expect(readInstantOrNow(' NOW ', '--at', now)).toBe(now);
  });

  it('refuses an instant without an offset, naming the option and saying so', () => {
    for (const text of ['2026-11-20T07:00:00', '2026-11-20 07:00', '2026-11-20']) {
      expect(() => readInstantOrNow(text, '--last-done-at', now), text).toThrow(
        new RegExp(`^--last-done-at "${text}" has no offset: write it with one`),
      );
    }
  });

  it('refuses what is no instant at all', () => {
    expect(() => readInstantOrNow('yesterday', '--at', now)).toThrow(
      /^--at must be an ISO 8601 instant with an offset, e.g. 2026-11-20T07:00:00-05:00, or "now", got "yesterday"$/,
    );
    expect(() => readInstantOrNow('2026-02-30T07:00:00Z', '--at', now)).toThrow(UsageError);
  });
});
