/**
 * The live-telemetry part of the storage contract (D20–D26), run by `describeStorageContract`
 * inside its suite (same store per test). Points and segments are checked against the brute-force
 * oracles, which share no code with the rules: `telemetry-oracle.ts` walks every second, and
 * `oracle.ts` finds windows and local days through Intl.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { oracleMergedPoints, oracleSecondStates, oracleSegments } from './telemetry-oracle.js';
import { fingerprintApiKey, generateIngestToken } from '../access/api-key.js';
import { createFleetHours } from '../application/create-fleet-hours.js';
import { ImeiInUseError, isFleetHoursError, TelemetryOverlapError, UnknownDeviceError } from '../errors/errors.js';
import { formatInstant } from '../time/format-instant.js';
import { parseWindowQuery } from '../window/parse-window-query.js';
import type { FleetHoursStore } from '../store/storage-port.js';
import { InvalidTelemetryPointError, type TelemetryPoint } from '../telemetry/telemetry-point.js';
import { telemetryToSegments } from '../telemetry/telemetry-to-segments.js';
import type { Device, DeviceTelemetryPoint, SegmentState } from '../types.js';
import { intlLocalDate, oracleWindow } from './oracle.js';
import { refusalOf } from './refusal.js';

/** 2025-12-31T22:00:00-05:00 in New York: the data runs across a local midnight. */
const BASE = 1_767_236_400;
const ZONE = 'America/New_York';
const RULES = { movingSpeedKmh: 5, maxGapSeconds: 300, tail: 'live' as const };
/** Well after every point, so no point is ahead of it (D26). */
const LATER = BASE + 10 * 86_400;

/** Devices of the telemetry tests: each a new IMEI. */
let imeis = 0;
const seed = async (store: FleetHoursStore, timeZone = ZONE): Promise<Device> => {
  const account = await store.createAccount({ name: 'Fleet', plan: 'business', now: BASE });
  return newDevice(store, account.id, timeZone);
};
const newDevice = async (store: FleetHoursStore, accountId: number, timeZone = ZONE): Promise<Device> =>
  (await store.createDevice({
    accountId,
    name: `Truck ${++imeis}`,
    imei: `35${String(imeis).padStart(13, '0')}`,
    model: 'FMB920',
    timeZone,
  }))!;
const of = (device: Device, points: readonly TelemetryPoint[]): DeviceTelemetryPoint[] =>
  points.map((point) => ({ deviceId: device.id, ...point }));
const segmentsOf = async (store: FleetHoursStore, device: Device) =>
  (await store.listSegments({ deviceId: device.id })).map(({ startedAt, endedAt, state }) => ({ startedAt, endedAt, state }));

const pointArbitrary = fc.record({
  time: fc.integer({ min: 0, max: 14_400 }).map((offset) => BASE + offset),
  ignition: fc.boolean(),
  // Around the moving threshold of 5 km/h, fractions included.
  speedKmh: fc.constantFrom(0, 2.5, 4.99, 5, 12.5, 80),
});
/** Points, then how they are delivered: split into batches, shuffled, some sent twice. */
const deliveryArbitrary = fc.array(pointArbitrary, { minLength: 1, maxLength: 60 }).chain((points) =>
  fc.record({
    points: fc.constant(points),
    cuts: fc.uniqueArray(fc.integer({ min: 1, max: Math.max(1, points.length - 1) }), { maxLength: 5 }),
    order: fc.shuffledSubarray([0, 1, 2, 3, 4, 5], { minLength: 6, maxLength: 6 }),
    resends: fc.array(fc.nat(5), { maxLength: 3 }),
    nowOffset: fc.integer({ min: -600, max: 15_500 }),
  }),
);

/**
 * The telemetry tests of the storage contract.
 *
 * @param current The store of the running test (a fresh one per test).
 */
export function describeTelemetryContract(current: () => FleetHoursStore): void {
  describe('live telemetry (D20–D26)', () => {
    _describeDeliveries(current);
    _describeMonthsApart(current);
    _describeLateAndLive(current);
    _describeTurnsAndBatches(current);
    _describeRefusals(current);
    _describeSourcesApart(current);
    _describeImeis(current);
    _describeIngestTokens(current);
  });
}

/** A point of a fleet's delivery: which device it names, and whether by IMEI or by id. */
interface _Placed {
  readonly which: number;
  readonly byImei: boolean;
  readonly point: TelemetryPoint;
}

/** The points as batches cut at `cuts`, and the order they are sent in (reversed or not). */
function _deliveryOf(fleet: readonly Device[], placed: readonly _Placed[], cuts: readonly number[], reversed: boolean) {
  const sent = placed.map(
    ({ which, byImei, point }): DeviceTelemetryPoint =>
      byImei ? { imei: fleet[which]!.imei, ...point } : { deviceId: fleet[which]!.id, ...point },
  );
  const edges = [0, ...cuts.filter((cut) => cut < sent.length).sort((a, b) => a - b), sent.length];
  const batches = edges
    .slice(1)
    .map((end, index) => sent.slice(edges[index], end))
    .filter((batch) => batch.length > 0);
  const sequence = batches.map((_, index) => index);
  if (reversed) sequence.reverse();
  return { batches, sequence };
}

/** Each device of the fleet holds the segments, points and newest point of its own points, as if written at once. */
async function _expectEachHoldsItsOwn(store: FleetHoursStore, accountId: number, fleet: readonly Device[], placed: readonly _Placed[]) {
  for (const [which, device] of fleet.entries()) {
    const own = placed.filter((entry) => entry.which === which).map(({ point }) => point);
    expect(await segmentsOf(store, device)).toEqual(telemetryToSegments(own));
    expect(await store.listTelemetryPoints({ deviceId: device.id })).toEqual(own.length === 0 ? [] : oracleMergedPoints(own));
    const newest = own.length === 0 ? null : Math.max(...own.map((point) => point.time));
    expect((await store.findDevice({ accountId, deviceId: device.id }))?.lastReportedAt).toBe(newest);
  }
}

/** D20: deliveries split, reordered and resent, in one device or several. */
function _describeDeliveries(current: () => FleetHoursStore): void {
  it('D20: points split into batches, in any order, resent, give exactly the segments of all points at once; /hours, /hours/daily and /meter follow the oracle', async () => {
    const store = current();
    const account = await store.createAccount({ name: 'Fleet', plan: 'business', now: BASE });
    await fc.assert(
      fc.asyncProperty(deliveryArbitrary, async ({ points, cuts, order, resends, nowOffset }) => {
        const device = await newDevice(store, account.id);
        const edges = [0, ...[...cuts].filter((cut) => cut < points.length).sort((a, b) => a - b), points.length];
        const batches = edges
          .slice(1)
          .map((end, index) => points.slice(edges[index], end))
          .filter((batch) => batch.length > 0);
        const sequence = order
          .filter((index) => index < batches.length)
          .concat(batches.map((_, index) => index).filter((index) => index >= order.length));
        for (const resend of resends) if (batches.length > 0) sequence.push(resend % batches.length);
        for (const index of sequence)
          await store.writeTelemetry({ accountId: account.id, points: of(device, batches[index]!), now: LATER });

        expect(await segmentsOf(store, device)).toEqual(telemetryToSegments(points));
        expect(await segmentsOf(store, device)).toEqual(oracleSegments(points, RULES));
        expect(await store.listTelemetryPoints({ deviceId: device.id })).toEqual(oracleMergedPoints(points));
        const newest = Math.max(...points.map((point) => point.time));
        expect((await store.findDevice({ accountId: account.id, deviceId: device.id }))?.lastReportedAt).toBe(newest);

        // The read API over the same store, at a now that may fall inside the live tail (D22, P1).
        const now = BASE + nowOffset;
        const fleetHours = createFleetHours({ store, now: () => now * 1000 });
        const states = oracleSecondStates(points, RULES);
        const count = (start: number, end: number) => {
          let movingSeconds = 0;
          let idleSeconds = 0;
          for (const [second, state] of states) {
            if (second < start || second >= Math.min(end, now)) continue;
            if (state === 'moving') movingSeconds += 1;
            else idleSeconds += 1;
          }
          return { engineSeconds: movingSeconds + idleSeconds, movingSeconds, idleSeconds };
        };
        const query = { from: '2025-12-31', to: '2026-01-01' };
        const window = oracleWindow({ ...query, now, timeZone: ZONE });
        if (window.refused) throw new Error('Oracle: the window is refused');
        const hours = await fleetHours.hours({ accountId: account.id, deviceId: device.id, ...parseWindowQuery(query) });
        expect(hours).toMatchObject(count(window.start, window.end));
        const daily = await fleetHours.daily({ accountId: account.id, deviceId: device.id, ...parseWindowQuery(query) });
        const byDate = new Map(window.dates.map((date) => [date, { engineSeconds: 0, movingSeconds: 0, idleSeconds: 0 }]));
        for (const [second, state] of states) {
          if (second < window.start || second >= Math.min(window.end, now)) continue;
          const day = byDate.get(intlLocalDate(second, ZONE))!;
          day.engineSeconds += 1;
          if (state === 'moving') day.movingSeconds += 1;
          else day.idleSeconds += 1;
        }
        // D59 without a calendar: nothing scheduled, every engine second outside.
        expect(daily?.days).toEqual(
          [...byDate].map(([date, seconds]) =>
            expect.objectContaining({
              ...{ date, ...seconds, scheduledSeconds: 0 },
              ...{ engineInScheduleSeconds: 0, engineOutsideScheduleSeconds: seconds.engineSeconds },
            }),
          ),
        );
        const meter = await fleetHours.meter({ accountId: account.id, deviceId: device.id });
        const first = [...states.keys()].sort((a, b) => a - b)[0];
        expect(meter).toMatchObject({ ...count(-Infinity, Infinity), since: first === undefined ? null : formatInstant(first, ZONE) });
      }),
      { numRuns: 15 },
    );
  });

  it('D20: batches that mix several devices (by id and by IMEI), in any order, resent, give each device the segments of its own points', async () => {
    const store = current();
    const account = await store.createAccount({ name: 'Mixed fleet', plan: 'business', now: BASE });
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.nat(2), pointArbitrary, fc.boolean()), { minLength: 1, maxLength: 60 }),
        fc.uniqueArray(fc.integer({ min: 1, max: 59 }), { maxLength: 6 }),
        fc.array(fc.nat(7), { maxLength: 3 }),
        fc.boolean(),
        async (tagged, cuts, resends, reversed) => {
          const fleet = [
            await newDevice(store, account.id),
            await newDevice(store, account.id, 'Asia/Kathmandu'),
            await newDevice(store, account.id, 'America/New_York'),
          ];
          const placed = tagged.map(([which, point, byImei]) => ({ which, byImei, point }));
          const { batches, sequence } = _deliveryOf(fleet, placed, cuts, reversed);
          for (const resend of resends) sequence.push(resend % batches.length);
          for (const index of sequence) {
            const result = await store.writeTelemetry({ accountId: account.id, points: batches[index]!, now: LATER });
            // Each device's share of the counts adds up to the batch's.
            expect(result.devices.reduce((sum, device) => sum + device.accepted, 0)).toBe(result.accepted);
            expect(result.devices.reduce((sum, device) => sum + device.duplicates, 0)).toBe(result.duplicates);
            expect(result.accepted + result.duplicates).toBe(batches[index]!.length);
          }
          await _expectEachHoldsItsOwn(store, account.id, fleet, placed);
        },
      ),
      { numRuns: 25 },
    );
  });
}

/** About a month, in seconds: points months apart land in different partitions of a store that has them (D42). */
const MONTH = 2_629_800;

/** D20, D42, P57: writes whose devices have points months before and after them, each written at a `now` of its own. */
function _describeMonthsApart(current: () => FleetHoursStore): void {
  it('P57: batches of several devices with points months apart, each written at its own now (just after its points or months later), in any order, give each device the segments of its own points', async () => {
    const store = current();
    const account = await store.createAccount({ name: 'Fleet across months', plan: 'business', now: BASE });
    const monthsApartPoint = fc.record({
      month: fc.constantFrom(-9, -4, -1, 0, 1, 3),
      point: pointArbitrary,
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.nat(2), monthsApartPoint, fc.boolean()), { minLength: 1, maxLength: 50 }),
        fc.uniqueArray(fc.integer({ min: 1, max: 49 }), { maxLength: 6 }),
        fc.array(fc.constantFrom(0, 3_600, 40 * 86_400, 200 * 86_400), { minLength: 7, maxLength: 7 }),
        fc.boolean(),
        async (tagged, cuts, lateBy, reversed) => {
          const fleet = [
            await newDevice(store, account.id),
            await newDevice(store, account.id, 'Asia/Kathmandu'),
            await newDevice(store, account.id),
          ];
          const placed = tagged.map(([which, { month, point }], index) => ({
            which,
            byImei: tagged[index]![2],
            point: { ...point, time: point.time + month * MONTH },
          }));
          const { batches, sequence } = _deliveryOf(fleet, placed, cuts, reversed);
          for (const [turn, index] of sequence.entries()) {
            const batch = batches[index]!;
            // The write's now: just after its newest point, or well after it (D26 refuses points ahead of now).
            const now = Math.max(...batch.map((point) => point.time)) + lateBy[turn % lateBy.length]!;
            const result = await store.writeTelemetry({ accountId: account.id, points: batch, now });
            expect(result.accepted + result.duplicates).toBe(batch.length);
          }
          await _expectEachHoldsItsOwn(store, account.id, fleet, placed);
        },
      ),
      { numRuns: 25 },
    );
  });
}

/** D20–D22, D26: late points, the live tail, counts and the newest point. */
function _describeLateAndLive(current: () => FleetHoursStore): void {
  it('D20: a late point lands where it belongs and changes only the segments around it', async () => {
    const store = current();
    const device = await seed(store);
    const write = (points: TelemetryPoint[]) =>
      store.writeTelemetry({ accountId: device.accountId, points: of(device, points), now: LATER });
    await write([
      { time: BASE, ignition: true, speedKmh: 0 },
      { time: BASE + 600, ignition: true, speedKmh: 0 },
      { time: BASE + 1200, ignition: true, speedKmh: 40 },
    ]);
    // Two idle stretches of 300 s (gaps > 300 s), then the live tail of the moving point.
    expect(await segmentsOf(store, device)).toEqual([
      { startedAt: BASE, endedAt: BASE + 300, state: 'idle' },
      { startedAt: BASE + 600, endedAt: BASE + 900, state: 'idle' },
      { startedAt: BASE + 1200, endedAt: BASE + 1500, state: 'moving' },
    ]);
    await write([{ time: BASE + 300, ignition: true, speedKmh: 0 }]);
    expect(await segmentsOf(store, device)).toEqual([
      { startedAt: BASE, endedAt: BASE + 900, state: 'idle' },
      { startedAt: BASE + 1200, endedAt: BASE + 1500, state: 'moving' },
    ]);
  });

  it('D22: the newest point runs live for 300 s, stored closed; reads stop at now (P1)', async () => {
    const store = current();
    const device = await seed(store);
    await store.writeTelemetry({
      accountId: device.accountId,
      points: of(device, [{ time: BASE, ignition: true, speedKmh: 0 }]),
      now: BASE,
    });
    expect(await segmentsOf(store, device)).toEqual([{ startedAt: BASE, endedAt: BASE + 300, state: 'idle' }]);
    const meterAt = async (now: number) =>
      createFleetHours({ store, now: () => now * 1000 }).meter({ accountId: device.accountId, deviceId: device.id });
    expect(await meterAt(BASE + 100)).toMatchObject({ engineSeconds: 100, idleSeconds: 100 });
    expect(await meterAt(BASE + 1000)).toMatchObject({ engineSeconds: 300, idleSeconds: 300 });
  });

  it('D21: counts new and changed points as accepted, equal ones as duplicates; a resent batch changes nothing', async () => {
    const store = current();
    const device = await seed(store);
    const batch = of(device, [
      { time: BASE, ignition: false, speedKmh: 0 },
      { time: BASE + 10, ignition: true, speedKmh: 10 },
      { time: BASE + 10, ignition: false, speedKmh: 30 },
    ]);
    expect(await store.writeTelemetry({ accountId: device.accountId, points: batch, now: LATER })).toEqual({
      accepted: 3,
      duplicates: 0,
      devices: [{ deviceId: device.id, imei: device.imei, timeZone: ZONE, lastReportedAt: BASE + 10, accepted: 3, duplicates: 0 }],
    });
    expect(await store.listTelemetryPoints({ deviceId: device.id })).toEqual([
      { time: BASE, ignition: false, speedKmh: 0 },
      { time: BASE + 10, ignition: true, speedKmh: 30 },
    ]);
    const before = await segmentsOf(store, device);
    expect(await store.writeTelemetry({ accountId: device.accountId, points: batch, now: LATER })).toEqual({
      accepted: 0,
      duplicates: 3,
      devices: [{ deviceId: device.id, imei: device.imei, timeZone: ZONE, lastReportedAt: BASE + 10, accepted: 0, duplicates: 3 }],
    });
    expect(await segmentsOf(store, device)).toEqual(before);
    const changed = of(device, [{ time: BASE, ignition: true, speedKmh: 0 }]);
    expect(await store.writeTelemetry({ accountId: device.accountId, points: changed, now: LATER })).toMatchObject({
      accepted: 1,
      duplicates: 0,
    });
    expect(await store.listTelemetryPoints({ deviceId: device.id, start: BASE, end: BASE + 1 })).toEqual([
      { time: BASE, ignition: true, speedKmh: 0 },
    ]);
  });

  it('D26: lastReportedAt is the newest stored point: an older batch never lowers it', async () => {
    const store = current();
    const device = await seed(store);
    const write = (time: number) =>
      store.writeTelemetry({ accountId: device.accountId, points: of(device, [{ time, ignition: true, speedKmh: 0 }]), now: LATER });
    expect((await write(BASE + 1000)).devices).toMatchObject([{ deviceId: device.id, lastReportedAt: BASE + 1000 }]);
    expect((await write(BASE)).devices).toMatchObject([{ deviceId: device.id, lastReportedAt: BASE + 1000 }]);
    expect((await store.findDevice({ accountId: device.accountId, deviceId: device.id }))?.lastReportedAt).toBe(BASE + 1000);
  });
}

/** Concurrent writes of one device, and batches of several devices (D25). */
function _describeTurnsAndBatches(current: () => FleetHoursStore): void {
  it('two concurrent writes of one device take turns: its segments are those of all points', async () => {
    const store = current();
    const device = await seed(store);
    const points = Array.from(
      { length: 200 },
      (_, index): TelemetryPoint => ({ time: BASE + index * 37, ignition: index % 7 !== 0, speedKmh: (index * 13) % 20 }),
    );
    const [even, odd] = [points.filter((_, index) => index % 2 === 0), points.filter((_, index) => index % 2 === 1)];
    await Promise.all([
      store.writeTelemetry({ accountId: device.accountId, points: of(device, even), now: LATER }),
      store.writeTelemetry({ accountId: device.accountId, points: of(device, odd), now: LATER }),
    ]);
    expect(await segmentsOf(store, device)).toEqual(telemetryToSegments(points));
    expect(await store.listTelemetryPoints({ deviceId: device.id })).toHaveLength(200);
  });

  it('a batch of several devices is written in one call, each device by id or by IMEI (D25)', async () => {
    const store = current();
    const first = await seed(store);
    const second = await newDevice(store, first.accountId, 'Asia/Kathmandu');
    const result = await store.writeTelemetry({
      accountId: first.accountId,
      points: [
        { imei: second.imei, time: BASE + 5, ignition: true, speedKmh: 0 },
        { deviceId: first.id, time: BASE, ignition: true, speedKmh: 50 },
        { deviceId: second.id, time: BASE + 6, ignition: true, speedKmh: 0 },
        { imei: second.imei, time: BASE + 5, ignition: true, speedKmh: 0 },
      ],
      now: LATER,
    });
    // Each device's share of the counts (the second device's point at BASE + 5 is sent twice in
    // the batch: both copies count as accepted, as duplicates are judged against what was stored).
    expect(result).toEqual({
      accepted: 4,
      duplicates: 0,
      devices: [
        { deviceId: first.id, imei: first.imei, timeZone: ZONE, lastReportedAt: BASE, accepted: 1, duplicates: 0 },
        { deviceId: second.id, imei: second.imei, timeZone: 'Asia/Kathmandu', lastReportedAt: BASE + 6, accepted: 3, duplicates: 0 },
      ],
    });
    const again = await store.writeTelemetry({
      accountId: first.accountId,
      points: [
        { deviceId: second.id, time: BASE + 6, ignition: true, speedKmh: 0 },
        { imei: first.imei, time: BASE + 1, ignition: true, speedKmh: 50 },
      ],
      now: LATER,
    });
    expect(again.devices).toEqual([
      { deviceId: first.id, imei: first.imei, timeZone: ZONE, lastReportedAt: BASE + 1, accepted: 1, duplicates: 0 },
      { deviceId: second.id, imei: second.imei, timeZone: 'Asia/Kathmandu', lastReportedAt: BASE + 6, accepted: 0, duplicates: 1 },
    ]);
    expect(await segmentsOf(store, second)).toEqual([{ startedAt: BASE + 5, endedAt: BASE + 306, state: 'idle' }]);
  });
}

/** A refused batch writes nothing at all. */
function _describeRefusals(current: () => FleetHoursStore): void {
  describe('a refused batch writes nothing at all', () => {
    const valid = (device: Device) =>
      of(
        device,
        Array.from({ length: 50 }, (_, index) => ({ time: BASE + index * 30, ignition: true, speedKmh: index % 3 === 0 ? 20 : 0 })),
      );
    const nothingWritten = async (store: FleetHoursStore, ...devices: Device[]) => {
      for (const device of devices) {
        expect(await store.listTelemetryPoints({ deviceId: device.id })).toEqual([]);
        expect(await store.listSegments({ deviceId: device.id })).toEqual([]);
        expect((await store.findDevice({ accountId: device.accountId, deviceId: device.id }))?.lastReportedAt).toBeNull();
      }
    };

    it('D25: a last point naming no active device of the account refuses the batch, naming the point; missing and foreign devices alike', async () => {
      const store = current();
      const device = await seed(store);
      const foreign = await seed(store);
      const inactive = await newDevice(store, device.accountId);
      await store.updateDevice({ deviceId: inactive.id, changes: { status: 'retired' } });
      const refusals: Error[] = [];
      for (const named of [
        { deviceId: foreign.id },
        { deviceId: 999_999 },
        { deviceId: inactive.id },
        { imei: foreign.imei },
        { imei: 'no-such-imei' },
        { deviceId: 1.5 },
      ]) {
        const points = [...valid(device), { ...named, time: BASE + 3000, ignition: true, speedKmh: 0 } as DeviceTelemetryPoint];
        const error = await refusalOf(store.writeTelemetry({ accountId: device.accountId, points, now: LATER }));
        expect(error).toBeInstanceOf(UnknownDeviceError);
        expect({ code: (error as UnknownDeviceError).code, index: (error as UnknownDeviceError).index }).toEqual({
          code: 'unknown_device',
          index: 50,
        });
        refusals.push(error);
      }
      // The same answer for a missing device and another account's: only the name given differs.
      expect(refusals[0]!.message.replace(String(foreign.id), 'X')).toBe(refusals[1]!.message.replace('999999', 'X'));
      await nothingWritten(store, device, foreign, inactive);
    });

    it('D26: a last point more than 300 s ahead of now refuses the batch, naming the point', async () => {
      const store = current();
      const device = await seed(store);
      const now = BASE + 3000;
      const points = [...valid(device), { deviceId: device.id, time: now + 301, ignition: true, speedKmh: 0 }];
      const error = await refusalOf(store.writeTelemetry({ accountId: device.accountId, points, now }));
      expect(error).toBeInstanceOf(InvalidTelemetryPointError);
      expect({ field: (error as InvalidTelemetryPointError).field, index: (error as InvalidTelemetryPointError).index }).toEqual({
        field: 'time',
        index: 50,
      });
      await nothingWritten(store, device);
      // 300 s ahead is still accepted.
      const atEdge = [...valid(device), { deviceId: device.id, time: now + 300, ignition: true, speedKmh: 0 }];
      expect((await store.writeTelemetry({ accountId: device.accountId, points: atEdge, now })).accepted).toBe(51);
    });

    it('D23: a conflict on the last device of a batch rolls back the devices written before it', async () => {
      const store = current();
      const device = await seed(store);
      const other = await newDevice(store, device.accountId);
      await store.importSegments({ deviceId: other.id, segments: [{ startedAt: BASE, endedAt: BASE + 600, state: 'moving' }] });
      const points = [...valid(device), { deviceId: other.id, time: BASE + 100, ignition: true, speedKmh: 0 }];
      const error = await refusalOf(store.writeTelemetry({ accountId: device.accountId, points, now: LATER }));
      expect(error).toBeInstanceOf(TelemetryOverlapError);
      await nothingWritten(store, device);
      expect(await store.listTelemetryPoints({ deviceId: other.id })).toEqual([]);
    });

    it('refuses instants in milliseconds, naming the point, before anything is written', async () => {
      const store = current();
      const device = await seed(store);
      const points = [...valid(device), { deviceId: device.id, time: BASE * 1000, ignition: true, speedKmh: 0 }];
      const error = await refusalOf(store.writeTelemetry({ accountId: device.accountId, points, now: LATER * 1000 }));
      expect(error).toBeInstanceOf(RangeError);
      expect(error.message).toMatch(/^now must be epoch seconds .* it looks like milliseconds/);
      expect((await refusalOf(store.writeTelemetry({ accountId: device.accountId, points, now: LATER }))).message).toMatch(
        /^points\[50\]\.time must be epoch seconds .* it looks like milliseconds/,
      );
      await nothingWritten(store, device);
    });
  });
}

/** D23: telemetry and imported segments never overlap. */
function _describeSourcesApart(current: () => FleetHoursStore): void {
  describe('D23: telemetry and imported segments never overlap', () => {
    it('telemetry over imported segments is refused, naming the device and the first conflicting instant', async () => {
      const store = current();
      const device = await seed(store);
      await store.importSegments({ deviceId: device.id, segments: [{ startedAt: BASE + 1000, endedAt: BASE + 2000, state: 'moving' }] });
      const write = (points: TelemetryPoint[]) =>
        store.writeTelemetry({ accountId: device.accountId, points: of(device, points), now: LATER });
      // The live tail of a point at 800 would run to 1100, into the import.
      const error = await refusalOf(write([{ time: BASE + 800, ignition: true, speedKmh: 0 }]));
      expect(error).toBeInstanceOf(TelemetryOverlapError);
      expect(error).toMatchObject({ code: 'conflict', deviceId: device.id, instant: BASE + 1000, written: 'telemetry' });
      expect(error.message).toContain(`Device ${device.id}`);
      expect(await store.listTelemetryPoints({ deviceId: device.id })).toEqual([]);
      // Beside it, and with the engine off inside it, telemetry is stored.
      await write([{ time: BASE + 600, ignition: true, speedKmh: 0 }]);
      await write([{ time: BASE + 1500, ignition: false, speedKmh: 0 }]);
      expect(await segmentsOf(store, device)).toEqual([
        { startedAt: BASE + 600, endedAt: BASE + 900, state: 'idle' },
        { startedAt: BASE + 1000, endedAt: BASE + 2000, state: 'moving' },
      ]);
      // Telemetry over an open imported segment is refused from its start on.
      const open = await newDevice(store, device.accountId);
      await store.importSegments({ deviceId: open.id, segments: [{ startedAt: BASE, endedAt: null, state: 'idle' }] });
      const late = await refusalOf(
        store.writeTelemetry({
          accountId: device.accountId,
          points: of(open, [{ time: BASE + 5000, ignition: true, speedKmh: 0 }]),
          now: LATER,
        }),
      );
      expect(late).toMatchObject({ code: 'conflict', deviceId: open.id, instant: BASE + 5000 });
    });

    it('an import over telemetry segments is refused whole, even one identical to a telemetry segment', async () => {
      const store = current();
      const device = await seed(store);
      await store.writeTelemetry({
        accountId: device.accountId,
        points: of(device, [{ time: BASE, ignition: true, speedKmh: 0 }]),
        now: LATER,
      });
      for (const segments of [
        [{ startedAt: BASE + 200, endedAt: BASE + 400, state: 'idle' as SegmentState }],
        [{ startedAt: BASE, endedAt: BASE + 300, state: 'idle' as SegmentState }],
        [
          { startedAt: BASE - 600, endedAt: BASE - 300, state: 'moving' as SegmentState },
          { startedAt: BASE - 100, endedAt: null, state: 'idle' as SegmentState },
        ],
      ]) {
        const error = await refusalOf(store.importSegments({ deviceId: device.id, segments }));
        expect(error).toBeInstanceOf(TelemetryOverlapError);
        expect(error).toMatchObject({
          code: 'conflict',
          deviceId: device.id,
          written: 'import',
          instant: Math.max(BASE, segments.at(-1)!.startedAt),
        });
      }
      expect(await segmentsOf(store, device)).toEqual([{ startedAt: BASE, endedAt: BASE + 300, state: 'idle' }]);
      // Beside it, an import is stored.
      await store.importSegments({ deviceId: device.id, segments: [{ startedAt: BASE + 300, endedAt: BASE + 900, state: 'moving' }] });
      expect(await segmentsOf(store, device)).toHaveLength(2);
    });
  });
}

/** D25: an IMEI names at most one active device of an account. */
function _describeImeis(current: () => FleetHoursStore): void {
  describe('D25: an IMEI names at most one active device of an account', () => {
    it('createDevice() and updateDevice() refuse a second active device with the IMEI; other accounts and inactive devices are free', async () => {
      const store = current();
      const device = await seed(store);
      const same = { accountId: device.accountId, name: 'Twin', imei: device.imei, model: 'm', timeZone: 'UTC' };
      const error = await refusalOf(store.createDevice(same));
      expect(error).toBeInstanceOf(ImeiInUseError);
      expect(isFleetHoursError(error) && error.code).toBe('conflict');
      expect(error.message).toBe(`IMEI "${device.imei}" already names an active device of this account`);
      expect(await store.listDevices({ accountId: device.accountId })).toHaveLength(1);

      const retired = await store.createDevice({ ...same, status: 'retired' });
      expect(retired?.status).toBe('retired');
      const elsewhere = await store.createAccount({ name: 'Other', plan: 'business', now: BASE });
      expect((await store.createDevice({ ...same, accountId: elsewhere.id }))?.imei).toBe(device.imei);

      expect(await refusalOf(store.updateDevice({ deviceId: retired!.id, changes: { status: 'active' } }))).toBeInstanceOf(ImeiInUseError);
      expect((await store.findDevice({ accountId: device.accountId, deviceId: retired!.id }))?.status).toBe('retired');
      // A replaced tracker (D3): the old device retires, the new one takes over the IMEI.
      await store.updateDevice({ deviceId: device.id, changes: { status: 'retired' } });
      expect((await store.updateDevice({ deviceId: retired!.id, changes: { status: 'active' } }))?.status).toBe('active');
    });

    it('findDeviceByImei() finds the active device of the account only', async () => {
      const store = current();
      const device = await seed(store);
      expect(await store.findDeviceByImei({ accountId: device.accountId, imei: device.imei })).toEqual(device);
      const other = await store.createAccount({ name: 'Other', plan: 'business', now: BASE });
      expect(await store.findDeviceByImei({ accountId: other.id, imei: device.imei })).toBeNull();
      expect(await store.findDeviceByImei({ accountId: device.accountId, imei: 'unknown' })).toBeNull();
      await store.updateDevice({ deviceId: device.id, changes: { status: 'retired' } });
      expect(await store.findDeviceByImei({ accountId: device.accountId, imei: device.imei })).toBeNull();
      expect(await store.findDeviceByImei({ accountId: -1, imei: device.imei })).toBeNull();
    });
  });
}

/** D24: ingest tokens. */
function _describeIngestTokens(current: () => FleetHoursStore): void {
  describe('D24: ingest tokens', () => {
    it('are created, listed, found by fingerprint with their account, and revoked (first instant kept)', async () => {
      const store = current();
      const mine = await store.createAccount({ name: 'Mine', plan: 'starter', now: BASE });
      const theirs = await store.createAccount({ name: 'Theirs', plan: 'business', now: BASE });
      const token = await store.createIngestToken({
        accountId: mine.id,
        fingerprint: 'a'.repeat(64),
        label: 'traccar',
        expiresAt: BASE + 3600,
        now: BASE,
      });
      expect(token).toEqual({
        id: token!.id,
        accountId: mine.id,
        fingerprint: 'a'.repeat(64),
        label: 'traccar',
        createdAt: BASE,
        expiresAt: BASE + 3600,
        revokedAt: null,
      });
      await store.createIngestToken({ accountId: theirs.id, fingerprint: 'b'.repeat(64), label: null, expiresAt: null, now: BASE });
      const second = await store.createIngestToken({
        accountId: mine.id,
        fingerprint: 'c'.repeat(64),
        label: null,
        expiresAt: null,
        now: BASE + 1,
      });
      expect((await store.listIngestTokens({ accountId: mine.id })).map((listed) => listed.id)).toEqual([token!.id, second!.id]);
      expect(await store.findIngestToken({ fingerprint: 'a'.repeat(64) })).toEqual({ ingestToken: token, account: mine });
      expect(await store.findIngestToken({ fingerprint: 'd'.repeat(64) })).toBeNull();
      // Tokens and API keys are apart: a token's fingerprint is no API key.
      expect(await store.findApiKey({ fingerprint: 'a'.repeat(64) })).toBeNull();
      expect(
        await store.createIngestToken({ accountId: 999_999, fingerprint: 'e'.repeat(64), label: null, expiresAt: null, now: BASE }),
      ).toBeNull();
      expect((await store.revokeIngestToken({ tokenId: token!.id, now: BASE + 10 }))?.revokedAt).toBe(BASE + 10);
      expect((await store.revokeIngestToken({ tokenId: token!.id, now: BASE + 20 }))?.revokedAt).toBe(BASE + 10);
      expect((await store.findIngestToken({ fingerprint: 'a'.repeat(64) }))?.ingestToken.revokedAt).toBe(BASE + 10);
      expect(await store.revokeIngestToken({ tokenId: 999_999, now: BASE })).toBeNull();
      expect(await store.listIngestTokens({ accountId: -1 })).toEqual([]);
      expect(
        (
          await refusalOf(
            store.createIngestToken({ accountId: mine.id, fingerprint: 'f'.repeat(64), label: null, expiresAt: BASE * 1000, now: BASE }),
          )
        ).message,
      ).toMatch(/^expiresAt must be epoch seconds .* it looks like milliseconds/);
    });

    it('createFleetHours().authenticate() admits an ingest token on any plan, and refuses it once revoked or expired', async () => {
      const store = current();
      const account = await store.createAccount({ name: 'Starter', plan: 'starter', now: BASE });
      const secret = generateIngestToken();
      const token = await store.createIngestToken({
        accountId: account.id,
        fingerprint: await fingerprintApiKey(secret),
        label: null,
        expiresAt: BASE + 100,
        now: BASE,
      });
      const at = (now: number) => createFleetHours({ store, now: () => now * 1000 }).authenticate(`Bearer ${secret}`, 'ingest_token');
      expect(await at(BASE)).toMatchObject({ ok: true, credential: { id: token!.id }, account: { id: account.id } });
      expect(await at(BASE + 100)).toMatchObject({ ok: false, denial: { code: 'expired_ingest_token' } });
      await store.revokeIngestToken({ tokenId: token!.id, now: BASE + 1 });
      expect(await at(BASE + 2)).toMatchObject({ ok: false, denial: { code: 'revoked_ingest_token' } });
      expect(await createFleetHours({ store, now: () => BASE * 1000 }).authenticate('Bearer fhi_unknown', 'ingest_token')).toMatchObject({
        ok: false,
        denial: { code: 'unknown_ingest_token' },
      });
    });
  });
}
