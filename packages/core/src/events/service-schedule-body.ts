import type { ServiceScheduleState } from '../types.js';

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
  };
}
