/**
 * D40, D65 (P140): service follows the AEMP feed. A machine without a telematics unit, known only
 * by an OEM's feed: each poll stores its cumulative operating hours as a reading (D38), the hour
 * meter is that reading, and its schedule turns due soon and then overdue from the feed alone,
 * raising `service.due_soon` and `service.overdue` right after the poll that crossed. Through a mock
 * OEM server on 127.0.0.1, the poller, and the HTTP app on the same store: on the memory store, on
 * PGlite, and on PostgreSQL with DATABASE_URL.
 */
import {
  type ChangeOrigin,
  createFleetHours,
  createMemoryStore,
  fingerprintApiKey,
  type FleetHoursStore,
  generateApiKey,
} from '@fleet-hours/core';
import { createFleetHoursApp } from '@fleet-hours/http';
import { createKyselyStore, createPGliteDatabase, migrateToLatest } from '@fleet-hours/storage-kysely';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createTestSchema, DATABASE_URL } from '../../../../test/support/postgres.js';
import { closeMockOems, startMockOem, xml, xmlPage } from '../testing/mock-oem.js';
import { aempSourcePoller } from './aemp-source-poller.js';

const H = 3600;
const CLI: ChangeOrigin = { actor: { kind: 'cli' }, requestId: null };
const START_MS = Date.parse('2026-11-28T08:00:00Z');
const LAST_DONE_AT = START_MS / 1000 - 30 * 86_400;

afterEach(closeMockOems);

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The stores the test runs on: memory and PGlite always, PostgreSQL when DATABASE_URL is set. */
const stores: [string, () => Promise<FleetHoursStore>][] = [
  ['memory', async () => createMemoryStore()],
  [
    'PGlite',
    async () => {
      const db = await createPGliteDatabase();
      cleanups.push(() => db.destroy());
      await migrateToLatest(db);
      return createKyselyStore(db);
    },
  ],
  ...(DATABASE_URL
    ? [
        [
          'PostgreSQL',
          async () => {
            const schema = await createTestSchema();
            cleanups.push(() => schema.drop());
            const db = schema.connect();
            await migrateToLatest(db);
            return createKyselyStore(db);
          },
        ] as [string, () => Promise<FleetHoursStore>],
      ]
    : []),
];

describe.each(stores)('service follows the AEMP feed on %s (D40, D65, P140)', (_name, open) => {
  it('D40, D65: a device with no telemetry, only a source’s readings, turns ok → due soon → overdue poll by poll, and each crossing raises its event once', async () => {
    const store = await open();
    const account = (await store.createAccount({ name: 'Acme', plan: 'business', now: 0 }))!;
    const key = generateApiKey();
    await store.createApiKey({ accountId: account.id, fingerprint: await fingerprintApiKey(key), label: null, expiresAt: null, now: 0 });
    await store.createWebhookEndpoint({
      accountId: account.id,
      url: 'https://hooks.example/',
      eventTypes: ['service.due_soon', 'service.overdue'],
      secret: `whsec_${'A'.repeat(43)}=`,
      now: 0,
    });
    const device = (await store.createDevice({
      accountId: account.id,
      name: 'Excavator 12',
      imei: 'x12',
      model: 'PC210',
      timeZone: 'Europe/Berlin',
      pin: 'KMTPC210X12',
    }))!;
    // Oil every 250 h, due soon in its last 25 h; last done at 1,000 h on the machine's own meter.
    const oil = (await store.createServiceSchedule({
      deviceId: device.id,
      name: 'Engine oil',
      intervalSeconds: 250 * H,
      dueSoonSeconds: 25 * H,
      lastDoneAt: LAST_DONE_AT,
      lastDoneHourMeterSeconds: 1000 * H,
      now: LAST_DONE_AT,
    }))!;

    let nowMs = START_MS;
    const now = () => nowMs;
    const fleetHours = createFleetHours({ store, now });
    const app = createFleetHoursApp({ fleetHours, now, logger: () => {} });
    // The OEM's feed: one page, the machine's hours and when the OEM read them (an hour before the poll).
    let hours = 0;
    const { base } = await startMockOem((base) => ({
      '/Fleet/1': xml(() =>
        xmlPage({
          self: `${base}/Fleet/1`,
          machines: [{ pin: 'KMTPC210X12', hours, at: new Date(nowMs - H * 1000).toISOString() }],
        }),
      ),
    }));
    const poller = aempSourcePoller({
      store,
      writes: fleetHours.manage,
      events: fleetHours.events,
      origin: CLI,
      allowPrivateAddresses: true,
      now,
    });
    const source = { id: 3, accountId: account.id, url: `${base}/Fleet/1`, auth: null, minIntervalPerUrlSeconds: 0 };

    const get = async (path: string) => {
      const response = await app.request(path, { headers: { Authorization: `Bearer ${key}` } });
      expect(response.status).toBe(200);
      return (await response.json()) as {
        hour_meter_seconds: number;
        data: { id: number; status: string; remaining_seconds: number }[];
      };
    };
    /** The events raised so far, in the outbox (claimed and released at once). */
    const raised = async () => {
      const claimed = await store.claimDeliveries({ claimant: 'test', limit: 10, leaseSeconds: 1, now: nowMs / 1000 });
      await store.releaseWebhookClaims({ claimant: 'test' });
      return claimed.map((delivery) => delivery.event.id).sort();
    };
    const pollAt = async (feedHours: number) => {
      nowMs += 6 * H * 1000;
      hours = feedHours;
      const record = await poller.poll(source);
      expect(record).toMatchObject({ matched: 1, readingsStored: 1, error: null });
      const service = await get(`/api/v1/devices/${device.id}/service`);
      const due = await get('/api/v1/service?status=due_soon,overdue');
      return {
        meter: service.hour_meter_seconds / H,
        status: service.data[0]!.status,
        remaining: service.data[0]!.remaining_seconds / H,
        listedDue: due.data.length,
        events: await raised(),
      };
    };

    const cycle = `s${oil.id}_c${LAST_DONE_AT}`;
    expect(await pollAt(1200)).toEqual({ meter: 1200, status: 'ok', remaining: 50, listedDue: 0, events: [] });
    expect(await pollAt(1230.5)).toEqual({
      meter: 1230.5,
      status: 'due_soon',
      remaining: 19.5,
      listedDue: 1,
      events: [`evt_due_soon_${cycle}`],
    });
    expect(await pollAt(1240)).toMatchObject({ status: 'due_soon', remaining: 10, events: [`evt_due_soon_${cycle}`] });
    expect(await pollAt(1250.25)).toEqual({
      meter: 1250.25,
      status: 'overdue',
      remaining: -0.25,
      listedDue: 1,
      events: [`evt_due_soon_${cycle}`, `evt_overdue_${cycle}`],
    });
    // The readings are the source's (D38, D65), and the device has no telemetry at all.
    const readings = await store.listHourMeterReadings({ deviceIds: [device.id] });
    expect(new Set(readings.map((reading) => reading.source))).toEqual(new Set(['aemp:3']));
    expect(await store.listSegments({ deviceId: device.id, start: 0, end: nowMs / 1000 })).toEqual([]);
  });
});
