import { sql } from 'kysely';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestSchema, DATABASE_URL, describeWithPostgres, type TestPostgres } from '../../../../test/support/postgres.js';
import { createKyselyStore } from '../stores/create-kysely-store.js';
import { createPostgresDatabase } from './create-postgres-database.js';
import { migrateToLatest } from '../schema/migrate-to-latest.js';

describe('createPostgresDatabase() options', () => {
  it('needs exactly one of connectionString and sql, and schema only with a connectionString', () => {
    expect(() => createPostgresDatabase({})).toThrow(new TypeError('createPostgresDatabase() takes either connectionString or sql'));
    const sqlInstance = postgres('postgres://127.0.0.1:1/none');
    expect(() => createPostgresDatabase({ connectionString: 'postgres://127.0.0.1:1/none', sql: sqlInstance })).toThrow(TypeError);
    expect(() => createPostgresDatabase({ sql: sqlInstance, schema: 'tenant' })).toThrow(
      /pass connection: \{ search_path \} to postgres\(\)/,
    );
    expect(() => createPostgresDatabase({ connectionString: 'postgres://127.0.0.1:1/none', schema: '' })).toThrow(
      /schema must be a non-empty string/,
    );
  });
});

describeWithPostgres('createPostgresDatabase() on the PostgreSQL server', () => {
  let server: TestPostgres;
  beforeAll(async () => {
    server = await createTestSchema();
  });
  afterAll(async () => {
    await server?.drop();
  });

  it('turns JIT compilation off on its connections: bounded queries must not pay for compiling plans (D27)', async () => {
    const db = createPostgresDatabase({ connectionString: DATABASE_URL!, schema: server.name });
    try {
      const { rows } = await sql<{ jit: string }>`select current_setting('jit') as jit`.execute(db);
      expect(rows).toEqual([{ jit: 'off' }]);
    } finally {
      await db.destroy();
    }
  });

  it('takes a postgres.js instance you built, and db.destroy() ends it', async () => {
    const own = postgres(DATABASE_URL!, { max: 2, onnotice: () => {}, connection: { search_path: server.name } });
    const db = createPostgresDatabase({ sql: own });
    await migrateToLatest(db);
    const store = createKyselyStore(db);
    await store.createAccount({ name: 'Acme', plan: 'business', now: 0 });
    expect((await own<{ name: string }[]>`select name from accounts`).map((row) => row.name)).toEqual(['Acme']);
    await db.destroy();
    await expect(own`select 1`).rejects.toMatchObject({ code: 'CONNECTION_ENDED' });
  });

  it('keeps each schema to itself: the same tables in two schemas hold separate data', async () => {
    const other = await createTestSchema();
    try {
      const first = server.connect();
      const second = other.connect();
      await migrateToLatest(first);
      await migrateToLatest(second);
      await createKyselyStore(first).createAccount({ name: 'In the first', plan: 'business', now: 0 });
      expect(await createKyselyStore(second).listAccounts()).toEqual([]);
    } finally {
      await other.drop();
    }
  });

  it('names its connections with applicationName', async () => {
    const applicationName = `fleet-hours-name-test-${process.pid}`;
    const db = server.connect({ applicationName });
    const { rows } = await sql<{ name: string }>`select current_setting('application_name') as name`.execute(db);
    expect(rows[0]!.name).toBe(applicationName);
  });

  it('transactions roll back whole and savepoints work', async () => {
    const db = server.connect();
    await sql`create table if not exists dialect_items (id integer primary key)`.execute(db);
    await expect(
      db.transaction().execute(async (trx) => {
        await sql`insert into dialect_items values (1)`.execute(trx);
        await sql`insert into dialect_items values (1)`.execute(trx);
      }),
    ).rejects.toThrow(/duplicate key/);
    const trx = await db.startTransaction().execute();
    await sql`insert into dialect_items values (2)`.execute(trx);
    const savepoint = await trx.savepoint('inner').execute();
    await sql`insert into dialect_items values (3)`.execute(savepoint);
    await savepoint.rollbackToSavepoint('inner').execute();
    await trx.commit().execute();
    const { rows } = await sql<{ id: number }>`select id from dialect_items order by id`.execute(db);
    expect(rows.map((row) => row.id)).toEqual([2]);
  });
});
