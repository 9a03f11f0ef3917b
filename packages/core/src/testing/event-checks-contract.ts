/**
 * P53 in the storage contract: a store that keeps the checks writes ask for (`listEventChecks`,
 * `clearEventChecks`) leaves one for every device a telemetry write or an import wrote, with the
 * write itself, and clears a check only at the version it was read at.
 */
import { expect } from 'vitest';
import type { FleetHoursStore } from '../store/storage-port.js';
import type { StorageCapability } from './storage-capabilities.js';

const T0 = 1_767_225_600; // 2026-01-01T00:00:00Z

/** What the P53 block needs from the contract suite around it. */
export interface EventChecksContractContext {
  readonly store: () => FleetHoursStore;
  readonly itWith: (capability: StorageCapability, title: string, test: () => Promise<void>) => void;
}

/** Registers the P53 tests inside `describeStorageContract`. */
export function describeEventChecksContract({ store, itWith }: EventChecksContractContext): void {
  itWith(
    'listEventChecks',
    'P53: a telemetry write and an import leave a check of each device they wrote; a check is cleared only at the version read',
    async () => {
      const account = await store().createAccount({ name: 'Acme', plan: 'business', now: T0 });
      const make = async (imei: string) =>
        (await store().createDevice({ accountId: account.id, name: imei, imei, model: 'm', timeZone: 'UTC' }))!;
      const [truck, loader, idle] = [await make('1'), await make('2'), await make('3')];
      expect(await store().listEventChecks!({ limit: 10 })).toEqual([]);

      await store().writeTelemetry({
        accountId: account.id,
        points: [
          { deviceId: truck.id, time: T0, ignition: true, speedKmh: 40 },
          { deviceId: truck.id, time: T0 + 60, ignition: true, speedKmh: 0 },
          { deviceId: loader.id, time: T0, ignition: false, speedKmh: 0 },
        ],
        now: T0 + 120,
      });
      await store().importSegments({ deviceId: idle.id, segments: [{ startedAt: T0, endedAt: T0 + 600, state: 'idle' }] });
      const first = await store().listEventChecks!({ limit: 10 });
      expect(first.map(({ deviceId, accountId }) => ({ deviceId, accountId }))).toEqual(
        [truck, loader, idle].map((device) => ({ deviceId: device.id, accountId: account.id })).sort((a, b) => a.deviceId - b.deviceId),
      );
      // Pages by device id.
      expect(await store().listEventChecks!({ limit: 1, afterDeviceId: first[0]!.deviceId })).toEqual([first[1]]);

      // The truck writes again after the checks were read: its check stays, the others go.
      await store().writeTelemetry({
        accountId: account.id,
        points: [{ deviceId: truck.id, time: T0 + 120, ignition: true, speedKmh: 30 }],
        now: T0 + 180,
      });
      await store().clearEventChecks!({ checks: first });
      const left = await store().listEventChecks!({ limit: 10 });
      expect(left.map((check) => check.deviceId)).toEqual([truck.id]);
      expect(left[0]!.version).toBeGreaterThan(first.find((check) => check.deviceId === truck.id)!.version);
      await store().clearEventChecks!({ checks: left });
      expect(await store().listEventChecks!({ limit: 10 })).toEqual([]);

      // A write refused as a whole leaves no check.
      await expect(
        store().importSegments({ deviceId: idle.id, segments: [{ startedAt: T0 + 300, endedAt: T0 + 900, state: 'moving' }] }),
      ).rejects.toThrow();
      expect(await store().listEventChecks!({ limit: 10 })).toEqual([]);
      await expect(store().listEventChecks!({ limit: 0 })).rejects.toThrow(/^limit must be a positive safe integer/);
    },
  );
}
