import type { WorkCalendar } from '../calendar/work-calendar.js';

/**
 * A work calendar as a store keeps it (D58, P112): a device's own or its account's default. The
 * version counts the changes of the calendar's place, its removals included: 0 when it never had
 * one, so a version once shown is never shown again for another calendar.
 */
export interface StoredWorkCalendar {
  /** The calendar; `null` when there is none (never set, or removed). */
  readonly calendar: WorkCalendar | null;
  /** How many times it was set or removed: 0 when never. */
  readonly version: number;
}

/**
 * The work calendars' part of the storage port (D58, P112): per account one default, per device one
 * of its own. `deviceId: null` names the account's default. A device's removal removes its calendar.
 */
export interface WorkCalendarStore {
  /**
   * MUST return the device's own calendar when `deviceId` is given (only a device of `accountId`:
   * another account's is as never set), else the account's default; `{ calendar: null, version: 0 }`
   * when it never had one.
   */
  findWorkCalendar(input: { readonly accountId: number; readonly deviceId: number | null }): Promise<StoredWorkCalendar>;

  /**
   * MUST store the calendar (`null`: remove it) in place of the one there, with the version one
   * more, and return what is stored now. With `expectedVersion`, only while the stored version is
   * still that one (0: none ever stored), atomically; otherwise nothing is written and `null`
   * returned. `null` too, writing nothing, when the account does not exist or the device is not
   * the account's.
   */
  putWorkCalendar(input: {
    readonly accountId: number;
    readonly deviceId: number | null;
    readonly calendar: WorkCalendar | null;
    readonly expectedVersion?: number;
  }): Promise<StoredWorkCalendar | null>;

  /**
   * Optional capability (D49, D59, P129): the calendars a page of devices reads, in one round trip:
   * the account's default and each device's own, as `findWorkCalendar` would return their
   * calendars (`null` for none, or for a device that is not the account's), one per device id in
   * order. Stores without it are served by `findWorkCalendar` once for the default and once per device.
   */
  findWorkCalendarsMany?(input: {
    readonly accountId: number;
    readonly deviceIds: readonly number[];
  }): Promise<{ readonly accountDefault: WorkCalendar | null; readonly devices: readonly (WorkCalendar | null)[] }>;
}
