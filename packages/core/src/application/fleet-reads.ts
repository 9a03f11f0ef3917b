import { Temporal } from 'temporal-polyfill';
import { InvalidParameterError } from '../errors/errors.js';
import { localDateAt } from '../time/local-date.js';
import type { DailyHours, Device } from '../types.js';
import { dayBuckets } from '../window/day-buckets.js';
import { resolveWindow, type ResolvedWindow } from '../window/resolve-window.js';
import { checkArguments } from './argument-checks.js';
import { devicePage, pageMaintenance } from './device-pages.js';
import { FLEET_PAGE_QUERY, FLEET_WINDOW_QUERY, type ReadContext } from './read-context.js';
import type { FleetPage, FleetReads, FleetWindowQuery } from './read-queries.js';
import type { FleetEndpoint } from '../access/read-endpoints.js';
import { pageDaySeries } from './day-field-reads.js';
import { dailyHours, emptyWindow, hoursTotal, isEmpty, meterRecord, type EmptyWindow } from './read-records.js';
import { servicePage } from './service-pages.js';

/** The fleet reads (D32): the same records for every device of the account, a page at a time. */
export function fleetReads(context: ReadContext): Omit<FleetReads, 'utilization' | 'utilizationByTag'> {
  const { nowSeconds, sums } = context;
  return {
    async hours(query) {
      checkArguments('fleet.hours()', query, FLEET_WINDOW_QUERY);
      const now = nowSeconds();
      const { devices, nextCursor } = await devicePage(context, 'hours', query);
      const windows = await _fleetWindows(context, devices, query, now);
      const buckets = await sums.page(
        devices,
        windows.map((window) => (isEmpty(window) ? null : [window.start, window.end])),
        now,
      );
      return { items: devices.map((device, index) => hoursTotal(device, windows[index]!, buckets[index]!)), nextCursor };
    },

    async daily(query) {
      checkArguments('fleet.daily()', query, FLEET_WINDOW_QUERY);
      const { items, nextCursor } = await dailyPage(context, 'daily', query);
      return { items, nextCursor };
    },

    async meter(query) {
      checkArguments('fleet.meter()', query, FLEET_PAGE_QUERY);
      const now = nowSeconds();
      const { devices, nextCursor } = await devicePage(context, 'meter', query);
      const { summaries, meters } = await pageMaintenance(context, devices, now, false);
      return { items: devices.map((device, index) => meterRecord(device, summaries[index]!, now, meters[index]!.now)), nextCursor };
    },

    async service(query) {
      checkArguments('fleet.service()', query, { ...FLEET_PAGE_QUERY, statuses: 'statuses?' });
      const { items, nextCursor } = await servicePage(context, query, nowSeconds());
      return { items: items.map((one) => one.service), nextCursor };
    },
  };
}

/**
 * The window of each device of a page (D4–D7 per device). P32: a `from` after the local today of
 * a device, without `to`, cannot be a window of that device; the request is refused (D7) only
 * when that holds for every device of the account, and otherwise such a device's window is empty
 * (`from` the start of that date, `to` now, no days, zero seconds). Whether every device fails is
 * asked of the store only when a device of this page does, so that the answer does not depend
 * on the page.
 */
async function _fleetWindows(
  context: ReadContext,
  devices: readonly Device[],
  query: FleetWindowQuery,
  now: number,
): Promise<readonly (ResolvedWindow | EmptyWindow)[]> {
  // A `from` after `to` is refused by parseWindowQuery, and by resolveWindow below for each device (D7).
  const { from, to } = query;
  const afterToday = (device: Device) =>
    from !== undefined && to === undefined && Temporal.PlainDate.compare(from, localDateAt(now, device.timeZone)) > 0;
  if (devices.some(afterToday)) {
    const every = await context.store.listDevices({ accountId: query.accountId });
    if (every.every(afterToday)) {
      const latest = every
        .map((device) => ({ zone: device.timeZone, today: localDateAt(now, device.timeZone) }))
        .reduce((best, each) => (Temporal.PlainDate.compare(each.today, best.today) > 0 ? each : best));
      throw new InvalidParameterError(
        'from',
        `Parameter from "${from!.toString()}" is after today in the zone of every device of the account (the latest is ${latest.today.toString()} in ${latest.zone})`,
      );
    }
  }
  // A window depends only on the zone: resolved once per zone of the page (Temporal is not cheap).
  const byZone = new Map<string, ResolvedWindow | EmptyWindow>();
  return devices.map((device) => {
    let window = byZone.get(device.timeZone);
    if (window === undefined) {
      window = afterToday(device)
        ? emptyWindow(from!, now, device.timeZone)
        : resolveWindow({ ...context.window, from: query.from, to: query.to, now, timeZone: device.timeZone });
      byZone.set(device.timeZone, window);
    }
    return window;
  });
}

/** A page of devices with each one's window and its days (none: an empty window, P32). */
export interface PageDays {
  readonly devices: readonly Device[];
  readonly nextCursor: string | null;
  readonly windows: readonly (ResolvedWindow | EmptyWindow)[];
  readonly series: readonly (ReturnType<typeof dayBuckets> | null)[];
}

/** A page of devices after the cursor (`count` `null`: every one) and the days of each one's window. */
export async function pageDays(
  context: ReadContext,
  endpoint: FleetEndpoint,
  query: FleetWindowQuery,
  now: number,
  count?: number | null,
): Promise<PageDays> {
  const { devices, nextCursor } = await devicePage(context, endpoint, query, count);
  const windows = await _fleetWindows(context, devices, query, now);
  // Devices of one zone share their window object, and so its days (cut once).
  const days = new Map<ResolvedWindow, ReturnType<typeof dayBuckets>>();
  const series = windows.map((window) => {
    if (isEmpty(window)) return null;
    let cut = days.get(window);
    if (cut === undefined) days.set(window, (cut = dayBuckets(window)));
    return cut;
  });
  return { devices, nextCursor, windows, series };
}

/**
 * The daily series of a page of devices (D8, D32, D59): the sums and the day fields, a fixed number
 * of store calls whatever its size (D49); `count` `null`: every device after the cursor in one page.
 */
export async function dailyPage(
  context: ReadContext,
  endpoint: FleetEndpoint,
  query: FleetWindowQuery,
  count?: number | null,
): Promise<FleetPage<DailyHours> & { readonly devices: readonly Device[] }> {
  const now = context.nowSeconds();
  const { devices, nextCursor, windows, series } = await pageDays(context, endpoint, query, now, count);
  // D59, D49, P147: the calendars and the window's segments, a fixed number of store calls per page;
  // the sums and the day fields both from those segments.
  const read = await pageDaySeries(context.store, query.accountId, devices, series, now);
  return {
    items: devices.map((device, index) =>
      dailyHours(device, windows[index]!, series[index]?.dates ?? [], read[index]!.buckets, read[index]!.fields),
    ),
    nextCursor,
    devices,
  };
}
