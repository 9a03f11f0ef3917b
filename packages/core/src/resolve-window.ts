import { Temporal } from 'temporal-polyfill';
import { InvalidParameterError } from './errors.js';
import { formatInstant } from './format-instant.js';
import { localDateAt, startOfLocalDay } from './local-date.js';
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
  // D6, and P26: never before the first supported date.
  const clampedToLength = toDate.subtract({ days: maxDays });
  const earliest = Temporal.PlainDate.compare(clampedToLength, FIRST_SUPPORTED_DATE) < 0 ? FIRST_SUPPORTED_DATE : clampedToLength;
  let fromDate = givenFrom ?? toDate.subtract({ days: defaultDays });
  const clamped = Temporal.PlainDate.compare(fromDate, earliest) < 0;
  if (clamped) fromDate = earliest;

  if (Temporal.PlainDate.compare(fromDate, toDate) > 0) {
    throw new InvalidParameterError(
      'from',
      givenTo === undefined
        ? `Parameter from "${fromDate.toString()}" is after today (${toDate.toString()}) in ${timeZone}`
        : `Parameter from "${fromDate.toString()}" is after to "${toDate.toString()}"`,
    );
  }

  const start = startOfLocalDay(fromDate, timeZone);
  const end = givenTo === undefined ? now : startOfLocalDay(toDate.add({ days: 1 }), timeZone);
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
