import { InvalidParameterError } from '../errors/errors.js';
import { formatInstant } from '../time/format-instant.js';
import { givenInstantRangeMessage, isGivenInstantInRange } from '../time/instant-floor.js';
import { controlCharacterRefusal } from '../text/clean-text.js';
import { localEpochDayAt } from '../time/local-date.js';
import { dueLocalEpochDay } from './due-day.js';
import { formatIsoDate, formatIsoYear, isoDateOfEpochDay } from '../time/iso-days.js';
import { applyChanges } from '../store/apply-changes.js';
import { entityVersion } from '../manage/entity-tag.js';
import type {
  EpochSeconds,
  NewServiceSchedule,
  ServiceSchedule,
  ServiceScheduleChanges,
  ServiceScheduleState,
  ServiceStatus,
} from '../types.js';
import { SERVICE_STATUSES } from '../types.js';

/** The longest interval or margin a schedule takes, in seconds: 100,000 hours. */
export const MAX_SERVICE_INTERVAL_SECONDS = 360_000_000;
/** The longest calendar interval or margin a schedule takes, in days: 100 years. */
export const MAX_SERVICE_INTERVAL_DAYS = 36_525;
/** The highest hour meter a reading or a last service takes, in seconds: 10,000,000 hours. */
export const MAX_HOUR_METER_SECONDS = 36_000_000_000;

/**
 * The due-soon margins a schedule uses (D39): the stored ones, or by default a tenth of each
 * interval (seconds floored; days floored, at least 1).
 *
 * @param schedule The intervals and the stored margins.
 * @returns The margins; `dueSoonDays` is `null` without a calendar interval.
 */
export function serviceMargins(schedule: Pick<ServiceSchedule, 'intervalSeconds' | 'intervalDays' | 'dueSoonSeconds' | 'dueSoonDays'>): {
  readonly dueSoonSeconds: number;
  readonly dueSoonDays: number | null;
} {
  const dueSoonSeconds = schedule.dueSoonSeconds ?? Math.floor(schedule.intervalSeconds / 10);
  if (schedule.intervalDays === null) return { dueSoonSeconds, dueSoonDays: null };
  return { dueSoonSeconds, dueSoonDays: schedule.dueSoonDays ?? Math.max(1, Math.floor(schedule.intervalDays / 10)) };
}

/** The version of a schedule (D54, P77): a hash of every stored field a write can change. */
export function scheduleVersion(schedule: ServiceSchedule): string {
  return entityVersion('s', [
    schedule.name,
    schedule.intervalSeconds,
    schedule.intervalDays,
    schedule.dueSoonSeconds,
    schedule.dueSoonDays,
    schedule.lastDoneAt,
    schedule.lastDoneHourMeterSeconds,
  ]);
}

/**
 * Where a schedule stands at `now` (D39): due at the last service plus each interval; remaining
 * seconds and days may be negative; `overdue` when either interval has run out, else `due_soon`
 * within either margin, else `ok`. The calendar interval is counted in local dates of the device's
 * zone: `due_date` is the date of the last service plus `interval_days`, whatever DST or month
 * ends lie between.
 *
 * @param input The schedule, the hour meter at its last service and now (D38), the device's zone and now.
 * @returns The schedule as the service endpoint shows it.
 * @example
 * ```ts
 * import { serviceState } from '@fleet-hours/core';
 * const schedule = {
 *   id: 3, deviceId: 7, name: 'Engine oil', intervalSeconds: 900_000, intervalDays: 180,
 *   dueSoonSeconds: null, dueSoonDays: null, lastDoneAt: 1788264000, lastDoneHourMeterSeconds: null, createdAt: 1788264000,
 * };
 * serviceState({ schedule, lastDoneHourMeterSeconds: 3_690_000, hourMeterSeconds: 4_512_000, timeZone: 'America/New_York', now: 1795618800 }).status;
 * // 'due_soon' (78,000 s left, within the 90,000 s margin)
 * ```
 */
export function serviceState(input: {
  readonly schedule: ServiceSchedule;
  readonly lastDoneHourMeterSeconds: number;
  readonly hourMeterSeconds: number;
  readonly timeZone: string;
  readonly now: EpochSeconds;
}): ServiceScheduleState {
  const { schedule, lastDoneHourMeterSeconds, hourMeterSeconds, timeZone, now } = input;
  const { dueSoonSeconds, dueSoonDays } = serviceMargins(schedule);
  const dueHourMeterSeconds = lastDoneHourMeterSeconds + schedule.intervalSeconds;
  const remainingSeconds = dueHourMeterSeconds - hourMeterSeconds;
  let dueDate: string | null = null;
  let remainingDays: number | null = null;
  const dueDay = dueLocalEpochDay(schedule, timeZone);
  if (dueDay !== null) {
    const { year, month, day } = isoDateOfEpochDay(dueDay);
    dueDate = formatIsoDate(formatIsoYear(year), month, day);
    remainingDays = dueDay - localEpochDayAt(now, timeZone);
  }
  return {
    id: schedule.id,
    name: schedule.name,
    intervalSeconds: schedule.intervalSeconds,
    intervalDays: schedule.intervalDays,
    dueSoonSeconds,
    dueSoonDays,
    lastDoneAt: formatInstant(schedule.lastDoneAt, timeZone),
    lastDoneHourMeterSeconds,
    dueHourMeterSeconds,
    dueDate,
    remainingSeconds,
    remainingDays,
    status: _status(remainingSeconds, remainingDays, dueSoonSeconds, dueSoonDays),
    version: scheduleVersion(schedule),
  };
}

function _status(
  remainingSeconds: number,
  remainingDays: number | null,
  dueSoonSeconds: number,
  dueSoonDays: number | null,
): ServiceStatus {
  if (remainingSeconds <= 0 || (remainingDays !== null && remainingDays < 0)) return 'overdue';
  if (remainingSeconds <= dueSoonSeconds || (remainingDays !== null && dueSoonDays !== null && remainingDays <= dueSoonDays)) {
    return 'due_soon';
  }
  return 'ok';
}

/**
 * The worst of some statuses (`overdue` over `due_soon` over `ok`); `null` for none.
 *
 * @param statuses Any number of statuses.
 * @returns The worst one, or `null`.
 */
export function worstServiceStatus(statuses: Iterable<ServiceStatus>): ServiceStatus | null {
  let worst: ServiceStatus | null = null;
  for (const status of statuses) {
    if (status === 'overdue') return status;
    if (status === 'due_soon' || worst === null) worst = status;
  }
  return worst;
}

/**
 * Checks a new schedule or the result of changes (D39) and refuses it with an
 * `InvalidParameterError` naming the field: a name that is empty, longer than 200 characters or
 * holds a control character (D50);
 * an interval that is not a whole number of seconds (days) above zero; a due-soon margin that is
 * negative or larger than its interval; a margin in days without a calendar interval; a last
 * service with a negative hour meter, after `now` or outside the range of every given instant (D50).
 *
 * @param schedule The schedule as it would be stored.
 * @param now Epoch seconds.
 * @returns The schedule, unchanged.
 * @throws {InvalidParameterError} Naming `name`, `interval_seconds`, `interval_days`,
 *   `due_soon_seconds`, `due_soon_days`, `last_done_at` or `last_done_hour_meter_seconds`.
 */
export function checkServiceSchedule<Schedule extends NewServiceSchedule | ServiceSchedule>(
  schedule: Schedule,
  now: EpochSeconds,
): Schedule {
  return _checkSchedule(schedule, now, null);
}

/**
 * {@link checkServiceSchedule}. The name's characters and the last service's range (D50) are
 * checked as given (all of a new schedule, the `changes` of a stored one), never as stored: a name
 * stored before the check does not block a change of its interval.
 */
function _checkSchedule<Schedule extends NewServiceSchedule | ServiceSchedule>(
  schedule: Schedule,
  now: EpochSeconds,
  changes: ServiceScheduleChanges | null,
): Schedule {
  const name = schedule.name;
  if (typeof name !== 'string' || name.trim() === '' || name.length > 200) {
    throw new InvalidParameterError('name', 'name must be between 1 and 200 characters, not only spaces');
  }
  const unclean = changes === null || changes.name !== undefined ? controlCharacterRefusal('name', name) : null;
  if (unclean !== null) throw new InvalidParameterError('name', unclean);
  _wholeAbove('interval_seconds', schedule.intervalSeconds, MAX_SERVICE_INTERVAL_SECONDS, 'seconds');
  const intervalDays = schedule.intervalDays ?? null;
  if (intervalDays !== null) _wholeAbove('interval_days', intervalDays, MAX_SERVICE_INTERVAL_DAYS, 'days');
  const dueSoonSeconds = schedule.dueSoonSeconds ?? null;
  if (dueSoonSeconds !== null) _margin('due_soon_seconds', dueSoonSeconds, schedule.intervalSeconds, 'interval_seconds');
  const dueSoonDays = schedule.dueSoonDays ?? null;
  if (dueSoonDays !== null) {
    if (intervalDays === null) throw new InvalidParameterError('due_soon_days', 'due_soon_days needs a calendar interval (interval_days)');
    _margin('due_soon_days', dueSoonDays, intervalDays, 'interval_days');
  }
  // D50: the one range of every instant a person gives, before the future is looked at.
  const lastDoneGiven = changes === null || changes.lastDoneAt !== undefined;
  if (lastDoneGiven && Number.isFinite(schedule.lastDoneAt) && !isGivenInstantInRange(schedule.lastDoneAt)) {
    throw new InvalidParameterError('last_done_at', givenInstantRangeMessage('last_done_at', String(schedule.lastDoneAt)));
  }
  if (!Number.isSafeInteger(schedule.lastDoneAt) || schedule.lastDoneAt > now) {
    throw new InvalidParameterError('last_done_at', 'last_done_at must be an instant that is not in the future');
  }
  const lastDone = schedule.lastDoneHourMeterSeconds ?? null;
  if (lastDone !== null) checkHourMeterSeconds('last_done_hour_meter_seconds', lastDone);
  return schedule;
}

/**
 * Applies changes to a stored schedule and checks the result with {@link checkServiceSchedule}.
 *
 * @param schedule The stored schedule.
 * @param changes The changes (a field left out keeps its value; `null` clears an optional one).
 * @param now Epoch seconds.
 * @returns The changed schedule.
 * @throws {InvalidParameterError} As {@link checkServiceSchedule}.
 */
export function changeServiceSchedule(schedule: ServiceSchedule, changes: ServiceScheduleChanges, now: EpochSeconds): ServiceSchedule {
  const changed = applyChanges(schedule, changes);
  // A margin in days means nothing without a calendar interval: removing the interval removes it.
  const cleared = changed.intervalDays === null && changes.dueSoonDays === undefined ? { ...changed, dueSoonDays: null } : changed;
  return _checkSchedule(cleared, now, changes);
}

/**
 * Checks an hour-meter value: a whole number of seconds from 0 to {@link MAX_HOUR_METER_SECONDS}.
 *
 * @param field The field to name.
 * @param seconds The value.
 * @throws {InvalidParameterError} Naming `field`.
 */
export function checkHourMeterSeconds(field: string, seconds: number): void {
  if (!Number.isSafeInteger(seconds) || seconds < 0 || seconds > MAX_HOUR_METER_SECONDS) {
    throw new InvalidParameterError(field, `${field} must be a whole number of seconds from 0 to ${MAX_HOUR_METER_SECONDS}`);
  }
}

function _wholeAbove(field: string, value: number, max: number, unit: string): void {
  if (!Number.isSafeInteger(value) || value <= 0 || value > max) {
    throw new InvalidParameterError(field, `${field} must be a whole number of ${unit} above 0 and at most ${max}`);
  }
}

function _margin(field: string, value: number, interval: number, intervalField: string): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new InvalidParameterError(field, `${field} must be a whole number, 0 or more`);
  if (value > interval)
    throw new InvalidParameterError(field, `${field} (${value}) must not be larger than ${intervalField} (${interval})`);
}

/**
 * Parses the `status` query parameter of the fleet service endpoint (D39): one or more statuses
 * separated by commas (`due_soon,overdue`). Absent: every device. A repeated parameter is refused
 * like `from` (D7).
 *
 * @param value The parameter as the router hands it over (`c.req.queries('status')`).
 * @returns The statuses, without repeats, or `undefined` when absent.
 * @throws {InvalidParameterError} Naming `status`.
 * @example
 * ```ts
 * import { parseServiceStatuses } from '@fleet-hours/core';
 * parseServiceStatuses('due_soon,overdue'); // ['due_soon', 'overdue']
 * parseServiceStatuses('late'); // throws InvalidParameterError: Parameter status "late" is not one of ok, due_soon, overdue
 * ```
 */
export function parseServiceStatuses(value: string | readonly string[] | undefined): ServiceStatus[] | undefined {
  if (value === undefined) return undefined;
  const values = typeof value === 'string' ? [value] : value;
  if (values.length === 0) return undefined;
  if (values.length > 1)
    throw new InvalidParameterError('status', 'Parameter status is repeated: give it once, its statuses separated by commas');
  const statuses = new Set<ServiceStatus>();
  for (const part of values[0]!.split(',')) {
    if (!SERVICE_STATUSES.includes(part as ServiceStatus)) {
      const shown = part.length > 40 ? `${part.slice(0, 40)}…` : part;
      throw new InvalidParameterError('status', `Parameter status "${shown}" is not one of ${SERVICE_STATUSES.join(', ')}`);
    }
    statuses.add(part as ServiceStatus);
  }
  return [...statuses];
}
