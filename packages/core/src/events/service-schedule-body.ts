import { SCHEDULE_FIELDS } from '../manage/maintenance-fields.js';
import type { ServiceScheduleState } from '../types.js';

/**
 * A schedule's JSON fields in their order (D39): its id, the fields its writes give, what the
 * service read works out, and its version. {@link serviceScheduleBody} has exactly these, and the
 * CSV of the service lists has them as columns (D62).
 */
export const SERVICE_SCHEDULE_BODY_FIELDS = [
  'id',
  ...SCHEDULE_FIELDS,
  'due_hour_meter_seconds',
  'due_date',
  'remaining_seconds',
  'remaining_days',
  'status',
  'version',
] as const;

/**
 * One schedule as JSON (D39), the one place of its fields and their order: the `schedule` of a
 * service event's body (D40), each element of `/devices/{id}/service`'s `data`, and the answer of a
 * schedule's write (D52), each with its version (D54, P101).
 *
 * @param schedule The schedule as the service read gives it.
 * @returns Its JSON fields.
 */
export function serviceScheduleBody(schedule: ServiceScheduleState) {
  return {
    id: schedule.id,
    name: schedule.name,
    interval_seconds: schedule.intervalSeconds,
    interval_days: schedule.intervalDays,
    due_soon_seconds: schedule.dueSoonSeconds,
    due_soon_days: schedule.dueSoonDays,
    last_done_at: schedule.lastDoneAt,
    last_done_hour_meter_seconds: schedule.lastDoneHourMeterSeconds,
    due_hour_meter_seconds: schedule.dueHourMeterSeconds,
    due_date: schedule.dueDate,
    remaining_seconds: schedule.remainingSeconds,
    remaining_days: schedule.remainingDays,
    status: schedule.status,
    // D54 (P101): the version its writes answer, so that a read (or an event) gives the `If-Match` of the next write.
    version: schedule.version,
  } satisfies Record<(typeof SERVICE_SCHEDULE_BODY_FIELDS)[number], unknown>;
}
