import { describe, expect, it } from 'vitest';
import { FleetHoursError, InvalidFieldError } from '../errors/errors.js';
import { thrownBy } from '../testing/refusal.js';
import { CALENDAR_EXCEPTIONS_MAX, CALENDAR_WINDOWS_MAX, checkCalendarReadOnly, readWorkCalendarBody } from './calendar-body.js';
import { WEEKDAYS } from './work-calendar.js';

const DAY = [['07:00', '17:00']];
const WEEKLY = { mon: DAY, tue: DAY, wed: DAY, thu: DAY, fri: DAY, sat: [['07:00', '12:00']], sun: [] };
const body = (fields: Record<string, unknown> = {}) => ({ weekly: WEEKLY, ...fields });
const week = (day: unknown) => ({ weekly: { ...WEEKLY, mon: day } });
/** The field a refusal names, and that the message names it too. */
const refusedField = (input: unknown) => {
  const error = thrownBy(InvalidFieldError, () => readWorkCalendarBody(input));
  expect(error.code).toBe('invalid_field');
  expect(error.message).toContain(error.field.replace(/^weekly\.(\w+)$/, '$1'));
  return error.field;
};

describe('readWorkCalendarBody (D58, P111)', () => {
  it("D58: reads the contract's calendar: every day, windows crossing midnight, a whole day, exceptions sorted by date", () => {
    const exceptions = [
      { date: '2026-12-25', windows: [] },
      { date: '2026-12-24', windows: [['07:00', '12:00']] },
    ];
    const weekly = { ...WEEKLY, fri: [['22:00', '06:00']], sat: [['00:00', '24:00']] };
    expect(readWorkCalendarBody({ weekly, exceptions })).toEqual({
      calendar: { weekly, exceptions: [exceptions[1], exceptions[0]] },
      readOnly: {},
    });
    expect(Object.keys(readWorkCalendarBody(body()).calendar!.weekly)).toEqual([...WEEKDAYS]);
    expect(readWorkCalendarBody(body()).calendar!.exceptions).toEqual([]);
  });

  it('P111: JSON null removes the calendar; the read-only fields are kept aside to compare', () => {
    expect(readWorkCalendarBody(null)).toEqual({ calendar: null, readOnly: {} });
    expect(readWorkCalendarBody(body({ timezone: 'UTC', version: 3, source: 'device' })).readOnly).toEqual({
      timezone: 'UTC',
      version: 3,
      source: 'device',
    });
  });

  it('P111: windows that touch, and a crossing window beside a morning one, do not overlap', () => {
    expect(
      readWorkCalendarBody(
        week([
          ['12:00', '17:00'],
          ['07:00', '12:00'],
        ]),
      ).calendar!.weekly.mon,
    ).toHaveLength(2);
    expect(
      readWorkCalendarBody(
        week([
          ['01:00', '05:00'],
          ['22:00', '01:00'],
        ]),
      ).calendar!.weekly.mon,
    ).toHaveLength(2);
    expect(
      readWorkCalendarBody(
        week([
          ['17:00', '24:00'],
          ['00:00', '17:00'],
        ]),
      ).calendar!.weekly.mon,
    ).toHaveLength(2);
  });

  it('P111: a body that is not an object nor null is 400 invalid_body', () => {
    for (const input of [[], 'calendar', 3, true])
      expect(thrownBy(FleetHoursError, () => readWorkCalendarBody(input)).code).toBe('invalid_body');
  });

  it('P111: each refusal names its field by its path', () => {
    expect(refusedField({ weekly: WEEKLY, holidays: [] })).toBe('holidays');
    expect(refusedField({})).toBe('weekly');
    expect(refusedField({ weekly: [] })).toBe('weekly');
    expect(refusedField({ weekly: { ...WEEKLY, sun: undefined } })).toBe('weekly.sun');
    expect(refusedField({ weekly: { ...WEEKLY, monday: [] } })).toBe('weekly.monday');
    expect(refusedField(week('07:00-17:00'))).toBe('weekly.mon');
    expect(refusedField(week([['07:00', '12:00'], ['07:00']]))).toBe('weekly.mon[1]');
    expect(refusedField(week([['07:00', '12:00', '13:00']]))).toBe('weekly.mon[0]');
    expect(refusedField(week([['7:00', '12:00']]))).toBe('weekly.mon[0][0]');
    expect(refusedField(week([['24:00', '12:00']]))).toBe('weekly.mon[0][0]');
    expect(refusedField(week([['07:60', '12:00']]))).toBe('weekly.mon[0][0]');
    expect(refusedField(week([[700, '12:00']]))).toBe('weekly.mon[0][0]');
    expect(refusedField(week([['07:00', '24:01']]))).toBe('weekly.mon[0][1]');
    expect(refusedField(week([['07:00', '25:00']]))).toBe('weekly.mon[0][1]');
    expect(
      refusedField(
        week([
          ['07:00', '12:00'],
          ['08:00', '08:00'],
        ]),
      ),
    ).toBe('weekly.mon[1][1]');
    expect(refusedField(week([['00:00', '00:00']]))).toBe('weekly.mon[0][1]');
    expect(refusedField(body({ exceptions: {} }))).toBe('exceptions');
    expect(refusedField(body({ exceptions: ['2026-12-25'] }))).toBe('exceptions[0]');
    expect(refusedField(body({ exceptions: [{ date: '2026-12-25', windows: [], note: 'x' }] }))).toBe('exceptions[0].note');
    expect(refusedField(body({ exceptions: [{ windows: [] }] }))).toBe('exceptions[0].date');
    expect(refusedField(body({ exceptions: [{ date: '2026-02-30', windows: [] }] }))).toBe('exceptions[0].date');
    expect(refusedField(body({ exceptions: [{ date: '2026-1-05', windows: [] }] }))).toBe('exceptions[0].date');
    expect(refusedField(body({ exceptions: [{ date: '2026-12-25' }] }))).toBe('exceptions[0].windows');
    expect(
      refusedField(
        body({
          exceptions: [
            { date: '2026-12-24', windows: [] },
            { date: '2026-12-25', windows: [['24:00', '01:00']] },
          ],
        }),
      ),
    ).toBe('exceptions[1].windows[0][0]');
  });

  it('P111: windows of one day that overlap name the later one; a crossing window overlaps the evening', () => {
    expect(
      refusedField(
        week([
          ['07:00', '12:00'],
          ['11:00', '13:00'],
        ]),
      ),
    ).toBe('weekly.mon[1]');
    expect(
      refusedField(
        week([
          ['11:00', '13:00'],
          ['07:00', '12:00'],
        ]),
      ),
    ).toBe('weekly.mon[1]');
    expect(
      refusedField(
        week([
          ['22:00', '06:00'],
          ['23:00', '23:30'],
        ]),
      ),
    ).toBe('weekly.mon[1]');
    expect(
      refusedField(
        week([
          ['07:00', '17:00'],
          ['08:00', '09:00'],
          ['10:00', '11:00'],
        ]),
      ),
    ).toBe('weekly.mon[1]');
    const holiday = {
      date: '2026-12-24',
      windows: [
        ['07:00', '12:00'],
        ['08:00', '09:00'],
      ],
    };
    expect(refusedField(body({ exceptions: [holiday] }))).toBe('exceptions[0].windows[1]');
  });

  it('P111: a date twice names the second; more than the bounds is refused', () => {
    const day = (date: string) => ({ date, windows: [] });
    expect(refusedField(body({ exceptions: [day('2026-12-25'), day('2026-12-24'), day('2026-12-25')] }))).toBe('exceptions[2].date');
    const hours = Array.from({ length: CALENDAR_WINDOWS_MAX + 1 }, (_, hour) => [
      `${String(hour).padStart(2, '0')}:00`,
      `${String(hour).padStart(2, '0')}:30`,
    ]);
    expect(readWorkCalendarBody(week(hours.slice(0, CALENDAR_WINDOWS_MAX))).calendar!.weekly.mon).toHaveLength(CALENDAR_WINDOWS_MAX);
    expect(refusedField(week(hours))).toBe('weekly.mon');
    const dates = Array.from({ length: CALENDAR_EXCEPTIONS_MAX + 1 }, (_, index) =>
      day(new Date(Date.UTC(2026, 0, 1 + index)).toISOString().slice(0, 10)),
    );
    expect(readWorkCalendarBody(body({ exceptions: dates.slice(0, CALENDAR_EXCEPTIONS_MAX) })).calendar!.exceptions).toHaveLength(
      CALENDAR_EXCEPTIONS_MAX,
    );
    expect(refusedField(body({ exceptions: dates }))).toBe('exceptions');
  });
});

describe('checkCalendarReadOnly (P111)', () => {
  const shown = { timezone: 'America/New_York', version: 3, source: 'device' };
  it('accepts the fields left out, or given with the values shown now', () => {
    expect(() => checkCalendarReadOnly({}, shown)).not.toThrow();
    expect(() => checkCalendarReadOnly(shown, shown)).not.toThrow();
    expect(() => checkCalendarReadOnly({ timezone: null }, { ...shown, timezone: null })).not.toThrow();
  });
  it('refuses another value, naming the field', () => {
    expect(thrownBy(InvalidFieldError, () => checkCalendarReadOnly({ timezone: 'UTC' }, shown)).field).toBe('timezone');
    const version = thrownBy(InvalidFieldError, () => checkCalendarReadOnly({ version: 2 }, shown));
    expect([version.field, version.message]).toEqual(['version', expect.stringContaining('If-Match')]);
    expect(thrownBy(InvalidFieldError, () => checkCalendarReadOnly({ source: 'account' }, shown)).field).toBe('source');
  });
});
