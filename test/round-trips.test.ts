/**
 * Issue 11: an API request costs two database round trips — the key with its count
 * (`findApiKeyAndConsume`), then the device with its figures (`findDeviceWithSums`,
 * `findDeviceWithSummary`) — instead of four. Counted, not timed: a Kysely plugin counts the
 * statements the app runs over the Kysely store, on PGlite and on PostgreSQL.
 */
import { createFleetHours, fingerprintApiKey, generateApiKey } from '@fleet-hours/core';
import { createFleetHoursApp } from '@fleet-hours/http';
import { createKyselyStore, createPGliteDatabase, migrateToLatest, type FleetHoursDatabase } from '@fleet-hours/storage-kysely';
import type { Kysely, KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestSchema, describeWithPostgres, resetTables, type TestPostgres } from './support/postgres.js';

const NOW_MS = Date.UTC(2026, 2, 12, 19, 4, 30); // mid-minute
const T0 = 1_767_225_600;
const HOUR = 3600;

/** Counts every statement that reaches the database (each is one round trip). */
function statementCounter(): KyselyPlugin & { count: number } {
  return {
    count: 0,
    transformQuery: (args) => args.node,
    async transformResult(args) {
      this.count += 1;
      return args.result;
    },
  };
}

function describeRoundTrips(backend: string, database: () => Kysely<FleetHoursDatabase>): void {
  describe(`round trips per API request over the Kysely store on ${backend}`, () => {
    const seed = async () => {
      const db = database();
      await resetTables(db);
      const counter = statementCounter();
      const store = createKyselyStore(db.withPlugin(counter));
      const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
      const device = (await store.createDevice({ accountId: account.id, name: 'Truck 1', imei: '350000000000001', model: 'FMB920', timeZone: 'America/New_York' }))!;
      await store.importSegments({
        deviceId: device.id,
        segments: [
          { startedAt: NOW_MS / 1000 - 50 * HOUR, endedAt: NOW_MS / 1000 - 47 * HOUR, state: 'moving' },
          { startedAt: NOW_MS / 1000 - 2 * HOUR, endedAt: null, state: 'idle' },
        ],
      });
      const key = generateApiKey();
      await store.createApiKey({ accountId: account.id, fingerprint: await fingerprintApiKey(key), label: null, expiresAt: null, now: T0 });
      const now = () => NOW_MS;
      const app = createFleetHoursApp({ fleetHours: createFleetHours({ store, now }), rateLimitStore: store, now, logger: () => {} });
      /** The status and the statements of one request. */
      const get = async (path: string, authorization = `Bearer ${key}`) => {
        counter.count = 0;
        const response = await app.request(path, { headers: { Authorization: authorization } });
        await response.arrayBuffer();
        return { status: response.status, statements: counter.count };
      };
      return { get, device };
    };

    it('/hours, /hours/daily and /meter with a valid key: at most 2 once the device is known (listed or read before)', async () => {
      const { get, device } = await seed();
      const paths = [`/api/v1/devices/${device.id}/hours`, `/api/v1/devices/${device.id}/hours/daily?from=2026-03-01&to=2026-03-12`, `/api/v1/devices/${device.id}/meter`];
      // A device never read nor listed by this service: its zone is read first, one statement more.
      expect(await get(paths[0]!)).toEqual({ status: 200, statements: 3 });
      for (const path of paths) for (let round = 0; round < 3; round += 1) expect({ path, ...(await get(path)) }).toEqual({ path, status: 200, statements: 2 });
    });

    it('a device list teaches the zones: the first read of a listed device is 2, the list itself 2', async () => {
      const { get, device } = await seed();
      expect(await get('/api/v1/devices')).toEqual({ status: 200, statements: 2 });
      expect(await get(`/api/v1/devices/${device.id}/hours/daily?from=2026-03-01`)).toEqual({ status: 200, statements: 2 });
      expect(await get(`/api/v1/devices/${device.id}/meter`)).toEqual({ status: 200, statements: 2 });
    });

    it('a missing device is 404 in 2; an unknown key is 401 in 2 (the lookup, then the address\u2019s budget: D14)', async () => {
      const { get, device } = await seed();
      expect(await get(`/api/v1/devices/${device.id + 1000}/meter`)).toEqual({ status: 404, statements: 2 });
      expect(await get(`/api/v1/devices/${device.id}/meter`, 'Bearer fh_unknown')).toEqual({ status: 401, statements: 2 });
    });
  });
}

let pglite: Kysely<FleetHoursDatabase>;
beforeAll(async () => {
  pglite = await createPGliteDatabase();
  await migrateToLatest(pglite);
});
afterAll(async () => {
  await pglite?.destroy();
});
describeRoundTrips('PGlite', () => pglite);

describeWithPostgres('on PostgreSQL', () => {
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
  describeRoundTrips('PostgreSQL', () => db);
});
