import type { Account, Device } from '../types.js';
import type { StoredWorkCalendar, WorkCalendarStore } from './calendar-port.js';
import type { MemoryUndo } from './memory-units.js';

/** The work calendars of a memory store (D58, P112): by account, and by device for a device's own. */
export function memoryCalendars(
  accounts: ReadonlyMap<number, Account>,
  devices: ReadonlyMap<number, Device>,
  undo: MemoryUndo,
): WorkCalendarStore {
  const calendars = new Map<string, StoredWorkCalendar>();
  // P102: a failed unit puts the calendars back (each stored calendar is replaced, never changed).
  undo.keep([calendars]);
  const key = (accountId: number, deviceId: number | null) => `${accountId}/${deviceId ?? ''}`;
  const owned = (accountId: number, deviceId: number | null) =>
    deviceId === null ? accounts.has(accountId) : devices.get(deviceId)?.accountId === accountId;
  const copy = (stored: StoredWorkCalendar | undefined): StoredWorkCalendar =>
    stored === undefined ? { calendar: null, version: 0 } : structuredClone(stored);
  return {
    async findWorkCalendar({ accountId, deviceId }) {
      return copy(owned(accountId, deviceId) ? calendars.get(key(accountId, deviceId)) : undefined);
    },
    async findWorkCalendarsMany({ accountId, deviceIds }) {
      const own = (deviceId: number | null) =>
        copy(owned(accountId, deviceId) ? calendars.get(key(accountId, deviceId)) : undefined).calendar;
      return { accountDefault: own(null), devices: deviceIds.map(own) };
    },
    async putWorkCalendar({ accountId, deviceId, calendar, expectedVersion }) {
      if (!owned(accountId, deviceId)) return null;
      const current = copy(calendars.get(key(accountId, deviceId)));
      if (expectedVersion !== undefined && current.version !== expectedVersion) return null;
      const stored = copy({ calendar, version: current.version + 1 });
      calendars.set(key(accountId, deviceId), stored);
      return copy(stored);
    },
  };
}
