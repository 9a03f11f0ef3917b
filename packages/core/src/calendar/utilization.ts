import { epochDaysOf, formatIsoDate, formatIsoYear, isoDateOfEpochDay } from '../time/iso-days.js';
import { epochDayOfDate } from './calendar-schedule.js';

/** How utilization groups local days (D60): each day, ISO weeks (Monday first) or calendar months. */
export const UTILIZATION_GROUPINGS = ['day', 'week', 'month'] as const;

/** A grouping of {@link UTILIZATION_GROUPINGS}. */
export type UtilizationGrouping = (typeof UTILIZATION_GROUPINGS)[number];

/** A daily entry as utilization reads it (D59, D60): the local date and its seconds. */
export interface UtilizationDay {
  /** The local date, `YYYY-MM-DD`. */
  readonly date: string;
  readonly engineSeconds: number;
  readonly movingSeconds: number;
  readonly idleSeconds: number;
  readonly scheduledSeconds: number;
  readonly engineInScheduleSeconds: number;
  readonly engineOutsideScheduleSeconds: number;
}

/** The utilization of one period (D60): the sums of its days and the two ratios. */
export interface UtilizationPeriod extends Omit<UtilizationDay, 'date'> {
  /** `YYYY-MM-DD` (day), `YYYY-Www` (ISO week), `YYYY-MM` (month). */
  readonly period: string;
  /** The first local date of the period inside the window. */
  readonly from: string;
  /** The last local date of the period inside the window. */
  readonly to: string;
  /** Days with engine seconds. */
  readonly daysUsed: number;
  /** `engineInScheduleSeconds / scheduledSeconds`, not rounded; `null` when nothing was scheduled. */
  readonly utilization: number | null;
  /** `idleSeconds / engineSeconds`, not rounded; `null` without engine time. */
  readonly idleShare: number | null;
}

type Sums = { -readonly [K in Exclude<keyof UtilizationPeriod, 'period' | 'utilization' | 'idleShare'>]: UtilizationPeriod[K] };

/**
 * The period a local date belongs to (D60): the date itself (`day`), its ISO week (`week`:
 * `YYYY-Www`, Monday first, the year of its Thursday, so 2027-01-01 is in `2026-W53`) or its month
 * (`month`: `YYYY-MM`).
 *
 * @param date The local date, `YYYY-MM-DD`.
 * @param groupBy The grouping.
 * @returns The period's name.
 * @throws {RangeError} When `date` is not a date.
 * @example
 * ```ts
 * import { utilizationPeriodOf } from '@fleet-hours/core';
 * utilizationPeriodOf('2027-01-01', 'week'); // '2026-W53'
 * utilizationPeriodOf('2027-01-01', 'month'); // '2027-01'
 * ```
 */
export function utilizationPeriodOf(date: string, groupBy: UtilizationGrouping): string {
  const epochDay = epochDayOfDate(date);
  const { year, month, day } = isoDateOfEpochDay(epochDay);
  if (groupBy === 'day') return formatIsoDate(formatIsoYear(year), month, day);
  if (groupBy === 'month') return formatIsoDate(formatIsoYear(year), month, 1).slice(0, -3);
  const thursday = epochDay - ((((epochDay + 3) % 7) + 7) % 7) + 3; // 1970-01-01 was a Thursday
  const weekYear = isoDateOfEpochDay(thursday).year;
  const week = Math.floor((thursday - epochDaysOf(weekYear, 1, 1)) / 7) + 1;
  return `${formatIsoYear(weekYear)}-W${String(week).padStart(2, '0')}`;
}

/**
 * Utilization by period (D60): the days grouped by `day`, ISO `week` or `month`, each period with
 * the sums of its days, `daysUsed` (days with engine seconds), its first and last date among the
 * days given (a period cut by the window's edge is partial), `utilization` = in-schedule ÷ scheduled
 * and `idleShare` = idle ÷ engine, `null` when the divisor is 0 and never rounded. Periods come in
 * time order. Days of several devices given together add up by period (a tag's devices, P109).
 *
 * @param days Daily entries in time order, as the daily series lists them.
 * @param groupBy The grouping.
 * @returns One entry per period holding a day.
 * @throws {RangeError} When a date cannot be read.
 * @example
 * ```ts
 * import { utilizationPeriods } from '@fleet-hours/core';
 * const day = (date: string, engineSeconds: number, idleSeconds: number) => ({
 *   date, engineSeconds, movingSeconds: engineSeconds - idleSeconds, idleSeconds,
 *   scheduledSeconds: 36_000, engineInScheduleSeconds: engineSeconds, engineOutsideScheduleSeconds: 0,
 * });
 * utilizationPeriods([day('2026-10-31', 9000, 900), day('2026-11-01', 0, 0)], 'month').map((p) => [p.period, p.utilization, p.idleShare]);
 * // [['2026-10', 0.25, 0.1], ['2026-11', 0, null]]
 * ```
 */
export function utilizationPeriods(days: Iterable<UtilizationDay>, groupBy: UtilizationGrouping): UtilizationPeriod[] {
  const sums = new UtilizationSums(groupBy);
  sums.add(days);
  return sums.periods();
}

/**
 * P153: the sums of {@link utilizationPeriods} kept as days arrive, in any order and any number of
 * calls (a tag's devices, a batch at a time): its memory is one entry per period, not the days.
 * The sums are of whole seconds, so the order of the days cannot change them (P109).
 */
export class UtilizationSums {
  readonly #groupBy: UtilizationGrouping;
  readonly #periods = new Map<string, Sums & { fromDay: number; toDay: number }>();

  constructor(groupBy: UtilizationGrouping) {
    this.#groupBy = groupBy;
  }

  /** Adds days to their periods. */
  add(days: Iterable<UtilizationDay>): void {
    for (const day of days) this.#add(day);
  }

  #add(day: UtilizationDay): void {
    const epochDay = epochDayOfDate(day.date);
    const period = utilizationPeriodOf(day.date, this.#groupBy);
    let sums = this.#periods.get(period);
    if (sums === undefined) {
      sums = {
        from: day.date,
        to: day.date,
        fromDay: epochDay,
        toDay: epochDay,
        engineSeconds: 0,
        movingSeconds: 0,
        idleSeconds: 0,
        scheduledSeconds: 0,
        engineInScheduleSeconds: 0,
        engineOutsideScheduleSeconds: 0,
        daysUsed: 0,
      };
      this.#periods.set(period, sums);
    }
    if (epochDay < sums.fromDay) [sums.from, sums.fromDay] = [day.date, epochDay];
    if (epochDay > sums.toDay) [sums.to, sums.toDay] = [day.date, epochDay];
    sums.engineSeconds += day.engineSeconds;
    sums.movingSeconds += day.movingSeconds;
    sums.idleSeconds += day.idleSeconds;
    sums.scheduledSeconds += day.scheduledSeconds;
    sums.engineInScheduleSeconds += day.engineInScheduleSeconds;
    sums.engineOutsideScheduleSeconds += day.engineOutsideScheduleSeconds;
    if (day.engineSeconds > 0) sums.daysUsed += 1;
  }

  /** The periods holding a day so far, in time order, with their ratios. */
  periods(): UtilizationPeriod[] {
    return [...this.#periods]
      .sort(([, a], [, b]) => a.fromDay - b.fromDay)
      .map(([period, sums]) => ({
        period,
        from: sums.from,
        to: sums.to,
        engineSeconds: sums.engineSeconds,
        movingSeconds: sums.movingSeconds,
        idleSeconds: sums.idleSeconds,
        scheduledSeconds: sums.scheduledSeconds,
        engineInScheduleSeconds: sums.engineInScheduleSeconds,
        engineOutsideScheduleSeconds: sums.engineOutsideScheduleSeconds,
        daysUsed: sums.daysUsed,
        utilization: sums.scheduledSeconds === 0 ? null : sums.engineInScheduleSeconds / sums.scheduledSeconds,
        idleShare: sums.engineSeconds === 0 ? null : sums.idleSeconds / sums.engineSeconds,
      }));
  }
}
