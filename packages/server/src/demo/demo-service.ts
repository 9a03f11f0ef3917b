import { localDateAt, type Device, type FleetHoursStore, type SegmentInput } from '@fleet-hours/core';
import type { DemoSchedule, DemoVehicle } from './demo-fleet.js';

/** What {@link seedDemoService} wrote. */
export interface DemoServiceSeed {
  /** Hour-meter readings (D38). */
  readonly readings: number;
  /** Service schedules (D39). */
  readonly schedules: number;
}

/**
 * Gives demo vehicles their hour meter and service schedules (D38, D39), computed from their own
 * segments and the demo's clock: a reading of the machine's hour meter when the tracker was fitted
 * (the start of its history), and each schedule's last service placed so that it stands where
 * {@link DemoSchedule.left} says at `now`, whatever the day. A schedule with engine hours left was
 * last done at the instant from which the vehicle ran exactly its interval minus those hours; one
 * with days left, that many days short of its calendar interval. Both take the hour meter at that
 * instant as computed at read time (no operator value), as `fleet-hours service done --at` does.
 * A history too short for a schedule places its last service at the history's start instead.
 *
 * @param store The demo's store.
 * @param input Each device with its demo vehicle and generated segments, and now (epoch seconds).
 * @returns How many readings and schedules were written.
 */
export async function seedDemoService(
  store: FleetHoursStore,
  input: {
    readonly vehicles: readonly { readonly device: Device; readonly vehicle: DemoVehicle; readonly segments: readonly SegmentInput[] }[];
    readonly now: number;
  },
): Promise<DemoServiceSeed> {
  const { now } = input;
  let readings = 0;
  let schedules = 0;
  for (const { device, vehicle, segments } of input.vehicles) {
    const fittedAt = segments[0]?.startedAt ?? now;
    if (vehicle.hourMeterHours !== undefined) {
      await store.addHourMeterReading({ deviceId: device.id, readAt: fittedAt, readingSeconds: vehicle.hourMeterHours * 3600, now });
      readings += 1;
    }
    for (const schedule of vehicle.service ?? []) {
      const lastDoneAt = Math.max(fittedAt, lastServiceAt(schedule, segments, vehicle.timeZone, now) ?? fittedAt);
      const created = await store.createServiceSchedule({
        deviceId: device.id,
        name: schedule.name,
        intervalSeconds: schedule.everyHours * 3600,
        intervalDays: schedule.everyDays,
        lastDoneAt,
        now,
      });
      if (!created) throw new Error(`Could not create the demo schedule "${schedule.name}" of "${vehicle.name}"`);
      schedules += 1;
    }
  }
  return { readings, schedules };
}

/** When a schedule was last done for it to stand where it says at `now`; `null` when the segments hold too little engine time. */
function lastServiceAt(schedule: DemoSchedule, segments: readonly SegmentInput[], timeZone: string, now: number): number | null {
  if ('hours' in schedule.left) return engineTimeStart(segments, now, Math.round((schedule.everyHours - schedule.left.hours) * 3600));
  if (schedule.everyDays === null) throw new Error(`The demo schedule "${schedule.name}" counts days without a calendar interval`);
  const date = localDateAt(now, timeZone).subtract({ days: schedule.everyDays - schedule.left.days });
  return date.toZonedDateTime({ timeZone, plainTime: { hour: 10 } }).epochMilliseconds / 1000;
}

/**
 * The instant from which the segments hold exactly `engineSeconds` of engine time (moving and idle)
 * up to `now`, an open segment counting up to `now`; `null` when they hold less.
 *
 * @param segments Non-overlapping segments in time order.
 * @param now Epoch seconds.
 * @param engineSeconds Whole seconds.
 * @returns Epoch seconds, or `null`.
 */
export function engineTimeStart(segments: readonly SegmentInput[], now: number, engineSeconds: number): number | null {
  let left = engineSeconds;
  for (let index = segments.length - 1; index >= 0; index -= 1) {
    const segment = segments[index]!;
    const end = Math.min(segment.endedAt ?? now, now);
    if (end <= segment.startedAt) continue;
    if (end - segment.startedAt >= left) return end - left;
    left -= end - segment.startedAt;
  }
  return null;
}
