import type { Temporal } from 'temporal-polyfill';
import type { DayFields } from '../calendar/day-fields.js';
import { addBuckets, toEngineSeconds } from '../engine/engine-seconds.js';
import type { HourMeterValue } from '../maintenance/hour-meter.js';
import { formatInstant } from '../time/format-instant.js';
import { startOfLocalDay } from '../time/local-date.js';
import type { BucketSeconds, DailyHours, Device, HoursTotal, MeterRecord, SegmentSummary } from '../types.js';
import type { ResolvedWindow } from '../window/resolve-window.js';
import { hourMeterFields } from './maintenance-reads.js';

// One place for each record, whichever read (one device or a page of the fleet) builds it.
export function hoursTotal(device: Device, window: ResolvedWindow | EmptyWindow, buckets: readonly BucketSeconds[]): HoursTotal {
  return { deviceId: device.id, timeZone: device.timeZone, from: window.from, to: window.to, ...toEngineSeconds(addBuckets(buckets)) };
}

export function dailyHours(
  device: Device,
  window: ResolvedWindow | EmptyWindow,
  dates: readonly string[],
  buckets: readonly BucketSeconds[],
  fields: readonly DayFields[],
): DailyHours {
  const instant = (epochSeconds: number | null) => (epochSeconds === null ? null : formatInstant(epochSeconds, device.timeZone));
  return {
    deviceId: device.id,
    timeZone: device.timeZone,
    from: window.from,
    to: window.to,
    days: dates.map((date, index) => {
      const day = fields[index]!;
      return {
        date,
        ...toEngineSeconds(buckets[index]!),
        daySeconds: day.daySeconds,
        scheduledSeconds: day.scheduledSeconds,
        engineInScheduleSeconds: day.engineInScheduleSeconds,
        engineOutsideScheduleSeconds: day.engineOutsideScheduleSeconds,
        firstEngineOn: instant(day.firstEngineOn),
        lastEngineOff: instant(day.lastEngineOff),
      };
    }),
  };
}

export function meterRecord(device: Device, summary: SegmentSummary, now: number, hourMeter: HourMeterValue): MeterRecord {
  return {
    deviceId: device.id,
    timeZone: device.timeZone,
    since: summary.firstStartedAt === null ? null : formatInstant(summary.firstStartedAt, device.timeZone),
    asOf: formatInstant(now, device.timeZone),
    ...toEngineSeconds(summary),
    ...hourMeterFields(hourMeter, device.timeZone),
  };
}

/** The window of a device whose local today is before `from` when `to` is not given (P32): it holds no second. */
export interface EmptyWindow {
  readonly empty: true;
  readonly from: string;
  readonly to: string;
}

export function emptyWindow(from: Temporal.PlainDate, now: number, timeZone: string): EmptyWindow {
  return { empty: true, from: formatInstant(startOfLocalDay(from, timeZone), timeZone), to: formatInstant(now, timeZone) };
}

export function isEmpty(window: ResolvedWindow | EmptyWindow): window is EmptyWindow {
  return 'empty' in window;
}
