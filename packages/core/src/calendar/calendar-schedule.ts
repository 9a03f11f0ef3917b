/**
 * What a work calendar means on a local date in a zone (D58): the exact instants of its windows, and
 * the scheduled time inside each local day. Per day this is integer arithmetic over the zone's
 * offsets for the year (read from Temporal once and cached), never a Temporal call per window.
 */
import { SECONDS_PER_DAY, epochDaysOf, formatIsoDate, formatIsoYear, isoDateOfEpochDay } from '../time/iso-days.js';
import { startOfDayIn, yearOffsets, type YearOffsets } from '../time/zone-offsets.js';
import { wallTimeAsEnd, wallTimeAsStart } from './wall-clock.js';
import { WEEKDAYS, type CalendarWindow, type WorkCalendar } from './work-calendar.js';

/** A stretch of scheduled time: epoch seconds, `[start, end)`. */
export interface ScheduledInterval {
  readonly start: number;
  readonly end: number;
}

/** A window as seconds into its date: `end` past a day when it crosses midnight; `toMidnight` for `"24:00"`. */
interface WindowSeconds {
  readonly start: number;
  readonly end: number;
  readonly toMidnight: boolean;
}

/** A calendar read once: the weekday's windows (Monday first) and the exceptions by day number. */
interface ReadCalendar {
  readonly weekly: readonly (readonly WindowSeconds[])[];
  readonly exceptions: ReadonlyMap<number, readonly WindowSeconds[]>;
}

const WALL_TIME = /^([01]\d|2[0-3]):([0-5]\d)$/;
const LOCAL_DATE = /^([+-]\d{6}|\d{4})-(\d{2})-(\d{2})/;
// A cache of pure results keyed by the calendar object: reading it again would give the same.
const readCalendars = new WeakMap<WorkCalendar, ReadCalendar>();

/**
 * The windows a calendar gives a local date (D58): the exception's for that date if it has one
 * (none for a holiday), else its weekday's.
 *
 * @param calendar The work calendar.
 * @param date The local date, `YYYY-MM-DD`.
 * @returns The windows as the calendar writes them.
 * @throws {RangeError} When `date` is not a date.
 * @example
 * ```ts
 * import { calendarWindowsOn } from '@fleet-hours/core';
 * const calendar = {
 *   weekly: { mon: [], tue: [], wed: [], thu: [['07:00', '17:00']], fri: [], sat: [], sun: [] },
 *   exceptions: [{ date: '2026-12-31', windows: [] }],
 * } as const;
 * calendarWindowsOn(calendar, '2026-12-24'); // [['07:00', '17:00']] (a Thursday)
 * calendarWindowsOn(calendar, '2026-12-31'); // []: a holiday
 * ```
 */
export function calendarWindowsOn(calendar: WorkCalendar, date: string): readonly CalendarWindow[] {
  const epochDay = epochDayOfDate(date);
  const text = _dateText(epochDay);
  const exception = calendar.exceptions.find((candidate) => candidate.date === text);
  return exception ? exception.windows : calendar.weekly[WEEKDAYS[_weekdayIndex(epochDay)]!];
}

/**
 * The instants of the windows a local date defines (D58), in the order of their starts. A window
 * starts on its date; one whose end is before its start ends on the next date (the day it starts
 * defines it, even when the next date is a holiday); `"24:00"` ends at the first instant of the next
 * date. A wall time skipped by a clock change is the first instant after the gap; a repeated one is
 * its first occurrence as a start and its second as an end. A window that holds no instant (inside a
 * skipped hour, or on a date that does not exist locally) is left out.
 *
 * @param calendar The work calendar.
 * @param date The local date, `YYYY-MM-DD`.
 * @param timeZone IANA zone name.
 * @returns Intervals, `[start, end)` in epoch seconds; a window that crosses midnight runs past the date.
 * @throws {RangeError} When `date` is not a date, a window is not `HH:MM`, or `timeZone` is not a zone.
 * @example
 * ```ts
 * import { calendarIntervalsOn } from '@fleet-hours/core';
 * const days = [['01:00', '04:00']] as const;
 * const calendar = { weekly: { mon: [], tue: [], wed: [], thu: [], fri: [], sat: [], sun: days }, exceptions: [] };
 * // Berlin's clocks go back from 03:00 to 02:00 on 2026-10-25: the window lasts four hours.
 * const [window] = calendarIntervalsOn(calendar, '2026-10-25', 'Europe/Berlin');
 * window!.end - window!.start; // 14400
 * ```
 */
export function calendarIntervalsOn(calendar: WorkCalendar, date: string, timeZone: string): ScheduledInterval[] {
  return _intervalsOf(_readCalendar(calendar), epochDayOfDate(date), new ZoneYears(timeZone));
}

/**
 * The scheduled time inside a local day (D58): the windows its date defines and those the date
 * before carries over midnight, clipped to the day `[start of the date, start of the next date)`,
 * with overlaps counted once.
 *
 * @param calendar The work calendar.
 * @param date The local date, `YYYY-MM-DD`.
 * @param timeZone IANA zone name.
 * @returns Disjoint intervals in time order, `[start, end)` in epoch seconds.
 * @throws {RangeError} As {@link calendarIntervalsOn}.
 * @example
 * ```ts
 * import { scheduleOfDay } from '@fleet-hours/core';
 * const night = [['22:00', '06:00']] as const;
 * const calendar = {
 *   weekly: { mon: [], tue: [], wed: [], thu: [], fri: night, sat: [], sun: [] },
 *   exceptions: [{ date: '2026-03-07', windows: [] }],
 * };
 * // Saturday is a holiday, yet Friday's night shift runs into it until 06:00.
 * scheduleOfDay(calendar, '2026-03-07', 'UTC'); // [{ start: 1772841600, end: 1772863200 }]
 * ```
 */
export function scheduleOfDay(calendar: WorkCalendar, date: string, timeZone: string): ScheduledInterval[] {
  const days = new DaySchedules(calendar, timeZone);
  const { schedule } = days.of(epochDayOfDate(date));
  const intervals: ScheduledInterval[] = [];
  for (let index = 0; index < schedule.length; index += 2) intervals.push({ start: schedule[index]!, end: schedule[index + 1]! });
  return intervals;
}

/** A local day and its scheduled time, as {@link DaySchedules} walks them. */
export interface DaySchedule {
  /** Epoch seconds: the first instant of the date (D4). */
  readonly dayStart: number;
  /** Epoch seconds: the first instant of the next date. */
  readonly dayEnd: number;
  /** Disjoint intervals in time order, flat: `[start0, end0, start1, end1, …]`, inside the day. */
  readonly schedule: readonly number[];
}

/**
 * Local days and their scheduled time, one date after another: the windows of a date are read once
 * and kept for the next date, which they may reach past midnight. Without a calendar every day has
 * no scheduled time.
 */
export class DaySchedules {
  private readonly calendar: ReadCalendar | null;
  private readonly years: ZoneYears;
  private previousDay = Number.NaN;
  private previousIntervals: ScheduledInterval[] = [];

  constructor(calendar: WorkCalendar | null, timeZone: string) {
    this.calendar = calendar === null ? null : _readCalendar(calendar);
    this.years = new ZoneYears(timeZone);
  }

  /** The day `epochDay` days after 1970-01-01 (local dates). */
  of(epochDay: number): DaySchedule {
    const dayStart = startOfDayIn(this.years.of(epochDay), epochDay * SECONDS_PER_DAY);
    const dayEnd = startOfDayIn(this.years.of(epochDay + 1), (epochDay + 1) * SECONDS_PER_DAY);
    if (this.calendar === null) return { dayStart, dayEnd, schedule: [] };
    const carried = this.previousDay === epochDay - 1 ? this.previousIntervals : _intervalsOf(this.calendar, epochDay - 1, this.years);
    const own = _intervalsOf(this.calendar, epochDay, this.years);
    this.previousDay = epochDay;
    this.previousIntervals = own;
    return { dayStart, dayEnd, schedule: _unionInside([...carried, ...own], dayStart, dayEnd) };
  }
}

/** The day number of a `YYYY-MM-DD` date (a calendar annotation after it is ignored). */
export function epochDayOfDate(date: string): number {
  const match = LOCAL_DATE.exec(date);
  if (!match) throw new RangeError(`Cannot read the date "${date}": expected YYYY-MM-DD`);
  return epochDaysOf(Number(match[1]), Number(match[2]), Number(match[3]));
}

/** The zone's cached offsets by year, the last year's kept at hand. */
class ZoneYears {
  private year = Number.NaN;
  private table: YearOffsets | undefined;

  constructor(private readonly timeZone: string) {}

  /** The offsets of the year of the date `epochDay`, whose span holds that date and two days after it. */
  of(epochDay: number): YearOffsets {
    const { year } = isoDateOfEpochDay(epochDay);
    if (year !== this.year) {
      this.table = yearOffsets(this.timeZone, year);
      this.year = year;
    }
    return this.table!;
  }
}

function _intervalsOf(calendar: ReadCalendar, epochDay: number, years: ZoneYears): ScheduledInterval[] {
  const windows = calendar.exceptions.get(epochDay) ?? calendar.weekly[_weekdayIndex(epochDay)]!;
  if (windows.length === 0) return [];
  const table = years.of(epochDay);
  const midnight = epochDay * SECONDS_PER_DAY;
  const intervals: ScheduledInterval[] = [];
  for (const window of windows) {
    const start = wallTimeAsStart(table, midnight + window.start);
    const end = window.toMidnight
      ? startOfDayIn(years.of(epochDay + 1), midnight + SECONDS_PER_DAY)
      : wallTimeAsEnd(table, midnight + window.end);
    if (end > start) intervals.push({ start, end });
  }
  return intervals.sort((a, b) => a.start - b.start);
}

/** The union of intervals clipped to `[from, to)`, flat and in time order. */
function _unionInside(intervals: ScheduledInterval[], from: number, to: number): number[] {
  intervals.sort((a, b) => a.start - b.start);
  const union: number[] = [];
  for (const interval of intervals) {
    const start = Math.max(interval.start, from);
    const end = Math.min(interval.end, to);
    if (end <= start) continue;
    if (union.length > 0 && start <= union[union.length - 1]!) {
      union[union.length - 1] = Math.max(union[union.length - 1]!, end);
    } else union.push(start, end);
  }
  return union;
}

/** Monday 0 … Sunday 6: 1970-01-01 was a Thursday. */
function _weekdayIndex(epochDay: number): number {
  return (((epochDay + 3) % 7) + 7) % 7;
}

function _dateText(epochDay: number): string {
  const { year, month, day } = isoDateOfEpochDay(epochDay);
  return formatIsoDate(formatIsoYear(year), month, day);
}

function _readCalendar(calendar: WorkCalendar): ReadCalendar {
  let read = readCalendars.get(calendar);
  if (read === undefined) {
    const exceptions = new Map<number, readonly WindowSeconds[]>();
    for (const exception of calendar.exceptions) exceptions.set(epochDayOfDate(exception.date), exception.windows.map(_windowSeconds));
    read = { weekly: WEEKDAYS.map((weekday) => (calendar.weekly[weekday] ?? []).map(_windowSeconds)), exceptions };
    readCalendars.set(calendar, read);
  }
  return read;
}

function _windowSeconds([startText, endText]: CalendarWindow): WindowSeconds {
  const start = _wallSeconds(startText, 'start');
  if (endText === '24:00') return { start, end: SECONDS_PER_DAY, toMidnight: true };
  const end = _wallSeconds(endText, 'end');
  if (end === start) throw new RangeError(`The window "${startText}"–"${endText}" ends where it starts`);
  return { start, end: end < start ? end + SECONDS_PER_DAY : end, toMidnight: false };
}

function _wallSeconds(text: string, role: 'start' | 'end'): number {
  const match = WALL_TIME.exec(text);
  if (!match) throw new RangeError(`Cannot read the window's ${role} "${text}": expected HH:MM from 00:00 to 23:59`);
  return Number(match[1]) * 3600 + Number(match[2]) * 60;
}
