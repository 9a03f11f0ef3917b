/**
 * The check of events (D40) through `FleetHours.events.check` over a memory store: service events
 * once per schedule and cycle with the schedule as `/service` shows it, silence events once per
 * silence, and a second check that raises nothing new; the check of the devices a write named
 * (P53); an instant in a zone whose offset has seconds.
 */
import { describe, expect, it } from 'vitest';
import { createFleetHours, createMemoryStore, type FleetHoursStore } from '../index.js';

const T0 = 1_767_225_600; // 2026-01-01T00:00:00Z
const HOUR = 3600;

/** An account with an endpoint for every event, and its device with a 10-hour schedule last done at `at`. */
async function seed(store: FleetHoursStore, { at = T0, timeZone = 'UTC' }: { at?: number; timeZone?: string } = {}) {
  const account = await store.createAccount({ name: 'Acme', plan: 'business', now: at });
  await store.createWebhookEndpoint({
    accountId: account.id,
    url: 'https://a.example/',
    eventTypes: ['service.due_soon', 'service.overdue', 'device.silent', 'device.reporting'],
    secret: `whsec_${'A'.repeat(43)}=`,
    now: at,
  });
  const device = (await store.createDevice({ accountId: account.id, name: 'Loader 7', imei: '1', model: 'm', timeZone }))!;
  const schedule = (await store.createServiceSchedule({
    deviceId: device.id,
    name: 'Oil',
    intervalSeconds: 10 * HOUR,
    lastDoneAt: at,
    now: at,
  }))!;
  return { account, device, schedule };
}

/** The bodies of the pending events, by id. */
async function pendingBodies(store: FleetHoursStore, now: number): Promise<Map<string, { type: string; data: Record<string, unknown> }>> {
  const claimed = await store.claimDeliveries({ claimant: 'test', limit: 100, leaseSeconds: 1, now });
  await store.releaseWebhookClaims({ claimant: 'test' });
  return new Map(claimed.map((one) => [one.event.id, JSON.parse(one.event.body)]));
}

describe('events.check() (D40)', () => {
  it('raises due soon and overdue once per cycle, with the schedule as /service shows it; a second check raises nothing', async () => {
    const store = createMemoryStore();
    const { account, device, schedule } = await seed(store);
    await store.importSegments({
      deviceId: device.id,
      segments: [{ startedAt: T0, endedAt: T0 + 11 * HOUR, state: 'moving' }],
      reportedAt: T0 + 11 * HOUR,
    });
    const now = T0 + 11 * HOUR + 60;
    const fleetHours = createFleetHours({ store, now: () => now * 1000 });
    expect(await fleetHours.events.check({ now })).toBe(2);
    expect(await fleetHours.events.check({ now })).toBe(0);
    const bodies = await pendingBodies(store, now);
    const overdue = bodies.get(`evt_overdue_s${schedule.id}_c${T0}`)!;
    const shown = (await fleetHours.service({ accountId: account.id, deviceId: device.id }))!.schedules[0]!;
    expect(overdue.type).toBe('service.overdue');
    expect(overdue.data).toMatchObject({
      device_id: device.id,
      device_name: 'Loader 7',
      schedule: { id: schedule.id, status: 'overdue', remaining_seconds: shown.remainingSeconds },
    });
    expect(bodies.has(`evt_due_soon_s${schedule.id}_c${T0}`)).toBe(true);
  });

  it("raises device.silent once after the quiet time, and device.reporting with the silence's length when it reports again", async () => {
    const store = createMemoryStore();
    const { account, device } = await seed(store);
    await store.setSilentAfter({ accountId: account.id, silentAfterSeconds: 600 });
    await store.importSegments({
      deviceId: device.id,
      segments: [{ startedAt: T0, endedAt: T0 + 60, state: 'idle' }],
      reportedAt: T0 + 60,
    });
    const check = (now: number) => createFleetHours({ store, now: () => now * 1000 }).events.check();
    expect(await check(T0 + 659)).toBe(0);
    expect(await check(T0 + 660)).toBe(1);
    expect(await check(T0 + 900)).toBe(0);
    await store.importSegments({
      deviceId: device.id,
      segments: [{ startedAt: T0 + 1000, endedAt: T0 + 1060, state: 'idle' }],
      reportedAt: T0 + 1060,
    });
    expect(await check(T0 + 1070)).toBe(1);
    const bodies = await pendingBodies(store, T0 + 1070);
    expect(bodies.get(`evt_silent_d${device.id}_r${T0 + 60}`)).toEqual({
      type: 'device.silent',
      timestamp: '2026-01-01T00:11:00Z',
      data: { device_id: device.id, device_name: 'Loader 7', last_reported_at: '2026-01-01T00:01:00+00:00', silent_after_seconds: 600 },
    });
    expect(bodies.get(`evt_reporting_d${device.id}_r${T0 + 60}`)?.data).toMatchObject({ silent_seconds: 1000 });
  });

  it('P53: checks only the devices a write named, of their account, when given them; the periodic check every device', async () => {
    const store = createMemoryStore();
    const { account, device, schedule } = await seed(store);
    const other = (await store.createDevice({ accountId: account.id, name: 'Loader 8', imei: '2', model: 'm', timeZone: 'UTC' }))!;
    const otherSchedule = (await store.createServiceSchedule({
      deviceId: other.id,
      name: 'Oil',
      intervalSeconds: HOUR,
      lastDoneAt: T0,
      now: T0,
    }))!;
    for (const { id } of [device, other]) {
      await store.importSegments({
        deviceId: id,
        segments: [{ startedAt: T0, endedAt: T0 + 11 * HOUR, state: 'moving' }],
        reportedAt: T0 + 11 * HOUR,
      });
    }
    const now = T0 + 11 * HOUR + 60;
    const fleetHours = createFleetHours({ store, now: () => now * 1000 });
    expect(await fleetHours.events.check({ now, accountId: account.id, deviceIds: [device.id] })).toBe(2);
    expect(await fleetHours.events.check({ now, accountId: account.id + 1, deviceIds: [other.id] })).toBe(0);
    const bodies = await pendingBodies(store, now);
    expect([...bodies.keys()].sort()).toEqual([`evt_due_soon_s${schedule.id}_c${T0}`, `evt_overdue_s${schedule.id}_c${T0}`]);
    expect(await fleetHours.events.check({ now })).toBe(2);
    expect((await pendingBodies(store, now)).has(`evt_overdue_s${otherSchedule.id}_c${T0}`)).toBe(true);
  });

  it('D40: an event whose instants fall in a zone with a second-level offset (Monrovia, -00:44:30 until 1972) is raised under its cycle, its body shows them', async () => {
    const store = createMemoryStore();
    const lastDone = Date.UTC(1970, 5, 1) / 1000; // 1970-05-31T23:15:30-00:44:30 in Africa/Monrovia
    const { account, device, schedule } = await seed(store, { at: lastDone, timeZone: 'Africa/Monrovia' });
    await store.setSilentAfter({ accountId: account.id, silentAfterSeconds: 600 });
    await store.importSegments({
      deviceId: device.id,
      segments: [{ startedAt: lastDone, endedAt: lastDone + 11 * HOUR, state: 'moving' }],
      reportedAt: lastDone + 11 * HOUR,
    });
    const now = lastDone + 12 * HOUR;
    expect(await createFleetHours({ store, now: () => now * 1000 }).events.check()).toBe(3);
    const bodies = await pendingBodies(store, now);
    expect([...bodies.keys()].sort()).toEqual([
      `evt_due_soon_s${schedule.id}_c${lastDone}`,
      `evt_overdue_s${schedule.id}_c${lastDone}`,
      `evt_silent_d${device.id}_r${lastDone + 11 * HOUR}`,
    ]);
    expect(bodies.get(`evt_overdue_s${schedule.id}_c${lastDone}`)?.data).toMatchObject({
      schedule: { id: schedule.id, last_done_at: '1970-05-31T23:15:30-00:44:30', status: 'overdue' },
    });
    expect(bodies.get(`evt_silent_d${device.id}_r${lastDone + 11 * HOUR}`)?.data).toMatchObject({
      last_reported_at: '1970-06-01T10:15:30-00:44:30',
    });
  });
});
