import { hourMeterBoundaries, hourMeterValues, type HourMeterValue } from '../maintenance/hour-meter.js';
import { serviceState } from '../maintenance/service-status.js';
import { formatInstant } from '../time/format-instant.js';
import type { FleetHoursStore } from '../store/storage-port.js';
import type { BucketSeconds, Device, DeviceService, HourMeterReading, ServiceSchedule } from '../types.js';

/** The buckets of each device of a page, as the service's sums give them (one store call where the store can). */
export type PageSums = (
  devices: readonly Device[],
  boundaries: readonly (readonly number[] | null)[],
  now: number,
) => Promise<readonly (readonly BucketSeconds[])[]>;

/** What the hour meter and the service states of some devices are computed from: their readings and schedules. */
export interface MaintenanceFacts {
  readonly readings: ReadonlyMap<number, readonly HourMeterReading[]>;
  readonly schedules: ReadonlyMap<number, readonly ServiceSchedule[]>;
}

/**
 * The readings (and, when asked, the schedules) of some devices: one store call each, whatever
 * the number of devices.
 */
export async function maintenanceFacts(
  store: FleetHoursStore,
  deviceIds: readonly number[],
  withSchedules: boolean,
): Promise<MaintenanceFacts> {
  const [readings, schedules] = await Promise.all([
    deviceIds.length === 0 ? [] : store.listHourMeterReadings({ deviceIds }),
    withSchedules && deviceIds.length > 0 ? store.listServiceSchedules({ deviceIds }) : [],
  ]);
  return { readings: _byDevice(readings), schedules: _byDevice(schedules) };
}

/**
 * The hour meter of each device at now and at the last service of each of its schedules that
 * takes it from the readings (D38, D39): one call of `sums` for the whole page, asking nothing for
 * a device without readings or such schedules (its hour meter at now is its meter).
 *
 * @returns Per device, in order: the hour meter at now, then one value per schedule of
 *   `facts.schedules` (in its order).
 */
export async function hourMetersOf(
  sums: PageSums,
  devices: readonly Device[],
  engineSeconds: readonly number[],
  facts: MaintenanceFacts,
  now: number,
): Promise<readonly { readonly now: HourMeterValue; readonly schedules: readonly number[] }[]> {
  const asked = devices.map((device) => {
    const readings = facts.readings.get(device.id) ?? [];
    const schedules = facts.schedules.get(device.id) ?? [];
    const instants = [
      now,
      ...schedules.filter((schedule) => schedule.lastDoneHourMeterSeconds === null).map((schedule) => Math.min(schedule.lastDoneAt, now)),
    ];
    const boundaries = hourMeterBoundaries(readings, instants, now);
    return { readings, schedules, instants, boundaries };
  });
  const buckets = await sums(
    devices,
    asked.map(({ boundaries }) => (boundaries.length > 1 ? boundaries : null)),
    now,
  );
  return asked.map(({ readings, schedules, instants, boundaries }, index) => {
    const values = hourMeterValues({ readings, instants, boundaries, buckets: buckets[index] ?? [], engineSeconds: engineSeconds[index]! });
    let next = 1;
    return {
      now: values[0]!,
      schedules: schedules.map((schedule) => schedule.lastDoneHourMeterSeconds ?? values[next++]!.seconds),
    };
  });
}

/** The meter's two hour-meter fields (D38). */
export function hourMeterFields(value: HourMeterValue, timeZone: string): { hourMeterSeconds: number; hourMeterReadAt: string | null } {
  return { hourMeterSeconds: value.seconds, hourMeterReadAt: value.readAt === null ? null : formatInstant(value.readAt, timeZone) };
}

/** A device's service body (D39) from its schedules and hour meters. */
export function deviceService(
  device: Device,
  schedules: readonly ServiceSchedule[],
  meters: { readonly now: HourMeterValue; readonly schedules: readonly number[] },
  now: number,
): DeviceService {
  return {
    deviceId: device.id,
    timeZone: device.timeZone,
    asOf: formatInstant(now, device.timeZone),
    hourMeterSeconds: meters.now.seconds,
    schedules: schedules.map((schedule, index) =>
      serviceState({
        schedule,
        lastDoneHourMeterSeconds: meters.schedules[index]!,
        hourMeterSeconds: meters.now.seconds,
        timeZone: device.timeZone,
        now,
      }),
    ),
  };
}

function _byDevice<Item extends { readonly deviceId: number }>(items: readonly Item[]): Map<number, Item[]> {
  const grouped = new Map<number, Item[]>();
  for (const item of items) {
    const list = grouped.get(item.deviceId);
    if (list) list.push(item);
    else grouped.set(item.deviceId, [item]);
  }
  return grouped;
}

/** The buckets between instants from the engine time before each (P56): each bucket is the difference of its two ends. */
export function bucketsBetween(before: readonly BucketSeconds[]): BucketSeconds[] {
  return before.slice(1).map((end, index) => ({
    movingSeconds: end.movingSeconds - before[index]!.movingSeconds,
    idleSeconds: end.idleSeconds - before[index]!.idleSeconds,
  }));
}
