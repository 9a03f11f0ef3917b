import { localEpochDayAt } from '../time/local-date.js';
import type { ServiceSchedule } from '../types.js';

/**
 * The local date a schedule's calendar interval runs out (D39), as a day number (days from
 * 1970-01-01 in `timeZone`): the date of the last service plus `intervalDays`, whole local dates,
 * so that DST and month ends change nothing. `null` without a calendar interval.
 */
export function dueLocalEpochDay(schedule: Pick<ServiceSchedule, 'lastDoneAt' | 'intervalDays'>, timeZone: string): number | null {
  return schedule.intervalDays === null ? null : localEpochDayAt(schedule.lastDoneAt, timeZone) + schedule.intervalDays;
}
