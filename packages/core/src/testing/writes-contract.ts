/**
 * The core's writes over a store (`createTelemetryWrites`), run by `describeStorageContract` inside
 * its suite (same store per test): what every front end writes through — the HTTP ingestion routes,
 * the CLI's imports, the demo — holds on every store: the retention rule (D43), positions batched
 * (P34) with each answer its own, and an import in batches naming the refused point by its index.
 */
import { describe, expect, it } from 'vitest';
import { BeyondRetentionError, UnknownDeviceError } from '../errors/errors.js';
import type { FleetHoursStore } from '../store/storage-port.js';
import { InvalidTelemetryPointError } from '../telemetry/telemetry-point.js';
import type { Device } from '../types.js';
import { createTelemetryWrites, TelemetryImportRefusedError } from '../writes/telemetry-writes.js';
import { refusalOf } from './refusal.js';

/** 2026-02-01T00:00:00Z. */
const NOW = 1_769_904_000;
const DAY = 86_400;

/** Devices of these tests: each a new IMEI. */
let imeis = 0;
async function _fleet(store: FleetHoursStore, size: number): Promise<{ accountId: number; devices: Device[] }> {
  const account = await store.createAccount({ name: 'Writes', plan: 'business', now: NOW - 400 * DAY });
  const devices: Device[] = [];
  for (let index = 0; index < size; index += 1) {
    devices.push(
      (await store.createDevice({
        accountId: account.id,
        name: `Writer ${index}`,
        imei: `36${String(++imeis).padStart(13, '0')}`,
        model: 'FMB920',
        timeZone: index % 2 === 0 ? 'Europe/Berlin' : 'America/New_York',
      }))!,
    );
  }
  return { accountId: account.id, devices };
}

/** The store with its `writeTelemetry` calls counted. */
function _counted(store: FleetHoursStore): { store: FleetHoursStore; calls: number[] } {
  const calls: number[] = [];
  return {
    calls,
    store: {
      ...store,
      writeTelemetry(input) {
        calls.push(input.points.length);
        return store.writeTelemetry(input);
      },
    },
  };
}

/**
 * The writes part of the storage contract.
 *
 * @param current The store of the running test (a fresh one per test).
 */
export function describeWritesContract(current: () => FleetHoursStore): void {
  describe('the core writes over this store (D43, P34)', () => {
    it('D43: telemetry, a position and an import older than the retention are refused with beyond_retention naming the point and the days kept; nothing is written; at the horizon they are stored', async () => {
      const store = current();
      const writes = createTelemetryWrites(store);
      const { accountId, devices } = await _fleet(store, 1);
      const device = devices[0]!;
      const horizon = NOW - 30 * DAY;
      const fresh = { deviceId: device.id, time: horizon + 60, ignition: true, speedKmh: 20 };
      const old = { ...fresh, time: horizon - 1 };

      const batch = await refusalOf(writes.telemetry({ accountId, points: [fresh, old], now: NOW, retentionDays: 30 }));
      expect(batch).toBeInstanceOf(BeyondRetentionError);
      expect(batch).toMatchObject({ code: 'beyond_retention', index: 1, time: horizon - 1, horizon, keptDays: 30 });
      expect(batch.message).toContain('(telemetry is kept 30 days): nothing was written');

      const { deviceId: _id, ...oldPoint } = old;
      const position = await refusalOf(
        writes.position({ accountId, point: { ...oldPoint, imei: device.imei }, now: NOW, retentionDays: 30 }),
      );
      expect(position).toMatchObject({ code: 'beyond_retention', index: 0, keptDays: 30 });

      const imported = await refusalOf(
        writes.importTelemetry({
          accountId,
          deviceId: device.id,
          points: [fresh, old].map(({ deviceId, ...point }) => point),
          now: NOW,
          retentionDays: 30,
        }),
      );
      expect(imported).toBeInstanceOf(TelemetryImportRefusedError);
      expect(imported).toMatchObject({ index: 1, stored: 0 });
      expect((imported as TelemetryImportRefusedError).cause).toBeInstanceOf(BeyondRetentionError);
      expect(await store.listTelemetryPoints({ deviceId: device.id })).toEqual([]);

      await writes.telemetry({ accountId, points: [{ ...fresh, time: horizon }], now: NOW, retentionDays: 30 });
      // Without a retention, every point is written.
      await writes.telemetry({ accountId, points: [old], now: NOW });
      expect((await store.listTelemetryPoints({ deviceId: device.id })).map((point) => point.time)).toEqual([horizon - 1, horizon]);
    });

    it('P34, D21: positions sent at once share writes; each is answered with its own device, and the same point twice is new once and a duplicate once', async () => {
      const counted = _counted(current());
      const writes = createTelemetryWrites(counted.store);
      const { accountId, devices } = await _fleet(counted.store, 5);
      const at = (device: Device, time: number) => ({
        accountId,
        point: { imei: device.imei, time, ignition: true, speedKmh: 12 },
        now: NOW,
      });
      const sent = [...devices.map((device) => at(device, NOW - 600)), at(devices[0]!, NOW - 300), at(devices[0]!, NOW - 300)];
      const answers = await Promise.all(sent.map((position) => writes.position(position)));

      answers.forEach((answer, index) => {
        expect(answer.devices.map((device) => device.imei)).toEqual([sent[index]!.point.imei]);
        expect(answer.accepted + answer.duplicates).toBe(1);
      });
      expect(
        answers
          .slice(-2)
          .map((answer) => answer.accepted)
          .sort(),
      ).toEqual([0, 1]);
      // Fewer writes than positions; every position in exactly one write (the same device never twice in one).
      expect(counted.calls.length).toBeLessThan(sent.length);
      expect(counted.calls.reduce((sum, size) => sum + size, 0)).toBe(sent.length);
      for (const device of devices)
        expect((await counted.store.listTelemetryPoints({ deviceId: device.id })).length).toBe(device === devices[0] ? 2 : 1);
    });

    it('D25: an unknown IMEI among positions sent at once fails only its own write; the others are stored', async () => {
      const store = current();
      const writes = createTelemetryWrites(store);
      const { accountId, devices } = await _fleet(store, 4);
      const point = (imei: string) => ({ accountId, point: { imei, time: NOW - 60, ignition: true, speedKmh: 0 }, now: NOW });
      const outcomes = await Promise.allSettled([
        ...devices.map((device) => writes.position(point(device.imei))),
        writes.position(point('999000111222333')),
      ]);
      expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'rejected']);
      expect((outcomes[4] as PromiseRejectedResult).reason).toBeInstanceOf(UnknownDeviceError);
      for (const device of devices) expect(await store.listTelemetryPoints({ deviceId: device.id })).toHaveLength(1);
    });

    it('D21, D26: an import is written in time order, in batches; a refused batch names the point by its index in the caller\u2019s list and keeps the earlier batches', async () => {
      const counted = _counted(current());
      const writes = createTelemetryWrites(counted.store);
      const { accountId, devices } = await _fleet(counted.store, 1);
      const deviceId = devices[0]!.id;
      // Newest first: written oldest first, three per batch.
      const points = Array.from({ length: 7 }, (_, index) => ({ time: NOW - 60 * (index + 1), ignition: index % 2 === 0, speedKmh: 0 }));
      const batches: number[] = [];
      const done = await writes.importTelemetry({
        accountId,
        deviceId,
        points,
        now: NOW,
        batchPoints: 3,
        onBatch: (written) => batches.push(written),
      });
      expect(done).toEqual({ accepted: 7, duplicates: 0, batches: 3 });
      expect(batches).toEqual([3, 6, 7]);
      expect(counted.calls).toEqual([3, 3, 1]);
      const again = await writes.importTelemetry({ accountId, deviceId, points, now: NOW, batchPoints: 3 });
      expect(again).toEqual({ accepted: 0, duplicates: 7, batches: 3 });

      // A point an hour ahead of now (D26), listed first: the last in time order, in the second batch.
      const ahead = [
        { time: NOW + 3600, ignition: true, speedKmh: 0 },
        ...points.slice(0, 5).map((point) => ({ ...point, time: point.time - 3600 })),
      ];
      const refused = await refusalOf(writes.importTelemetry({ accountId, deviceId, points: ahead, now: NOW, batchPoints: 3 }));
      expect(refused).toBeInstanceOf(TelemetryImportRefusedError);
      expect(refused).toMatchObject({ index: 0, stored: 3 });
      expect((refused as TelemetryImportRefusedError).cause).toBeInstanceOf(InvalidTelemetryPointError);
      expect(await counted.store.listTelemetryPoints({ deviceId })).toHaveLength(10);
    });
  });
}
