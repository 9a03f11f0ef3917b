import { checkCalendarReadOnly, readWorkCalendarBody } from '../calendar/calendar-body.js';
import type { CalendarException, CalendarWindow, Weekday, WorkCalendar } from '../calendar/work-calendar.js';
import type { StoredWorkCalendar } from '../store/calendar-port.js';
import type { FleetHoursStore } from '../store/storage-port.js';
import type { ChangeLog, ChangeOrigin } from './change-log.js';
import { ifMatchNames, preconditionFailed } from './entity-tag.js';

/**
 * Keeping and changing work calendars (D52, D58, P112, P113): the one implementation behind
 * `GET`/`PUT /api/v1/devices/{id}/calendar`, `GET`/`PUT /api/v1/calendar` and the CLI's `calendar`
 * commands. A device uses its own calendar, else its account's default, else none.
 */

/** Where the calendar a device uses comes from (P113): its own, its account's default, or none. */
export type CalendarSource = 'device' | 'account' | 'none';

/** A work calendar as a read shows it (P113). */
export interface WorkCalendarView {
  readonly source: CalendarSource;
  /** The device's zone; `null` for the account's default (it has no zone: each device uses its own). */
  readonly timeZone: string | null;
  /** The calendar in use; `null` when there is none. */
  readonly calendar: WorkCalendar | null;
  /** The version of the place written (P112): the device's own calendar's, or the account default's; 0 when never set. */
  readonly version: number;
}

/** A work calendar's body in the API and the CLI's `--json` (D58, P113). */
export interface WorkCalendarAnswer {
  readonly source: CalendarSource;
  readonly timezone: string | null;
  readonly weekly: Readonly<Record<Weekday, readonly CalendarWindow[]>> | null;
  readonly exceptions: readonly CalendarException[];
  readonly version: number;
}

/**
 * The API's body of a calendar (P113): `weekly` `null` and no exceptions when there is none.
 *
 * @example
 * ```ts
 * import { workCalendarAnswer } from '@fleet-hours/core';
 * workCalendarAnswer({ source: 'none', timeZone: null, calendar: null, version: 0 }).weekly; // null
 * ```
 */
export function workCalendarAnswer(view: WorkCalendarView): WorkCalendarAnswer {
  return {
    source: view.source,
    timezone: view.timeZone,
    weekly: view.calendar?.weekly ?? null,
    exceptions: view.calendar?.exceptions ?? [],
    version: view.version,
  };
}

/**
 * The entity tag of a calendar (D54, P112): its version in double quotes, `"3"`.
 *
 * @example
 * ```ts
 * import { workCalendarEntityTag } from '@fleet-hours/core';
 * workCalendarEntityTag({ version: 3 }); // '"3"'
 * ```
 */
export function workCalendarEntityTag(view: Pick<WorkCalendarView, 'version'>): string {
  return `"${view.version}"`;
}

/** The service's reads and writes of work calendars (D52, D58): every front end's. */
export interface CalendarWrites {
  /**
   * The calendar a device uses (`deviceId` given), or the account's default (`deviceId: null`).
   *
   * @returns The calendar; `null` when the account has no such device (or, for the default, does not exist).
   */
  findWorkCalendar(input: { readonly accountId: number; readonly deviceId: number | null }): Promise<WorkCalendarView | null>;
  /**
   * Sets (or, with a JSON `null` body, removes) a device's own calendar or the account's default.
   * The body is checked before anything is read. A body equal to the calendar kept changes nothing.
   *
   * @returns The calendar the device uses afterwards (or the account's default); `null` when the account has no such device.
   * @throws {InvalidFieldError} A field of the body that cannot be used, by its path (400).
   * @throws {FleetHoursError} `precondition_failed` (412) when `ifMatch` names another version, also when it changes meanwhile (D54).
   */
  putWorkCalendar(input: {
    readonly accountId: number;
    readonly deviceId: number | null;
    readonly body: unknown;
    /** D54: an `If-Match` header value: the write applies only to this version (`*`: any). */
    readonly ifMatch?: string | undefined;
    /** D55: who asks, recorded in the change log once the calendar changed. */
    readonly origin: ChangeOrigin;
  }): Promise<WorkCalendarView | null>;
}

/** How often a write without `If-Match` reads again when another write came between its read and its write. */
const _ATTEMPTS = 5;

/**
 * The reads and writes of work calendars over a store (D58). Each change is reported to the change
 * log (D55): `work_calendar.update` or `work_calendar.delete`, the resource `work_calendar` by the
 * device's id or `default`, `weekly` and `exceptions` before and after.
 *
 * @param store The store.
 * @param changeLog Where the changes are reported (D55).
 * @returns The reads and writes.
 */
export function calendarWrites(store: FleetHoursStore, changeLog: ChangeLog): CalendarWrites {
  /** The place's own calendar and what a read shows; `null` when the device or the account is not there. */
  const read = async (accountId: number, deviceId: number | null) => {
    let timeZone: string | null = null;
    if (deviceId === null) {
      if (!(await store.findAccount({ accountId }))) return null;
    } else {
      const device = await store.findDevice({ accountId, deviceId });
      if (!device) return null;
      timeZone = device.timeZone;
    }
    const own = await store.findWorkCalendar({ accountId, deviceId });
    return { own, view: await _view(store, accountId, deviceId, timeZone, own) };
  };
  return {
    async findWorkCalendar({ accountId, deviceId }) {
      return (await read(accountId, deviceId))?.view ?? null;
    },
    async putWorkCalendar({ accountId, deviceId, body, ifMatch, origin }) {
      const { calendar, readOnly } = readWorkCalendarBody(body);
      for (let attempt = 1; ; attempt += 1) {
        const current = await read(accountId, deviceId);
        if (!current) return null;
        const { own, view } = current;
        checkCalendarReadOnly(readOnly, { timezone: view.timeZone, version: view.version, source: view.source });
        if (ifMatch !== undefined && !ifMatchNames(ifMatch, String(own.version))) throw preconditionFailed('work calendar');
        // The same calendar again, or the removal of none: nothing changes (P112).
        if (JSON.stringify(calendar) === JSON.stringify(own.calendar)) return view;
        const stored = await store.putWorkCalendar({ accountId, deviceId, calendar, expectedVersion: own.version });
        if (!stored) {
          // Another write came between (D54): with If-Match that is a 412; without, read again.
          if (ifMatch !== undefined || attempt >= _ATTEMPTS) throw preconditionFailed('work calendar');
          continue;
        }
        await changeLog.record({
          accountId,
          origin,
          action: calendar === null ? 'work_calendar.delete' : 'work_calendar.update',
          resource: { type: 'work_calendar', id: deviceId === null ? 'default' : String(deviceId) },
          before: own.calendar && { ...own.calendar },
          after: calendar && { ...calendar },
        });
        return _view(store, accountId, deviceId, view.timeZone, stored);
      }
    },
  };
}

/** What a read shows (P113): the place's own calendar, else (for a device) the account's default, else none. */
async function _view(
  store: FleetHoursStore,
  accountId: number,
  deviceId: number | null,
  timeZone: string | null,
  own: StoredWorkCalendar,
): Promise<WorkCalendarView> {
  const version = own.version;
  if (own.calendar) return { source: deviceId === null ? 'account' : 'device', timeZone, calendar: own.calendar, version };
  if (deviceId === null) return { source: 'none', timeZone, calendar: null, version };
  const fallback = await store.findWorkCalendar({ accountId, deviceId: null });
  return fallback.calendar
    ? { source: 'account', timeZone, calendar: fallback.calendar, version }
    : { source: 'none', timeZone, calendar: null, version };
}
