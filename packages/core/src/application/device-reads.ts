/**
 * The reads of one device (D3, D8, D19, D38, D39): its totals, daily series, meter and service
 * schedules, each `null` when the account has no such device, and the list of the account's devices.
 */
import { toEngineSeconds } from '../engine/engine-seconds.js';
import type {
  BucketSeconds,
  DailyHours,
  Device,
  DeviceService,
  HoursTotal,
  MeterRecord,
  SegmentSummary,
  ServiceSchedule,
} from '../types.js';
import { dayBuckets } from '../window/day-buckets.js';
import { resolveWindow, type ResolvedWindow } from '../window/resolve-window.js';
import { checkArguments } from './argument-checks.js';
import { deviceService, hourMetersOf, maintenanceFacts } from './maintenance-reads.js';
import { WINDOW_QUERY, type ReadContext } from './read-context.js';
import type { WindowQuery } from './read-queries.js';
import { pageDaySeries } from './day-field-reads.js';
import { dailyInOneRead, tryWindow } from './daily-read.js';
import { dailyHours, hoursTotal, meterRecord } from './read-records.js';
import { capAtNow } from './store-sums.js';

/** The service's reads of one device; see `FleetHours` for each. */
export function deviceReads(context: ReadContext) {
  const { store } = context;
  return {
    async listDevices(input: { readonly accountId: number; readonly tag?: string | undefined }): Promise<readonly Device[]> {
      checkArguments('listDevices()', input, { accountId: 'id', tag: 'tag?' });
      const devices = await store.listDevices({ accountId: input.accountId, ...(input.tag === undefined ? {} : { tag: input.tag }) });
      // Clients list the devices before they read them: the reads that follow are one store call.
      devices.forEach(context.zones.remember);
      return devices;
    },

    async hours(query: WindowQuery): Promise<HoursTotal | null> {
      checkArguments('hours()', query, WINDOW_QUERY);
      const now = context.nowSeconds();
      const read = await _deviceBuckets(context, query, now, (window) => ({ boundaries: [window.start, window.end], days: null }));
      return read && hoursTotal(read.device, read.window, read.buckets);
    },

    async daily(query: WindowQuery): Promise<DailyHours | null> {
      checkArguments('daily()', query, WINDOW_QUERY);
      const now = context.nowSeconds();
      // P147: the sums and the day fields from one snapshot, in one store call where the store can.
      const inOne = await dailyInOneRead(context, query, now);
      if (inOne !== undefined) return inOne;
      const read = await _deviceBuckets(context, query, now, (window) => {
        const days = dayBuckets(window);
        return { boundaries: days.boundaries, days };
      });
      if (read === null) return null;
      // D59: the calendar and the window's segments, read together (P129), the sums from those segments (P147).
      const [series] = await pageDaySeries(store, query.accountId, [read.device], [read.days], now);
      return dailyHours(read.device, read.window, read.days.dates, series!.buckets, series!.fields);
    },

    async meter(input: { readonly accountId: number; readonly deviceId: number }): Promise<MeterRecord | null> {
      checkArguments('meter()', input, { accountId: 'id', deviceId: 'id' });
      const now = context.nowSeconds();
      const read = await deviceMaintenance(context, input, now, false);
      return read && meterRecord(read.device, read.summary, now, read.meters.now);
    },

    async service(input: { readonly accountId: number; readonly deviceId: number }): Promise<DeviceService | null> {
      checkArguments('service()', input, { accountId: 'id', deviceId: 'id' });
      const now = context.nowSeconds();
      const read = await deviceMaintenance(context, input, now, true);
      return read && deviceService(read.device, read.schedules, read.meters, now);
    },
  };
}

/**
 * A device, its meter figures, its readings (and schedules when asked) and its hour meters (D38,
 * D39): the device and its figures in one store call where the store can, the readings and
 * schedules beside them, then one call for the sums since the readings when it has any.
 */
export async function deviceMaintenance(
  context: ReadContext,
  input: { readonly accountId: number; readonly deviceId: number },
  now: number,
  withSchedules: boolean,
): Promise<{
  device: Device;
  summary: SegmentSummary;
  schedules: readonly ServiceSchedule[];
  meters: Awaited<ReturnType<typeof hourMetersOf>>[number];
} | null> {
  const { store } = context;
  const { accountId, deviceId } = input;
  const findWithSummary = async () => {
    // The meter does not depend on the zone: one store call where the store can.
    if (store.findDeviceWithSummary) return store.findDeviceWithSummary({ accountId, deviceId, now });
    const device = await store.findDevice({ accountId, deviceId });
    return device && { device, summary: await context.sums.summarize(deviceId, now) };
  };
  const [found, facts] = await Promise.all([findWithSummary(), maintenanceFacts(store, [deviceId], withSchedules)]);
  if (!found) return null;
  const [meters] = await hourMetersOf(
    context.sums.hourMeterPage,
    [found.device],
    [toEngineSeconds(found.summary).engineSeconds],
    facts,
    now,
  );
  return { ...found, schedules: facts.schedules.get(deviceId) ?? [], meters: meters! };
}

/**
 * The device, its window, the window's days and the sums of their buckets; `null` when the
 * account has no such device. With a store that has `findDeviceWithSums` and a remembered zone,
 * one store call: the boundaries are cut in the remembered zone and the store answers the sums
 * only when that is still the device's zone. Otherwise (or when the zone changed, or when the
 * window is refused in the remembered zone: a missing device must still be 404, D11) the device
 * first, then its sums: the same answer either way.
 */
async function _deviceBuckets<Days>(
  context: ReadContext,
  query: WindowQuery,
  now: number,
  split: (window: ResolvedWindow) => { readonly boundaries: readonly number[]; readonly days: Days },
): Promise<{ device: Device; window: ResolvedWindow; days: Days; buckets: readonly BucketSeconds[] } | null> {
  const { store, zones } = context;
  const windowIn = (timeZone: string) => resolveWindow({ ...context.window, from: query.from, to: query.to, now, timeZone });
  const inZone = async (device: Device) => {
    const window = windowIn(device.timeZone);
    const { boundaries, days } = split(window);
    return { device, window, days, buckets: await context.sums.buckets(device.id, boundaries, now) };
  };
  const guessed = zones.get(query.deviceId);
  if (guessed !== undefined && store.findDeviceWithSums) {
    const guess = tryWindow(() => {
      const window = windowIn(guessed);
      return { window, ...split(window) };
    });
    if (guess !== null) {
      const found = await store.findDeviceWithSums({
        accountId: query.accountId,
        deviceId: query.deviceId,
        timeZone: guessed,
        boundaries: capAtNow(guess.boundaries, now),
        now,
      });
      if (found === null) {
        zones.forget(query.deviceId);
        return null;
      }
      zones.remember(found.device);
      if (found.buckets !== null && found.device.timeZone === guessed)
        return { device: found.device, window: guess.window, days: guess.days, buckets: found.buckets };
      return inZone(found.device);
    }
  }
  const device = await store.findDevice({ accountId: query.accountId, deviceId: query.deviceId });
  if (!device) return null;
  zones.remember(device);
  return inZone(device);
}
