import { sql, type Kysely } from 'kysely';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestSchema, describeWithPostgres, type TestPostgres } from '../../../../test/support/postgres.js';
import { openStore } from './open-store.js';

// biome-ignore lint/suspicious/noExplicitAny: any schema, only its tables are counted.
const tableCount = async (db: Kysely<any>) => {
  const { rows } = await sql<{
    count: number | string;
  }>`select count(*) as count from information_schema.tables where table_schema = current_schema()
       -- D42: the monthly partitions of telemetry_points are not tables of their own.
       and table_name not in (select relname from pg_class where relispartition)`.execute(db);
  return Number(rows[0]!.count);
};

describe('openStore()', () => {
  it('refuses to guess where the data lives', async () => {
    await expect(openStore({})).rejects.toThrow(new TypeError('openStore() needs a databaseUrl, a dataDir, or inMemory: true'));
  });

  it('inMemory: embedded PGlite, migrated, and close() may be called twice', async () => {
    const opened = await openStore({ inMemory: true });
    expect(opened.backend).toBe('pglite');
    const account = await opened.store.createAccount({ name: 'Acme', plan: 'business', now: 0 });
    expect(await opened.store.findAccount({ accountId: account.id })).toEqual(account);
    await opened.close();
    await opened.close();
  });

  it('dataDir: the data survives closing and opening again; migrate: false leaves the schema alone', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'fleet-hours-pglite-'));
    try {
      const first = await openStore({ dataDir: join(dataDir, 'nested', 'data'), migrate: false });
      expect(await tableCount(first.db)).toBe(0);
      await first.close();
      const second = await openStore({ dataDir: join(dataDir, 'nested', 'data') });
      await second.store.createAccount({ name: 'Kept', plan: 'business', now: 0 });
      await second.close();
      const third = await openStore({ dataDir: join(dataDir, 'nested', 'data') });
      expect((await third.store.listAccounts()).map((account) => account.name)).toEqual(['Kept']);
      await third.close();
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});

describeWithPostgres('openStore() with a database URL', () => {
  let server: TestPostgres;
  afterAll(async () => {
    await server?.drop();
  });

  it('uses the PostgreSQL server, migrated, and takes precedence over dataDir', async () => {
    server = await createTestSchema();
    const opened = await openStore({ databaseUrl: server.url, dataDir: '/nonexistent/never-created' });
    try {
      expect(opened.backend).toBe('postgres');
      expect(await tableCount(opened.db)).toBe(29); // with audit_entries (D55), device_tags (D61), the work calendars (D58), device_positions and the AEMP sources and polls (D65)
      await opened.store.createAccount({ name: 'Acme', plan: 'business', now: 0 });
      expect((await opened.store.listAccounts()).map((account) => account.name)).toEqual(['Acme']);
    } finally {
      await opened.close();
    }
  });
});
