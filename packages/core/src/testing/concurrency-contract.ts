/**
 * The concurrency part of the storage contract (D35), run by `describeStorageContract` inside its
 * suite (same store per test): many writers of every kind on a few devices at once — telemetry
 * batches naming devices by id or IMEI (several devices in one batch), single positions, resends,
 * segment imports, a change of a device's zone — in random interleavings. Every write must be
 * acknowledged (none lost to a race), and afterwards the stored points, segments,
 * `last_reported_at`, and the read API's hours, daily figures and meter (which read the stored
 * per-day figures and lifetime totals where a store keeps them, D27) must equal what delivering the
 * same writes one after another to a fresh device gives, and the points and segments must equal the
 * oracles.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { oracleMergedPoints, oracleSegments } from './telemetry-oracle.js';
import { createFleetHours } from '../application/create-fleet-hours.js';
import { parseWindowQuery } from '../window/parse-window-query.js';
import type { FleetHoursStore } from '../store/storage-port.js';
import type { TelemetryPoint } from '../telemetry/telemetry-point.js';
import type { Device, DeviceTelemetryPoint, SegmentInput } from '../types.js';

/** 2026-03-28T22:00:00Z: the telemetry runs across London's spring-forward night (01:00 UTC) and local midnights. */
const BASE = 1_774_735_200;
const RULES = { movingSpeedKmh: 5, maxGapSeconds: 300, tail: 'live' as const };
/** After every point: no point is ahead of it (D26), and every tail is closed by then. */
const LATER = BASE + 3 * 86_400;
const ZONES = ['Europe/London', 'America/New_York', 'Asia/Kathmandu'] as const;
/** The zone one device moves to while the writes run. */
const NEW_ZONE = 'Australia/Lord_Howe';
const DEVICES = 3;

/** One write, as a client would send it. */
type Delivery =
  /** A batch of points of any of the devices, each named by id or by IMEI. */
  | {
      readonly kind: 'batch';
      readonly points: readonly { readonly device: number; readonly byImei: boolean; readonly point: TelemetryPoint }[];
    }
  /** One position of one device, by IMEI (a Traccar forward, an OsmAnd report). */
  | { readonly kind: 'position'; readonly device: number; readonly point: TelemetryPoint }
  /** Closed segments of one device, imported, a day before its telemetry (D23 keeps sources apart). */
  | { readonly kind: 'import'; readonly device: number; readonly segments: readonly SegmentInput[] }
  /** The first device moves to {@link NEW_ZONE} (its figures are cut again, D27). */
  | { readonly kind: 'zone' };

const pointArbitrary = fc.record({
  // Now and then five months earlier: a device whose last point before a batch lies months back
  // is read past the months near now (P57), while other writes of it run.
  time: fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: 0, max: 6 * 3_600 }).map((offset) => BASE + offset) },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: 6 * 3_600 }).map((offset) => BASE - 150 * 86_400 + offset) },
  ),
  ignition: fc.boolean(),
  speedKmh: fc.constantFrom(0, 4.99, 5, 30),
});
const deviceArbitrary = fc.integer({ min: 0, max: DEVICES - 1 });

const deliveryArbitrary: fc.Arbitrary<Delivery> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('batch' as const),
      points: fc.array(fc.record({ device: deviceArbitrary, byImei: fc.boolean(), point: pointArbitrary }), {
        minLength: 1,
        maxLength: 40,
      }),
    }),
  },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('position' as const), device: deviceArbitrary, point: pointArbitrary }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('import' as const),
      device: deviceArbitrary,
      // Closed segments on a grid of 10 minutes a day before the telemetry, each slot's segment
      // always the same: two imports never overlap, and importing a segment again changes nothing (D1).
      segments: fc.uniqueArray(fc.integer({ min: 0, max: 143 }), { minLength: 1, maxLength: 4 }).map((slots) =>
        slots.map((slot) => ({
          startedAt: BASE - 86_400 + slot * 600,
          endedAt: BASE - 86_400 + slot * 600 + 1 + ((slot * 37) % 599),
          state: slot % 2 === 0 ? ('moving' as const) : ('idle' as const),
        })),
      ),
    }),
  },
);

/** Deliveries with about one in ten sent again, and at most one zone change, in a random order. */
const runArbitrary = fc
  .record({ deliveries: fc.array(deliveryArbitrary, { minLength: 4, maxLength: 14 }), zone: fc.boolean(), seed: fc.integer() })
  .chain(({ deliveries, zone, seed }) => {
    const resent = deliveries.filter((_, index) => (index + seed) % 10 === 0);
    const all: Delivery[] = [...deliveries, ...resent, ...(zone ? [{ kind: 'zone' as const }] : [])];
    return fc.shuffledSubarray(all, { minLength: all.length, maxLength: all.length });
  });

/**
 * The concurrency tests of the storage contract.
 *
 * @param current The store of the running test (a fresh one per test).
 */
export function describeConcurrencyContract(current: () => FleetHoursStore): void {
  let imeis = 0;
  const newDevices = async (store: FleetHoursStore, accountId: number) =>
    Promise.all(
      ZONES.map(
        async (timeZone) =>
          (await store.createDevice({
            accountId,
            name: `Truck ${++imeis}`,
            imei: `86${String(imeis).padStart(13, '0')}`,
            model: 'FMB920',
            timeZone,
          }))!,
      ),
    );

  /** Sends one delivery to `devices` (the store's answer is ignored: only the state is compared). */
  const deliver = async (store: FleetHoursStore, accountId: number, devices: readonly Device[], delivery: Delivery): Promise<void> => {
    const named = (device: Device, byImei: boolean, point: TelemetryPoint): DeviceTelemetryPoint =>
      byImei ? { imei: device.imei, ...point } : { deviceId: device.id, ...point };
    switch (delivery.kind) {
      case 'batch':
        await store.writeTelemetry({
          accountId,
          points: delivery.points.map(({ device, byImei, point }) => named(devices[device]!, byImei, point)),
          now: LATER,
        });
        return;
      case 'position':
        await store.writeTelemetry({ accountId, points: [named(devices[delivery.device]!, true, delivery.point)], now: LATER });
        return;
      case 'import':
        await store.importSegments({ deviceId: devices[delivery.device]!.id, segments: delivery.segments });
        return;
      case 'zone':
        await store.updateDevice({ deviceId: devices[0]!.id, changes: { timeZone: NEW_ZONE } });
        return;
    }
  };

  /** What a device holds, through the store and the read API, in a form two devices can be compared by. */
  const stateOf = async (store: FleetHoursStore, accountId: number, device: Device) => {
    const found = (await store.findDevice({ accountId, deviceId: device.id }))!;
    const fleetHours = createFleetHours({ store, now: () => LATER * 1000 });
    // Local dates around all the data in every zone: whole days are read from a store's figures.
    const window = parseWindowQuery({ from: '2026-03-26', to: '2026-03-31' });
    const hours = await fleetHours.hours({ accountId, deviceId: device.id, ...window });
    const daily = await fleetHours.daily({ accountId, deviceId: device.id, ...window });
    const meter = await fleetHours.meter({ accountId, deviceId: device.id });
    const strip = <T extends object>(value: T | null) => {
      if (value === null) return null;
      const { deviceId: _deviceId, ...rest } = value as T & { deviceId?: unknown };
      return rest;
    };
    return {
      timeZone: found.timeZone,
      lastReportedAt: found.lastReportedAt,
      points: await store.listTelemetryPoints({ deviceId: device.id }),
      segments: (await store.listSegments({ deviceId: device.id })).map(({ startedAt, endedAt, state }) => ({ startedAt, endedAt, state })),
      hours: strip(hours),
      daily: strip(daily),
      meter: strip(meter),
    };
  };

  describe('concurrent writes (D35)', () => {
    it('D35: writes of every kind to a few devices at once, in any interleaving, are all acknowledged and leave exactly the state of the same writes one after another', async () => {
      const store = current();
      const account = await store.createAccount({ name: 'Fleet', plan: 'business', now: BASE });
      await fc.assert(
        fc.asyncProperty(runArbitrary, async (run) => {
          const devices = await newDevices(store, account.id);
          const outcomes = await Promise.allSettled(run.map((delivery) => deliver(store, account.id, devices, delivery)));
          // A lost race is never a refusal or a failure: every write is acknowledged.
          expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toEqual([]);

          // The same writes one after another, to fresh devices.
          const serial = await newDevices(store, account.id);
          for (const delivery of run) await deliver(store, account.id, serial, delivery);
          for (let index = 0; index < DEVICES; index += 1) {
            const concurrent = await stateOf(store, account.id, devices[index]!);
            expect(concurrent).toEqual(await stateOf(store, account.id, serial[index]!));

            // And both as the oracles say: the points merged by second (D21), their segments (D2) beside the imported ones.
            const sent = run.flatMap((delivery) =>
              delivery.kind === 'batch'
                ? delivery.points.filter(({ device }) => device === index).map(({ point }) => point)
                : delivery.kind === 'position' && delivery.device === index
                  ? [delivery.point]
                  : [],
            );
            const imported = new Map<number, SegmentInput>();
            for (const delivery of run)
              if (delivery.kind === 'import' && delivery.device === index)
                for (const segment of delivery.segments) imported.set(segment.startedAt, segment);
            expect(concurrent.points).toEqual(oracleMergedPoints(sent));
            // The oracle walks every second from a device's first point to its last: the points five
            // months back are walked on their own (months apart, far more than maxGapSeconds, no
            // second between the two runs has a state, so the segments are the same).
            const derived = [
              ...oracleSegments(
                sent.filter((point) => point.time < BASE - 86_400),
                RULES,
              ),
              ...oracleSegments(
                sent.filter((point) => point.time >= BASE - 86_400),
                RULES,
              ),
            ];
            const segments = [...imported.values(), ...derived].sort((a, b) => a.startedAt - b.startedAt);
            expect(concurrent.segments).toEqual(segments);
            const newest = Math.max(
              -Infinity,
              ...sent.map((point) => point.time),
              ...[...imported.values()].map((segment) => segment.endedAt!),
            );
            expect(concurrent.lastReportedAt).toBe(newest === -Infinity ? null : newest);
          }
        }),
        // A failed interleaving seldom fails again as it shrinks (the scheduler decides it): report it as found.
        { numRuns: 12, endOnFailure: true },
      );
    }, 60_000);
  });
}
