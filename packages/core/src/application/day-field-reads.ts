/**
 * The daily series with its day fields (D59, P129, P147): each device's calendar and its segments
 * over its window, then the sums of its days and `dayFields` on those days, both from the very same
 * segments, so that a day's time in and outside its schedule adds up to its engine time on every
 * answer. A page of the fleet reads them in two store calls whatever its size (D49), where the
 * store has the batch capabilities.
 */
import { dayFields, type DayFields } from '../calendar/day-fields.js';
import { sumSegmentsByBucket } from '../engine/sum-by-bucket.js';
import type { WorkCalendar } from '../calendar/work-calendar.js';
import type { FleetHoursStore } from '../store/storage-port.js';
import type { BucketSeconds, Device, EngineSegment } from '../types.js';
import type { DayBuckets } from '../window/day-buckets.js';
import { capAtNow } from './store-sums.js';

/** The sums of a device's days and their day fields. */
export interface DaySeries {
  readonly buckets: readonly BucketSeconds[];
  readonly fields: readonly DayFields[];
}

/**
 * P147: the sums of the days (capped at now, P1) and their day fields, from one list of segments:
 * the window's, as `listSegments` returns them (an open one counts up to `now`, D22).
 */
export function daySeries(
  segments: readonly EngineSegment[],
  timeZone: string,
  calendar: WorkCalendar | null,
  buckets: DayBuckets,
  now: number,
): DaySeries {
  return {
    buckets: sumSegmentsByBucket(segments, capAtNow(buckets.boundaries, now), now),
    fields: dayFields({ segments, timeZone, calendar, buckets, now }),
  };
}

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
export async function segmentsOf(
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
 * The sums and day fields of each device over its days (none: an empty window, no days): the
 * effective calendar and the segments of the window, read together; both from the same segments
 * (P147).
 */
export async function pageDaySeries(
  store: FleetHoursStore,
  accountId: number,
  devices: readonly Device[],
  series: readonly (DayBuckets | null)[],
  now: number,
): Promise<readonly DaySeries[]> {
  const none: DaySeries = { buckets: [], fields: [] };
  const asked = devices.filter((_, index) => series[index] != null && series[index].dates.length > 0);
  if (asked.length === 0) return devices.map(() => none);
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
    segmentsOf(store, requests),
  ]);
  const calendarOf = new Map(asked.map((device, index) => [device.id, calendars[index] ?? null]));
  return devices.map((device, index) => {
    const buckets = series[index];
    if (buckets == null || buckets.dates.length === 0) return none;
    return daySeries(segments[index]!, device.timeZone, calendarOf.get(device.id) ?? null, buckets, now);
  });
}
