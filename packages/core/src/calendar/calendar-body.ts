import { Temporal } from 'temporal-polyfill';
import { FleetHoursError, InvalidFieldError } from '../errors/errors.js';
import { WEEKDAYS, type CalendarException, type CalendarWindow, type WorkCalendar, type Weekday } from './work-calendar.js';

/**
 * The body of a work calendar's `PUT` (D58, P111): checked field by field into a {@link WorkCalendar}
 * before anything is stored, each refusal a 400 `invalid_field` naming the field's path
 * (`weekly.mon[1][0]`, `exceptions[2].date`). The API and the CLI read a calendar with it.
 */

/** The most windows a day may have, in `weekly` or in an exception (P111). */
export const CALENDAR_WINDOWS_MAX = 10;

/** The most dated exceptions a calendar may have (P111): a year of holidays and short days. */
export const CALENDAR_EXCEPTIONS_MAX = 366;

/** The fields of a calendar's body a write gives. */
export const CALENDAR_FIELDS = ['weekly', 'exceptions'] as const;

/** The fields of a calendar's answer that a write cannot change (P111): accepted only with the values shown now. */
export const CALENDAR_READ_ONLY_FIELDS = ['timezone', 'version', 'source'] as const;

/** A field of {@link CALENDAR_READ_ONLY_FIELDS}. */
export type CalendarReadOnlyField = (typeof CALENDAR_READ_ONLY_FIELDS)[number];

/** A calendar's body as read (P111): the calendar, or `null` (remove it), and the read-only fields it repeated. */
export interface WorkCalendarBody {
  readonly calendar: WorkCalendar | null;
  readonly readOnly: Readonly<Partial<Record<CalendarReadOnlyField, unknown>>>;
}

const _TIME = /^(?:([01]\d|2[0-3]):([0-5]\d)|(24):(00))$/;
const _DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const _MINUTES_PER_DAY = 24 * 60;

/**
 * Reads the body of a calendar's `PUT` (D58, P111): JSON `null` removes the calendar; otherwise an
 * object with `weekly` (all seven days, `mon` … `sun`, each a list of windows: `[]` for a day
 * without work) and optionally `exceptions` (a list of `{ "date": "YYYY-MM-DD", "windows": [...] }`,
 * each date once; default none). A window is `[start, end]`, each `HH:MM` from `00:00` to `23:59`,
 * `"24:00"` only as an end; `end` before `start` crosses midnight; `end` equal to `start` is
 * refused; the windows of one day do not overlap (a crossing window runs into the next morning,
 * where no window of its own day can be). At most {@link CALENDAR_WINDOWS_MAX} windows a day and
 * {@link CALENDAR_EXCEPTIONS_MAX} exceptions. `timezone`, `version` and `source` may be repeated
 * from an answer: {@link checkCalendarReadOnly} compares them with the values shown now.
 * Exceptions come back sorted by date.
 *
 * @param input The body, as parsed from JSON (or the CLI's file).
 * @returns The checked calendar, and the read-only fields given.
 * @throws {InvalidFieldError} Naming the first field that cannot be used, by its path, unknown fields included.
 * @throws {FleetHoursError} `invalid_body` when the input is neither an object nor `null`.
 * @example
 * ```ts
 * import { readWorkCalendarBody } from '@fleet-hours/core';
 * const day = [['07:00', '17:00']];
 * const body = { weekly: { mon: day, tue: day, wed: day, thu: day, fri: day, sat: [], sun: [] } };
 * readWorkCalendarBody(body).calendar?.exceptions; // []
 * ```
 */
export function readWorkCalendarBody(input: unknown): WorkCalendarBody {
  if (input === null) return { calendar: null, readOnly: {} };
  const given = _object(input, null);
  for (const field of Object.keys(given)) {
    if (![...CALENDAR_FIELDS, ...CALENDAR_READ_ONLY_FIELDS].includes(field as never))
      throw new InvalidFieldError(field, `Unknown field "${field}": a work calendar has ${CALENDAR_FIELDS.join(', ')}`);
  }
  if (given.weekly === undefined) throw new InvalidFieldError('weekly', 'weekly is required: the windows of each day, mon to sun');
  const weeklyInput = _object(given.weekly, 'weekly');
  for (const day of Object.keys(weeklyInput)) {
    if (!(WEEKDAYS as readonly string[]).includes(day))
      throw new InvalidFieldError(`weekly.${day}`, `Unknown day "${day}": the days are ${WEEKDAYS.join(', ')}`);
  }
  const weekly = {} as Record<Weekday, readonly CalendarWindow[]>;
  for (const day of WEEKDAYS) {
    const windows = weeklyInput[day];
    if (windows === undefined) throw new InvalidFieldError(`weekly.${day}`, `weekly.${day} is required: [] for a day without work`);
    weekly[day] = _windows(windows, `weekly.${day}`);
  }
  const exceptions = given.exceptions === undefined ? [] : _exceptions(given.exceptions);
  const readOnly: Partial<Record<CalendarReadOnlyField, unknown>> = {};
  for (const field of CALENDAR_READ_ONLY_FIELDS) if (given[field] !== undefined) readOnly[field] = given[field];
  return { calendar: { weekly, exceptions }, readOnly };
}

/**
 * Checks the read-only fields a body repeated (P111): each must have the value the calendar's
 * answer shows now (`timezone` the device's zone, `version` its version, `source` where it comes from).
 *
 * @param readOnly The read-only fields of {@link readWorkCalendarBody}'s result.
 * @param shown The values the answer shows now.
 * @throws {InvalidFieldError} Naming the first field whose value differs.
 */
export function checkCalendarReadOnly(
  readOnly: WorkCalendarBody['readOnly'],
  shown: Readonly<Record<CalendarReadOnlyField, unknown>>,
): void {
  for (const field of CALENDAR_READ_ONLY_FIELDS) {
    const value = readOnly[field];
    if (value !== undefined && JSON.stringify(value) !== JSON.stringify(shown[field]))
      throw new InvalidFieldError(
        field,
        `${field} is read-only: leave it out, or give the value shown now (${JSON.stringify(shown[field])})${field === 'version' ? '; to write only over a version read, send If-Match' : ''}`,
      );
  }
}

function _object(value: unknown, path: string | null): Readonly<Record<string, unknown>> {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Readonly<Record<string, unknown>>;
  if (path === null)
    throw new FleetHoursError('invalid_body', { message: 'The body must be a work calendar (a JSON object with weekly), or null' });
  throw new InvalidFieldError(path, `${path} must be an object`);
}

function _array(value: unknown, path: string, max: number, what: string): readonly unknown[] {
  if (!Array.isArray(value)) throw new InvalidFieldError(path, `${path} must be a list of ${what}`);
  if (value.length > max) throw new InvalidFieldError(path, `${path} must have at most ${max} ${what}, got ${value.length}`);
  return value;
}

/** The windows of one day: each checked, none overlapping another on the day's timeline. */
function _windows(value: unknown, path: string): readonly CalendarWindow[] {
  const windows = _array(value, path, CALENDAR_WINDOWS_MAX, 'windows [start, end]').map((window, index) =>
    _window(window, `${path}[${index}]`),
  );
  // On the day's timeline, in minutes from its midnight: a window crossing midnight runs past 1440.
  const spans = windows
    .map(([start, end], index) => {
      const from = _minutes(start);
      const to = _minutes(end);
      return { index, from, to: to > from ? to : to + _MINUTES_PER_DAY };
    })
    .sort((a, b) => a.from - b.from || a.index - b.index);
  for (let next = 1; next < spans.length; next += 1) {
    const before = spans[next - 1]!;
    const after = spans[next]!;
    if (after.from < before.to) {
      const [first, second] = [before.index, after.index].sort((a, b) => a - b);
      throw new InvalidFieldError(
        `${path}[${second}]`,
        `${path}[${second}] overlaps ${path}[${first}]: the windows of one day must not overlap`,
      );
    }
  }
  return windows;
}

function _window(value: unknown, path: string): CalendarWindow {
  if (!Array.isArray(value) || value.length !== 2)
    throw new InvalidFieldError(path, `${path} must be a window ["HH:MM", "HH:MM"]: its start and its end`);
  const [start, end] = value as unknown[];
  if (!_isTime(start) || start === '24:00')
    throw new InvalidFieldError(`${path}[0]`, `${path}[0] must be a start time from "00:00" to "23:59", got ${JSON.stringify(start)}`);
  if (!_isTime(end))
    throw new InvalidFieldError(`${path}[1]`, `${path}[1] must be an end time from "00:00" to "24:00", got ${JSON.stringify(end)}`);
  if (end === start)
    throw new InvalidFieldError(`${path}[1]`, `${path}[1] equals its start: a window has a length (a whole day is ["00:00", "24:00"])`);
  return [start, end];
}

function _isTime(value: unknown): value is string {
  return typeof value === 'string' && _TIME.test(value);
}

function _minutes(time: string): number {
  return Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));
}

function _exceptions(value: unknown): readonly CalendarException[] {
  const seen = new Map<string, number>();
  const exceptions = _array(value, 'exceptions', CALENDAR_EXCEPTIONS_MAX, 'exceptions').map((item, index): CalendarException => {
    const path = `exceptions[${index}]`;
    const given = _object(item, path);
    for (const field of Object.keys(given)) {
      if (field !== 'date' && field !== 'windows')
        throw new InvalidFieldError(`${path}.${field}`, `Unknown field ${path}.${field}: an exception has date and windows`);
    }
    const date = _date(given.date, `${path}.date`);
    const earlier = seen.get(date);
    if (earlier !== undefined)
      throw new InvalidFieldError(`${path}.date`, `${path}.date ${date} is already exceptions[${earlier}]'s: each date once`);
    seen.set(date, index);
    if (given.windows === undefined)
      throw new InvalidFieldError(`${path}.windows`, `${path}.windows is required: [] for a day without work`);
    return { date, windows: _windows(given.windows, `${path}.windows`) };
  });
  return [...exceptions].sort((a, b) => (a.date < b.date ? -1 : 1));
}

function _date(value: unknown, path: string): string {
  const match = typeof value === 'string' ? _DATE.exec(value) : null;
  if (!match) throw new InvalidFieldError(path, `${path} must be a date as YYYY-MM-DD, got ${JSON.stringify(value)}`);
  try {
    Temporal.PlainDate.from({ year: Number(match[1]), month: Number(match[2]), day: Number(match[3]) }, { overflow: 'reject' });
  } catch {
    throw new InvalidFieldError(path, `${path} ${value as string} is no such day`);
  }
  return value as string;
}
