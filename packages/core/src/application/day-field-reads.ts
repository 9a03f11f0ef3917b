/**
 * The day fields of the daily series (D59, P129): each device's calendar and its segments over its
 * window, then `dayFields` on the same days the series sums. A page of the fleet reads them in two
 * store calls whatever its size (D49), where the store has the batch capabilities.
 */
import { dayFields, type DayFields } from '../calendar/day-fields.js';
import type { WorkCalendar } from '../calendar/work-calendar.js';
import type { FleetHoursStore } from '../store/storage-port.js';
import type { Device, EngineSegment } from '../types.js';
import type { DayBuckets } from '../window/day-buckets.js';

/**
 * The calendar each device uses (D58): its own, else its account's default, else `null`; one store
 * call where the store has `findWorkCalendarsMany`, else the default and each device's own.
 */
export async function effectiveCalendars(
  store: FleetHoursStore,
  accountId: number,
  deviceIds: readonly number[],
): Promise<readonly (WorkCalendar | null)[]> {
  if (deviceIds.length === 0) return [];
  const found = store.findWorkCalendarsMany
    ? await store.findWorkCalendarsMany({ accountId, deviceIds })
    : await Promise.all([null, ...deviceIds].map((deviceId) => store.findWorkCalendar({ accountId, deviceId }))).then(
        ([accountDefault, ...own]) => ({ accountDefault: accountDefault!.calendar, devices: own.map((one) => one.calendar) }),
      );
  return found.devices.map((own) => own ?? found.accountDefault);
}

/** `listSegments` of each request (`null`: none asked), in one store call where the store has `listSegmentsMany`. */
async function _segmentsOf(
  store: FleetHoursStore,
  requests: readonly ({ readonly deviceId: number; readonly start: number; readonly end: number } | null)[],
): Promise<readonly (readonly EngineSegment[])[]> {
  const asked = requests.flatMap((request, index) => (request === null ? [] : [{ index, request }]));
  const results: (readonly EngineSegment[])[] = requests.map(() => []);
  if (asked.length === 0) return results;
  const lists = store.listSegmentsMany
    ? await store.listSegmentsMany({ requests: asked.map(({ request }) => request) })
    : await Promise.all(asked.map(({ request }) => store.listSegments(request)));
  asked.forEach(({ index }, position) => (results[index] = lists[position]!));
  return results;
}

/**
 * The day fields of each device over its days (`null`: an empty window, no days): the effective
 * calendar and the segments of the window, read together; an open segment counts up to `now` (D22).
 */
export async function pageDayFields(
  store: FleetHoursStore,
  accountId: number,
  devices: readonly Device[],
  series: readonly (DayBuckets | null)[],
  now: number,
): Promise<readonly (readonly DayFields[])[]> {
  const asked = devices.filter((_, index) => series[index] != null && series[index].dates.length > 0);
  if (asked.length === 0) return devices.map(() => []);
  const requests = devices.map((device, index) => {
    const days = series[index];
    if (days == null || days.dates.length === 0) return null;
    return { deviceId: device.id, start: days.boundaries[0]!, end: days.boundaries[days.boundaries.length - 1]! };
  });
  const [calendars, segments] = await Promise.all([
    effectiveCalendars(
      store,
      accountId,
      asked.map((device) => device.id),
    ),
    _segmentsOf(store, requests),
  ]);
  const calendarOf = new Map(asked.map((device, index) => [device.id, calendars[index] ?? null]));
  return devices.map((device, index) => {
    const buckets = series[index];
    if (buckets == null || buckets.dates.length === 0) return [];
    return dayFields({ segments: segments[index]!, timeZone: device.timeZone, calendar: calendarOf.get(device.id) ?? null, buckets, now });
  });
}
