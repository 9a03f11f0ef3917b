import type { ResolvedWindow } from './resolve-window.js';
import { startOfLocalDay } from './local-date.js';

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
 * Splits a window into its local days (D8). Temporal is called once per day, never per segment;
 * a 23- or 25-hour day is one bucket of its real length, and a day that does not exist locally
 * (Pacific/Apia 2011-12-30) is a bucket of length zero.
 *
 * @param window A window from `resolveWindow`.
 * @returns The dates and their boundaries.
 * @example
 * ```ts
 * import { dayBuckets, resolveWindow } from '@fleet-hours/core';
 * const window = resolveWindow({ from: '2026-10-31', to: '2026-11-01', now: 1_800_000_000, timeZone: 'America/New_York' });
 * const { dates, boundaries } = dayBuckets(window);
 * dates; // ['2026-10-31', '2026-11-01']
 * boundaries[2]! - boundaries[1]!; // 90000: a 25-hour day
 * ```
 */
export function dayBuckets(window: ResolvedWindow): DayBuckets {
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
