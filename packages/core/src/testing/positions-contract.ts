/**
 * Issue 34 (P119) in the storage contract: each device keeps the newest position its points
 * carried — newest by the point's time, at the same second the larger latitude, then longitude —
 * whatever the split into batches, their order, resends and duplicates; checked against an oracle
 * that sorts every positioned point (it shares no code with `newestPosition`).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FleetHoursStore } from '../store/storage-port.js';
import type { Device, DeviceTelemetryPoint } from '../types.js';

/** 2026-01-05T00:00:00Z. */
const BASE = 1_767_571_200;
const LATER = BASE + 86_400;

/** The oracle: the last of all positioned points sorted by (time, latitude, longitude). */
function _oracle(points: readonly { time: number; latitude?: number; longitude?: number }[]) {
  const positioned = points
    .filter((point) => point.latitude !== undefined)
    .map((point) => [point.time, point.latitude!, point.longitude!] as const)
    .sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);
  const last = positioned.at(-1);
  return last === undefined ? null : { time: last[0], latitude: last[1], longitude: last[2] };
}

const pointArbitrary = fc
  .tuple(
    fc.record({
      // Few seconds, so that points share seconds (duplicates and merges, D21).
      time: fc.integer({ min: 0, max: 20 }).map((offset) => BASE + offset),
      ignition: fc.boolean(),
      speedKmh: fc.constantFrom(0, 3, 12.5),
    }),
    fc.option(fc.record({ latitude: fc.constantFrom(-90, -12.5, 0, 48.137154, 90), longitude: fc.constantFrom(-180, 0, 11.576124, 180) })),
  )
  .map(([point, position]) => (position === null ? point : { ...point, ...position }));

/**
 * The positions block of the storage contract.
 *
 * @param current The store of the running test (a fresh one per test).
 */
export function describePositionsContract(current: () => FleetHoursStore): void {
  describe('positions (issue 34)', () => {
    it('P119: any split, order and resend of the same points keeps the same newest position per device (the oracle)', async () => {
      const store = current();
      const account = await store.createAccount({ name: 'Positions', plan: 'business', now: BASE });
      let devices = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.tuple(fc.nat(1), pointArbitrary), { minLength: 1, maxLength: 30 }),
          fc.array(fc.integer({ min: 1, max: 29 }), { maxLength: 4 }),
          fc.boolean(),
          async (placed, cuts, reversed) => {
            const fleet: Device[] = [];
            for (let index = 0; index < 2; index += 1) {
              devices += 1;
              fleet.push(
                (await store.createDevice({
                  accountId: account.id,
                  name: `Digger ${devices}`,
                  imei: `86${String(devices).padStart(13, '0')}`,
                  model: 'FMB920',
                  timeZone: 'UTC',
                }))!,
              );
            }
            const sent = placed.map(([which, point]): DeviceTelemetryPoint => ({ deviceId: fleet[which]!.id, ...point }));
            const edges = [0, ...cuts.filter((cut) => cut < sent.length).sort((a, b) => a - b), sent.length];
            const batches = edges.slice(1).map((end, index) => sent.slice(edges[index], end));
            if (reversed) batches.reverse();
            // The first batch again at the end: a resend, every point a duplicate.
            for (const batch of [...batches, batches[0]!]) await store.writeTelemetry({ accountId: account.id, points: batch, now: LATER });
            const expected = fleet.flatMap((device, which) => {
              const newest = _oracle(placed.filter(([owner]) => owner === which).map(([, point]) => point));
              return newest === null ? [] : [{ deviceId: device.id, ...newest }];
            });
            expect(await store.listDevicePositions({ deviceIds: fleet.map((device) => device.id).reverse() })).toEqual(expected);
          },
        ),
        { numRuns: 25 },
      );
    });

    it('P119: an older positioned point never replaces a newer one; a point without a position changes nothing; a missing device is a miss', async () => {
      const store = current();
      const account = await store.createAccount({ name: 'Positions', plan: 'business', now: BASE });
      const device = (await store.createDevice({
        accountId: account.id,
        name: 'Crane',
        imei: '861000000000001',
        model: 'FMB920',
        timeZone: 'UTC',
      }))!;
      const write = (points: readonly Omit<DeviceTelemetryPoint, 'deviceId' | 'imei'>[]) =>
        store.writeTelemetry({ accountId: account.id, points: points.map((point) => ({ imei: device.imei, ...point })), now: LATER });
      expect(await store.listDevicePositions({ deviceIds: [device.id] })).toEqual([]);
      await write([{ time: BASE + 100, ignition: true, speedKmh: 0, latitude: 52.52, longitude: 13.405 }]);
      await write([{ time: BASE + 50, ignition: true, speedKmh: 0, latitude: 1, longitude: 2 }]);
      await write([{ time: BASE + 200, ignition: false, speedKmh: 0 }]);
      expect(await store.listDevicePositions({ deviceIds: [device.id, device.id + 1000] })).toEqual([
        { deviceId: device.id, time: BASE + 100, latitude: 52.52, longitude: 13.405 },
      ]);
      await write([{ time: BASE + 300, ignition: false, speedKmh: 0, latitude: -33.8688, longitude: 151.2093 }]);
      expect(await store.listDevicePositions({ deviceIds: [device.id] })).toEqual([
        { deviceId: device.id, time: BASE + 300, latitude: -33.8688, longitude: 151.2093 },
      ]);
    });

    it('P119: a position out of range, or one coordinate without the other, is refused naming the point, and nothing is written', async () => {
      const store = current();
      const account = await store.createAccount({ name: 'Positions', plan: 'business', now: BASE });
      const device = (await store.createDevice({
        accountId: account.id,
        name: 'Loader',
        imei: '861000000000002',
        model: 'FMB920',
        timeZone: 'UTC',
      }))!;
      for (const bad of [
        { latitude: 90.5, longitude: 0 },
        { latitude: 0, longitude: -181 },
        { latitude: 10 },
        { latitude: Number.NaN, longitude: 1 },
      ]) {
        const refusal = await store
          .writeTelemetry({
            accountId: account.id,
            points: [
              { deviceId: device.id, time: BASE, ignition: true, speedKmh: 0, latitude: 1, longitude: 1 },
              { deviceId: device.id, time: BASE + 1, ignition: true, speedKmh: 0, ...bad },
            ],
            now: LATER,
          })
          .catch((error: unknown) => error);
        expect(refusal).toBeInstanceOf(RangeError);
        expect((refusal as Error).message).toMatch(/^points\[1\]\.(latitude|longitude) /);
      }
      expect(await store.listDevicePositions({ deviceIds: [device.id] })).toEqual([]);
      expect(await store.listTelemetryPoints({ deviceId: device.id })).toEqual([]);
    });
  });
}
