/**
 * D38 and D39 in the storage contract: the hour-meter readings and service schedules a store keeps
 * for an operator (upserts, lists in their order, misses, units, values beyond 32 bits). The hour
 * meter and the service states read from them through `createFleetHours` are the part in
 * `maintenance-reads-contract.ts`.
 */
import { describe, expect, it } from 'vitest';
import { createFleetHours } from '../application/create-fleet-hours.js';
import { MAX_HOUR_METER_SECONDS, MAX_SERVICE_INTERVAL_DAYS, MAX_SERVICE_INTERVAL_SECONDS } from '../maintenance/service-status.js';
import type { FleetHoursStore } from '../store/storage-port.js';
import type { Device, ServiceSchedule } from '../types.js';
import { describeMaintenanceReadsContract, type MaintenanceReadsContext } from './maintenance-reads-contract.js';
import { refusalOf } from './refusal.js';

const HOUR = 3600;
const DAY = 86_400;
const T0 = 1_767_225_600; // 2026-01-01T00:00:00Z
/** T0 in milliseconds: `Date.now()` where seconds belong. */
const T0_MS = T0 * 1000;
/** Ids no store can hold (negative, zero, fractional, beyond 32 bits): a miss, never an error. */
const IMPOSSIBLE_IDS = [-1, 0, 1.5, 2 ** 40, Number.MAX_SAFE_INTEGER];

/** What the D38/D39 block needs from the contract suite around it. */
export type MaintenanceContractContext = MaintenanceReadsContext;

/** An account with `count` devices (one of another account created between each two). */
async function seedDevices(store: FleetHoursStore, count: number): Promise<Device[]> {
  const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
  const other = await store.createAccount({ name: 'Other', plan: 'business', now: T0 });
  const devices: Device[] = [];
  for (let index = 0; index < count; index += 1) {
    devices.push(
      (await store.createDevice({ accountId: account.id, name: `Loader ${index}`, imei: `m${index}`, model: 'm', timeZone: 'UTC' }))!,
    );
    await store.createDevice({ accountId: other.id, name: `Theirs ${index}`, imei: `t${index}`, model: 'm', timeZone: 'UTC' });
  }
  return devices;
}

/** The message of an instant refused as milliseconds (the port's rule, `assertEpochSeconds`), for `field`. */
const looksLikeMs = (field: string) =>
  new RegExp(
    `^${field.replace(/[.[\]]/g, '\\$&')} must be epoch seconds between the years 0001 and 9999, got "\\d+": it looks like milliseconds \\("\\d+" in seconds\\)$`,
  );

/**
 * Registers the D38/D39 tests inside `describeStorageContract`.
 *
 * @param context The store of the running test and the optional capabilities it offers.
 */
export function describeMaintenanceContract(context: MaintenanceContractContext): void {
  describe('hour meter and service schedules (D38, D39)', () => {
    _describeReadings(context.store);
    _describeSchedules(context.store);
    _describeScheduleChanges(context.store);
    _describeUnitsAndRanges(context.store);
    _describeConditionalWrites(context.store);
    _describeUniqueNames(context.store);
    describeMaintenanceReadsContract(context);
  });
}

/** D38: readings, one per device and instant. */
function _describeReadings(store: () => FleetHoursStore): void {
  it('D38: addHourMeterReading() stores a reading recorded at now; for a device that does not exist it is null and writes nothing', async () => {
    const [device] = await seedDevices(store(), 1);
    const reading = await store().addHourMeterReading({ deviceId: device!.id, readAt: T0 - HOUR, readingSeconds: 1200 * HOUR, now: T0 });
    expect(reading).toEqual({ id: reading!.id, deviceId: device!.id, readAt: T0 - HOUR, readingSeconds: 1200 * HOUR, recordedAt: T0 });
    expect(await store().listHourMeterReadings({ deviceIds: [device!.id] })).toEqual([reading]);
    for (const deviceId of [device!.id + 1000, ...IMPOSSIBLE_IDS]) {
      expect(await store().addHourMeterReading({ deviceId, readAt: T0, readingSeconds: 5, now: T0 })).toBeNull();
    }
    expect(await store().listHourMeterReadings({ deviceIds: [device!.id, device!.id + 1000] })).toEqual([reading]);
  });

  it('D38, P43: a reading at the same readAt replaces the value and recordedAt and keeps its id; another instant is another reading', async () => {
    const [device, other] = await seedDevices(store(), 2);
    const first = (await store().addHourMeterReading({ deviceId: device!.id, readAt: T0, readingSeconds: 100 * HOUR, now: T0 }))!;
    const theirs = (await store().addHourMeterReading({ deviceId: other!.id, readAt: T0, readingSeconds: 7 * HOUR, now: T0 }))!;
    expect(theirs.id).not.toBe(first.id);
    const again = await store().addHourMeterReading({ deviceId: device!.id, readAt: T0, readingSeconds: 90 * HOUR, now: T0 + DAY });
    expect(again).toEqual({ ...first, readingSeconds: 90 * HOUR, recordedAt: T0 + DAY });
    const later = (await store().addHourMeterReading({ deviceId: device!.id, readAt: T0 + 1, readingSeconds: 90 * HOUR, now: T0 + DAY }))!;
    expect(new Set([first.id, theirs.id, later.id]).size).toBe(3);
    expect(await store().listHourMeterReadings({ deviceIds: [device!.id, other!.id] })).toEqual([later, again, theirs]);
  });

  it("D65, P128: a reading keeps its source (none for a person's); one at the same readAt takes the new value's source", async () => {
    const [device] = await seedDevices(store(), 1);
    const sourced = (await store().addHourMeterReading({
      deviceId: device!.id,
      readAt: T0,
      readingSeconds: HOUR,
      now: T0,
      source: 'aemp:12',
    }))!;
    expect(sourced).toEqual({ id: sourced.id, deviceId: device!.id, readAt: T0, readingSeconds: HOUR, recordedAt: T0, source: 'aemp:12' });
    const manual = (await store().addHourMeterReading({ deviceId: device!.id, readAt: T0 - DAY, readingSeconds: 0, now: T0 }))!;
    expect(manual).not.toHaveProperty('source');
    expect(await store().listHourMeterReadings({ deviceIds: [device!.id] })).toEqual([sourced, manual]);
    const replaced = await store().addHourMeterReading({
      deviceId: device!.id,
      readAt: T0 - DAY,
      readingSeconds: 5,
      now: T0,
      source: 'aemp:3',
    });
    expect(replaced).toEqual({ ...manual, readingSeconds: 5, source: 'aemp:3' });
    const byPerson = await store().addHourMeterReading({ deviceId: device!.id, readAt: T0, readingSeconds: 2 * HOUR, now: T0 });
    expect(byPerson).toEqual({ id: sourced.id, deviceId: device!.id, readAt: T0, readingSeconds: 2 * HOUR, recordedAt: T0 });
    expect(await store().listHourMeterReadings({ deviceIds: [device!.id] })).toEqual([byPerson, replaced]);
  });

  it("P156: a source's reading keeps the idle seconds it gave (none for a person's); one at the same readAt takes the new value's idle", async () => {
    const [device] = await seedDevices(store(), 1);
    const big = 2 ** 40;
    const add = (readAt: number, readingSeconds: number, more: { readonly source?: string; readonly idleSeconds?: number } = {}) =>
      store().addHourMeterReading({ deviceId: device!.id, readAt, readingSeconds, now: T0, ...more });
    const withIdle = (await add(T0, big + 1, { source: 'aemp:12', idleSeconds: big }))!;
    expect(withIdle).toEqual({
      id: withIdle.id,
      deviceId: device!.id,
      readAt: T0,
      readingSeconds: big + 1,
      recordedAt: T0,
      source: 'aemp:12',
      idleSeconds: big,
    });
    const zero = (await add(T0 - 2 * DAY, 0, { source: 'aemp:12', idleSeconds: 0 }))!;
    expect(zero.idleSeconds).toBe(0);
    const withoutIdle = (await add(T0 - DAY, HOUR, { source: 'aemp:12' }))!;
    expect(withoutIdle).not.toHaveProperty('idleSeconds');
    expect(await store().listHourMeterReadings({ deviceIds: [device!.id] })).toEqual([withIdle, withoutIdle, zero]);
    const byPerson = await add(T0, 2 * HOUR);
    expect(byPerson).toEqual({ id: withIdle.id, deviceId: device!.id, readAt: T0, readingSeconds: 2 * HOUR, recordedAt: T0 });
    const idleAgain = await add(T0 - DAY, 2 * HOUR, { source: 'aemp:12', idleSeconds: 7 });
    expect(idleAgain).toEqual({ ...withoutIdle, readingSeconds: 2 * HOUR, idleSeconds: 7 });
    expect(await store().listHourMeterReadings({ deviceIds: [device!.id] })).toEqual([byPerson, idleAgain, zero]);
  });

  it('D38: listHourMeterReadings() returns the readings of the devices asked only, by device id, then newest readAt first', async () => {
    const [first, second, third] = await seedDevices(store(), 3);
    const add = (device: Device, readAt: number) =>
      store().addHourMeterReading({ deviceId: device.id, readAt, readingSeconds: readAt - T0 + 2 * DAY, now: T0 + 10 * DAY });
    // Added out of order, devices interleaved.
    for (const [device, readAt] of [
      [third, T0 + DAY],
      [first, T0],
      [second, T0 + 5],
      [first, T0 + 2 * DAY],
      [third, T0 - DAY],
      [first, T0 + DAY],
    ] as const)
      await add(device!, readAt);
    const listed = await store().listHourMeterReadings({ deviceIds: [third!.id, first!.id, third!.id, 999_999, -1] });
    expect(listed.map((reading) => [reading.deviceId, reading.readAt])).toEqual([
      [first!.id, T0 + 2 * DAY],
      [first!.id, T0 + DAY],
      [first!.id, T0],
      [third!.id, T0 + DAY],
      [third!.id, T0 - DAY],
    ]);
    expect(await store().listHourMeterReadings({ deviceIds: [] })).toEqual([]);
    expect(await store().listHourMeterReadings({ deviceIds: [999_999, ...IMPOSSIBLE_IDS] })).toEqual([]);
  });

  it("D38: removeHourMeterReading() deletes the device's reading and returns it; another device's id, a second removal or an unknown id is a miss", async () => {
    const [device, other] = await seedDevices(store(), 2);
    const kept = (await store().addHourMeterReading({ deviceId: device!.id, readAt: T0 - DAY, readingSeconds: HOUR, now: T0 }))!;
    const removed = (await store().addHourMeterReading({ deviceId: device!.id, readAt: T0, readingSeconds: 2 * HOUR, now: T0 }))!;
    expect(await store().removeHourMeterReading({ deviceId: other!.id, readingId: removed.id })).toBeNull();
    expect(await store().listHourMeterReadings({ deviceIds: [device!.id] })).toEqual([removed, kept]);
    expect(await store().removeHourMeterReading({ deviceId: device!.id, readingId: removed.id })).toEqual(removed);
    expect(await store().removeHourMeterReading({ deviceId: device!.id, readingId: removed.id })).toBeNull();
    for (const id of IMPOSSIBLE_IDS) {
      expect(await store().removeHourMeterReading({ deviceId: device!.id, readingId: id })).toBeNull();
      expect(await store().removeHourMeterReading({ deviceId: id, readingId: kept.id })).toBeNull();
    }
    expect(await store().listHourMeterReadings({ deviceIds: [device!.id] })).toEqual([kept]);
  });
}

/** D39: schedules as created, found and listed. */
function _describeSchedules(store: () => FleetHoursStore): void {
  it('D39: createServiceSchedule() stores the optional fields left out as null, with a new id, created at now; for a missing device it is null', async () => {
    const [device] = await seedDevices(store(), 1);
    const schedule = await store().createServiceSchedule({
      deviceId: device!.id,
      name: 'Engine oil',
      intervalSeconds: 500 * HOUR,
      lastDoneAt: T0 - DAY,
      now: T0,
    });
    expect(schedule).toEqual({
      id: schedule!.id,
      deviceId: device!.id,
      name: 'Engine oil',
      intervalSeconds: 500 * HOUR,
      intervalDays: null,
      dueSoonSeconds: null,
      dueSoonDays: null,
      lastDoneAt: T0 - DAY,
      lastDoneHourMeterSeconds: null,
      createdAt: T0,
    });
    expect(await store().findServiceSchedule({ scheduleId: schedule!.id })).toEqual(schedule);
    for (const deviceId of [device!.id + 1000, ...IMPOSSIBLE_IDS]) {
      expect(
        await store().createServiceSchedule({ deviceId, name: 'x', intervalSeconds: HOUR, lastDoneAt: T0, now: T0 }),
        String(deviceId),
      ).toBeNull();
    }
    expect(await store().listServiceSchedules({ deviceIds: [device!.id, device!.id + 1000] })).toEqual([schedule]);
  });

  it('D39: createServiceSchedule() keeps every field given, nulls included; findServiceSchedule() of another id is null', async () => {
    const [device] = await seedDevices(store(), 1);
    const given = {
      deviceId: device!.id,
      name: 'Hydraulic filter – 2 000 h',
      intervalSeconds: 2000 * HOUR,
      intervalDays: 365,
      dueSoonSeconds: 100 * HOUR,
      dueSoonDays: 0,
      lastDoneAt: T0 - 30 * DAY,
      lastDoneHourMeterSeconds: 0,
    };
    const schedule = (await store().createServiceSchedule({ ...given, now: T0 }))!;
    expect(schedule).toEqual({ id: schedule.id, ...given, createdAt: T0 });
    const nulls = (await store().createServiceSchedule({
      ...given,
      intervalDays: null,
      dueSoonSeconds: null,
      dueSoonDays: null,
      lastDoneHourMeterSeconds: null,
      now: T0,
    }))!;
    expect(nulls).toMatchObject({ intervalDays: null, dueSoonSeconds: null, dueSoonDays: null, lastDoneHourMeterSeconds: null });
    expect(nulls.id).not.toBe(schedule.id);
    expect(await store().findServiceSchedule({ scheduleId: nulls.id })).toEqual(nulls);
    expect(await store().findServiceSchedule({ scheduleId: nulls.id + 1000 })).toBeNull();
    for (const id of IMPOSSIBLE_IDS) expect(await store().findServiceSchedule({ scheduleId: id })).toBeNull();
  });

  it('D39: listServiceSchedules() returns the schedules of the devices asked only, by device id, then id', async () => {
    const [first, second, third] = await seedDevices(store(), 3);
    const create = (device: Device, name: string) =>
      store().createServiceSchedule({ deviceId: device.id, name, intervalSeconds: HOUR, lastDoneAt: T0, now: T0 });
    const made: ServiceSchedule[] = [];
    for (const [device, name] of [
      [third, 'c1'],
      [first, 'a1'],
      [second, 'b1'],
      [first, 'a2'],
      [third, 'c2'],
    ] as const)
      made.push((await create(device!, name))!);
    const listed = await store().listServiceSchedules({ deviceIds: [third!.id, first!.id, first!.id, 999_999] });
    expect(listed.map((schedule) => schedule.name)).toEqual(['a1', 'a2', 'c1', 'c2']);
    expect(listed).toEqual(['a1', 'a2', 'c1', 'c2'].map((name) => made.find((schedule) => schedule.name === name)));
    expect(await store().listServiceSchedules({ deviceIds: [] })).toEqual([]);
    expect(await store().listServiceSchedules({ deviceIds: IMPOSSIBLE_IDS })).toEqual([]);
  });
}

/** D39: schedules as changed and removed. */
function _describeScheduleChanges(store: () => FleetHoursStore): void {
  const seedSchedule = async () => {
    const [device] = await seedDevices(store(), 1);
    const schedule = (await store().createServiceSchedule({
      deviceId: device!.id,
      name: 'Engine oil',
      intervalSeconds: 500 * HOUR,
      intervalDays: 180,
      dueSoonSeconds: 50 * HOUR,
      dueSoonDays: 14,
      lastDoneAt: T0 - DAY,
      lastDoneHourMeterSeconds: 1000 * HOUR,
      now: T0,
    }))!;
    return { device: device!, schedule };
  };

  it('D39: updateServiceSchedule() applies the changes given and keeps every other field; null clears a field; no change returns the schedule', async () => {
    const { schedule } = await seedSchedule();
    const update = (changes: Parameters<FleetHoursStore['updateServiceSchedule']>[0]['changes']) =>
      store().updateServiceSchedule({ scheduleId: schedule.id, changes });
    expect(await update({})).toEqual(schedule);
    const renamed = { ...schedule, name: 'Engine oil and filter', intervalSeconds: 600 * HOUR };
    expect(await update({ name: renamed.name, intervalSeconds: renamed.intervalSeconds })).toEqual(renamed);
    const cleared = { ...renamed, intervalDays: null, dueSoonDays: null, dueSoonSeconds: null };
    expect(await update({ intervalDays: null, dueSoonDays: null, dueSoonSeconds: null })).toEqual(cleared);
    // Recording a service done at an instant: its hour meter is computed from then on (D39).
    const done = { ...cleared, lastDoneAt: T0 + 2 * DAY, lastDoneHourMeterSeconds: null };
    expect(await update({ lastDoneAt: done.lastDoneAt, lastDoneHourMeterSeconds: null })).toEqual(done);
    const given = { ...done, intervalDays: 90, dueSoonSeconds: 0, lastDoneHourMeterSeconds: 1500 * HOUR };
    expect(await update({ intervalDays: 90, dueSoonSeconds: 0, lastDoneHourMeterSeconds: 1500 * HOUR })).toEqual(given);
    expect(await store().findServiceSchedule({ scheduleId: schedule.id })).toEqual(given);
    expect(await update({ name: undefined, intervalDays: undefined })).toEqual(given);
  });

  it('D39: updateServiceSchedule() of a schedule that does not exist is null', async () => {
    const { schedule } = await seedSchedule();
    for (const scheduleId of [schedule.id + 1000, ...IMPOSSIBLE_IDS]) {
      expect(await store().updateServiceSchedule({ scheduleId, changes: { name: 'x' } })).toBeNull();
      expect(await store().updateServiceSchedule({ scheduleId, changes: {} })).toBeNull();
    }
    expect(await store().findServiceSchedule({ scheduleId: schedule.id })).toEqual(schedule);
  });

  it("D39: removeServiceSchedule() deletes the schedule and returns it; a second removal or an unknown id is a miss; the device's other schedules stay", async () => {
    const { device, schedule } = await seedSchedule();
    const other = (await store().createServiceSchedule({
      deviceId: device.id,
      name: 'Air filter',
      intervalSeconds: HOUR,
      lastDoneAt: T0,
      now: T0,
    }))!;
    expect(await store().removeServiceSchedule({ scheduleId: schedule.id })).toEqual(schedule);
    expect(await store().removeServiceSchedule({ scheduleId: schedule.id })).toBeNull();
    expect(await store().findServiceSchedule({ scheduleId: schedule.id })).toBeNull();
    for (const id of IMPOSSIBLE_IDS) expect(await store().removeServiceSchedule({ scheduleId: id })).toBeNull();
    expect(await store().listServiceSchedules({ deviceIds: [device.id] })).toEqual([other]);
  });
}

/** Instants in seconds only, and hour meters beyond 32 bits. */
function _describeUnitsAndRanges(store: () => FleetHoursStore): void {
  it('D38, D39: an instant in milliseconds is refused with a RangeError naming the argument, and nothing is written', async () => {
    const [device] = await seedDevices(store(), 1);
    const refused = async (call: Promise<unknown>, field: string) => {
      const error = await refusalOf(call);
      expect(error).toBeInstanceOf(RangeError);
      expect(error.message).toMatch(looksLikeMs(field));
    };
    const reading = { deviceId: device!.id, readingSeconds: HOUR };
    await refused(store().addHourMeterReading({ ...reading, readAt: T0_MS, now: T0 }), 'readAt');
    await refused(store().addHourMeterReading({ ...reading, readAt: T0, now: T0_MS }), 'now');
    expect(await store().listHourMeterReadings({ deviceIds: [device!.id] })).toEqual([]);

    const schedule = { deviceId: device!.id, name: 'Engine oil', intervalSeconds: HOUR };
    await refused(store().createServiceSchedule({ ...schedule, lastDoneAt: T0_MS, now: T0 }), 'lastDoneAt');
    await refused(store().createServiceSchedule({ ...schedule, lastDoneAt: T0, now: T0_MS }), 'now');
    expect(await store().listServiceSchedules({ deviceIds: [device!.id] })).toEqual([]);

    const created = (await store().createServiceSchedule({ ...schedule, lastDoneAt: T0, now: T0 }))!;
    await refused(
      store().updateServiceSchedule({ scheduleId: created.id, changes: { name: 'x', lastDoneAt: T0_MS } }),
      'changes.lastDoneAt',
    );
    expect(await store().findServiceSchedule({ scheduleId: created.id })).toEqual(created);
  });

  it('D38, D39: an hour meter of 10,000,000 h (36e9 s, beyond 32 bits) and the longest intervals survive a round trip and a read', async () => {
    const [device] = await seedDevices(store(), 1);
    const reading = (await store().addHourMeterReading({
      deviceId: device!.id,
      readAt: T0 - 2 * HOUR,
      readingSeconds: MAX_HOUR_METER_SECONDS,
      now: T0,
    }))!;
    expect(reading.readingSeconds).toBe(36_000_000_000);
    expect(await store().listHourMeterReadings({ deviceIds: [device!.id] })).toEqual([reading]);
    const longest = {
      deviceId: device!.id,
      name: 'Overhaul',
      intervalSeconds: MAX_SERVICE_INTERVAL_SECONDS,
      intervalDays: MAX_SERVICE_INTERVAL_DAYS,
      dueSoonSeconds: MAX_SERVICE_INTERVAL_SECONDS,
      dueSoonDays: MAX_SERVICE_INTERVAL_DAYS,
      lastDoneAt: T0 - 2 * HOUR,
      lastDoneHourMeterSeconds: MAX_HOUR_METER_SECONDS,
    };
    const schedule = (await store().createServiceSchedule({ ...longest, now: T0 }))!;
    expect(schedule).toEqual({ id: schedule.id, ...longest, createdAt: T0 });
    const changed = await store().updateServiceSchedule({
      scheduleId: schedule.id,
      changes: { lastDoneHourMeterSeconds: MAX_HOUR_METER_SECONDS - 1 },
    });
    expect(changed?.lastDoneHourMeterSeconds).toBe(MAX_HOUR_METER_SECONDS - 1);
    expect(await store().listServiceSchedules({ deviceIds: [device!.id] })).toEqual([changed]);

    // Read back through the service: the reading plus the hour run since it.
    await store().importSegments({ deviceId: device!.id, segments: [{ startedAt: T0 - HOUR, endedAt: T0, state: 'moving' }] });
    const fleetHours = createFleetHours({ store: store(), now: () => T0 * 1000 });
    const meter = await fleetHours.meter({ accountId: device!.accountId, deviceId: device!.id });
    expect(meter).toMatchObject({
      engineSeconds: HOUR,
      hourMeterSeconds: MAX_HOUR_METER_SECONDS + HOUR,
      hourMeterReadAt: '2025-12-31T22:00:00+00:00',
    });
    const service = await fleetHours.service({ accountId: device!.accountId, deviceId: device!.id });
    expect(service?.schedules[0]).toMatchObject({
      lastDoneHourMeterSeconds: MAX_HOUR_METER_SECONDS - 1,
      remainingSeconds: MAX_SERVICE_INTERVAL_SECONDS - HOUR - 1,
    });
  });
}

/**
 * D54, P77: with `expected`, a change or removal of a schedule or a reading applies only while the
 * row is as read, checked in the store's own statement: of several sent at once from one read, one
 * applies (as run one after another: the first applies, the others find the row changed).
 */
function _describeConditionalWrites(store: () => FleetHoursStore): void {
  const seed = async () => {
    const [device] = await seedDevices(store(), 1);
    const schedule = (await store().createServiceSchedule({
      deviceId: device!.id,
      name: 'Engine oil',
      intervalSeconds: 500 * HOUR,
      intervalDays: null,
      lastDoneAt: T0 - DAY,
      now: T0,
    }))!;
    const reading = (await store().addHourMeterReading({ deviceId: device!.id, readAt: T0 - DAY, readingSeconds: 10 * HOUR, now: T0 }))!;
    return { device: device!, schedule, reading };
  };

  it('D54, P77: updateServiceSchedule() and removeServiceSchedule() with expected apply only to the schedule as read', async () => {
    const { schedule } = await seed();
    const changed = await store().updateServiceSchedule({ scheduleId: schedule.id, changes: { name: 'Oil' }, expected: schedule });
    expect(changed).toEqual({ ...schedule, name: 'Oil' });
    // The schedule read before that change is stale now: nothing applies, nothing is removed.
    expect(await store().updateServiceSchedule({ scheduleId: schedule.id, changes: { name: 'Late' }, expected: schedule })).toBeNull();
    expect(await store().updateServiceSchedule({ scheduleId: schedule.id, changes: {}, expected: schedule })).toBeNull();
    expect(await store().removeServiceSchedule({ scheduleId: schedule.id, expected: schedule })).toBeNull();
    expect(await store().findServiceSchedule({ scheduleId: schedule.id })).toEqual(changed);
    // Every field a write can change is compared, nulls included.
    const stale = { ...changed!, intervalDays: 30 };
    expect(await store().updateServiceSchedule({ scheduleId: schedule.id, changes: { name: 'X' }, expected: stale })).toBeNull();
    expect(await store().removeServiceSchedule({ scheduleId: schedule.id, expected: changed! })).toEqual(changed);
    expect(await store().findServiceSchedule({ scheduleId: schedule.id })).toBeNull();
  });

  it('D54, P77: removeHourMeterReading() with expected removes the reading only as read (a value replaced meanwhile stays)', async () => {
    const { device, reading } = await seed();
    const replaced = (await store().addHourMeterReading({
      deviceId: device.id,
      readAt: reading.readAt,
      readingSeconds: 11 * HOUR,
      now: T0 + 1,
    }))!;
    expect(replaced.id).toBe(reading.id);
    expect(await store().removeHourMeterReading({ deviceId: device.id, readingId: reading.id, expected: reading })).toBeNull();
    expect(await store().listHourMeterReadings({ deviceIds: [device.id] })).toEqual([replaced]);
    expect(await store().removeHourMeterReading({ deviceId: device.id, readingId: reading.id, expected: replaced })).toEqual(replaced);
    expect(await store().listHourMeterReadings({ deviceIds: [device.id] })).toEqual([]);
  });

  it('D54, P77: five changes sent at once from one read: exactly one applies, as one after another would (serial oracle)', async () => {
    const { schedule } = await seed();
    const names = ['A', 'B', 'C', 'D', 'E'];
    const results = await Promise.all(
      names.map((name) => store().updateServiceSchedule({ scheduleId: schedule.id, changes: { name }, expected: schedule })),
    );
    const applied = results.filter((result) => result !== null);
    // One after another, from the same read, the first applies and every later one finds the schedule changed.
    expect(applied).toHaveLength(1);
    expect(await store().findServiceSchedule({ scheduleId: schedule.id })).toEqual(applied[0]);
    const removals = await Promise.all(names.map(() => store().removeServiceSchedule({ scheduleId: schedule.id, expected: applied[0]! })));
    expect(removals.filter((result) => result !== null)).toEqual([applied[0]]);
  });
}

/**
 * P78: with `uniqueName`, a create or rename to a name another schedule of the device has (trimmed,
 * in lower case) is refused with 409 `conflict`, atomically with the write: of several creates with
 * one name sent at once, one is stored, as one after another would.
 */
function _describeUniqueNames(store: () => FleetHoursStore): void {
  const conflictOf = (write: Promise<unknown>) =>
    write.then(
      () => 'stored',
      (error: unknown) => (error as { code?: string }).code ?? String(error),
    );

  it('P78: createServiceSchedule() and updateServiceSchedule() with uniqueName refuse a name the device has; another device may have it', async () => {
    const [device, other] = await seedDevices(store(), 2);
    const create = (deviceId: number, name: string, uniqueName = true) =>
      store().createServiceSchedule({ deviceId, name, intervalSeconds: HOUR, lastDoneAt: T0, now: T0, uniqueName });
    const oil = (await create(device!.id, 'Engine oil'))!;
    expect(await conflictOf(create(device!.id, ' ENGINE OIL'))).toBe('conflict');
    expect(await conflictOf(create(other!.id, 'Engine oil'))).toBe('stored');
    // Without uniqueName the store keeps what it is given (the rule is the caller's to ask for).
    expect(await conflictOf(create(device!.id, 'engine oil', false))).toBe('stored');
    const tyres = (await create(device!.id, 'Tyres'))!;
    const rename = (name: string) => store().updateServiceSchedule({ scheduleId: tyres.id, changes: { name }, uniqueName: true });
    expect(await conflictOf(rename('Engine Oil'))).toBe('conflict');
    expect((await rename('TYRES'))?.name).toBe('TYRES');
    expect(await store().updateServiceSchedule({ scheduleId: tyres.id + 1000, changes: { name: 'X' }, uniqueName: true })).toBeNull();
    expect((await store().findServiceSchedule({ scheduleId: oil.id }))?.name).toBe('Engine oil');
  });

  it('P78: five creates with one name sent at once, twenty times: each time exactly one is stored, the others are conflicts (serial oracle)', async () => {
    const [device] = await seedDevices(store(), 1);
    for (let round = 0; round < 20; round += 1) {
      const names = [`Oil ${round}`, `oil ${round}`, ` OIL ${round}`, `Oil ${round} `, `oIl ${round}`];
      const outcomes = await Promise.all(
        names.map((name) =>
          conflictOf(
            store().createServiceSchedule({ deviceId: device!.id, name, intervalSeconds: HOUR, lastDoneAt: T0, now: T0, uniqueName: true }),
          ),
        ),
      );
      // One after another: the first is stored, every later one finds the name taken.
      expect([...outcomes].sort(), `round ${round}`).toEqual(['conflict', 'conflict', 'conflict', 'conflict', 'stored']);
    }
    expect(await store().listServiceSchedules({ deviceIds: [device!.id] })).toHaveLength(20);
  });
}
