/**
 * The Fleet Hours domain: engine time split into moving and idle, over windows and local days in a
 * vehicle's own time zone, exact to the second. Pure: no I/O, no clock, no environment. The storage
 * port ({@link FleetHoursStore}) is filled by adapters such as `@fleet-hours/storage-kysely`, built
 * from the helpers of `@fleet-hours/core/adapter`.
 *
 * @module
 */
export * from './types.js';
export * from './errors/error-codes.js';
export * from './errors/errors.js';
export * from './time/time-zone.js';
export * from './time/local-date.js';
export * from './time/format-instant.js';
export * from './time/parse-instant.js';
export * from './time/instant-floor.js';
export * from './text/clean-text.js';
export * from './window/parse-window-query.js';
export type { FleetEndpoint } from './fleet/parse-page-query.js';
export * from './window/resolve-window.js';
export * from './window/day-buckets.js';
export * from './calendar/work-calendar.js';
export { calendarIntervalsOn, calendarWindowsOn, scheduleOfDay, type ScheduledInterval } from './calendar/calendar-schedule.js';
export * from './calendar/day-fields.js';
export * from './calendar/utilization.js';
export { InvalidTelemetryPointError, type TelemetryPoint, type TelemetryPointField } from './telemetry/telemetry-point.js';
export * from './telemetry/telemetry-to-segments.js';
export type { DevicePosition } from './telemetry/newest-position.js';
export * from './access/api-key.js';
export * from './access/credential-state.js';
export { DEFAULT_API_PLANS, type AccessDenial, type AccessResult, type CredentialKind } from './access/access-policy.js';
export {
  createMemoryRateLimitStore,
  DEFAULT_RATE_LIMITS,
  resolveRateLimits,
  type RateLimitCount,
  type RateLimitDecision,
  type RateLimits,
  type RateLimitStore,
} from './access/rate-limit.js';
export type * from './store/storage-port.js';
export * from './store/memory-store.js';
export * from './application/create-fleet-hours.js';
export * from './application/read-queries.js';
export type { AempReads } from './application/aemp-reads.js';
export * from './aemp/aemp-hours.js';
export * from './aemp/aemp-series.js';
export * from './aemp/aemp-equipment.js';
export * from './aemp/aemp-window.js';
export {
  parseUtilizationGrouping,
  parseUtilizationSplit,
  UTILIZATION_SPLITS,
  type UtilizationSplit,
} from './application/utilization-reads.js';
export type { EventChecks } from './application/event-checks.js';
export {
  createTelemetryWrites,
  TELEMETRY_IMPORT_BATCH_POINTS,
  TelemetryImportRefusedError,
  type PositionWriteInput,
  type TelemetryImportInput,
  type TelemetryImportResult,
  type TelemetryWriteInput,
  type TelemetryWrites,
} from './writes/telemetry-writes.js';
export { POSITION_BATCH_MAX, POSITION_WRITES_IN_FLIGHT } from './writes/position-batcher.js';
export { checkRetention } from './writes/retention.js';
export {
  DEVICE_FIELDS,
  DEVICE_STATUSES,
  DEVICE_TEXT_MAX,
  MACHINE_IDENTITY_FIELDS,
  deviceEntityTag,
  deviceVersion,
  deviceWrites,
  readDeviceFields,
  sameDeviceFields,
  type DeviceField,
  type DeviceFields,
  type DeviceWrites,
  type NewDeviceFields,
} from './manage/device-writes.js';
export * from './manage/change-log.js';
export * from './manage/webhook-writes.js';
export * from './manage/webhook-fields.js';
export * from './manage/ingest-token-writes.js';
export * from './manage/idempotency.js';
export * from './manage/audit-log.js';
export * from './manage/maintenance-writes.js';
// D65, D66: the poll of an AEMP source (ISO 15143-3 feeds of OEM clouds).
export * from './aemp/poll-page.js';
export * from './aemp/poll-readings.js';
export * from './aemp/poll-source.js';
export * from './aemp/aemp-source.js';
export { aempSourcesOf } from './store/aemp-source-port.js';
export { AEMP_POLLS_PAGE, aempSourceWrites, type AempSourceChange, type AempSourceWrites } from './manage/aemp-source-writes.js';
export {
  calendarWrites,
  workCalendarAnswer,
  workCalendarEntityTag,
  type CalendarSource,
  type CalendarWrites,
  type WorkCalendarAnswer,
  type WorkCalendarView,
} from './manage/calendar-writes.js';
export { WEEKDAYS, type CalendarException, type CalendarWindow, type Weekday, type WorkCalendar } from './calendar/work-calendar.js';
export { CALENDAR_EXCEPTIONS_MAX, CALENDAR_WINDOWS_MAX, readWorkCalendarBody, type WorkCalendarBody } from './calendar/calendar-body.js';
export {
  hourMeterReadingBody,
  READING_PAGE_SIZES,
  readingVersion,
  scheduleWriteBody,
  type HourMeterReadingBody,
  type ServiceScheduleWriteBody,
} from './manage/maintenance-bodies.js';
export { readReadingFields, readScheduleFields, readServiceDoneFields, SCHEDULE_FIELDS } from './manage/maintenance-fields.js';
export * from './manage/device-tags.js';
export * from './maintenance/hour-meter.js';
export * from './maintenance/service-status.js';
export * from './events/decide-events.js';
export * from './events/device-events.js';
export { serviceScheduleBody } from './events/service-schedule-body.js';
export * from './events/retry-schedule.js';
export * from './events/webhook-message.js';
export * from './events/webhook-endpoint.js';
export type * from './events/webhook-records.js';
export * from './csv/csv-lists.js';
export * from './csv/csv-text.js';
