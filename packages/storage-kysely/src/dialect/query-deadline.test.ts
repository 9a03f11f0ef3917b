/**
 * D28: every database call has a deadline. A stalled link (connection open, no answer) rejects
 * with `StorageUnavailableError` once the deadline passes, and the same store works again when
 * the link comes back: the stuck connections are discarded, never reused.
 */
import { StorageUnavailableError } from '@fleet-hours/core';
import { sql } from 'kysely';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createTestSchema, DATABASE_URL, describeWithPostgres, type TestPostgres } from '../../../../test/support/postgres.js';
import { startStallingProxy } from '../../../../test/support/stalling-proxy.js';
import { eventually } from '../testing/fixture.js';
import { isUnavailable } from '../stores/storage-error.js';
import { createKyselyStore } from '../stores/create-kysely-store.js';
import { createPGliteDatabase } from './create-pglite-database.js';
import { createPostgresDatabase } from './create-postgres-database.js';
import { migrateToLatest } from '../schema/migrate-to-latest.js';
import { withoutDeadline } from './deadline.js';

const T0 = 1_767_225_600;
const DEADLINE_SECONDS = 1;

describeWithPostgres('D28 deadline on the PostgreSQL server', () => {
  let server: TestPostgres;
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  afterAll(async () => {
    await server?.drop();
  });

  const open = async (connectionString: string) => {
    server ??= await createTestSchema();
    const db = createPostgresDatabase({ connectionString, schema: server.name, max: 3, queryTimeout: DEADLINE_SECONDS, closeTimeout: 0.2 });
    cleanups.push(() => db.destroy());
    await migrateToLatest(db);
    return db;
  };

  it('a stalled link rejects every call with StorageUnavailableError within the deadline, and the store recovers once the link is back', async () => {
    const upstream = new URL(DATABASE_URL!);
    const proxy = await startStallingProxy(upstream.hostname, Number(upstream.port || 5432));
    cleanups.push(() => proxy.stop());
    const db = await open(proxy.url(DATABASE_URL!));
    const store = createKyselyStore(db);
    const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });

    proxy.stall();
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const started = performance.now();
      const outcome = await store.findAccount({ accountId: account.id }).catch((error: unknown) => error);
      expect(outcome).toBeInstanceOf(StorageUnavailableError);
      expect((outcome as Error).message).toBe('Storage is unavailable (DEADLINE_EXCEEDED)');
      expect(performance.now() - started).toBeLessThan((DEADLINE_SECONDS + 1) * 1000);
    }
    // A write in a transaction too (BEGIN on a stuck link).
    await expect(store.consume({ key: 'k', windowStart: T0, windowSeconds: 60, limit: 30 })).rejects.toThrow(StorageUnavailableError);

    proxy.resume();
    const resumed = performance.now();
    expect(await eventually(() => store.findAccount({ accountId: account.id }))).toEqual(account);
    expect(performance.now() - resumed).toBeLessThan(5_000);
    expect(await store.consume({ key: 'k', windowStart: T0, windowSeconds: 60, limit: 30 })).toEqual({ count: 1, allowed: true });
  });

  it('calls that wait for a running lookup or read of theirs (P35, P36) are answered with it when it fails: within one deadline, not one each', async () => {
    const upstream = new URL(DATABASE_URL!);
    const proxy = await startStallingProxy(upstream.hostname, Number(upstream.port || 5432));
    cleanups.push(() => proxy.stop());
    const db = await open(proxy.url(DATABASE_URL!));
    const store = createKyselyStore(db);
    const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
    const device = (await store.createDevice({ accountId: account.id, name: 'Truck', imei: '1', model: 'm', timeZone: 'UTC' }))!;
    await store.createApiKey({ accountId: account.id, fingerprint: 'a'.repeat(64), label: null, expiresAt: null, now: T0 });

    proxy.stall();
    const started = performance.now();
    const counter = { keyPrefix: 'key:', keySuffix: ':/hours', windowStart: T0, windowSeconds: 60, limit: 100 };
    const calls = [
      ...Array.from({ length: 6 }, () => store.findApiKeyAndConsume!({ fingerprint: 'a'.repeat(64), counter })),
      ...Array.from({ length: 8 }, () =>
        store.findDeviceWithSums!({
          accountId: account.id,
          deviceId: device.id,
          timeZone: 'UTC',
          boundaries: [T0, T0 + 86_400],
          now: T0 + 86_400,
        }),
      ),
    ].map((call) =>
      call.then(
        () => 'answered',
        (error: unknown) => (error instanceof StorageUnavailableError ? 'unavailable' : error),
      ),
    );
    expect(await Promise.all(calls)).toEqual(Array.from({ length: 14 }, () => 'unavailable'));
    expect(performance.now() - started).toBeLessThan((DEADLINE_SECONDS + 1) * 1000);

    proxy.resume();
    expect(
      await eventually(() =>
        store.findDeviceWithSums!({
          accountId: account.id,
          deviceId: device.id,
          timeZone: 'UTC',
          boundaries: [T0, T0 + 86_400],
          now: T0 + 86_400,
        }),
      ),
    ).toMatchObject({ device: { id: device.id } });
    expect((await store.findApiKeyAndConsume!({ fingerprint: 'a'.repeat(64), counter })).count).toEqual({ count: 1, allowed: true });
  });

  it('the server cancels a statement past the deadline (statement_timeout), as unavailable; the next call works', async () => {
    const db = await open(DATABASE_URL!);
    const outcome = await sql`select pg_sleep(${DEADLINE_SECONDS + 2})`.execute(db).catch((error: unknown) => error);
    expect(isUnavailable(outcome)).toBe(true);
    const { rows } = await sql<{ timeout: string }>`select current_setting('statement_timeout') as timeout`.execute(db);
    expect(rows).toEqual([{ timeout: `${DEADLINE_SECONDS}s` }]);
  });

  it('migrations run without the deadline, on the server too', async () => {
    const db = await open(DATABASE_URL!);
    const slow = () => db.transaction().execute((trx) => sql`select pg_sleep(${DEADLINE_SECONDS + 0.5})`.execute(trx));
    await expect(slow()).rejects.toSatisfy(isUnavailable);
    await expect(withoutDeadline(db, slow)).resolves.toBeDefined();
  });
});

describe('D28 deadline on PGlite', () => {
  it('a call waiting behind a transaction that does not end rejects with StorageUnavailableError; the store works once it ends', async () => {
    const db = await createPGliteDatabase({ queryTimeout: DEADLINE_SECONDS });
    try {
      await migrateToLatest(db);
      const store = createKyselyStore(db);
      const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
      let endTransaction!: () => void;
      const held = new Promise<void>((resolve) => (endTransaction = resolve));
      const holding = db.transaction().execute(async (trx) => {
        await sql`select 1`.execute(trx);
        await held;
      });
      await new Promise((resolve) => setTimeout(resolve, 50)); // the transaction holds the connection

      const started = performance.now();
      const outcome = await store.findAccount({ accountId: account.id }).catch((error: unknown) => error);
      expect(outcome).toBeInstanceOf(StorageUnavailableError);
      expect(performance.now() - started).toBeLessThan((DEADLINE_SECONDS + 1) * 1000);

      endTransaction();
      await holding;
      expect(await store.findAccount({ accountId: account.id })).toEqual(account);
    } finally {
      await db.destroy();
    }
  });

  it('queryTimeout must be a number of seconds, 0 or more', async () => {
    await expect(createPGliteDatabase({ queryTimeout: -1 })).rejects.toThrow(
      'queryTimeout must be a number of seconds, 0 or more: got "-1"',
    );
  });
});
