/**
 * The service reads of createFleetHours() (D38, D39, D32): `service()` for one device and
 * `fleet.service()` a page at a time, over the memory store.
 */
import { describe, expect, it } from 'vitest';
import { createFleetHours } from './create-fleet-hours.js';
import type { FleetPage } from './read-queries.js';
import { InvalidParameterError } from '../errors/errors.js';
import { createMemoryStore } from '../store/memory-store.js';
import type { FleetHoursStore } from '../store/storage-port.js';
import { scheduleVersion } from '../maintenance/service-status.js';
import { rejectionBy } from '../testing/refusal.js';
import type { DeviceService, NewServiceSchedule } from '../types.js';
import { walkFleetPages } from '../testing/walk-fleet-pages.js';

const HOUR = 3600;
const DAY = 86_400;
/** 2026-11-25T15:00:00Z: 10:00 in New York. */
const NOW = Date.UTC(2026, 10, 25, 15) / 1000;

const refusal = (promise: Promise<unknown>): Promise<InvalidParameterError> => rejectionBy(InvalidParameterError, promise);

async function setup(zones: readonly string[] = ['America/New_York']) {
  const store = createMemoryStore();
  const account = await store.createAccount({ name: 'Acme', plan: 'business', now: 0 });
  const other = await store.createAccount({ name: 'Other', plan: 'business', now: 0 });
  const devices = [];
  for (const [index, timeZone] of zones.entries()) {
    // A device of another account before each: ids of one account are not consecutive.
    await store.createDevice({ accountId: other.id, name: `Theirs ${index}`, imei: `theirs-${index}`, model: 'm', timeZone: 'UTC' });
    devices.push(
      (await store.createDevice({ accountId: account.id, name: `Loader ${index}`, imei: `ours-${index}`, model: 'm', timeZone }))!,
    );
  }
  const foreign = (await store.createDevice({ accountId: other.id, name: 'Theirs', imei: 'theirs', model: 'm', timeZone: 'UTC' }))!;
  const clock = { now: NOW * 1000 };
  const fleetHours = createFleetHours({ store, now: () => clock.now });
  return { store, account, other, devices, foreign, clock, fleetHours };
}

const oil = (deviceId: number, fields: Partial<NewServiceSchedule> = {}) => ({
  deviceId,
  name: 'Engine oil',
  intervalSeconds: 250 * HOUR,
  lastDoneAt: NOW - 30 * DAY,
  now: NOW,
  ...fields,
});

/** Every page of a fleet read, following next_cursor. */
const walk = <Item>(read: (cursor: string | undefined) => Promise<FleetPage<Item>>) => walkFleetPages(read, 100);

/** Counts listDevices() calls. */
function countingDevices(store: FleetHoursStore): { store: FleetHoursStore; pages: () => number } {
  let pages = 0;
  return {
    store: {
      ...store,
      listDevices: (input) => {
        pages += 1;
        return store.listDevices(input);
      },
    },
    pages: () => pages,
  };
}

describe('createFleetHours().service() (D39)', () => {
  it('D39, D11: an unknown device and a device of another account are null, like a missing one', async () => {
    const { account, other, devices, foreign, store, fleetHours } = await setup();
    await store.createServiceSchedule(oil(foreign.id));
    expect(await fleetHours.service({ accountId: account.id, deviceId: foreign.id })).toBeNull();
    expect(await fleetHours.service({ accountId: account.id, deviceId: 999 })).toBeNull();
    expect(await fleetHours.service({ accountId: other.id, deviceId: devices[0]!.id })).toBeNull();
    expect(await fleetHours.meter({ accountId: account.id, deviceId: foreign.id })).toBeNull();
  });

  it('D39: a device without schedules has its hour meter and an empty list, as of now in its zone', async () => {
    const { account, devices, store, fleetHours } = await setup(['Asia/Kathmandu']);
    await store.importSegments({ deviceId: devices[0]!.id, segments: [{ startedAt: NOW - 2 * HOUR, endedAt: null, state: 'idle' }] });
    expect(await fleetHours.service({ accountId: account.id, deviceId: devices[0]!.id })).toEqual({
      deviceId: devices[0]!.id,
      timeZone: 'Asia/Kathmandu',
      asOf: '2026-11-25T20:45:00+05:45',
      hourMeterSeconds: 2 * HOUR,
      schedules: [],
    });
  });

  it('D39: schedules in ascending id, whatever was changed or removed in between', async () => {
    const { account, devices, store, fleetHours } = await setup();
    const deviceId = devices[0]!.id;
    const created = [];
    for (const name of ['Engine oil', 'Filters', 'Hydraulics', 'Tyres'])
      created.push((await store.createServiceSchedule(oil(deviceId, { name })))!);
    await store.updateServiceSchedule({ scheduleId: created[0]!.id, changes: { name: 'Oil and filter' } });
    await store.removeServiceSchedule({ scheduleId: created[2]!.id });
    const service = await fleetHours.service({ accountId: account.id, deviceId });
    expect(service?.schedules.map((schedule) => [schedule.id, schedule.name])).toEqual([
      [created[0]!.id, 'Oil and filter'],
      [created[1]!.id, 'Filters'],
      [created[3]!.id, 'Tyres'],
    ]);
  });

  it('D39: the body as the service endpoint shows it, the last service at its instant in the device zone', async () => {
    const { account, devices, store, fleetHours } = await setup();
    const deviceId = devices[0]!.id;
    await store.addHourMeterReading({ deviceId, readAt: NOW - 100 * DAY, readingSeconds: 1000 * HOUR, now: NOW });
    await store.importSegments({
      deviceId,
      segments: [{ startedAt: NOW - 20 * DAY, endedAt: NOW - 20 * DAY + 240 * HOUR, state: 'moving' }],
    });
    const schedule = (await store.createServiceSchedule(oil(deviceId, { intervalDays: 180 })))!;
    expect(await fleetHours.service({ accountId: account.id, deviceId })).toEqual({
      deviceId,
      timeZone: 'America/New_York',
      asOf: '2026-11-25T10:00:00-05:00',
      hourMeterSeconds: 1240 * HOUR,
      schedules: [
        {
          id: schedule.id,
          name: 'Engine oil',
          intervalSeconds: 250 * HOUR,
          intervalDays: 180,
          dueSoonSeconds: 25 * HOUR,
          dueSoonDays: 18,
          lastDoneAt: '2026-10-26T11:00:00-04:00',
          lastDoneHourMeterSeconds: 1000 * HOUR,
          dueHourMeterSeconds: 1250 * HOUR,
          dueDate: '2027-04-24',
          remainingSeconds: 10 * HOUR,
          remainingDays: 150,
          status: 'due_soon',
          // P101: the version of the schedule, as its writes answer it.
          version: scheduleVersion(schedule),
        },
      ],
    });
  });

  describe('computed at read time (D38, D39, P42)', () => {
    it('D39: late telemetry before the last service moves its hour meter at once, and the hour meter now with it', async () => {
      const { account, devices, store, fleetHours } = await setup();
      const deviceId = devices[0]!.id;
      const lastDoneAt = NOW - 10 * DAY;
      await store.createServiceSchedule(oil(deviceId, { lastDoneAt }));
      const before = (await fleetHours.service({ accountId: account.id, deviceId }))!;
      expect(before.schedules[0]).toMatchObject({ lastDoneHourMeterSeconds: 0, remainingSeconds: 250 * HOUR });
      // Points a minute apart, ignition on and moving, the day before the service: written after it.
      const start = lastDoneAt - DAY;
      const points = Array.from({ length: 11 }, (_, index) => ({ deviceId, time: start + index * 60, ignition: true, speedKmh: 40 }));
      await store.writeTelemetry({ accountId: account.id, points, now: NOW });
      const meter = (await fleetHours.meter({ accountId: account.id, deviceId }))!;
      expect(meter.engineSeconds).toBeGreaterThan(0);
      const after = (await fleetHours.service({ accountId: account.id, deviceId }))!;
      expect(after.hourMeterSeconds).toBe(meter.engineSeconds);
      expect(after.schedules[0]).toMatchObject({
        lastDoneHourMeterSeconds: meter.engineSeconds,
        dueHourMeterSeconds: meter.engineSeconds + 250 * HOUR,
        remainingSeconds: 250 * HOUR,
      });
    });

    it('D38, D39: with a reading after the last service, late segments before it move the last service alone', async () => {
      const { account, devices, store, fleetHours } = await setup();
      const deviceId = devices[0]!.id;
      const lastDoneAt = NOW - 10 * DAY;
      await store.addHourMeterReading({ deviceId, readAt: NOW - 5 * DAY, readingSeconds: 3000 * HOUR, now: NOW });
      await store.addHourMeterReading({ deviceId, readAt: NOW - 50 * DAY, readingSeconds: 2000 * HOUR, now: NOW });
      await store.createServiceSchedule(oil(deviceId, { lastDoneAt }));
      const state = async () => (await fleetHours.service({ accountId: account.id, deviceId }))!;
      expect((await state()).schedules[0]).toMatchObject({ lastDoneHourMeterSeconds: 2000 * HOUR, remainingSeconds: -750 * HOUR });
      await store.importSegments({ deviceId, segments: [{ startedAt: lastDoneAt - 3 * HOUR, endedAt: lastDoneAt - HOUR, state: 'idle' }] });
      const after = await state();
      expect(after.hourMeterSeconds).toBe(3000 * HOUR);
      expect(after.schedules[0]).toMatchObject({ lastDoneHourMeterSeconds: 2002 * HOUR, remainingSeconds: -748 * HOUR, status: 'overdue' });
    });

    it('D38, D39: a new reading before the last service re-bases it at once; a given last-done value stays as given', async () => {
      const { account, devices, store, fleetHours } = await setup();
      const deviceId = devices[0]!.id;
      await store.importSegments({
        deviceId,
        segments: [{ startedAt: NOW - 20 * DAY, endedAt: NOW - 20 * DAY + 10 * HOUR, state: 'moving' }],
      });
      const computed = (await store.createServiceSchedule(oil(deviceId, { lastDoneAt: NOW - 15 * DAY })))!;
      const given = (await store.createServiceSchedule(oil(deviceId, { lastDoneAt: NOW - 15 * DAY, lastDoneHourMeterSeconds: 5 * HOUR })))!;
      const lastDone = async () =>
        Object.fromEntries(
          (await fleetHours.service({ accountId: account.id, deviceId }))!.schedules.map((state) => [
            state.id,
            state.lastDoneHourMeterSeconds,
          ]),
        );
      expect(await lastDone()).toEqual({ [computed.id]: 10 * HOUR, [given.id]: 5 * HOUR });
      await store.addHourMeterReading({ deviceId, readAt: NOW - 20 * DAY + 4 * HOUR, readingSeconds: 4000 * HOUR, now: NOW });
      expect(await lastDone()).toEqual({ [computed.id]: 4006 * HOUR, [given.id]: 5 * HOUR });
    });

    it('D39: a service done at an instant takes the hour meter at that instant; the clock moves the days', async () => {
      const { account, devices, store, clock, fleetHours } = await setup();
      const deviceId = devices[0]!.id;
      await store.importSegments({ deviceId, segments: [{ startedAt: NOW - 30 * DAY, endedAt: null, state: 'idle' }] });
      const schedule = (await store.createServiceSchedule(oil(deviceId, { intervalDays: 10, lastDoneHourMeterSeconds: 0 })))!;
      await store.updateServiceSchedule({
        scheduleId: schedule.id,
        changes: { lastDoneAt: NOW - 2 * DAY, lastDoneHourMeterSeconds: null },
      });
      const now = (await fleetHours.service({ accountId: account.id, deviceId }))!.schedules[0]!;
      expect(now).toMatchObject({ lastDoneHourMeterSeconds: 28 * 24 * HOUR, remainingSeconds: 250 * HOUR - 48 * HOUR, remainingDays: 8 });
      clock.now += 9 * DAY * 1000;
      expect((await fleetHours.service({ accountId: account.id, deviceId }))!.schedules[0]).toMatchObject({
        lastDoneHourMeterSeconds: 28 * 24 * HOUR,
        remainingSeconds: -(11 * 24 - 250) * HOUR,
        remainingDays: -1,
        status: 'overdue',
      });
    });
  });
});

describe('createFleetHours().fleet.service() (D39, D32)', () => {
  /** Seven devices; only the 2nd and the 6th have an overdue schedule, the 4th one due soon. */
  async function sparseFleet() {
    const setUp = await setup(Array.from({ length: 7 }, () => 'UTC'));
    const { store, devices } = setUp;
    for (const [index, device] of devices.entries()) {
      await store.createServiceSchedule(oil(device.id, { name: 'Yearly', intervalSeconds: 1000 * HOUR, intervalDays: 365 }));
      if (index === 1 || index === 5) await store.createServiceSchedule(oil(device.id, { intervalDays: 20 }));
      if (index === 3) await store.createServiceSchedule(oil(device.id, { intervalDays: 31 }));
    }
    return setUp;
  }

  it('D39, D32: every device of the account, each item exactly service() of that device', async () => {
    const { account, devices, fleetHours } = await sparseFleet();
    const single = await Promise.all(devices.map((device) => fleetHours.service({ accountId: account.id, deviceId: device.id })));
    for (const limit of [1, 3, 7, 100]) {
      const pages = await walk((cursor) => fleetHours.fleet.service({ accountId: account.id, limit, cursor }));
      expect(pages.flatMap((page) => page.items)).toEqual(single);
      expect(pages).toHaveLength(Math.ceil(devices.length / limit));
    }
  });

  it('D39, P45: a status-filtered page reads whole device pages until it is full: the matching devices, however far apart', async () => {
    const { account, devices, store, fleetHours: plain } = await sparseFleet();
    const counting = countingDevices(store);
    const fleetHours = createFleetHours({ store: counting.store, now: () => NOW * 1000 });
    const ids = (items: readonly DeviceService[]) => items.map((item) => item.deviceId);

    const first = await fleetHours.fleet.service({ accountId: account.id, limit: 2, statuses: ['overdue'] });
    expect(ids(first.items)).toEqual([devices[1]!.id, devices[5]!.id]);
    expect(counting.pages()).toBeGreaterThan(1);
    // Whole pages of `limit` devices, never a store call per device (D32).
    expect(counting.pages()).toBeLessThanOrEqual(Math.ceil(devices.length / 2));
    // Each element still lists all its schedules.
    expect(first.items[0]!.schedules.map((schedule) => schedule.status)).toEqual(['ok', 'overdue']);
    // The cursor is the last device read: the rest is one page with nothing to show.
    expect(first.nextCursor).not.toBeNull();
    expect(await fleetHours.fleet.service({ accountId: account.id, limit: 2, statuses: ['overdue'], cursor: first.nextCursor! })).toEqual({
      items: [],
      nextCursor: null,
    });

    const pages = await walk((cursor) =>
      plain.fleet.service({ accountId: account.id, limit: 1, cursor, statuses: ['due_soon', 'overdue'] }),
    );
    expect(pages.map((page) => ids(page.items))).toEqual([[devices[1]!.id], [devices[3]!.id], [devices[5]!.id], []]);
    expect((await plain.fleet.service({ accountId: account.id, statuses: ['due_soon'] })).items.map((item) => item.deviceId)).toEqual([
      devices[3]!.id,
    ]);
    // No status, or an empty list: every device.
    expect((await plain.fleet.service({ accountId: account.id, statuses: [] })).items).toHaveLength(7);
  });

  it('D39: a filter that no device matches walks the whole fleet into one empty page', async () => {
    const { account, devices, store, fleetHours } = await setup(Array.from({ length: 5 }, () => 'UTC'));
    for (const device of devices) await store.createServiceSchedule(oil(device.id));
    expect(await fleetHours.fleet.service({ accountId: account.id, limit: 2, statuses: ['due_soon', 'overdue'] })).toEqual({
      items: [],
      nextCursor: null,
    });
    expect((await fleetHours.fleet.service({ accountId: account.id, limit: 2, statuses: ['ok'] })).items).toHaveLength(2);
    const { account: empty, fleetHours: none } = await setup([]);
    expect(await none.fleet.service({ accountId: empty.id, statuses: ['overdue'] })).toEqual({ items: [], nextCursor: null });
  });

  it('D32, P33: a cursor of another endpoint or another account, a malformed cursor and a limit out of range are refused, naming the parameter', async () => {
    const { account, other, fleetHours } = await setup(['UTC', 'UTC', 'UTC']);
    const meterCursor = (await fleetHours.fleet.meter({ accountId: account.id, limit: 1 })).nextCursor!;
    const fromMeter = await refusal(fleetHours.fleet.service({ accountId: account.id, cursor: meterCursor }));
    expect(fromMeter.parameter).toBe('cursor');
    expect(fromMeter.message).toMatch(/cursor of \/api\/v1\/meter, not of \/api\/v1\/service/);
    const serviceCursor = (await fleetHours.fleet.service({ accountId: account.id, limit: 1 })).nextCursor!;
    expect((await refusal(fleetHours.fleet.meter({ accountId: account.id, cursor: serviceCursor }))).parameter).toBe('cursor');
    expect((await refusal(fleetHours.fleet.service({ accountId: other.id, cursor: serviceCursor }))).message).toMatch(
      /belongs to another account/,
    );
    expect((await refusal(fleetHours.fleet.service({ accountId: account.id, cursor: 'nonsense', statuses: ['overdue'] }))).parameter).toBe(
      'cursor',
    );
    for (const limit of [0, 501, 2.5])
      expect((await refusal(fleetHours.fleet.service({ accountId: account.id, limit }))).parameter).toBe('limit');
  });

  it('D32: 100 devices a page by default, 500 at most', async () => {
    const { account, fleetHours } = await setup(Array.from({ length: 101 }, () => 'UTC'));
    expect((await fleetHours.fleet.service({ accountId: account.id })).items).toHaveLength(100);
    expect((await fleetHours.fleet.service({ accountId: account.id, limit: 500 })).items).toHaveLength(101);
  });
});
