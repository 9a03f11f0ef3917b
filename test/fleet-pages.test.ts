/**
 * A page of the fleet endpoints costs a bounded number of queries on the Kysely store, whatever
 * its size (D32): every query is counted through a Kysely plugin, for pages of 1 and 100 devices,
 * through the core's service and through the app.
 */
import { createFleetHours, fingerprintApiKey, generateApiKey, parseWindowQuery, type SegmentInput } from '@fleet-hours/core';
import { createFleetHoursApp } from '@fleet-hours/http';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKyselyStore, createPGliteDatabase, migrateToLatest, type FleetHoursDatabase } from '@fleet-hours/storage-kysely';
import { createTestSchema, describeWithPostgres, resetTables, type TestPostgres } from './support/postgres.js';

const T0 = 1_767_225_600; // 2026-01-01T00:00:00Z
const DAY = 86_400;
const NOW = T0 + 40 * DAY;
const ZONES = ['America/New_York', 'Asia/Kathmandu', 'Europe/Berlin', 'Australia/Lord_Howe', 'UTC'];

function describeQueryCounts(database: () => Kysely<FleetHoursDatabase>): void {
  /**
   * Seeds an account of `size` devices with a few segments each — and, with `maintenance`, an
   * hour-meter reading and two schedules each (D38, D39) — and returns the account, a key, and a
   * store whose every query is counted.
   */
  const seed = async (size: number, maintenance = false) => {
    const db = database();
    await resetTables(db);
    const store = createKyselyStore(db);
    const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
    const key = generateApiKey();
    await store.createApiKey({ accountId: account.id, fingerprint: await fingerprintApiKey(key), label: null, expiresAt: null, now: T0 });
    for (let index = 0; index < size; index += 1) {
      const device = (await store.createDevice({
        accountId: account.id,
        name: `Truck ${index}`,
        imei: `35${index}`,
        model: 'm',
        timeZone: ZONES[index % ZONES.length]!,
      }))!;
      const segments: SegmentInput[] = Array.from({ length: 30 }, (_, day) => ({
        startedAt: T0 + day * DAY + index * 60,
        endedAt: T0 + day * DAY + index * 60 + 3600,
        state: day % 2 === 0 ? 'moving' : 'idle',
      }));
      await store.importSegments({ deviceId: device.id, segments: [...segments, { startedAt: NOW - 600, endedAt: null, state: 'idle' }] });
      if (maintenance) {
        await store.addHourMeterReading({ deviceId: device.id, readAt: T0 + 10 * DAY, readingSeconds: 1_000 * 3600, now: NOW });
        await store.createServiceSchedule({
          deviceId: device.id,
          name: 'Oil',
          intervalSeconds: 250 * 3600,
          lastDoneAt: T0 + 20 * DAY,
          now: NOW,
        });
        await store.createServiceSchedule({
          deviceId: device.id,
          name: 'Filter',
          intervalSeconds: 500 * 3600,
          intervalDays: 90,
          lastDoneAt: T0 + 5 * DAY,
          lastDoneHourMeterSeconds: 900 * 3600,
          now: NOW,
        });
      }
    }
    const queries: string[] = [];
    const counted = createKyselyStore(
      db.withPlugin({
        transformQuery: ({ node }) => {
          queries.push(node.kind);
          return node;
        },
        transformResult: async ({ result }) => result,
      }),
    );
    return { account, key, counted, queries };
  };

  for (const size of [1, 100]) {
    it(`a page of ${size} device(s) is two queries for /hours — the devices, then the figures of all of them — and three for /hours/daily (D59, P147: the devices, the segments and the calendars of all of them, the sums from those segments)`, async () => {
      const { account, counted, queries } = await seed(size);
      const fleetHours = createFleetHours({ store: counted, now: () => NOW * 1000 });
      const dates = parseWindowQuery({ from: '2026-01-01', to: '2026-01-31' });
      const reads = {
        hours: () => fleetHours.fleet.hours({ accountId: account.id, limit: size, ...dates }),
        daily: () => fleetHours.fleet.daily({ accountId: account.id, limit: size, ...dates }),
      };
      for (const [name, read] of Object.entries(reads)) {
        queries.length = 0;
        const page = await read();
        // The day fields (D59, P129) read the page's segments and calendars in one statement each, whatever the page's size.
        expect({ name, devices: page.items.length, queries: queries.length }).toEqual({
          name,
          devices: size,
          queries: name === 'daily' ? 3 : 2,
        });
      }
      // And the figures are the single-device reads, device for device (not counted).
      const hours = await reads.hours();
      for (const item of hours.items)
        expect(item).toEqual(await fleetHours.hours({ accountId: account.id, deviceId: item.deviceId, ...dates }));
      expect(hours.items.some((item) => item.movingSeconds > 0 && item.idleSeconds > 0)).toBe(true);
    });

    it(`a page of ${size} device(s) of /meter and /service is a bounded number of queries: for the meter the devices, their figures and readings, and the engine time since the readings when there are any; for the service one statement, and what it remembers (D32, D38, D39, P58)`, async () => {
      for (const maintenance of [false, true]) {
        const { account, counted, queries } = await seed(size, maintenance);
        const fleetHours = createFleetHours({ store: counted, now: () => NOW * 1000 });
        const reads = {
          meter: () => fleetHours.fleet.meter({ accountId: account.id, limit: size }),
          service: () => fleetHours.fleet.service({ accountId: account.id, limit: size }),
          // The filter keeps every device (each has a schedule): the same page, from what the first remembered.
          serviceFiltered: () => fleetHours.fleet.service({ accountId: account.id, limit: size, statuses: ['ok', 'due_soon', 'overdue'] }),
        };
        // The meter: the devices, their figures and readings, and the engine time since the readings
        // when there are any. A service page (P58): one statement; the first also asks the engine
        // time since the readings and remembers it (`set local`, then one upsert); the next asks nothing more.
        const expected = { meter: maintenance ? 4 : 3, service: maintenance ? 4 : 1, serviceFiltered: 1 };
        for (const [name, read] of Object.entries(reads)) {
          queries.length = 0;
          const page = await read();
          expect({ name, maintenance, devices: page.items.length, queries: queries.length }).toEqual({
            name,
            maintenance,
            devices: maintenance || name !== 'serviceFiltered' ? size : 0,
            queries: expected[name as keyof typeof expected],
          });
        }
        // And each element is the single-device read (not counted).
        for (const item of (await reads.service()).items)
          expect(item).toEqual(await fleetHours.service({ accountId: account.id, deviceId: item.deviceId }));
        const meter = await reads.meter();
        expect(meter.items.every((item) => item.movingSeconds === 15 * 3600 && item.idleSeconds === 15 * 3600 + 600)).toBe(true);
        expect(meter.items.every((item) => (item.hourMeterReadAt !== null) === maintenance)).toBe(true);
      }
    });
  }

  it('through the app, a page of 100 devices costs the same queries as a page of 1: key and counter, devices, figures, segments and calendars', async () => {
    const counts: number[] = [];
    for (const size of [1, 100]) {
      const { key, counted, queries } = await seed(size);
      const app = createFleetHoursApp({
        fleetHours: createFleetHours({ store: counted, now: () => NOW * 1000 }),
        rateLimitStore: counted,
        now: () => NOW * 1000,
        logger: () => {},
      });
      const authorization = { Authorization: `Bearer ${key}` };
      // A first request of the minute also clears the counters of ended windows: not part of a page.
      expect((await app.request('/api/v1/meter?limit=1', { headers: authorization })).status).toBe(200);
      queries.length = 0;
      const response = await app.request(`/api/v1/hours/daily?from=2026-01-01&to=2026-01-31&limit=${size}`, { headers: authorization });
      expect(response.status).toBe(200);
      expect(((await response.json()) as { data: unknown[] }).data).toHaveLength(size);
      counts.push(queries.length);
    }
    // The same for both sizes: the key and its counter (one or two queries, as the store can), the devices, the figures,
    // and for the day fields (D59, P129) the page's segments and calendars.
    expect(counts[1]).toBe(counts[0]);
    expect(counts[1]).toBeLessThanOrEqual(6);
  });
}

describe('fleet pages on Kysely over PGlite (D32)', () => {
  let pglite: Kysely<FleetHoursDatabase>;
  beforeAll(async () => {
    pglite = await createPGliteDatabase();
    await migrateToLatest(pglite);
  });
  afterAll(async () => {
    await pglite?.destroy();
  });
  describeQueryCounts(() => pglite);
});

describeWithPostgres('fleet pages on Kysely over PostgreSQL (D32)', () => {
  let server: TestPostgres;
  let db: Kysely<FleetHoursDatabase>;
  beforeAll(async () => {
    server = await createTestSchema();
    db = server.connect({ max: 4 });
    await migrateToLatest(db);
  });
  afterAll(async () => {
    await server?.drop();
  });
  describeQueryCounts(() => db);
});
