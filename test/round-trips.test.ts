/**
 * Issue 11: an API request costs two database round trips — the key with its count
 * (`findApiKeyAndConsume`), then the device with its figures (`findDeviceWithSums`,
 * `findDeviceWithSummary`) — instead of four; an ingestion request, the token with its count
 * (`findIngestTokenAndConsume`), then a read and a write, without a transaction (D20). Requests
 * of one key that arrive together share the first of those (P35). Counted, not timed: a Kysely plugin counts the
 * statements the app runs over the Kysely store, on PGlite and on PostgreSQL.
 */
import { createFleetHours, fingerprintApiKey, generateApiKey, generateIngestToken } from '@fleet-hours/core';
import { createFleetHoursApp } from '@fleet-hours/http';
import {
  createKyselyStore,
  createPGliteDatabase,
  maintainTelemetryPartitions,
  migrateToLatest,
  type FleetHoursDatabase,
} from '@fleet-hours/storage-kysely';
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
    const seed = async (rateLimits: { hours?: number; unauthenticated?: number } = {}) => {
      const db = database();
      await resetTables(db);
      const counter = statementCounter();
      const store = createKyselyStore(db.withPlugin(counter));
      const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
      const device = (await store.createDevice({
        accountId: account.id,
        name: 'Truck 1',
        imei: '350000000000001',
        model: 'FMB920',
        timeZone: 'America/New_York',
      }))!;
      await store.importSegments({
        deviceId: device.id,
        segments: [
          { startedAt: NOW_MS / 1000 - 50 * HOUR, endedAt: NOW_MS / 1000 - 47 * HOUR, state: 'moving' },
          { startedAt: NOW_MS / 1000 - 2 * HOUR, endedAt: null, state: 'idle' },
        ],
      });
      const key = generateApiKey();
      await store.createApiKey({ accountId: account.id, fingerprint: await fingerprintApiKey(key), label: null, expiresAt: null, now: T0 });
      const starter = await store.createAccount({ name: 'Small', plan: 'starter', now: T0 });
      const starterKey = generateApiKey();
      await store.createApiKey({
        accountId: starter.id,
        fingerprint: await fingerprintApiKey(starterKey),
        label: null,
        expiresAt: null,
        now: T0,
      });
      const revokedKey = generateApiKey();
      const revoked = await store.createApiKey({
        accountId: account.id,
        fingerprint: await fingerprintApiKey(revokedKey),
        label: null,
        expiresAt: null,
        now: T0,
      });
      await store.revokeApiKey({ keyId: revoked!.id, now: T0 });
      const clock = { ms: NOW_MS };
      const now = () => clock.ms;
      const app = createFleetHoursApp({
        fleetHours: createFleetHours({ store, now }),
        rateLimitStore: store,
        rateLimits,
        now,
        logger: () => {},
      });
      /** The status, code, remaining budget and statements of one request. */
      const get = async (path: string, authorization = `Bearer ${key}`) => {
        counter.count = 0;
        const response = await app.request(path, { headers: { Authorization: authorization } });
        const body = (await response.json()) as { error?: { code: string } };
        return {
          status: response.status,
          statements: counter.count,
          code: body.error?.code,
          remaining: response.headers.get('X-RateLimit-Remaining'),
        };
      };
      const ingestToken = generateIngestToken();
      await store.createIngestToken({
        accountId: account.id,
        fingerprint: await fingerprintApiKey(ingestToken),
        label: null,
        expiresAt: null,
        now: T0,
      });
      const tracker = (await store.createDevice({
        accountId: account.id,
        name: 'Tracker',
        imei: '350000000000002',
        model: 'FMB920',
        timeZone: 'Europe/Berlin',
      }))!;
      /** The status, body and statements of one Traccar forward (docs/ingestion.md, "Traccar position forwarding") of the tracker. */
      const forward = async (seconds: number, speedKnots: number, authorization = `Bearer ${ingestToken}`) => {
        counter.count = 0;
        const time = new Date(seconds * 1000).toISOString().replace('Z', '+00:00');
        const response = await app.request('/ingest/traccar', {
          method: 'POST',
          headers: { Authorization: authorization, 'Content-Type': 'application/json' },
          body: JSON.stringify({
            position: { deviceTime: time, fixTime: time, speed: speedKnots, attributes: { ignition: true } },
            device: { uniqueId: tracker.imei },
          }),
        });
        return { status: response.status, statements: counter.count, body: (await response.json()) as Record<string, unknown> };
      };
      /** Requests `count` at once; their statuses, remaining budgets and the statements of them all. */
      const getAtOnce = async (path: string, count: number) => {
        counter.count = 0;
        const responses = await Promise.all(
          Array.from({ length: count }, () => app.request(path, { headers: { Authorization: `Bearer ${key}` } })),
        );
        return {
          statuses: responses.map((response) => response.status),
          remaining: responses.map((response) => Number(response.headers.get('X-RateLimit-Remaining'))),
          statements: counter.count,
        };
      };
      return {
        get,
        getAtOnce,
        forward,
        store,
        tracker,
        device,
        clock,
        keys: { valid: `Bearer ${key}`, starter: `Bearer ${starterKey}`, revoked: `Bearer ${revokedKey}` },
      };
    };

    it('an ingestion request: the token with its count, then one read and one write (D20, D24), whatever the write changes', async () => {
      const { forward, store, tracker } = await seed();
      const now = Math.floor(NOW_MS / 1000);
      // The first point, then points that extend the tail, change state (a segment shortened, one
      // added), arrive late inside the stored ones and take a day's seconds away: 3 statements
      // each, none in a transaction (the write checks that the device's row is the one it read).
      const steps: [number, number][] = [
        [now - 600, 20],
        [now - 590, 20],
        [now - 580, 0],
        [now - 585, 30],
        [now - 570, 25],
        [now - 575, 0],
      ];
      for (const [at, knots] of steps)
        expect({ at, ...(await forward(at, knots)) }).toMatchObject({
          at,
          status: 200,
          statements: 3,
          body: { accepted: 1, duplicates: 0 },
        });
      // The answer names the device's last report in its zone without reading the device again.
      expect(await forward(now - 570, 25)).toMatchObject({
        status: 200,
        statements: 2,
        body: { accepted: 0, duplicates: 1, devices: [{ device_id: tracker.id, last_reported_at: '2026-03-12T19:55:00+01:00' }] },
      });
      // What was stored is what the points say (D2): the one-statement writes left nothing out.
      expect((await store.listTelemetryPoints({ deviceId: tracker.id })).map((point) => point.time)).toEqual([
        now - 600,
        now - 590,
        now - 585,
        now - 580,
        now - 575,
        now - 570,
      ]);
      // An unknown token is one lookup, then the address's budget (D14), and writes nothing.
      expect(await forward(now - 560, 25, 'Bearer fhi_unknown')).toMatchObject({ status: 401, statements: 2 });
    });

    it('/hours and /hours/daily with a valid key: 2 once the device is known (listed or read before), the daily series with its day fields too (D59, P147); /meter 3 and /service 4 (D38, D39)', async () => {
      const { get, device } = await seed();
      // The meter reads the device's hour-meter readings beside its figures (D38), the service its
      // schedules too (D39): at the same time, so no request waits for more than the key, then the reads.
      // The daily series reads the device, its window's segments and its calendar in one statement,
      // and sums its days from those segments (D59, P147): as many as before the day fields.
      const paths: [string, number][] = [
        [`/api/v1/devices/${device.id}/hours`, 2],
        [`/api/v1/devices/${device.id}/hours/daily?from=2026-03-01&to=2026-03-12`, 2],
        [`/api/v1/devices/${device.id}/meter`, 3],
        [`/api/v1/devices/${device.id}/service`, 4],
      ];
      // A device never read nor listed by this service: its zone is read first, one statement more.
      expect(await get(paths[0]![0])).toMatchObject({ status: 200, statements: 3 });
      for (const [path, statements] of paths)
        for (let round = 0; round < 3; round += 1) expect({ path, ...(await get(path)) }).toMatchObject({ path, status: 200, statements });
    });

    it('with a reading, /meter and /service read the engine time since it once more, whatever the number of schedules (D38, D39)', async () => {
      const { get, device, store } = await seed();
      const now = NOW_MS / 1000;
      await store.addHourMeterReading({ deviceId: device.id, readAt: now - 49 * HOUR, readingSeconds: 1_000 * HOUR, now });
      for (const hoursAgo of [48, 30, 1])
        await store.createServiceSchedule({
          deviceId: device.id,
          name: `Every ${hoursAgo}`,
          intervalSeconds: 250 * HOUR,
          lastDoneAt: now - hoursAgo * HOUR,
          now,
        });
      expect(await get(`/api/v1/devices/${device.id}/meter`)).toMatchObject({ status: 200, statements: 4 });
      expect(await get(`/api/v1/devices/${device.id}/service`)).toMatchObject({ status: 200, statements: 5 });
    });

    it('P35, P36: requests of one key at once share the lookup and count (D13, D15) and their reads: 16 make far fewer than 32 statements, and each is counted once', async () => {
      const { get, getAtOnce, device } = await seed({ hours: 100 });
      const hours = `/api/v1/devices/${device.id}/hours`;
      expect(await get(hours)).toMatchObject({ status: 200, remaining: '99' });
      // Lookups and reads go two at a time, the requests that arrive meanwhile together (P35,
      // P36): a few statements of each. On
      // PostgreSQL: PGlite runs in this process, and a statement often ends before the next
      // request asks, so there is nothing to wait for.
      const atOnce = await getAtOnce(hours, 16);
      expect(atOnce.statuses).toEqual(Array.from({ length: 16 }, () => 200));
      expect([...atOnce.remaining].sort((a, b) => b - a)).toEqual(Array.from({ length: 16 }, (_, index) => 98 - index));
      if (backend === 'PostgreSQL') expect(atOnce.statements).toBeLessThanOrEqual(12);
      else expect(atOnce.statements).toBeLessThanOrEqual(32);
      expect(await get(hours)).toMatchObject({ status: 200, remaining: '82' });
    });

    it('P35: requests of one key at once that reach the limit: exactly the budget is served, the rest are 429 and use nothing (D13)', async () => {
      const { get, getAtOnce, device, clock } = await seed({ hours: 10 });
      const hours = `/api/v1/devices/${device.id}/hours`;
      expect(await get(hours)).toMatchObject({ status: 200, remaining: '9' });
      const atOnce = await getAtOnce(hours, 16);
      expect(atOnce.statuses.filter((status) => status === 200)).toHaveLength(9);
      expect(atOnce.statuses.filter((status) => status === 429)).toHaveLength(7);
      expect(atOnce.remaining.filter((_, index) => atOnce.statuses[index] === 200).sort((a, b) => b - a)).toEqual([
        8, 7, 6, 5, 4, 3, 2, 1, 0,
      ]);
      expect(await get(hours)).toMatchObject({ status: 429, remaining: '0' });
      clock.ms += 60_000;
      expect(await get(hours)).toMatchObject({ status: 200, remaining: '9' });
    });

    it('a device list teaches the zones: the first read of a listed device is 2 (its daily series too, D59, P147), the list itself 3 (the key, the devices, their positions: P157)', async () => {
      const { get, device } = await seed();
      expect(await get('/api/v1/devices')).toMatchObject({ status: 200, statements: 3 });
      expect(await get(`/api/v1/devices/${device.id}/hours`)).toMatchObject({ status: 200, statements: 2 });
      expect(await get(`/api/v1/devices/${device.id}/hours/daily?from=2026-03-01`)).toMatchObject({ status: 200, statements: 2 });
      // The meter needs no zone: its readings beside its figures (D38).
      expect(await get(`/api/v1/devices/${device.id}/meter`)).toMatchObject({ status: 200, statements: 3 });
    });

    it('a missing device is 404 in 2 (3 for /meter, 4 for /service: their readings and schedules are read beside it); an unknown key is 401 in 2 (the lookup, then the address\u2019s budget: D14)', async () => {
      const { get, device } = await seed();
      expect(await get(`/api/v1/devices/${device.id + 1000}/hours`)).toMatchObject({ status: 404, statements: 2 });
      expect(await get(`/api/v1/devices/${device.id + 1000}/meter`)).toMatchObject({ status: 404, statements: 3 });
      expect(await get(`/api/v1/devices/${device.id + 1000}/service`)).toMatchObject({ status: 404, statements: 4 });
      expect(await get(`/api/v1/devices/${device.id}/meter`, 'Bearer fh_unknown')).toMatchObject({ status: 401, statements: 2 });
      expect(await get(`/api/v1/devices/${device.id}/service`, 'Bearer fh_unknown')).toMatchObject({ status: 401, statements: 2 });
    });

    it('the rules hold with the count made along with the lookup: a 429 uses no budget (D13), 403 is never 429 (D11), a revoked key keeps its 401 when the address’s budget is spent (P21)', async () => {
      const { get, device, clock, keys } = await seed({ hours: 2, unauthenticated: 2 });
      const hours = `/api/v1/devices/${device.id}/hours`;
      expect(await get(hours)).toMatchObject({ status: 200, remaining: '1' });
      expect(await get(hours)).toMatchObject({ status: 200, remaining: '0' });
      for (let round = 0; round < 3; round += 1)
        expect(await get(hours)).toMatchObject({ status: 429, code: 'rate_limited', remaining: '0' });
      // A plan without API access: 403 on its own key's counter, even past its limit.
      expect(await get(hours, keys.starter)).toMatchObject({ status: 403, code: 'plan_without_api_access', remaining: '1' });
      for (let round = 0; round < 3; round += 1) expect(await get(hours, keys.starter)).toMatchObject({ status: 403, remaining: '0' });
      // Every 401 counts on the address: two, then unknown keys are held back but the revoked key is told.
      expect(await get(hours, keys.revoked)).toMatchObject({ status: 401, code: 'revoked_api_key', remaining: '1' });
      expect(await get(hours, 'Bearer fh_unknown')).toMatchObject({ status: 401, code: 'unknown_api_key', remaining: '0' });
      expect(await get(hours, 'Bearer fh_unknown')).toMatchObject({ status: 429, code: 'rate_limited' });
      expect(await get(hours, keys.revoked)).toMatchObject({ status: 401, code: 'revoked_api_key', remaining: '0' });
      // The refusals used nothing: the next window starts with the whole budget.
      clock.ms += 60_000;
      expect(await get(hours)).toMatchObject({ status: 200, remaining: '1', statements: 2 });
    });
  });
}

let pglite: Kysely<FleetHoursDatabase>;
beforeAll(async () => {
  pglite = await createPGliteDatabase();
  await migrateToLatest(pglite);
  // The months of the test's clock exist, as a server running then would have made them (D42).
  await maintainTelemetryPartitions(pglite, { now: Math.floor(NOW_MS / 1000), retentionDays: 0 });
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
    await maintainTelemetryPartitions(db, { now: Math.floor(NOW_MS / 1000), retentionDays: 0 });
  });
  afterAll(async () => {
    await server?.drop();
  });
  describeRoundTrips('PostgreSQL', () => db);
});
