/**
 * D64 in the storage contract: what a snapshot page of the served AEMP feed asks of a store.
 *
 * - `listDevicePage` (P152), where offered: every numbered page is the account's whole list
 *   (`listDevices`) cut at `offset` / `limit`, with the account's count.
 * - `EngineStatus` (P151): whether each device's engine ran in the last second before now, as the
 *   page reads it, equals the engine time of that second by the store's sums (the former reading)
 *   and by the raw segments, on random segments (open ones and closed ones ending after now, as a
 *   live tail does, included).
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { engineRunningAt } from '../application/aemp-reads.js';
import { storeSums } from '../application/store-sums.js';
import { sumSegmentsByBucket } from '../engine/sum-by-bucket.js';
import type { FleetHoursStore } from '../store/storage-port.js';
import { chainedSegments } from './day-fields-contract.js';

const T0 = 1_767_225_600; // 2026-01-01T00:00:00Z

/** What the D64 block needs from the contract suite around it. */
export interface AempPageContractContext {
  /** The store of the running test (made fresh before each). */
  readonly store: () => FleetHoursStore;
  /** A test of an optional capability, skipped with its reason for a store without it. */
  readonly itWith: (capability: 'listDevicePage', title: string, test: () => Promise<void>) => void;
}

/** A device's segments close to `T0`: short pieces with short gaps or none, the last open or not. */
const segmentsArbitrary = chainedSegments(T0, 3, 5);

/** The D64 tests, inside `describeStorageContract`. */
export function describeAempPageContract({ store, itWith }: AempPageContractContext): void {
  itWith('listDevicePage', "P152: listDevicePage() is the account's whole list cut at offset and limit, with its count", async () => {
    const mine = await store().createAccount({ name: 'Mine', plan: 'business', now: T0 });
    const theirs = await store().createAccount({ name: 'Theirs', plan: 'business', now: T0 });
    const empty = await store().createAccount({ name: 'Empty', plan: 'business', now: T0 });
    for (let index = 0; index < 7; index += 1) {
      await store().createDevice({ accountId: mine.id, name: `mine-${index}`, imei: `m${index}`, model: 'm', timeZone: 'UTC' });
      await store().createDevice({ accountId: theirs.id, name: `theirs-${index}`, imei: `t${index}`, model: 'm', timeZone: 'UTC' });
    }
    const whole = await store().listDevices({ accountId: mine.id });
    expect(whole).toHaveLength(7);
    for (const limit of [1, 3, 7, 100])
      for (let offset = 0; offset <= 9; offset += 1)
        expect({ offset, limit, page: await store().listDevicePage!({ accountId: mine.id, offset, limit }) }).toEqual({
          offset,
          limit,
          page: { devices: whole.slice(offset, offset + limit), count: 7 },
        });
    for (const accountId of [empty.id, 2_000_000_000, -1])
      expect(await store().listDevicePage!({ accountId, offset: 0, limit: 100 })).toEqual({ devices: [], count: 0 });
    expect(await store().listDevicePage!({ accountId: mine.id, offset: Number.MAX_SAFE_INTEGER, limit: 100 })).toEqual({
      devices: [],
      count: 7,
    });
  });

  itWith('listDevicePage', 'P152: listDevicePage() refuses an offset or limit that is not a whole number in range, naming it', async () => {
    const account = await store().createAccount({ name: 'Acme', plan: 'business', now: T0 });
    for (const offset of [-1, 1.5, Number.NaN])
      await expect(store().listDevicePage!({ accountId: account.id, offset, limit: 100 })).rejects.toThrow(/offset/);
    for (const limit of [0, -3, 2.5])
      await expect(store().listDevicePage!({ accountId: account.id, offset: 0, limit })).rejects.toThrow(/limit/);
  });

  it('P151: EngineStatus from the segments of the last second equals the engine time of that second by the sums and by the raw segments', async () => {
    const account = await store().createAccount({ name: 'Acme', plan: 'business', now: T0 });
    let made = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(segmentsArbitrary, { minLength: 1, maxLength: 4 }),
        fc.integer({ min: -1, max: 40 }),
        async (fleet, offset) => {
          const now = T0 + offset;
          const devices = [];
          for (const segments of fleet) {
            made += 1;
            const device = (await store().createDevice({
              accountId: account.id,
              name: `r${made}`,
              imei: `r${made}`,
              model: 'm',
              timeZone: 'UTC',
            }))!;
            if (segments.length > 0) await store().importSegments({ deviceId: device.id, segments });
            devices.push(device);
          }
          const running = await engineRunningAt(store(), storeSums(store()), devices, now);
          const bySums = await storeSums(store()).page(
            devices,
            devices.map(() => [now - 1, now]),
            now,
          );
          const raw = await Promise.all(
            devices.map(
              async (device) => sumSegmentsByBucket(await store().listSegments({ deviceId: device.id }), [now - 1, now], now)[0]!,
            ),
          );
          expect(running).toEqual(bySums.map((buckets) => buckets[0]!.movingSeconds + buckets[0]!.idleSeconds > 0));
          expect(running).toEqual(raw.map((bucket) => bucket.movingSeconds + bucket.idleSeconds > 0));
        },
      ),
      { numRuns: 25 },
    );
  });
}
