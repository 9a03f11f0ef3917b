/**
 * P154: the days utilization reads of a page of devices (D60): per day the engine, moving and idle
 * seconds, the scheduled seconds and the engine seconds inside and outside them; not the first
 * start and last stop of the daily series. A device with a calendar (its own or its account's) has
 * its days from its window's segments, as the daily series (P147); a device without has nothing
 * scheduled, so its days come from the store's sums of its days (D27: the store's daily figures,
 * far fewer rows than the segments), none inside the schedule and all its engine time outside.
 * On both paths a day's time in and outside the schedule adds up to its engine time by
 * construction: from one list of segments, or outside = engine of the same sum.
 */
import type { UtilizationDay } from '../calendar/utilization.js';
import { toEngineSeconds } from '../engine/engine-seconds.js';
import type { DayFields } from '../calendar/day-fields.js';
import type { BucketSeconds, Device } from '../types.js';
import type { DayBuckets } from '../window/day-buckets.js';
import { daySeries, effectiveCalendars, pageDaySeries, segmentsOf } from './day-field-reads.js';
import type { ReadContext } from './read-context.js';

/**
 * The utilization days of each device of a page, in page order (none: an empty window): the
 * calendars in one store call, then the segments of the devices with one and the sums of the
 * others together, one store call each (D49), where the store sums many devices at once
 * (`sumSegmentSecondsMany`); otherwise as the daily series.
 */
export async function pageUtilizationDays(
  context: ReadContext,
  accountId: number,
  devices: readonly Device[],
  series: readonly (DayBuckets | null)[],
  now: number,
): Promise<readonly (readonly UtilizationDay[])[]> {
  const { store, sums } = context;
  const withDays = (index: number) => series[index] != null && series[index].dates.length > 0;
  if (!store.sumSegmentSecondsMany) {
    const read = await pageDaySeries(store, accountId, devices, series, now);
    return devices.map((_, index) => (withDays(index) ? _days(series[index]!, read[index]!.buckets, read[index]!.fields) : []));
  }
  const asked = devices.flatMap((device, index) => (withDays(index) ? [{ device, index }] : []));
  const calendars = await effectiveCalendars(
    store,
    accountId,
    asked.map(({ device }) => device.id),
  );
  const calendarAt = new Map(asked.map(({ index }, position) => [index, calendars[position] ?? null]));
  const scheduled = (index: number) => calendarAt.get(index) != null;
  const [segments, figures] = await Promise.all([
    segmentsOf(
      store,
      devices.map((device, index) => {
        if (!scheduled(index)) return null;
        const { boundaries } = series[index]!;
        return { deviceId: device.id, start: boundaries[0]!, end: boundaries[boundaries.length - 1]! };
      }),
    ),
    sums.page(
      devices,
      devices.map((_, index) => (withDays(index) && !scheduled(index) ? series[index]!.boundaries : null)),
      now,
    ),
  ]);
  return devices.map((device, index) => {
    if (!withDays(index)) return [];
    const days = series[index]!;
    if (!scheduled(index)) return _days(days, figures[index]!, null);
    const read = daySeries(segments[index]!, device.timeZone, calendarAt.get(index)!, days, now);
    return _days(days, read.buckets, read.fields);
  });
}

/** The days from their sums and day fields; without fields (no calendar), nothing scheduled and all engine time outside. */
function _days(days: DayBuckets, buckets: readonly BucketSeconds[], fields: readonly DayFields[] | null): UtilizationDay[] {
  return days.dates.map((date, index) => {
    const seconds = toEngineSeconds(buckets[index]!);
    const day = fields?.[index];
    return {
      date,
      ...seconds,
      scheduledSeconds: day ? day.scheduledSeconds : 0,
      engineInScheduleSeconds: day ? day.engineInScheduleSeconds : 0,
      engineOutsideScheduleSeconds: day ? day.engineOutsideScheduleSeconds : seconds.engineSeconds,
    };
  });
}
