/**
 * D38 and D39 read through `createFleetHours` over a store: the hour meter of `meter()`,
 * `service()`, `fleet.meter()` and `fleet.service()` is the latest reading plus the engine seconds
 * since it (imported segments and telemetry, D22's live tail included), whatever path the store
 * offers (its batch sums, `sumSegmentSecondsMany` / `summarizeDeviceSegmentsMany`, or the core's
 * fallback); a page costs the same store calls whatever its size (D32); and readings and schedules
 * change no device record, even while telemetry of the device is written (D35).
 *
 * The expected hour meters come from an oracle that shares no code with the core: the readings kept
 * by hand and the engine seconds counted one telemetry second at a time (`oracleSecondStates`).
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { createFleetHours } from '../application/create-fleet-hours.js';
import type { FleetHoursStore } from '../store/storage-port.js';
import { telemetryToSegments } from '../telemetry/telemetry-to-segments.js';
import type { Device, DeviceTelemetryPoint, SegmentInput } from '../types.js';
import { intlFormatInstant } from './oracle.js';
import { oracleSecondStates } from './telemetry-oracle.js';
import { countedStore } from './counted-store.js';
import { STORAGE_CAPABILITIES } from './storage-capabilities.js';

const HOUR = 3600;
const DAY = 86_400;
/** 2026-01-01T05:00:00Z: telemetry from here; imported segments in the three days before. */
const BASE = 1_767_243_600;
/** After every point and write (D26). */
const LATER = BASE + 10 * DAY;
const RULES = { movingSpeedKmh: 5, maxGapSeconds: 300, tail: 'live' as const };
const ZONES = ['UTC', 'America/New_York', 'Asia/Kathmandu'] as const;

/** The optional capabilities this block depends on. */
type BatchCapability = 'sumSegmentSecondsMany' | 'summarizeDeviceSegmentsMany' | 'engineSecondsBeforeMany' | 'listServicePage';
const BATCH_CAPABILITIES: readonly BatchCapability[] = ['sumSegmentSecondsMany', 'summarizeDeviceSegmentsMany'];
/** Every optional capability of the port: hidden from the core to read the raw path. */
const OPTIONAL_METHODS = new Set<string>(STORAGE_CAPABILITIES);

/** What the reads of readings and schedules need from the contract suite around it. */
export interface MaintenanceReadsContext {
  /** The store of the running test (made fresh before each). */
  readonly store: () => FleetHoursStore;
  /** Whether the store offers a batch capability of the fleet pages (D32). */
  readonly offers: (capability: BatchCapability) => boolean;
}

/** One device of a scenario: zone, imported segments, telemetry, readings and schedules. */
const deviceArbitrary = (instant: fc.Arbitrary<number>, past: fc.Arbitrary<number>) =>
  fc.record({
    timeZone: fc.constantFrom(...ZONES),
    imported: fc.array(
      fc.record({ gap: fc.integer({ min: 0, max: 6 * HOUR }), length: fc.integer({ min: 1, max: 10 * HOUR }), moving: fc.boolean() }),
      { maxLength: 4 },
    ),
    points: fc.array(
      fc.record({
        time: fc.integer({ min: 0, max: 4 * HOUR }).map((offset) => BASE + offset),
        ignition: fc.boolean(),
        speedKmh: fc.constantFrom(0, 4.99, 5, 40),
      }),
      { maxLength: 30 },
    ),
    readings: fc.array(
      fc.record({ readAt: instant, readingSeconds: fc.oneof(fc.integer({ min: 0, max: 200_000 * HOUR }), fc.constant(36_000_000_000)) }),
      { maxLength: 4 },
    ),
    schedules: fc.array(
      fc.record({
        lastDoneAt: past,
        given: fc.option(fc.integer({ min: 0, max: 200_000 * HOUR }), { nil: null }),
        intervalSeconds: fc.integer({ min: 1, max: 2000 * HOUR }),
      }),
      { maxLength: 3 },
    ),
  });

/** A fleet and the instant it is read at: instants of readings around it (at it, just before, after), last services before it. */
const scenarioArbitrary = fc
  .oneof(fc.integer({ min: -DAY, max: 5 * HOUR }), fc.integer({ min: 4 * HOUR - 600, max: 4 * HOUR + 600 }))
  .chain((nowOffset) => {
    const now = BASE + nowOffset;
    const instant = fc.oneof(
      fc.integer({ min: BASE - 4 * DAY, max: BASE + 5 * HOUR }),
      fc.integer({ min: now - 900, max: now }),
      fc.constantFrom(now, BASE, BASE - 3 * DAY),
    );
    const past = fc.oneof(fc.integer({ min: BASE - 4 * DAY, max: now }), fc.constant(now));
    return fc.record({ now: fc.constant(now), devices: fc.array(deviceArbitrary(instant, past), { minLength: 1, maxLength: 3 }) });
  });

type DeviceScenario = ReturnType<typeof deviceArbitrary> extends fc.Arbitrary<infer Scenario> ? Scenario : never;

/** The imported segments of a device: closed, from three days before BASE, ending before it. */
function importedSegments(device: DeviceScenario): SegmentInput[] {
  let cursor = BASE - 3 * DAY;
  return device.imported.map(({ gap, length, moving }) => {
    const startedAt = cursor + gap;
    cursor = startedAt + length;
    return { startedAt, endedAt: cursor, state: moving ? 'moving' : 'idle' };
  });
}

/**
 * The oracle's hour meter of a device at `instant` ≤ now (D38): the latest reading at or before it
 * (the last value written at its `readAt`) plus the engine seconds from it to the instant; without
 * one, the engine seconds before the instant.
 */
function oracleHourMeter(device: DeviceScenario): (instant: number) => { seconds: number; readAt: number | null } {
  const segments = importedSegments(device);
  const states = oracleSecondStates(device.points, RULES);
  const engine = (start: number, end: number) => {
    let seconds = 0;
    for (const segment of segments) seconds += Math.max(0, Math.min(end, segment.endedAt!) - Math.max(start, segment.startedAt));
    for (const second of states.keys()) if (second >= start && second < end) seconds += 1;
    return seconds;
  };
  const readings = new Map<number, number>();
  for (const { readAt, readingSeconds } of device.readings) readings.set(readAt, readingSeconds);
  return (instant) => {
    const latest = Math.max(...[...readings.keys()].filter((readAt) => readAt <= instant));
    if (!Number.isFinite(latest)) return { seconds: engine(-Infinity, instant), readAt: null };
    return { seconds: readings.get(latest)! + engine(latest, instant), readAt: latest };
  };
}

/** The store with none of its optional capabilities: the core's fallback over `listSegments`. */
function rawPath(store: FleetHoursStore): FleetHoursStore {
  return new Proxy(store, {
    get: (target, property, receiver) => (OPTIONAL_METHODS.has(String(property)) ? undefined : Reflect.get(target, property, receiver)),
  });
}

/** Writes one scenario's devices into a new account; returns the account id and the devices with their scenarios. */
async function seedScenario(store: FleetHoursStore, devices: readonly DeviceScenario[], round: number) {
  const account = await store.createAccount({ name: `D38 ${round}`, plan: 'business', now: BASE });
  const seeded: { device: Device; scenario: DeviceScenario }[] = [];
  for (const [index, scenario] of devices.entries()) {
    const device = (await store.createDevice({
      accountId: account.id,
      name: `Loader ${index}`,
      imei: `d38-${round}-${index}`,
      model: 'm',
      timeZone: scenario.timeZone,
    }))!;
    await store.importSegments({ deviceId: device.id, segments: importedSegments(scenario) });
    const points: DeviceTelemetryPoint[] = scenario.points.map((point) => ({ deviceId: device.id, ...point }));
    if (points.length > 0) await store.writeTelemetry({ accountId: account.id, points, now: LATER });
    for (const { readAt, readingSeconds } of scenario.readings)
      await store.addHourMeterReading({ deviceId: device.id, readAt, readingSeconds, now: LATER });
    for (const [number, { lastDoneAt, given, intervalSeconds }] of scenario.schedules.entries()) {
      await store.createServiceSchedule({
        deviceId: device.id,
        name: `Service ${number}`,
        intervalSeconds,
        lastDoneAt,
        lastDoneHourMeterSeconds: given,
        now: LATER,
      });
    }
    seeded.push({ device: (await store.findDevice({ accountId: account.id, deviceId: device.id }))!, scenario });
  }
  return { accountId: account.id, seeded };
}

/**
 * Registers the tests of the reads of readings and schedules (inside `describeMaintenanceContract`).
 *
 * @param context The store of the running test and the batch capabilities it offers.
 */
export function describeMaintenanceReadsContract(context: MaintenanceReadsContext): void {
  _describeHourMeterReads(context);
  _describeBoundedCalls(context);
  _describeBoundedFilteredCalls(context);
  _describeNoDeviceChange(context);
}

/** D38, D39, D22: every read of the hour meter equals the oracle, on the store's path and on the raw path. */
function _describeHourMeterReads({ store }: MaintenanceReadsContext): void {
  it('D38, D39, D22: meter(), service(), fleet.meter() and fleet.service() give the hour meter of the oracle, live tail included, on the store and on the raw path', async () => {
    let round = 0;
    await fc.assert(
      fc.asyncProperty(scenarioArbitrary, async ({ now, devices }) => {
        const { accountId, seeded } = await seedScenario(store(), devices, (round += 1));
        for (const path of [store(), rawPath(store())]) {
          const fleetHours = createFleetHours({ store: path, now: () => now * 1000 + 999 });
          const meters = [];
          const services = [];
          for (const { device, scenario } of seeded) {
            const hourMeterAt = oracleHourMeter(scenario);
            const atNow = hourMeterAt(now);
            const meter = (await fleetHours.meter({ accountId, deviceId: device.id }))!;
            expect({ deviceId: device.id, hourMeterSeconds: meter.hourMeterSeconds, hourMeterReadAt: meter.hourMeterReadAt }).toEqual({
              deviceId: device.id,
              hourMeterSeconds: atNow.seconds,
              hourMeterReadAt: atNow.readAt === null ? null : intlFormatInstant(atNow.readAt, device.timeZone),
            });
            const service = (await fleetHours.service({ accountId, deviceId: device.id }))!;
            const expected = scenario.schedules.map(({ lastDoneAt, given, intervalSeconds }) => {
              const lastDone = given ?? hourMeterAt(lastDoneAt).seconds;
              return {
                lastDoneHourMeterSeconds: lastDone,
                dueHourMeterSeconds: lastDone + intervalSeconds,
                remainingSeconds: lastDone + intervalSeconds - atNow.seconds,
              };
            });
            expect({
              hourMeterSeconds: service.hourMeterSeconds,
              schedules: service.schedules.map(({ lastDoneHourMeterSeconds, dueHourMeterSeconds, remainingSeconds }) => ({
                lastDoneHourMeterSeconds,
                dueHourMeterSeconds,
                remainingSeconds,
              })),
            }).toEqual({ hourMeterSeconds: atNow.seconds, schedules: expected });
            meters.push(meter);
            services.push(service);
          }
          // A page of the fleet: each item exactly the single-device read (D32).
          expect((await fleetHours.fleet.meter({ accountId })).items).toEqual(meters);
          expect((await fleetHours.fleet.service({ accountId })).items).toEqual(services);
        }
      }),
      { numRuns: 20 },
    );
  });
}

/** D32: the store calls of a page do not grow with its devices, their readings or their schedules. */
function _describeBoundedCalls({ store, offers }: MaintenanceReadsContext): void {
  const offered = BATCH_CAPABILITIES.every(offers);
  const title =
    'D32, D38, D39: a page of fleet.meter() or fleet.service() makes the same store calls for 1 device as for 12: readings, schedules and the sums since the readings asked once';
  it.skipIf(!offered)(offered ? title : `${title} (skipped: the store does not offer ${BATCH_CAPABILITIES.join(' and ')})`, async () => {
    const { store: counting, calls } = countedStore(store());
    const devices = Array.from(
      { length: 12 },
      (_, index): DeviceScenario => ({
        timeZone: ZONES[index % ZONES.length]!,
        imported: [{ gap: index * 60, length: 5 * HOUR, moving: index % 2 === 0 }],
        // A report after the last services: their engine time is settled (P58), so it is remembered.
        points: [{ time: BASE - 60, ignition: false, speedKmh: 0 }],
        readings: [{ readAt: BASE - 3 * DAY, readingSeconds: 1000 * HOUR + index }],
        schedules: [
          { lastDoneAt: BASE - DAY, given: null, intervalSeconds: 250 * HOUR },
          { lastDoneAt: BASE - DAY, given: 900 * HOUR, intervalSeconds: 500 * HOUR },
        ],
      }),
    );
    const { accountId } = await seedScenario(store(), devices, 0);
    const fleetHours = createFleetHours({ store: counting, now: () => BASE * 1000 });
    // The engine time since the readings: from the engine time before each instant when the store offers it (P56), else bucket sums.
    const sums = offers('engineSecondsBeforeMany') ? 'engineSecondsBeforeMany' : 'sumSegmentSecondsMany';
    const page = { listDevices: 1, summarizeDeviceSegmentsMany: 1, listHourMeterReadings: 1, [sums]: 1 };
    // P58: a store that remembers reads a service page in one call, asks the sums the first time
    // and remembers them, and the next time asks nothing more.
    const remembers = offers('listServicePage');
    const servicePage = remembers ? { listServicePage: 1, [sums]: 1, rememberServiceMemos: 1 } : { ...page, listServiceSchedules: 1 };
    for (const limit of [1, 12]) {
      calls.clear();
      expect((await fleetHours.fleet.meter({ accountId, limit })).items).toHaveLength(limit);
      expect({ limit, calls: Object.fromEntries(calls) }).toEqual({ limit, calls: page });
      for (const read of remembers ? [servicePage, { listServicePage: 1 }] : [servicePage]) {
        calls.clear();
        expect((await fleetHours.fleet.service({ accountId, limit })).items).toHaveLength(limit);
        expect({ limit, calls: Object.fromEntries(calls) }).toEqual({ limit, calls: read });
      }
    }
    // One device: each method at most once, its readings (and schedules) in one call.
    const [deviceId] = (await store().listDevices({ accountId, limit: 1 })).map((device) => device.id);
    for (const [read, lists] of [
      [() => fleetHours.meter({ accountId, deviceId: deviceId! }), ['listHourMeterReadings']],
      [() => fleetHours.service({ accountId, deviceId: deviceId! }), ['listHourMeterReadings', 'listServiceSchedules']],
    ] as const) {
      calls.clear();
      expect(await read()).not.toBeNull();
      for (const name of lists) expect(calls.get(name)).toBe(1);
      expect(Math.max(...calls.values())).toBe(1);
    }
  });
}

/** A device of {@link _describeBoundedFilteredCalls}: 5 engine hours, imported, then a report; one schedule in `status` from a last service at hour meter 0. */
function _deviceIn(status: 'ok' | 'due_soon' | 'overdue'): DeviceScenario {
  // Due at 2000 h, 5.5 h (within the default margin of 0.55 h: 0.5 h left) or 1 h.
  const intervalSeconds = { ok: 2000 * HOUR, due_soon: 5.5 * HOUR, overdue: HOUR }[status];
  return {
    timeZone: 'UTC',
    imported: [{ gap: 0, length: 5 * HOUR, moving: true }],
    points: [{ time: BASE - 60, ignition: false, speedKmh: 0 }],
    readings: [],
    schedules: [{ lastDoneAt: BASE - 4 * DAY, given: 0, intervalSeconds }],
  };
}

/** D49: the store calls of a filtered page do not grow with the devices it skips. */
function _describeBoundedFilteredCalls({ store }: MaintenanceReadsContext): void {
  it('D49, P65: a page of fleet.service() filtered by status makes the same store calls whether it skips 2 devices or 24, read for the first time or again', async () => {
    const { store: counting, calls } = countedStore(store());
    const fleetHours = createFleetHours({ store: counting, now: () => LATER * 1000 });
    const callsOf = async (skipped: number) => {
      // The skipped devices ok and due soon in turn (a due-soon device is no match of `overdue`, yet not remembered ok: P58), the last one overdue.
      const devices = [
        ...Array.from({ length: skipped }, (_, index) => _deviceIn(index % 2 === 0 ? 'ok' : 'due_soon')),
        _deviceIn('overdue'),
      ];
      const { accountId, seeded } = await seedScenario(store(), devices, skipped);
      const overdue = seeded[seeded.length - 1]!.device.id;
      const reads: Record<string, number>[] = [];
      // The first page reads everything anew (and remembers it, P58); the second finds what was remembered.
      for (const statuses of [['overdue'], ['overdue'], ['due_soon', 'overdue'], ['ok', 'overdue']] as const) {
        calls.clear();
        const page = await fleetHours.fleet.service({ accountId, limit: 1, statuses });
        if (statuses.length === 1) expect(page).toEqual({ items: [expect.objectContaining({ deviceId: overdue })], nextCursor: null });
        reads.push(Object.fromEntries(calls));
      }
      return reads;
    };
    expect(await callsOf(24)).toEqual(await callsOf(2));
  });
}

/** D35: readings and schedules are operator data no telemetry write reads: they change no device record. */
function _describeNoDeviceChange({ store }: MaintenanceReadsContext): void {
  it('D35, D38, D39: readings and schedules change no device record, and telemetry written at the same time is what a serial delivery gives', async () => {
    const account = await store().createAccount({ name: 'Acme', plan: 'business', now: BASE });
    const created = (await store().createDevice({
      accountId: account.id,
      name: 'Loader',
      imei: 'd35-maintenance',
      model: 'm',
      timeZone: 'UTC',
    }))!;
    const points = (start: number): DeviceTelemetryPoint[] =>
      Array.from({ length: 20 }, (_, index) => ({
        deviceId: created.id,
        time: start + index * 30,
        ignition: index % 7 !== 0,
        speedKmh: (index * 9) % 20,
      }));
    await store().writeTelemetry({ accountId: account.id, points: points(BASE), now: LATER });
    const device = await store().findDevice({ accountId: account.id, deviceId: created.id });
    const schedule = (await store().createServiceSchedule({
      deviceId: created.id,
      name: 'Oil',
      intervalSeconds: HOUR,
      lastDoneAt: BASE,
      now: LATER,
    }))!;
    const reading = (await store().addHourMeterReading({ deviceId: created.id, readAt: BASE, readingSeconds: HOUR, now: LATER }))!;
    await store().updateServiceSchedule({ scheduleId: schedule.id, changes: { lastDoneAt: BASE + 60, lastDoneHourMeterSeconds: null } });
    await store().removeHourMeterReading({ deviceId: created.id, readingId: reading.id });
    expect(await store().findDevice({ accountId: account.id, deviceId: created.id })).toEqual(device);

    // Telemetry batches of the device and operator writes of it, all at once.
    const batches = [points(BASE + HOUR), points(BASE + 2 * HOUR), points(BASE + 30)];
    await Promise.all([
      ...batches.map((batch) => store().writeTelemetry({ accountId: account.id, points: batch, now: LATER })),
      ...[1, 2, 3].map((hours) =>
        store().addHourMeterReading({ deviceId: created.id, readAt: BASE + hours * HOUR, readingSeconds: hours * HOUR, now: LATER }),
      ),
      store().createServiceSchedule({ deviceId: created.id, name: 'Filter', intervalSeconds: HOUR, lastDoneAt: BASE, now: LATER }),
      store().updateServiceSchedule({ scheduleId: schedule.id, changes: { name: 'Engine oil' } }),
    ]);
    const all = [points(BASE), ...batches].flat();
    expect(
      (await store().listSegments({ deviceId: created.id })).map(({ startedAt, endedAt, state }) => ({ startedAt, endedAt, state })),
    ).toEqual(telemetryToSegments(all));
    expect(await store().findDevice({ accountId: account.id, deviceId: created.id })).toEqual({
      ...device,
      lastReportedAt: Math.max(...all.map((point) => point.time)),
    });
    expect((await store().listHourMeterReadings({ deviceIds: [created.id] })).map((each) => each.readAt)).toEqual(
      [3, 2, 1].map((hours) => BASE + hours * HOUR),
    );
    expect((await store().listServiceSchedules({ deviceIds: [created.id] })).map((each) => each.name)).toEqual(['Engine oil', 'Filter']);
  });
}
