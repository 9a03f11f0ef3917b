/**
 * The daily series of one device in one store call (D59, P147): with a store that has
 * `findDeviceWithDays`, the device, its window's segments and its calendar come from one snapshot,
 * and the sums and the day fields are both computed from those segments (`daySeries`): a day's time
 * in and outside its schedule always adds up to its engine time, and the read costs the round trip
 * the sums alone cost before the day fields.
 */
import { InvalidParameterError } from '../errors/errors.js';
import type { FleetHoursStore } from '../store/storage-port.js';
import type { DailyHours } from '../types.js';
import { dayBuckets } from '../window/day-buckets.js';
import { resolveWindow, type ResolvedWindow } from '../window/resolve-window.js';
import { daySeries } from './day-field-reads.js';
import type { ReadContext } from './read-context.js';
import type { WindowQuery } from './read-queries.js';
import { dailyHours } from './read-records.js';

/** Zone changes a read follows before it gives up (the device's zone changed under each try). */
const _TRIES = 3;

/**
 * The daily series, `null` when the account has no such device, `undefined` when the store cannot
 * answer it in one call (no `findDeviceWithDays`, or the device's zone kept changing): the caller
 * then reads it the other way. The window is cut in the zone remembered for the device (none: the
 * device is read first); when the store answers that the zone is another, it is cut again in that
 * one. A window refused in a remembered zone is decided after the device is read (D7, D11).
 */
export async function dailyInOneRead(context: ReadContext, query: WindowQuery, now: number): Promise<DailyHours | null | undefined> {
  const { store, zones } = context;
  const find = store.findDeviceWithDays?.bind(store);
  if (find === undefined) return undefined;
  const windowIn = (timeZone: string) => resolveWindow({ ...context.window, from: query.from, to: query.to, now, timeZone });
  let zone = zones.get(query.deviceId);
  let known = false;
  for (let attempt = 0; attempt < _TRIES; attempt += 1) {
    if (zone === undefined) {
      const device = await store.findDevice({ accountId: query.accountId, deviceId: query.deviceId });
      if (!device) return null;
      zones.remember(device);
      zone = device.timeZone;
      known = true;
    }
    const window = known ? windowIn(zone) : tryWindow(() => windowIn(zone!));
    if (window === null) {
      zone = undefined;
      continue;
    }
    const found = await _findDays(find, query, zone, window);
    if (found === null) {
      zones.forget(query.deviceId);
      return null;
    }
    zones.remember(found.device);
    if (found.days !== null && found.device.timeZone === zone) {
      const { buckets, fields } = daySeries(found.days.segments, zone, found.days.calendar, found.cut, now);
      return dailyHours(found.device, window, found.cut.dates, buckets, fields);
    }
    zone = found.device.timeZone;
    known = true;
  }
  return undefined;
}

/** One `findDeviceWithDays` over the window's days, with the days cut. */
async function _findDays(
  find: NonNullable<FleetHoursStore['findDeviceWithDays']>,
  query: WindowQuery,
  timeZone: string,
  window: ResolvedWindow,
) {
  const cut = dayBuckets(window);
  const found = await find({
    accountId: query.accountId,
    deviceId: query.deviceId,
    timeZone,
    start: cut.boundaries[0]!,
    end: cut.boundaries[cut.boundaries.length - 1]!,
  });
  return found && { ...found, cut };
}

/** `read()`, or `null` when it refuses the window (D7): then the device is read first, so that a missing device is still 404 (D11). */
export function tryWindow<T>(read: () => T): T | null {
  try {
    return read();
  } catch (error) {
    if (error instanceof InvalidParameterError) return null;
    throw error;
  }
}
