import { aempHeader, type AempEquipment, type AempFleetPage, type AempSeriesKind, type AempSeriesPage } from '../aemp/aemp-equipment.js';
import { AEMP_PAGE_SIZE, aempPage, aempPageCount, aempSeriesInstants } from '../aemp/aemp-series.js';
import { sumSegmentsByBucket } from '../engine/sum-by-bucket.js';
import { devicePageFromList } from '../store/device-page.js';
import type { FleetHoursStore } from '../store/storage-port.js';
import { hourMeterBoundaries, hourMeterValues } from '../maintenance/hour-meter.js';
import type { Device, HourMeterReading } from '../types.js';
import { pageMaintenance } from './device-pages.js';
import { maintenanceFacts } from './maintenance-reads.js';
import type { ReadContext } from './read-context.js';
import type { StoreSums } from './store-sums.js';

/** D64: the reads of the served AEMP feed; `null` where the API answers 404 (no such device, or a page past the last). */
export interface AempReads {
  /** Page `page` (from 1) of the account's equipment, 100 a page by device id. */
  fleet(input: { readonly accountId: number; readonly page: number }): Promise<AempFleetPage | null>;
  /** One device's equipment at `snapshotTime`. */
  equipment(input: {
    readonly accountId: number;
    readonly deviceId: number;
  }): Promise<{ readonly snapshotTime: number; readonly equipment: AempEquipment } | null>;
  /** Page `page` of a device's time series over `[start, end]` (epoch seconds); `'no_such_page'` past its last page. */
  series(input: {
    readonly accountId: number;
    readonly deviceId: number;
    readonly kind: AempSeriesKind;
    readonly start: number;
    readonly end: number;
    readonly page: number;
  }): Promise<AempSeriesPage | 'no_such_page' | null>;
}

/**
 * D64 (P121, P122): the AEMP reads over the service's store. A snapshot page costs a bounded number
 * of store calls whatever its size: its devices and the account's count (one call, P152), the
 * page's meters and hour meters as the fleet pages read them (D32), the segments of the last
 * second before now per device in one call (running, P151), and the page's positions in one call.
 */
export function aempReads(context: ReadContext): AempReads {
  const snapshot = async (devices: readonly Device[], now: number): Promise<AempEquipment[]> => {
    const [{ summaries, meters, facts }, running, positions] = await Promise.all([
      pageMaintenance(context, devices, now, false),
      engineRunningAt(context.store, context.sums, devices, now),
      context.store.listDevicePositions({ deviceIds: devices.map((device) => device.id) }),
    ]);
    const byDevice = new Map(positions.map((position) => [position.deviceId, position]));
    return devices.map((device, index) => {
      return {
        ...aempHeader(device),
        location: byDevice.get(device.id) ?? null,
        operatingSeconds: meters[index]!.now.seconds,
        idleSeconds: _idleSeconds(summaries[index]!.idleSeconds, facts.readings.get(device.id) ?? []),
        running: summaries[index]!.firstStartedAt === null ? null : running[index]!,
      };
    });
  };

  return {
    async fleet({ accountId, page }) {
      const now = context.nowSeconds();
      const shown = await aempDevicePage(context.store, accountId, page);
      if (shown === null) return null;
      shown.devices.forEach(context.zones.remember);
      return { snapshotTime: now, page, lastPage: shown.lastPage, equipment: await snapshot(shown.devices, now) };
    },

    async equipment({ accountId, deviceId }) {
      const device = await context.store.findDevice({ accountId, deviceId });
      if (device === null) return null;
      const now = context.nowSeconds();
      return { snapshotTime: now, equipment: (await snapshot([device], now))[0]! };
    },

    async series({ accountId, deviceId, kind, start, end, page }) {
      const now = context.nowSeconds();
      const device = await context.store.findDevice({ accountId, deviceId });
      if (device === null) return null;
      // One second past the end: a segment starting where a run ends there continues the run.
      const segments = await context.store.listSegments({ deviceId, start, end: end + 1 });
      const shown = aempPage(aempSeriesInstants({ segments, start, end, now }), page);
      if (shown === null) return 'no_such_page';
      const instants = shown.items;
      const [facts, [summary]] = await Promise.all([
        maintenanceFacts(context.store, [deviceId], false),
        context.sums.summarizeMany([deviceId], now),
      ]);
      const readings = kind === 'CumulativeOperatingHours' ? (facts.readings.get(deviceId) ?? []) : [];
      const boundaries = hourMeterBoundaries(readings, instants, now);
      const [buckets = []] = await context.sums.page([device], [boundaries.length > 1 ? boundaries : null], now);
      const idleAfter = new Map<number, number>();
      let after = 0;
      for (let index = boundaries.length - 1; index >= 0; index -= 1) {
        after += buckets[index]?.idleSeconds ?? 0;
        idleAfter.set(boundaries[index]!, after);
      }
      const seconds =
        kind === 'CumulativeOperatingHours'
          ? hourMeterValues({ readings, instants, boundaries, buckets, engineSeconds: summary!.movingSeconds + summary!.idleSeconds }).map(
              (value) => value.seconds,
            )
          : instants.map((instant) => summary!.idleSeconds - idleAfter.get(instant)!);
      return {
        snapshotTime: now,
        kind,
        page,
        lastPage: shown.lastPage,
        header: aempHeader(device),
        values: instants.map((at, index) => ({ at, seconds: seconds[index]! })),
      };
    },
  };
}

/**
 * P156 (D64): a snapshot's `CumulativeIdleHours`: the idle seconds the device counted plus the idle
 * its sources gave, that of the newest reading (by `readAt`) that carries one; only the counted
 * idle when no reading does. A device fed only by a source counts none, so it shows the source's.
 *
 * @param readings The device's readings, any order.
 */
function _idleSeconds(countedIdleSeconds: number, readings: readonly HourMeterReading[]): number {
  let newest: HourMeterReading | null = null;
  for (const reading of readings)
    if (reading.idleSeconds !== undefined && (newest === null || reading.readAt > newest.readAt)) newest = reading;
  return countedIdleSeconds + (newest?.idleSeconds ?? 0);
}

/**
 * P152 (P121): page `page` (from 1) of the account's devices, 100 a page by id, and the number of
 * the last page (1 for an account without devices): one `listDevicePage` call, or the whole list
 * cut by the core for a store without it; `null` for a page that is not a whole number from 1
 * to the last.
 */
export async function aempDevicePage(
  store: FleetHoursStore,
  accountId: number,
  page: number,
): Promise<{ readonly devices: readonly Device[]; readonly lastPage: number } | null> {
  const offset = (page - 1) * AEMP_PAGE_SIZE;
  if (!Number.isSafeInteger(page) || page < 1 || !Number.isSafeInteger(offset)) return null;
  const input = { accountId, offset, limit: AEMP_PAGE_SIZE };
  const { devices, count } = await (store.listDevicePage ? store.listDevicePage(input) : devicePageFromList(store)(input));
  const lastPage = aempPageCount(count);
  return page > lastPage ? null : { devices, lastPage };
}

/**
 * P151 (P122): whether each device's engine ran in the last second before `now`, `[now − 1, now)`:
 * from the segments overlapping that second (`listSegmentsMany`, one bounded read per device in one
 * call; an open segment or a live tail of D22 overlaps it while it runs), summed as the core sums
 * any window (`sumSegmentsByBucket`); for a store without it, from the store's sums over the
 * second, as before. Both are the engine time of that second, so the answers are the same.
 */
export async function engineRunningAt(
  store: FleetHoursStore,
  sums: StoreSums,
  devices: readonly Device[],
  now: number,
): Promise<boolean[]> {
  const second = [now - 1, now];
  const buckets = store.listSegmentsMany
    ? (await store.listSegmentsMany({ requests: devices.map((device) => ({ deviceId: device.id, start: now - 1, end: now })) })).map(
        (segments) => sumSegmentsByBucket(segments, second, now),
      )
    : await sums.page(
        devices,
        devices.map(() => second),
        now,
      );
  return buckets.map((bucket) => bucket[0] !== undefined && bucket[0].movingSeconds + bucket[0].idleSeconds > 0);
}
