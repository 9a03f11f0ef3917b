/**
 * The fleet's service page (D32, D39, D49): every device's schedules at now, or only the devices
 * with a schedule in the statuses asked for, read from what the store remembers where it can (P58).
 */
import { decodeFleetCursor, encodeFleetCursor } from '../fleet/fleet-cursor.js';
import { pageSize } from '../fleet/parse-page-query.js';
import type { ServicePageDevice, ServicePageFilter } from '../store/storage-port.js';
import type { BucketSeconds, Device, DeviceService, ServiceSchedule, ServiceStatus } from '../types.js';
import { devicePage, pageMaintenance } from './device-pages.js';
import { deviceService, hourMetersOf } from './maintenance-reads.js';
import type { ReadContext } from './read-context.js';
import type { FleetPageQuery, FleetServiceQuery } from './read-queries.js';
import { memoPageSums, remembersService, serviceMemoWrites, type ServiceMemoStore } from './service-memo-reads.js';

/** One device of a service page: the device, its schedules as stored (epoch seconds) and as `/service` shows them. */
export interface DeviceServiceRead {
  readonly device: Device;
  readonly schedules: readonly ServiceSchedule[];
  readonly service: DeviceService;
}

/**
 * One page of the fleet's service (D32, D39): with `statuses`, only the devices with at least one
 * schedule in one of them, a page holding up to `limit` such devices (P45).
 */
export async function servicePage(
  context: ReadContext,
  query: FleetServiceQuery,
  now: number,
): Promise<{ readonly items: readonly DeviceServiceRead[]; readonly nextCursor: string | null }> {
  const filter = _serviceFilter(query);
  const size = pageSize('service', query.limit);
  const items: DeviceServiceRead[] = [];
  // D49, P65: at most two device reads, each the same few store calls: the first `limit`
  // devices; with a filter (P45), when they hold fewer than `limit` matches, every device
  // after them at once. So the calls do not grow with the devices a filter skips. A full
  // page's cursor goes on after its last match. A store that remembers (P58, P66) lists only
  // the devices that may match, up to the last match the page needs.
  let cursor = query.cursor;
  for (const count of filter === null ? [size] : [size, null]) {
    const storeFilter = filter && { statuses: [...filter.statuses], matches: size - items.length };
    const read = await _serviceDevicePage(context, { ...query, cursor }, count, now, storeFilter);
    const { devices, nextCursor } = read;
    const { meters, facts, remember } = read.remembering
      ? await _rememberedMaintenance(read.remembering.store, read.remembering.inputs, now)
      : { ...(await pageMaintenance(context, devices, now, true)), remember: null };
    const reads = devices.map((device, index): DeviceServiceRead => {
      const schedules = facts.schedules.get(device.id) ?? [];
      return { device, schedules, service: deviceService(device, schedules, meters[index]!, now) };
    });
    await remember?.(reads.map((one) => one.service));
    for (const [index, one] of reads.entries()) {
      if (filter !== null && !filter.matches(one.service)) continue;
      items.push(one);
      if (items.length === size) {
        const next = read.anyAfter(index)
          ? encodeFleetCursor({ endpoint: 'service', accountId: query.accountId, afterDeviceId: one.device.id })
          : null;
        return { items, nextCursor: next };
      }
    }
    if (nextCursor === null) break;
    cursor = nextCursor;
  }
  return { items, nextCursor: null };
}

/**
 * The filters of a fleet service page (D49): `null` for none, else which devices match, by
 * `status=` (P45). `tag=` (D61) is not one of them: the store's device listing applies it, so
 * that the devices without the tag are never read (P95).
 */
function _serviceFilter(query: FleetServiceQuery): {
  readonly statuses: ReadonlySet<ServiceStatus>;
  matches(service: DeviceService): boolean;
} | null {
  if (query.statuses === undefined || query.statuses.length === 0) return null;
  const statuses = new Set(query.statuses);
  return { statuses, matches: (service) => service.schedules.some((schedule) => statuses.has(schedule.status)) };
}

/**
 * One device page of the fleet service (D32): `count` devices after the cursor, or every one when
 * `count` is `null` (D49); by `listServicePage` when the store remembers (P58), in one round trip,
 * with a filter only the devices that may match it (P66); else by `listDevices`.
 * `anyAfter(index)`: whether the account has a device after the page's `index`-th, listed or not.
 */
async function _serviceDevicePage(
  context: ReadContext,
  query: FleetPageQuery,
  count: number | null,
  now: number,
  filter: ServicePageFilter | null,
): Promise<{
  devices: readonly Device[];
  nextCursor: string | null;
  /** The store that remembers and what it listed, or `null` for a store that does not remember. */
  remembering: { readonly store: ServiceMemoStore; readonly inputs: readonly ServicePageDevice[] } | null;
  anyAfter(index: number): boolean;
}> {
  const { store } = context;
  if (!remembersService(store)) {
    const { devices, nextCursor } = await devicePage(context, 'service', query, count);
    return { devices, nextCursor, remembering: null, anyAfter: (index) => index < devices.length - 1 || nextCursor !== null };
  }
  const afterId =
    query.cursor === undefined ? undefined : decodeFleetCursor(query.cursor, { endpoint: 'service', accountId: query.accountId });
  const listed = await store.listServicePage({
    accountId: query.accountId,
    ...(afterId === undefined ? {} : { afterId }),
    limit: count === null ? Number.MAX_SAFE_INTEGER : count + 1,
    now,
    unsettledOnly: filter !== null && !filter.statuses.includes('ok'),
    ...(filter ? { filter } : {}),
    // D61, D49: the store keeps only the devices having the tag, in the same one call.
    ...(query.tag === undefined ? {} : { tag: query.tag }),
  });
  const inputs = count === null ? listed.devices : listed.devices.slice(0, count);
  const devices = inputs.map((input) => input.device);
  devices.forEach(context.zones.remember);
  const nextCursor =
    count !== null && listed.devices.length > count
      ? encodeFleetCursor({ endpoint: 'service', accountId: query.accountId, afterDeviceId: devices[devices.length - 1]!.id })
      : null;
  return {
    devices,
    nextCursor,
    remembering: { store, inputs },
    anyAfter: (index) => listed.lastDeviceId !== null && listed.lastDeviceId > devices[index]!.id,
  };
}

/**
 * The readings, schedules and hour meters of a service page read by `listServicePage` (P58): the
 * sums of the hour meters from what the store remembers where it can (no store call when it
 * remembers every instant), and `remember` hands back what the page computed anew.
 */
async function _rememberedMaintenance(store: ServiceMemoStore, inputs: readonly ServicePageDevice[], now: number) {
  const devices = inputs.map((input) => input.device);
  const facts = {
    readings: new Map(inputs.map((input) => [input.device.id, input.readings])),
    schedules: new Map(inputs.map((input) => [input.device.id, input.schedules])),
  };
  const engine = inputs.map((input) => input.engineSeconds.movingSeconds + input.engineSeconds.idleSeconds);
  const learned = new Map<number, Map<number, BucketSeconds>>();
  const meters = await hourMetersOf(memoPageSums(store, inputs, learned), devices, engine, facts, now);
  const remember = async (services: readonly DeviceService[]) => {
    const writes = serviceMemoWrites({ memos: inputs, services, learned, now });
    if (writes.length > 0) await store.rememberServiceMemos({ devices: writes });
  };
  return { facts, meters, remember };
}
