/**
 * P53: the checks writes ask for. A write's statement leaves a request for each device it wrote;
 * a server that starts later (the writer died after its commit, or the write came from the CLI)
 * raises the write's events from it at once, without waiting for the periodic check, and clears
 * the request. Over the Kysely store on PGlite (the memory store keeps no requests: it ends with
 * its process).
 */
import { createFleetHours } from '@fleet-hours/core';
import { createKyselyStore, createPGliteDatabase, migrateToLatest } from '@fleet-hours/storage-kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { startEventDelivery } from './event-delivery.js';

const T0 = 1_767_225_600; // 2026-01-01T00:00:00Z
const HOUR = 3600;

describe('checks that writes ask for (D40, P53)', async () => {
  const db = await createPGliteDatabase();
  await migrateToLatest(db);
  afterAll(() => db.destroy());

  it('a write no server checked has its events raised by the next server at its start, once; the request is cleared', async () => {
    const store = createKyselyStore(db);
    const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
    await store.createWebhookEndpoint({
      accountId: account.id,
      url: 'https://a.example/',
      eventTypes: ['service.due_soon', 'service.overdue'],
      secret: `whsec_${'A'.repeat(43)}=`,
      now: T0,
    });
    const device = (await store.createDevice({ accountId: account.id, name: 'Loader 7', imei: '1', model: 'm', timeZone: 'UTC' }))!;
    const schedule = (await store.createServiceSchedule({
      deviceId: device.id,
      name: 'Oil',
      intervalSeconds: 10 * HOUR,
      lastDoneAt: T0,
      now: T0,
    }))!;
    // The write commits; nothing checks it (its process died, or it was `fleet-hours import`).
    await store.importSegments({ deviceId: device.id, segments: [{ startedAt: T0, endedAt: T0 + 11 * HOUR, state: 'moving' }] });
    expect((await store.listEventChecks({ limit: 10 })).map((check) => check.deviceId)).toEqual([device.id]);
    const now = T0 + 11 * HOUR + 60;
    const fleetHours = createFleetHours({ store, now: () => now * 1000 });

    // A server starts: its periodic check is an hour away, the requests are read at once.
    const delivery = startEventDelivery({
      fleetHours,
      now: () => now * 1000,
      checkIntervalMs: HOUR * 1000,
      requestedCheckIntervalMs: HOUR * 1000,
    });
    try {
      await expect.poll(async () => (await store.listEventChecks({ limit: 10 })).length, { timeout: 10_000 }).toBe(0);
    } finally {
      await delivery.close();
    }
    // The outbox holds the write's two events (whatever became of a first attempt to deliver them).
    const claimed = await store.claimDeliveries({ claimant: 'test', limit: 10, leaseSeconds: 1, now: now + 86_400 });
    expect(claimed.map((one) => one.event.id).sort()).toEqual([
      `evt_due_soon_s${schedule.id}_c${T0}`,
      `evt_overdue_s${schedule.id}_c${T0}`,
    ]);
    await store.releaseWebhookClaims({ claimant: 'test' });
    // Checked again: nothing new, nothing left.
    expect(await fleetHours.events.checkRequested({ now })).toBe(0);
  });
});
