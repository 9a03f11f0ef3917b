/**
 * D28 end to end: a request through the app over a database that stops answering gets 503
 * `service_unavailable` with `Retry-After` once the deadline has passed — not after 30 s — and the
 * same app answers 200 again soon after the database answers again, without a restart.
 *
 * PostgreSQL: a TCP proxy of the test's own stalls (connections stay open, nothing is forwarded).
 * PGlite has no link to stall; its equivalent is a transaction that holds the one connection.
 */
import { createFleetHours, fingerprintApiKey, generateApiKey } from '@fleet-hours/core';
import { createFleetHoursApp } from '@fleet-hours/http';
import {
  createKyselyStore,
  createPGliteDatabase,
  createPostgresDatabase,
  migrateToLatest,
  type KyselyFleetHoursStore,
} from '@fleet-hours/storage-kysely';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestSchema, DATABASE_URL, describeWithPostgres, type TestPostgres } from './support/postgres.js';
import { startStallingProxy } from './support/stalling-proxy.js';

const T0 = 1_767_225_600;
const DEADLINE_SECONDS = 1;

/** An account with a key and a device, and the app over the store. */
async function seededApp(store: KyselyFleetHoursStore) {
  const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
  const device = (await store.createDevice({
    accountId: account.id,
    name: 'Truck 1',
    imei: '350000000000001',
    model: 'FMB920',
    timeZone: 'Europe/Berlin',
  }))!;
  await store.importSegments({ deviceId: device.id, segments: [{ startedAt: T0, endedAt: T0 + 3600, state: 'moving' }] });
  const key = generateApiKey();
  await store.createApiKey({ accountId: account.id, fingerprint: await fingerprintApiKey(key), label: null, expiresAt: null, now: T0 });
  const app = createFleetHoursApp({ fleetHours: createFleetHours({ store, now: Date.now }), rateLimitStore: store, logger: () => {} });
  const meter = async () => app.request(`/api/v1/devices/${device.id}/meter`, { headers: { Authorization: `Bearer ${key}` } });
  return { meter };
}

/** Asks until the answer is 200, at most `withinMs`; returns how long it took. */
async function until200(request: () => Promise<Response>, withinMs: number): Promise<number> {
  const started = performance.now();
  for (;;) {
    const response = await request();
    if (response.status === 200) return performance.now() - started;
    expect(response.status).toBe(503);
    if (performance.now() - started > withinMs) throw new Error(`Still 503 after ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function expectTimely503(request: () => Promise<Response>): Promise<void> {
  const started = performance.now();
  const response = await request();
  const elapsed = performance.now() - started;
  expect(response.status).toBe(503);
  expect(await response.json()).toEqual({
    error: { status: 503, code: 'service_unavailable', message: 'The service is temporarily unavailable: retry shortly' },
  });
  expect(response.headers.get('Retry-After')).toMatch(/^[1-9]\d*$/);
  expect(response.headers.get('X-RateLimit-Limit')).not.toBeNull();
  expect(elapsed).toBeLessThan((DEADLINE_SECONDS + 1) * 1000);
}

describeWithPostgres('D28: the app over PostgreSQL behind a stalled link', () => {
  let schema: TestPostgres | undefined;
  afterAll(async () => {
    await schema?.drop();
  });

  it('answers 503 with Retry-After within the deadline, and 200 again within 5 s of the link coming back', async () => {
    schema = await createTestSchema();
    const upstream = new URL(DATABASE_URL!);
    const proxy = await startStallingProxy(upstream.hostname, Number(upstream.port || 5432));
    const db = createPostgresDatabase({
      connectionString: proxy.url(DATABASE_URL!),
      schema: schema.name,
      max: 4,
      queryTimeout: DEADLINE_SECONDS,
      closeTimeout: 0.2,
    });
    try {
      await migrateToLatest(db);
      const { meter } = await seededApp(createKyselyStore(db));
      expect((await meter()).status).toBe(200);

      proxy.stall();
      for (let attempt = 0; attempt < 3; attempt += 1) await expectTimely503(meter);

      proxy.resume();
      expect(await until200(meter, 5_000)).toBeLessThan(5_000);
      expect((await meter()).status).toBe(200);
    } finally {
      await db.destroy();
      await proxy.stop();
    }
  });
});

describe('D28: the app over PGlite held by a transaction that does not end', () => {
  it('answers 503 with Retry-After within the deadline, and 200 again once the transaction ends', async () => {
    const db = await createPGliteDatabase({ queryTimeout: DEADLINE_SECONDS });
    try {
      await migrateToLatest(db);
      const { meter } = await seededApp(createKyselyStore(db));
      expect((await meter()).status).toBe(200);

      let endTransaction!: () => void;
      const held = new Promise<void>((resolve) => (endTransaction = resolve));
      const holding = db.transaction().execute(async (trx) => {
        await sql`select 1`.execute(trx);
        await held;
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      await expectTimely503(meter);

      endTransaction();
      await holding;
      expect(await until200(meter, 5_000)).toBeLessThan(5_000);
    } finally {
      await db.destroy();
    }
  });
});
