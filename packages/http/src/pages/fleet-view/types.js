// @ts-check
/** The shapes the fleet view reads from the API and draws, for the JSDoc of its modules. */

/** @typedef {{ latitude: number, longitude: number, at: string }} Position The newest position of a vehicle (P157). */
/** @typedef {{ id: number, name: string, registration: string | null, model: string | null, timezone: string, last_reported_at: string | null, oem_name?: string | null, equipment_model?: string | null, serial_number?: string | null, pin?: string | null, position?: Position | null }} Device A vehicle, as `/api/v1/devices` lists it (the fields the page reads; identity and position are absent from an older server's). */
/** @typedef {{ device_id: number, as_of: string, engine_seconds: number, moving_seconds: number, idle_seconds: number, hour_meter_seconds: number, hour_meter_read_at: string | null }} Meter An element of `/api/v1/meter` (the hour meter: D38). */
/** @typedef {'ok' | 'due_soon' | 'overdue'} ServiceStatus Where a schedule stands (D39). */
/** @typedef {{ id: number, name: string, interval_seconds: number, interval_days: number | null, due_soon_seconds: number, due_soon_days: number | null, last_done_at: string, last_done_hour_meter_seconds: number, due_hour_meter_seconds: number, due_date: string | null, remaining_seconds: number, remaining_days: number | null, status: ServiceStatus, version?: string }} Schedule A schedule of a service body (the fields the page reads; `version` names it in If-Match, D54). */
/** @typedef {{ scope: 'read' | 'manage', label: string | null }} PresentedKey The body of `/api/v1/key` (the fields the page reads, P96). */
/** @typedef {{ device_id: number, as_of: string, hour_meter_seconds: number, data: Schedule[] }} Service An element of `/api/v1/service` (D39). */
/** @typedef {{ schedule: Schedule, unit: 'seconds' | 'days', remaining: number, share: number }} Limit The limit of a schedule that comes first: engine seconds or calendar days left, and the share of its interval that is left. */
/** @typedef {{ date: string, moving_seconds: number, idle_seconds: number }} DailyEntry One local date of a daily series. */
/** @typedef {{ device_id: number, timezone: string, from: string, to: string, data: DailyEntry[] }} Daily The body of `/hours/daily`, and an element of the fleet's. */
/** @typedef {{ period: string, from: string, to: string, engine_seconds: number, scheduled_seconds: number, engine_in_schedule_seconds: number, engine_outside_schedule_seconds: number, utilization: number | null }} UtilizationPeriod A period of a utilization body (the fields the page reads, D60). */
/** @typedef {{ device_id: number, timezone: string, data: UtilizationPeriod[] }} Utilization An element of `/api/v1/utilization` by device (D60). */
/** @typedef {{ date: string, moving: number, idle: number, dayLength?: number }} Day A bar of a chart: engine seconds of one local date, and the date's length when it is one vehicle's. */
/** @typedef {{ from: string, to: string }} Span A window as chosen in the form: two local dates. */
/** @typedef {Record<string, string | number | null | undefined>} Attributes Attributes to set; null and undefined ones are left out. */
/** @typedef {Node | string | number | null | undefined} Child A child to append; text for strings and numbers, nothing for null, undefined and "". */
/** @typedef {Record<string, string | number | null | undefined>} Query Query parameters; empty ones are left out. */

export {};
