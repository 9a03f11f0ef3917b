/**
 * A work calendar (D58): the hours a machine is meant to work, as windows of local wall time per
 * weekday, and dated exceptions (holidays, short days). The types here are the calendar as the API
 * shows it; what a window means on a given local date, clock changes included, is decided in this
 * folder too.
 */

/** The days of the week as the calendar names them, Monday first (ISO 8601). */
export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;

/** A day of the week of a work calendar. */
export type Weekday = (typeof WEEKDAYS)[number];

/**
 * A window of local wall time, `[start, end]`, each `HH:MM` (D58). `end` after `start`, or before it
 * for a window that crosses midnight; `"24:00"` only as an end; `end` equal to `start` is refused.
 */
export type CalendarWindow = readonly [start: string, end: string];

/** A dated exception (D58): on `date` (`YYYY-MM-DD`, local), these windows replace the weekday's. */
export interface CalendarException {
  readonly date: string;
  readonly windows: readonly CalendarWindow[];
}

/** A work calendar without its zone and version (D58): what a device or an account keeps. */
export interface WorkCalendar {
  readonly weekly: Readonly<Record<Weekday, readonly CalendarWindow[]>>;
  readonly exceptions: readonly CalendarException[];
}
