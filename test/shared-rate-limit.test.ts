/**
 * D15: with several server instances on one database the limits hold across all of them. Two
 * separate apps, each over its own store, count against the same database counters.
 */
import { createFleetHours, createMemoryRateLimitStore, fingerprintApiKey, generateApiKey, type RateLimitStore } from '@fleet-hours/core';
import { createFleetHoursApp } from '@fleet-hours/http';
import { createKyselyStore, createPGliteDatabase, migrateToLatest, type KyselyFleetHoursStore } from '@fleet-hours/storage-kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestSchema, describeWithPostgres, resetTables, type TestPostgres } from './support/postgres.js';

const NOW_MS = 1_767_225_630_000; // 2026-01-01T00:00:30Z: mid-minute, so the 30 requests share one window
const T0 = 1_767_225_600;

interface Instances {
  /** Two stores over one database, as two server processes would have. */
  readonly stores: readonly [KyselyFleetHoursStore, KyselyFleetHoursStore];
}

function describeSharedLimit(backend: string, setup: () => Promise<Instances>): void {
  describe(`two app instances on one ${backend} database`, () => {
    let instances: Instances;
    beforeAll(async () => {
      instances = await setup();
    });

    /** Seeds an account, a device and a key, and builds one app per store with the given counters. */
    const twoApps = async (counters: (store: KyselyFleetHoursStore) => RateLimitStore, clock: { ms: number }) => {
      const [first] = instances.stores;
      await resetTables(first.db);
      const account = await first.createAccount({ name: 'Acme', plan: 'business', now: T0 });
      const device = (await first.createDevice({
        accountId: account.id,
        name: 'Truck 1',
        imei: '350000000000001',
        model: 'FMB920',
        timeZone: 'Europe/Berlin',
      }))!;
      const key = generateApiKey();
      await first.createApiKey({ accountId: account.id, fingerprint: await fingerprintApiKey(key), label: null, expiresAt: null, now: T0 });
      const apps = instances.stores.map((store) => {
        const now = () => clock.ms;
        return createFleetHoursApp({
          fleetHours: createFleetHours({ store, now }),
          rateLimitStore: counters(store),
          now,
          logger: () => {},
        });
      });
      const get = (instance: number, path: string) =>
        apps[instance]!.request(`/api/v1/devices/${device.id}${path}`, { headers: { Authorization: `Bearer ${key}` } });
      return { get };
    };

    it('30 /hours requests split across both succeed, the 31st is refused with 429 (D13, D15)', async () => {
      const clock = { ms: NOW_MS };
      const { get } = await twoApps((store) => store, clock);
      for (let request = 0; request < 30; request += 1) {
        const response = await get(request % 2, '/hours');
        expect(response.status).toBe(200);
        expect(response.headers.get('X-RateLimit-Remaining')).toBe(String(29 - request));
      }
      for (const instance of [0, 1]) {
        const refused = await get(instance, '/hours');
        expect(refused.status).toBe(429);
        expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThanOrEqual(1);
        expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
      }
      // Per route: /meter has its own budget on either instance.
      expect((await get(1, '/meter')).status).toBe(200);
      // The refusals used up nothing, and the next window starts from a full budget on both.
      clock.ms += 60_000;
      const next = await get(1, '/hours');
      expect(next.status).toBe(200);
      expect(next.headers.get('X-RateLimit-Remaining')).toBe('29');
    });

    it("counters in each process's memory would let 60 through: the shared counters are what holds the limit", async () => {
      const { get } = await twoApps(() => createMemoryRateLimitStore(), { ms: NOW_MS });
      for (let request = 0; request < 30; request += 1) await get(request % 2, '/hours');
      expect((await get(0, '/hours')).status).toBe(200);
    });
  });
}

let pglite: Awaited<ReturnType<typeof createPGliteDatabase>>;
afterAll(async () => {
  await pglite?.destroy();
});
// PGlite is one database in one process: two stores over it stand for two app instances.
describeSharedLimit('PGlite', async () => {
  pglite = await createPGliteDatabase();
  await migrateToLatest(pglite);
  return { stores: [createKyselyStore(pglite), createKyselyStore(pglite)] };
});

describeWithPostgres('shared rate limits on the PostgreSQL server', () => {
  let server: TestPostgres;
  afterAll(async () => {
    await server?.drop();
  });
  // Two pools, as two server processes have.
  describeSharedLimit('PostgreSQL', async () => {
    server = await createTestSchema();
    const [first, second] = [server.connect(), server.connect()];
    await migrateToLatest(first);
    return { stores: [createKyselyStore(first), createKyselyStore(second)] };
  });
});
