import fc from 'fast-check';
import { Temporal } from 'temporal-polyfill';
import { describe, expect, it } from 'vitest';
import { calendarIntervalsOn, calendarWindowsOn, scheduleOfDay, type ScheduledInterval } from './calendar-schedule.js';
import type { CalendarWindow } from './work-calendar.js';
import { formatInstant } from '../time/format-instant.js';
import { ALL_ZONES, arbitraryCalendar, calendarOf, IntlWallClock, oracleWindowsOf } from '../testing/calendar-oracle.js';
import { addDays } from '../testing/oracle.js';

/** Intervals as the zone's wall clock writes them, for reading the named cases. */
const shown = (intervals: readonly ScheduledInterval[], timeZone: string) =>
  intervals.map(({ start, end }) => [formatInstant(start, timeZone), formatInstant(end, timeZone), end - start]);

describe('calendarWindowsOn() (D58)', () => {
  const calendar = calendarOf({ thu: [['07:00', '17:00']], sat: [['07:00', '12:00']] }, [
    { date: '2026-12-24', windows: [['07:00', '12:00']] },
    { date: '2026-12-31', windows: [] },
  ]);

  it("gives a date its weekday's windows, or its exception's (a short day, a holiday)", () => {
    expect(calendarWindowsOn(calendar, '2026-12-17')).toEqual([['07:00', '17:00']]); // a Thursday
    expect(calendarWindowsOn(calendar, '2026-12-19')).toEqual([['07:00', '12:00']]); // a Saturday
    expect(calendarWindowsOn(calendar, '2026-12-20')).toEqual([]); // a Sunday
    expect(calendarWindowsOn(calendar, '2026-12-24')).toEqual([['07:00', '12:00']]);
    expect(calendarWindowsOn(calendar, '2026-12-31')).toEqual([]);
  });

  it('refuses what is not a date', () => {
    expect(() => calendarWindowsOn(calendar, '24.12.2026')).toThrow(RangeError);
  });
});

describe('calendarIntervalsOn() and scheduleOfDay() (D58)', () => {
  const on = (windows: readonly CalendarWindow[], date: string, timeZone: string) =>
    shown(calendarIntervalsOn(calendarOf(windows), date, timeZone), timeZone);

  it('reads a plain day in the wall time of the zone', () => {
    expect(on([['07:00', '17:00']], '2026-06-01', 'America/New_York')).toEqual([
      ['2026-06-01T07:00:00-04:00', '2026-06-01T17:00:00-04:00', 36_000],
    ]);
    expect(on([['07:00', '17:00']], '2026-06-01', 'Asia/Kathmandu')).toEqual([
      ['2026-06-01T07:00:00+05:45', '2026-06-01T17:00:00+05:45', 36_000],
    ]);
  });

  it('America/New_York 2026-03-08: a window over the skipped hour is an hour shorter; a start inside it is the first instant after it', () => {
    expect(on([['01:00', '04:00']], '2026-03-08', 'America/New_York')).toEqual([
      ['2026-03-08T01:00:00-05:00', '2026-03-08T04:00:00-04:00', 7200],
    ]);
    expect(on([['02:30', '05:00']], '2026-03-08', 'America/New_York')).toEqual([
      ['2026-03-08T03:00:00-04:00', '2026-03-08T05:00:00-04:00', 7200],
    ]);
    expect(on([['01:00', '02:30']], '2026-03-08', 'America/New_York')).toEqual([
      ['2026-03-08T01:00:00-05:00', '2026-03-08T03:00:00-04:00', 3600],
    ]);
    expect(on([['02:00', '02:30']], '2026-03-08', 'America/New_York')).toEqual([]); // wholly skipped: no instant
  });

  it('America/New_York 2026-11-01: a start in the repeated hour is its first occurrence, an end its second', () => {
    expect(on([['01:00', '02:00']], '2026-11-01', 'America/New_York')).toEqual([
      ['2026-11-01T01:00:00-04:00', '2026-11-01T02:00:00-05:00', 7200],
    ]);
    expect(on([['00:00', '01:30']], '2026-11-01', 'America/New_York')).toEqual([
      ['2026-11-01T00:00:00-04:00', '2026-11-01T01:30:00-05:00', 9000],
    ]);
    expect(on([['01:30', '03:00']], '2026-11-01', 'America/New_York')).toEqual([
      ['2026-11-01T01:30:00-04:00', '2026-11-01T03:00:00-05:00', 9000],
    ]);
  });

  it('Europe/Berlin: 02:00–04:00 lasts 1 h on 2026-03-29 and 3 h on 2026-10-25, the 25-hour day', () => {
    expect(on([['02:00', '04:00']], '2026-03-29', 'Europe/Berlin')).toEqual([
      ['2026-03-29T03:00:00+02:00', '2026-03-29T04:00:00+02:00', 3600],
    ]);
    expect(on([['02:00', '04:00']], '2026-10-25', 'Europe/Berlin')).toEqual([
      ['2026-10-25T02:00:00+02:00', '2026-10-25T04:00:00+01:00', 10_800],
    ]);
  });

  it('Australia/Lord_Howe: the 30-minute changes shorten or lengthen a window by 30 minutes', () => {
    // 2026-10-04: 02:00 becomes 02:30; 2026-04-05: 02:00 becomes 01:30.
    expect(on([['01:00', '03:00']], '2026-10-04', 'Australia/Lord_Howe')).toEqual([
      ['2026-10-04T01:00:00+10:30', '2026-10-04T03:00:00+11:00', 5400],
    ]);
    expect(on([['02:00', '02:15']], '2026-10-04', 'Australia/Lord_Howe')).toEqual([]);
    expect(on([['01:00', '03:00']], '2026-04-05', 'Australia/Lord_Howe')).toEqual([
      ['2026-04-05T01:00:00+11:00', '2026-04-05T03:00:00+10:30', 9000],
    ]);
  });

  it('a window whose end is before its start ends on the next date; "24:00" is the first instant of the next date', () => {
    expect(on([['22:00', '06:00']], '2026-10-31', 'America/New_York')).toEqual([
      ['2026-10-31T22:00:00-04:00', '2026-11-01T06:00:00-05:00', 32_400],
    ]);
    expect(on([['07:00', '24:00']], '2026-11-01', 'America/New_York')).toEqual([
      ['2026-11-01T07:00:00-05:00', '2026-11-02T00:00:00-05:00', 61_200],
    ]);
    expect(on([['00:00', '24:00']], '2026-03-08', 'America/New_York')).toEqual([
      ['2026-03-08T00:00:00-05:00', '2026-03-09T00:00:00-04:00', 82_800],
    ]);
    // America/Sao_Paulo 2018-11-04 has no midnight: the day, and a window from 00:00, start at 01:00.
    expect(on([['00:00', '24:00']], '2018-11-04', 'America/Sao_Paulo')).toEqual([
      ['2018-11-04T01:00:00-02:00', '2018-11-05T00:00:00-02:00', 82_800],
    ]);
  });

  it('Pacific/Apia 2011-12-30 does not exist locally: its windows hold nothing, and a window into it ends where 2011-12-31 starts (P107)', () => {
    expect(on([['07:00', '17:00']], '2011-12-30', 'Pacific/Apia')).toEqual([]);
    expect(on([['22:00', '06:00']], '2011-12-29', 'Pacific/Apia')).toEqual([
      ['2011-12-29T22:00:00-10:00', '2011-12-31T00:00:00+14:00', 7200],
    ]);
    // Its own night shift starts at the first instant after the gap, and runs into 2011-12-31 until 06:00.
    expect(on([['22:00', '06:00']], '2011-12-30', 'Pacific/Apia')).toEqual([
      ['2011-12-31T00:00:00+14:00', '2011-12-31T06:00:00+14:00', 21_600],
    ]);
  });

  it('refuses a window that is not HH:MM, "24:00" as a start, and an end equal to its start', () => {
    expect(() => calendarIntervalsOn(calendarOf([['7:00', '17:00']]), '2026-06-01', 'UTC')).toThrow(/HH:MM/);
    expect(() => calendarIntervalsOn(calendarOf([['24:00', '06:00']]), '2026-06-01', 'UTC')).toThrow(/start "24:00"/);
    expect(() => calendarIntervalsOn(calendarOf([['08:00', '08:00']]), '2026-06-01', 'UTC')).toThrow(/ends where it starts/);
    expect(() => calendarIntervalsOn(calendarOf([['08:00', '17:00']]), '2026-06-01', 'Mars/Olympus')).toThrow(RangeError);
  });

  describe('the scheduled time of a day', () => {
    it('counts a window from the day before that crosses midnight, even into a holiday', () => {
      const calendar = calendarOf({ fri: [['22:00', '06:00']], sat: [['08:00', '12:00']] }, [{ date: '2026-03-07', windows: [] }]);
      expect(shown(scheduleOfDay(calendar, '2026-03-07', 'UTC'), 'UTC')).toEqual([
        ['2026-03-07T00:00:00+00:00', '2026-03-07T06:00:00+00:00', 21_600],
      ]);
      expect(shown(scheduleOfDay(calendar, '2026-03-06', 'UTC'), 'UTC')).toEqual([
        ['2026-03-06T22:00:00+00:00', '2026-03-07T00:00:00+00:00', 7200],
      ]);
      expect(shown(scheduleOfDay(calendar, '2026-03-14', 'UTC'), 'UTC')).toEqual([
        ['2026-03-14T00:00:00+00:00', '2026-03-14T06:00:00+00:00', 21_600],
        ['2026-03-14T08:00:00+00:00', '2026-03-14T12:00:00+00:00', 14_400],
      ]);
    });

    it('counts a carried-over window that overlaps one of the day once', () => {
      const calendar = calendarOf({ fri: [['20:00', '04:00']], sat: [['02:00', '10:00']] });
      expect(shown(scheduleOfDay(calendar, '2026-03-07', 'Europe/Berlin'), 'Europe/Berlin')).toEqual([
        ['2026-03-07T00:00:00+01:00', '2026-03-07T10:00:00+01:00', 36_000],
      ]);
    });

    it('is empty on a holiday', () => {
      const calendar = calendarOf([['07:00', '17:00']], [{ date: '2026-12-25', windows: [] }]);
      expect(scheduleOfDay(calendar, '2026-12-25', 'Europe/Berlin')).toEqual([]);
    });
  });

  it('gives the instants an Intl oracle finds by scanning the wall clock, in every IANA zone, for random calendars (P110)', () => {
    // Half the dates are next to an offset change Temporal names (input only: the oracle never asks Temporal).
    const zonedDate = fc
      .record({
        timeZone: fc.constantFrom(...ALL_ZONES),
        instant: fc.integer({ min: Date.UTC(1990, 0, 1) / 1000, max: Date.UTC(2037, 0, 1) / 1000 }),
        nearChange: fc.boolean(),
        shift: fc.integer({ min: -1, max: 1 }),
      })
      .map(({ timeZone, instant, nearChange, shift }) => {
        const zoned = Temporal.Instant.fromEpochMilliseconds(instant * 1000).toZonedDateTimeISO(timeZone);
        const change = nearChange ? zoned.getTimeZoneTransition('next') : null;
        const date = addDays((change ?? zoned).toPlainDate().toString(), shift);
        return { timeZone, date: date < '2037-12-01' ? date : '2037-12-01' };
      });
    fc.assert(
      fc.property(
        zonedDate.chain(({ timeZone, date }) => fc.tuple(fc.constant(timeZone), fc.constant(date), arbitraryCalendar(date, 0))),
        ([timeZone, date, calendar]) => {
          const midnight = Date.parse(`${date}T00:00:00Z`) / 1000;
          const clock = new IntlWallClock(timeZone, midnight - 2 * 86_400, midnight + 3 * 86_400);
          const expected = oracleWindowsOf(calendar, date, clock)
            .filter(([start, end]) => end > start)
            .sort((a, b) => a[0] - b[0]);
          expect(calendarIntervalsOn(calendar, date, timeZone).map(({ start, end }) => [start, end])).toEqual(expected);
        },
      ),
      { numRuns: 150 },
    );
  });
});
