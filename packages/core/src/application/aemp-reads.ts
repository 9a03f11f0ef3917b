import { aempHeader, type AempEquipment, type AempFleetPage, type AempSeriesKind, type AempSeriesPage } from '../aemp/aemp-equipment.js';
import { aempPage, aempSeriesInstants } from '../aemp/aemp-series.js';
import { hourMeterBoundaries, hourMeterValues } from '../maintenance/hour-meter.js';
import type { Device } from '../types.js';
import { pageMaintenance } from './device-pages.js';
import { maintenanceFacts } from './maintenance-reads.js';
import type { ReadContext } from './read-context.js';

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
 * of store calls whatever its size: the account's devices (one call: a numbered page needs the
 * count), the page's meters and hour meters as the fleet pages read them (D32), one sum of the
 * last second before now per device in one call (running), and the page's positions in one call.
 */
export function aempReads(context: ReadContext): AempReads {
  const snapshot = async (devices: readonly Device[], now: number): Promise<AempEquipment[]> => {
    const [{ summaries, meters }, running, positions] = await Promise.all([
      pageMaintenance(context, devices, now, false),
      context.sums.page(
        devices,
        devices.map(() => [now - 1, now]),
        now,
      ),
      context.store.listDevicePositions({ deviceIds: devices.map((device) => device.id) }),
    ]);
    const byDevice = new Map(positions.map((position) => [position.deviceId, position]));
    return devices.map((device, index) => {
      const last = running[index]?.[0];
      return {
        ...aempHeader(device),
        location: byDevice.get(device.id) ?? null,
        operatingSeconds: meters[index]!.now.seconds,
        idleSeconds: summaries[index]!.idleSeconds,
        running: summaries[index]!.firstStartedAt === null ? null : last !== undefined && last.movingSeconds + last.idleSeconds > 0,
      };
    });
  };

  return {
    async fleet({ accountId, page }) {
      const now = context.nowSeconds();
      const shown = aempPage(await context.store.listDevices({ accountId }), page);
      if (shown === null) return null;
      shown.items.forEach(context.zones.remember);
      return { snapshotTime: now, page, lastPage: shown.lastPage, equipment: await snapshot(shown.items, now) };
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
