import type { Temporal } from 'temporal-polyfill';
import { SECONDS_PER_DAY, daysInMonth, epochDaysOf, formatIsoDate, formatIsoYear } from '../time/iso-days.js';
import { FAST_YEAR_LIMIT, startOfDayIn, yearOffsets, type YearOffsets } from '../time/zone-offsets.js';
import { startOfLocalDay } from '../time/local-date.js';
import type { ResolvedWindow } from './resolve-window.js';

/** Local days of a window and the instants that separate them. */
export interface DayBuckets {
  /** `YYYY-MM-DD`, ascending, one per local date of the window (D8). */
  readonly dates: readonly string[];
  /**
   * Epoch seconds, `dates.length + 1` of them, non-decreasing: day `i` is
   * `[boundaries[i], boundaries[i + 1])`. The first is the window start and the last its end,
   * so the days tile the window exactly.
   */
  readonly boundaries: readonly number[];
}

/**
 * Splits a window into its local days (D8). A 23- or 25-hour day is one bucket of its real
 * length, and a day that does not exist locally (Pacific/Apia 2011-12-30) is a bucket of length
 * zero (P2).
 *
 * Temporal is not called per day: dates are walked and written with integer arithmetic, and each
 * day start comes from the zone's offsets for the year (read from Temporal once and cached), with
 * the same result as `startOfLocalDay`.
 *
 * @param window A window from `resolveWindow`.
 * @returns The dates and their boundaries.
 * @example
 * ```ts
 * import { dayBuckets, parseWindowQuery, resolveWindow } from '@fleet-hours/core';
 * const query = parseWindowQuery({ from: '2026-10-31', to: '2026-11-01' });
 * const window = resolveWindow({ ...query, now: 1_800_000_000, timeZone: 'America/New_York' });
 * const { dates, boundaries } = dayBuckets(window);
 * dates; // ['2026-10-31', '2026-11-01']
 * boundaries[2]! - boundaries[1]!; // 90000: a 25-hour day
 * ```
 */
export function dayBuckets(window: ResolvedWindow): DayBuckets {
  const { fromDate, toDate, timeZone } = window;
  if (!_isWalkable(fromDate) || !_isWalkable(toDate)) return _dayBucketsPerDay(window);
  const lastDay = epochDaysOf(toDate.year, toDate.month, toDate.day);
  let { year, month, day } = fromDate;
  let epochDay = epochDaysOf(year, month, day);
  let isoYear = formatIsoYear(year);
  let offsets: YearOffsets | undefined;
  let offsetsYear = Number.NaN;
  const dates: string[] = [formatIsoDate(isoYear, month, day)];
  const boundaries: number[] = [window.start];
  while (epochDay < lastDay) {
    epochDay += 1;
    day += 1;
    if (day > daysInMonth(year, month)) {
      day = 1;
      month += 1;
      if (month > 12) {
        month = 1;
        year += 1;
        isoYear = formatIsoYear(year);
      }
    }
    if (year !== offsetsYear) {
      offsets = yearOffsets(timeZone, year);
      offsetsYear = year;
    }
    dates.push(formatIsoDate(isoYear, month, day));
    boundaries.push(Math.min(startOfDayIn(offsets!, epochDay * SECONDS_PER_DAY), window.end));
  }
  boundaries.push(window.end);
  return { dates, boundaries };
}

/** Whether a date can be walked with ISO arithmetic and the cached offsets. */
function _isWalkable(date: Temporal.PlainDate): boolean {
  return date.calendarId === 'iso8601' && Math.abs(date.year) < FAST_YEAR_LIMIT;
}

/** Temporal day by day: for dates in another calendar or near the ends of Temporal's range. */
function _dayBucketsPerDay(window: ResolvedWindow): DayBuckets {
  const dayCount = window.toDate.since(window.fromDate).days + 1;
  const dates: string[] = [window.fromDate.toString()];
  const boundaries: number[] = [window.start];
  let date = window.fromDate.add({ days: 1 });
  while (dates.length < dayCount) {
    dates.push(date.toString());
    boundaries.push(Math.min(startOfLocalDay(date, window.timeZone), window.end));
    date = date.add({ days: 1 });
  }
  boundaries.push(window.end);
  return { dates, boundaries };
}
