import { Temporal } from 'temporal-polyfill';
import { epochDaysOf, isoDateOfEpochDay } from '../time/iso-days.js';
import { FAST_YEAR_LIMIT } from '../time/zone-offsets.js';
import { InvalidParameterError } from '../errors/errors.js';
import { formatInstant } from '../time/format-instant.js';
import { localDateAt, startOfLocalDay } from '../time/local-date.js';
import { FIRST_SUPPORTED_DATE, type WindowDates } from './parse-window-query.js';

/** Limits of a window, with the product's defaults (D5, D6). */
export interface WindowLimits {
  /** How far `from` may reach back from the end date, in local days (D6). Default 365. */
  readonly maxDays?: number;
  /** How far back `from` is when it is not given, in local days (D5). Default 7. */
  readonly defaultDays?: number;
}

/**
 * What {@link resolveWindow} takes: the dates from `parseWindowQuery` (`from` undefined for the
 * default, `to` undefined for *now*) and the device's zone.
 */
export interface ResolveWindowInput extends WindowLimits, WindowDates {
  /** The current instant, epoch seconds (a fraction is floored, D5). */
  readonly now: number;
  /** IANA zone of the device. */
  readonly timeZone: string;
}

/** A window as actually applied: local dates, and the half-open instant range `[start, end)`. */
export interface ResolvedWindow {
  readonly timeZone: string;
  /** First local date of the window, after clamping. */
  readonly fromDate: Temporal.PlainDate;
  /** Last local date of the window. */
  readonly toDate: Temporal.PlainDate;
  /** Epoch seconds, inclusive: the start of `fromDate` (D4). */
  readonly start: number;
  /** Epoch seconds, exclusive: the start of the day after `toDate`, or *now* when `to` was not given (D5). */
  readonly end: number;
  /** The instant reported as `to`: `end - 1` for a given date (D4), *now* otherwise (D5). */
  readonly reportedTo: number;
  /** Whether `from` was raised to honour the maximum length (D6). */
  readonly clamped: boolean;
  /** `start` as a D9 timestamp. */
  readonly from: string;
  /** `reportedTo` as a D9 timestamp. */
  readonly to: string;
}

/**
 * Resolves the parsed `from` / `to` dates of `/hours` and `/hours/daily` into the window actually
 * used (D4–D7): defaults, the 365-day clamp, and the one check that needs the device's zone.
 * Dates are counted as whole days since 1970 and day starts read from the zone's cached offsets,
 * so a call makes no Temporal arithmetic (only the returned `PlainDate`s are built).
 *
 * @param input `from` / `to` from `parseWindowQuery`, the device zone and *now*.
 * @returns The applied window.
 * @throws {InvalidParameterError} When `from` is after `to` after defaults and clamping, e.g. a
 *   `from` after today in the device zone when `to` is not given (D7).
 * @example
 * ```ts
 * import { parseWindowQuery, resolveWindow } from '@fleet-hours/core';
 * const dates = parseWindowQuery({ from: '2026-03-08', to: '2026-03-08' });
 * const window = resolveWindow({ ...dates, now: 1_800_000_000, timeZone: 'America/New_York' });
 * window.end - window.start; // 82800: a 23-hour day
 * window.to; // '2026-03-08T23:59:59-04:00'
 * ```
 */
export function resolveWindow(input: ResolveWindowInput): ResolvedWindow {
  const { timeZone } = input;
  const maxDays = input.maxDays ?? 365;
  const defaultDays = input.defaultDays ?? 7;
  const now = Math.floor(input.now);

  const givenTo = input.to;
  const givenFrom = input.from;

  const toDate = givenTo ?? localDateAt(now, timeZone);
  const { fromDate, clamped, fromAfterTo } = _isCountable(toDate, givenFrom, maxDays, defaultDays)
    ? _fromDateByDayCount(toDate, givenFrom, maxDays, defaultDays)
    : _fromDateByTemporal(toDate, givenFrom, maxDays, defaultDays);

  if (fromAfterTo) {
    throw new InvalidParameterError(
      'from',
      givenTo === undefined
        ? `Parameter from "${fromDate.toString()}" is after today (${toDate.toString()}) in ${timeZone}`
        : `Parameter from "${fromDate.toString()}" is after to "${toDate.toString()}"`,
    );
  }

  const start = startOfLocalDay(fromDate, timeZone);
  const end = givenTo === undefined ? now : startOfLocalDay(_nextDay(toDate), timeZone);
  const reportedTo = givenTo === undefined ? now : end - 1;
  return {
    timeZone,
    fromDate,
    toDate,
    start,
    end,
    reportedTo,
    clamped,
    from: formatInstant(start, timeZone),
    to: formatInstant(reportedTo, timeZone),
  };
}

/** The first local date of a window and whether the clamp moved it (D5, D6, P26). */
interface FromDate {
  readonly fromDate: Temporal.PlainDate;
  readonly clamped: boolean;
  /** Whether `fromDate` is after the window's last date (D7). */
  readonly fromAfterTo: boolean;
}

// Day counts this far from the dates keep every result well inside Temporal's date range, so whole
// days since 1970 give exactly what `PlainDate#subtract` and `compare` give. Past them (or for a
// non-ISO calendar), Temporal itself answers, with its own results and range errors.
const COUNTABLE_DAYS = 1_000_000;
const FIRST_SUPPORTED_DAY = epochDaysOf(FIRST_SUPPORTED_DATE.year, FIRST_SUPPORTED_DATE.month, FIRST_SUPPORTED_DATE.day);

function _isIsoInRange(date: Temporal.PlainDate): boolean {
  return date.calendarId === 'iso8601' && Math.abs(date.year) <= FAST_YEAR_LIMIT;
}

function _isCountable(
  toDate: Temporal.PlainDate,
  givenFrom: Temporal.PlainDate | undefined,
  maxDays: number,
  defaultDays: number,
): boolean {
  return (
    _isIsoInRange(toDate) &&
    (givenFrom === undefined || _isIsoInRange(givenFrom)) &&
    Number.isSafeInteger(maxDays) &&
    Math.abs(maxDays) <= COUNTABLE_DAYS &&
    Number.isSafeInteger(defaultDays) &&
    Math.abs(defaultDays) <= COUNTABLE_DAYS
  );
}

const _epochDay = (date: Temporal.PlainDate) => epochDaysOf(date.year, date.month, date.day);

function _dateOfEpochDay(epochDay: number): Temporal.PlainDate {
  const { year, month, day } = isoDateOfEpochDay(epochDay);
  return new Temporal.PlainDate(year, month, day);
}

/** The D5/D6 rule on whole days since 1970, with no Temporal arithmetic. */
function _fromDateByDayCount(
  toDate: Temporal.PlainDate,
  givenFrom: Temporal.PlainDate | undefined,
  maxDays: number,
  defaultDays: number,
): FromDate {
  const toDay = _epochDay(toDate);
  const earliestDay = Math.max(toDay - maxDays, FIRST_SUPPORTED_DAY);
  const wantedDay = givenFrom === undefined ? toDay - defaultDays : _epochDay(givenFrom);
  const clamped = wantedDay < earliestDay;
  const fromDay = clamped ? earliestDay : wantedDay;
  const fromDate =
    clamped && fromDay === FIRST_SUPPORTED_DAY
      ? FIRST_SUPPORTED_DATE
      : !clamped && givenFrom !== undefined
        ? givenFrom
        : _dateOfEpochDay(fromDay);
  return { fromDate, clamped, fromAfterTo: fromDay > toDay };
}

/** The same rule through Temporal, for dates and day counts outside the integer path. */
function _fromDateByTemporal(
  toDate: Temporal.PlainDate,
  givenFrom: Temporal.PlainDate | undefined,
  maxDays: number,
  defaultDays: number,
): FromDate {
  const clampedToLength = toDate.subtract({ days: maxDays });
  const earliest = Temporal.PlainDate.compare(clampedToLength, FIRST_SUPPORTED_DATE) < 0 ? FIRST_SUPPORTED_DATE : clampedToLength;
  let fromDate = givenFrom ?? toDate.subtract({ days: defaultDays });
  const clamped = Temporal.PlainDate.compare(fromDate, earliest) < 0;
  if (clamped) fromDate = earliest;
  return { fromDate, clamped, fromAfterTo: Temporal.PlainDate.compare(fromDate, toDate) > 0 };
}

/** The local date after `date`. */
function _nextDay(date: Temporal.PlainDate): Temporal.PlainDate {
  return _isIsoInRange(date) ? _dateOfEpochDay(_epochDay(date) + 1) : date.add({ days: 1 });
}
