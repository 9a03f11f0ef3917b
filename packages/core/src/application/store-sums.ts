import { sumSegmentsByBucket } from '../engine/sum-by-bucket.js';
import { summarizeSegments } from '../engine/summarize-segments.js';
import type { FleetHoursStore } from '../store/storage-port.js';
import type { BucketSeconds, Device, SegmentSummary } from '../types.js';
import { bucketsBetween } from './maintenance-reads.js';

/**
 * P1 (docs/decisions.md): no engine ran after now. Boundaries are capped at now, so a closed
 * segment stamped in the future counts only up to now, exactly as in the meter (D3), and buckets
 * after now are empty. Capping the boundaries (not the segments) keeps every store's aggregation
 * contract unchanged.
 */
export function capAtNow(boundaries: readonly number[], now: number): number[] {
  return boundaries.map((boundary) => Math.min(boundary, now));
}

/**
 * The buckets of each device of a page, asking `sums` only for the devices with boundaries (a
 * device without, an empty window P32, asks nothing and gets none), in one call, in page order.
 */
async function _pageOfAsked(
  devices: readonly Device[],
  boundaries: readonly (readonly number[] | null)[],
  sums: (asked: readonly { deviceId: number; boundaries: readonly number[] }[]) => Promise<readonly (readonly BucketSeconds[])[]>,
): Promise<readonly (readonly BucketSeconds[])[]> {
  const asked = devices.flatMap((device, index) =>
    boundaries[index] ? [{ index, deviceId: device.id, boundaries: boundaries[index] }] : [],
  );
  const results = await sums(asked);
  const found = new Map(asked.map((request, position) => [request.index, results[position]!]));
  return devices.map((_device, index) => found.get(index) ?? []);
}

/** The sums a read asks of the store: by its capabilities when it has them, else by the core's fallback over its segments. */
export interface StoreSums {
  /** The buckets of one device, its window's boundaries capped at now. */
  buckets(deviceId: number, windowBoundaries: readonly number[], now: number): Promise<readonly BucketSeconds[]>;
  /** The buckets of each device of a page; a device without boundaries (an empty window, P32) asks the store nothing and gets none. */
  page(
    devices: readonly Device[],
    boundaries: readonly (readonly number[] | null)[],
    now: number,
  ): Promise<readonly (readonly BucketSeconds[])[]>;
  /**
   * The same buckets for the hour meter (D38), whose few boundaries lie far apart: from the engine
   * time before each boundary when the store can give it (P56: its cost does not follow the time
   * between them), else as {@link page}.
   */
  hourMeterPage(
    devices: readonly Device[],
    boundaries: readonly (readonly number[] | null)[],
    now: number,
  ): Promise<readonly (readonly BucketSeconds[])[]>;
  summarize(deviceId: number, now: number): Promise<SegmentSummary>;
  summarizeMany(deviceIds: readonly number[], now: number): Promise<readonly SegmentSummary[]>;
}

export function storeSums(store: FleetHoursStore): StoreSums {
  const sumCapped = async (deviceId: number, boundaries: readonly number[], now: number): Promise<readonly BucketSeconds[]> => {
    if (store.sumSegmentSeconds) return store.sumSegmentSeconds({ deviceId, boundaries, now });
    const segments = await store.listSegments({ deviceId, start: boundaries[0]!, end: boundaries[boundaries.length - 1]! });
    return sumSegmentsByBucket(segments, boundaries, now);
  };
  // A page of the fleet (D32): one store call for every device when the store can (no query per
  // device), otherwise the single-device path for each.
  const sumMany = async (
    requests: readonly { deviceId: number; boundaries: readonly number[] }[],
    now: number,
  ): Promise<readonly (readonly BucketSeconds[])[]> => {
    const capped = requests.map((request) => ({ deviceId: request.deviceId, boundaries: capAtNow(request.boundaries, now) }));
    if (capped.length === 0) return [];
    if (store.sumSegmentSecondsMany) return store.sumSegmentSecondsMany({ requests: capped, now });
    return Promise.all(capped.map((request) => sumCapped(request.deviceId, request.boundaries, now)));
  };
  const summarize = async (deviceId: number, now: number): Promise<SegmentSummary> =>
    store.summarizeDeviceSegments
      ? store.summarizeDeviceSegments({ deviceId, now })
      : summarizeSegments(await store.listSegments({ deviceId }), now);
  const page: StoreSums['page'] = (devices, boundaries, now) => _pageOfAsked(devices, boundaries, (asked) => sumMany(asked, now));
  return {
    buckets: (deviceId, windowBoundaries, now) => sumCapped(deviceId, capAtNow(windowBoundaries, now), now),
    page,
    hourMeterPage(devices, boundaries, now) {
      const { engineSecondsBeforeMany } = store;
      if (!engineSecondsBeforeMany) return page(devices, boundaries, now);
      return _pageOfAsked(devices, boundaries, async (asked) => {
        if (asked.length === 0) return [];
        const requests = asked.map((request) => ({ deviceId: request.deviceId, instants: capAtNow(request.boundaries, now) }));
        return (await engineSecondsBeforeMany.call(store, { requests, now })).map(bucketsBetween);
      });
    },
    summarize,
    async summarizeMany(deviceIds, now) {
      if (deviceIds.length === 0) return [];
      if (store.summarizeDeviceSegmentsMany) return store.summarizeDeviceSegmentsMany({ deviceIds, now });
      return Promise.all(deviceIds.map((deviceId) => summarize(deviceId, now)));
    },
  };
}
