import { FleetHoursError, InvalidFieldError, InvalidParameterError } from '../errors/errors.js';
import { checkHourMeterReading } from '../maintenance/hour-meter.js';
import {
  changeServiceSchedule,
  checkHourMeterSeconds,
  checkServiceSchedule,
  MAX_SERVICE_INTERVAL_DAYS,
  MAX_SERVICE_INTERVAL_SECONDS,
} from '../maintenance/service-status.js';
import { controlCharacterRefusal } from '../text/clean-text.js';
import { givenInstantRangeMessage, isGivenInstantInRange } from '../time/instant-floor.js';
import { parseInstant } from '../time/parse-instant.js';
import type { EpochSeconds, ServiceSchedule, ServiceScheduleChanges } from '../types.js';

/**
 * The fields of the writes of readings, schedules and services done (D38, D39, D50, P76), checked
 * by their names in the API's body: the one check of the API and the CLI, whose options are named
 * after them.
 */

/** The fields of a reading's write, by their names in the API's body (D38). */
export const READING_FIELDS = ['read_at', 'reading_seconds', 'source'] as const;

/** The fields of a schedule's write, by their names in the API's body (D39). */
export const SCHEDULE_FIELDS = [
  'name',
  'interval_seconds',
  'interval_days',
  'due_soon_seconds',
  'due_soon_days',
  'last_done_at',
  'last_done_hour_meter_seconds',
] as const;

/** The fields of a service done (D39): when, and optionally the hour meter then (recorded as a reading too). */
export const SERVICE_DONE_FIELDS = ['done_at', 'hour_meter_seconds'] as const;

/** The source of a reading recorded by a person (the API or the CLI); the only one a write gives. */
export const MANUAL_READING_SOURCE = 'manual';

/**
 * Checks the body of a reading (D38, D50): `reading_seconds` a whole number of seconds from 0 up,
 * `read_at` an instant with an offset between 0001-01-02 and 9999-12-30 and not after now (default
 * now), `source` `manual` when given; unknown fields refused.
 *
 * @throws {InvalidFieldError} Naming the field.
 */
export function readReadingFields(input: unknown, now: EpochSeconds): { readonly readAt: EpochSeconds; readonly readingSeconds: number } {
  const given = _object(input, READING_FIELDS, 'a reading');
  if (given.reading_seconds === undefined) throw new InvalidFieldError('reading_seconds', 'reading_seconds is required');
  if (given.source !== undefined && given.source !== MANUAL_READING_SOURCE)
    throw new InvalidFieldError('source', `source must be "${MANUAL_READING_SOURCE}": a reading recorded here is a person's`);
  const readAt = given.read_at === undefined ? now : _instant('read_at', given.read_at);
  const readingSeconds = _whole('reading_seconds', given.reading_seconds);
  _asField(() => checkHourMeterReading({ readAt, readingSeconds }, now));
  return { readAt, readingSeconds };
}

/** The checked fields of a new schedule: a {@link ServiceSchedule}'s own fields, every one given. */
export type NewScheduleFields = Omit<ServiceSchedule, 'id' | 'deviceId' | 'createdAt'>;

/**
 * Checks the body of a schedule's write (D39, D50) by field: `name` (trimmed, 1–200 characters, no
 * control characters), `interval_seconds`, `interval_days` (or null), `due_soon_seconds` and
 * `due_soon_days` (or null: a tenth of the interval), `last_done_at` (an instant, default now) and
 * `last_done_hour_meter_seconds` (or null: the hour meter then, which needs `last_done_at` on a new
 * schedule). A change needs at least one field. Unknown fields refused.
 *
 * @throws {InvalidFieldError} Naming the field.
 * @throws {FleetHoursError} `invalid_body` when the input is not an object, or a change without fields.
 */
export function readScheduleFields(input: unknown, mode: 'create', now: EpochSeconds): NewScheduleFields;
export function readScheduleFields(input: unknown, mode: 'update', now: EpochSeconds): ServiceScheduleChanges;
export function readScheduleFields(
  input: unknown,
  mode: 'create' | 'update',
  now: EpochSeconds,
): NewScheduleFields | ServiceScheduleChanges {
  const given = _object(input, SCHEDULE_FIELDS, 'a service schedule');
  const fields: { -readonly [Field in keyof ServiceScheduleChanges]: ServiceScheduleChanges[Field] } = {};
  if (mode === 'create') {
    for (const field of ['name', 'interval_seconds'] as const)
      if (given[field] === undefined) throw new InvalidFieldError(field, `${field} is required`);
    if (given.last_done_hour_meter_seconds != null && given.last_done_at === undefined) {
      throw new InvalidFieldError(
        'last_done_hour_meter_seconds',
        'last_done_hour_meter_seconds needs last_done_at: the hour meter at the last service goes with its instant (a new schedule starts from the hour meter now)',
      );
    }
  } else if (Object.keys(given).length === 0) {
    throw new FleetHoursError('invalid_body', { message: `Nothing to change: give at least one of ${SCHEDULE_FIELDS.join(', ')}` });
  }
  if (given.name !== undefined) fields.name = _name(given.name);
  if (given.interval_seconds !== undefined) fields.intervalSeconds = _whole('interval_seconds', given.interval_seconds);
  if (given.interval_days !== undefined) fields.intervalDays = _wholeOrNull('interval_days', given.interval_days);
  if (given.due_soon_seconds !== undefined) fields.dueSoonSeconds = _wholeOrNull('due_soon_seconds', given.due_soon_seconds);
  if (given.due_soon_days !== undefined) fields.dueSoonDays = _wholeOrNull('due_soon_days', given.due_soon_days);
  if (given.last_done_at !== undefined) fields.lastDoneAt = _instant('last_done_at', given.last_done_at);
  if (given.last_done_hour_meter_seconds !== undefined)
    fields.lastDoneHourMeterSeconds = _wholeOrNull('last_done_hour_meter_seconds', given.last_done_hour_meter_seconds);
  if (mode === 'update') {
    // Each value on its own (P71): against a schedule that allows every value, so that only what
    // depends on the stored schedule (a margin larger than its interval) waits for it.
    _asField(() => changeServiceSchedule(_ANY_SCHEDULE(now), fields, now));
    return fields;
  }
  const created: NewScheduleFields = {
    name: fields.name!,
    intervalSeconds: fields.intervalSeconds!,
    intervalDays: fields.intervalDays ?? null,
    dueSoonSeconds: fields.dueSoonSeconds ?? null,
    dueSoonDays: fields.dueSoonDays ?? null,
    lastDoneAt: fields.lastDoneAt ?? now,
    lastDoneHourMeterSeconds: fields.lastDoneHourMeterSeconds ?? null,
  };
  _asField(() => checkServiceSchedule({ deviceId: 0, ...created }, now));
  return created;
}

/**
 * Checks the body of a service done (D39, D50): `done_at` an instant not after now (default now),
 * `hour_meter_seconds` the hour meter then (optional). Unknown fields refused.
 *
 * @throws {InvalidFieldError} Naming the field.
 */
export function readServiceDoneFields(
  input: unknown,
  now: EpochSeconds,
): { readonly doneAt: EpochSeconds; readonly hourMeterSeconds: number | null } {
  const given = _object(input ?? {}, SERVICE_DONE_FIELDS, 'a service done');
  const doneAt = given.done_at === undefined ? now : _instant('done_at', given.done_at);
  if (doneAt > now) throw new InvalidFieldError('done_at', 'done_at must be an instant that is not in the future');
  const hourMeterSeconds = given.hour_meter_seconds == null ? null : _whole('hour_meter_seconds', given.hour_meter_seconds);
  if (hourMeterSeconds !== null) _asField(() => checkHourMeterSeconds('hour_meter_seconds', hourMeterSeconds));
  return { doneAt, hourMeterSeconds };
}

/** A schedule any change of a single value keeps valid: the largest intervals. */
const _ANY_SCHEDULE = (now: EpochSeconds): ServiceSchedule => ({
  id: 0,
  deviceId: 0,
  name: 'any',
  intervalSeconds: MAX_SERVICE_INTERVAL_SECONDS,
  intervalDays: MAX_SERVICE_INTERVAL_DAYS,
  dueSoonSeconds: null,
  dueSoonDays: null,
  lastDoneAt: now,
  lastDoneHourMeterSeconds: null,
  createdAt: now,
});

/** The body as an object whose every key is one of `fields`. */
function _object(input: unknown, fields: readonly string[], what: string): Readonly<Record<string, unknown>> {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw new FleetHoursError('invalid_body', { message: `The body must be a JSON object with the fields of ${what}` });
  for (const field of Object.keys(input)) {
    if (!fields.includes(field)) throw new InvalidFieldError(field, `Unknown field "${field}": ${what} has ${fields.join(', ')}`);
  }
  return input as Readonly<Record<string, unknown>>;
}

function _whole(field: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw new InvalidFieldError(field, `${field} must be a whole number`);
  return value;
}

function _wholeOrNull(field: string, value: unknown): number | null {
  return value === null ? null : _whole(field, value);
}

function _name(value: unknown): string {
  if (typeof value !== 'string') throw new InvalidFieldError('name', 'name must be a string');
  const refusal = controlCharacterRefusal('name', value);
  if (refusal !== null) throw new InvalidFieldError('name', refusal);
  const name = value.trim();
  if (name === '' || name.length > 200) throw new InvalidFieldError('name', 'name must be between 1 and 200 characters, not only spaces');
  return name;
}

/** An instant a person gives (D50): ISO 8601 with an offset, between 0001-01-02 and 9999-12-30. */
function _instant(field: string, value: unknown): EpochSeconds {
  if (typeof value !== 'string')
    throw new InvalidFieldError(field, `${field} must be an ISO 8601 instant with an offset, e.g. 2026-11-20T07:00:00-05:00`);
  let seconds: number;
  try {
    seconds = parseInstant(value.trim());
  } catch {
    const shown = value.length > 40 ? `${value.slice(0, 40)}…` : value;
    throw new InvalidFieldError(
      field,
      `${field} must be an ISO 8601 instant with an offset, e.g. 2026-11-20T07:00:00-05:00, got ${JSON.stringify(shown)}`,
    );
  }
  if (!isGivenInstantInRange(seconds)) throw new InvalidFieldError(field, givenInstantRangeMessage(field, JSON.stringify(value)));
  return seconds;
}

/** Internal to the core. The core's checks of D38–D39 name their fields as `InvalidParameterError`s: here they are the body's fields. */
export function _asField<Value>(check: () => Value, renamed: Readonly<Record<string, string>> = {}): Value {
  try {
    return check();
  } catch (error) {
    if (!(error instanceof InvalidParameterError)) throw error;
    const field = renamed[error.parameter] ?? error.parameter;
    const message = renamed[error.parameter] === undefined ? error.message : error.message.replaceAll(error.parameter, field);
    throw new InvalidFieldError(field, message);
  }
}
