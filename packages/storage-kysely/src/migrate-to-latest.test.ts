import { sql, type Kysely, type KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, createTestSchema, describeWithPostgres, type TestPostgres } from '../../../test/support/postgres.js';
import { _parseSearchPath } from './_search-path.js';
import { createKyselyStore } from './create-kysely-store.js';
import { createPGliteDatabase } from './create-pglite-database.js';
import { createPostgresDatabase } from './create-postgres-database.js';
import type { FleetHoursDatabase } from './database-schema.js';
import { createFleetHoursMigrator, FLEET_HOURS_MIGRATIONS, migrateToLatest, schemaIsCurrent } from './migrate-to-latest.js';

const TABLES = ['accounts', 'api_keys', 'devices', 'engine_day_figures', 'engine_segments', 'fleet_hours_migration', 'fleet_hours_migration_lock', 'ingest_tokens', 'rate_limit_counters', 'telemetry_points'];
const T0 = 1_767_225_600;

const tablesOf = async (db: Kysely<FleetHoursDatabase>) => {
  const { rows } = await sql<{ name: string }>`
    select table_name as name from information_schema.tables where table_schema = current_schema() order by 1`.execute(db);
  return rows.map((row) => row.name);
};
/** A plugin that records every query run through it. */
const recording = (queries: string[]): KyselyPlugin => ({
  transformQuery: ({ node }) => {
    queries.push(node.kind);
    return node;
  },
  transformResult: async ({ result }) => result,
});
const executedMigrations = async (db: Kysely<FleetHoursDatabase>) =>
  (await (await createFleetHoursMigrator(db)).getMigrations()).filter((migration) => migration.executedAt !== undefined).map((migration) => migration.name);

/** The schema tests, run on a fresh database of each backend (PGlite: one instance, reset by dropping its schema). */
function describeMigrations(name: string, fresh: () => Promise<Kysely<FleetHoursDatabase>>): void {
  describe(`migrateToLatest() on ${name}`, () => {
    it('creates the whole schema on an empty database', async () => {
      const db = await fresh();
      expect(await tablesOf(db)).toEqual([]);
      await migrateToLatest(db);
      expect(await tablesOf(db)).toEqual(TABLES);
      expect(await executedMigrations(db)).toEqual(Object.keys(FLEET_HOURS_MIGRATIONS));
    });

    it('is idempotent: running it again changes nothing and keeps the data', async () => {
      const db = await fresh();
      await migrateToLatest(db);
      const store = createKyselyStore(db);
      await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
      await migrateToLatest(db);
      await migrateToLatest(db);
      expect(await executedMigrations(db)).toEqual(Object.keys(FLEET_HOURS_MIGRATIONS));
      expect((await store.listAccounts()).map((account) => account.name)).toEqual(['Acme']);
    });

    it('on a current schema, answers in one query (P19), so every process may call it on every start', async () => {
      const db = await fresh();
      await migrateToLatest(db);
      const queries: string[] = [];
      await migrateToLatest(db.withPlugin(recording(queries)));
      expect(queries).toHaveLength(1);
    });

    it('schemaIsCurrent() is true only when exactly the known migrations have run, in one query', async () => {
      const db = await fresh();
      expect(await schemaIsCurrent(db)).toBe(false);
      await (await createFleetHoursMigrator(db)).migrateTo('0001_initial');
      expect(await schemaIsCurrent(db)).toBe(false);
      await migrateToLatest(db);
      const queries: string[] = [];
      expect(await schemaIsCurrent(db.withPlugin(recording(queries)))).toBe(true);
      expect(queries).toHaveLength(1);
      await sql`insert into fleet_hours_migration (name, timestamp) values ('9999_from_the_future', '2030-01-01T00:00:00Z')`.execute(db);
      expect(await schemaIsCurrent(db)).toBe(false);
    });

    it('runs only the missing migrations on an older database, keeping its data', async () => {
      const db = await fresh();
      const { error } = await (await createFleetHoursMigrator(db)).migrateTo('0001_initial');
      expect(error).toBeUndefined();
      expect(await tablesOf(db)).not.toContain('rate_limit_counters');
      const store = createKyselyStore(db);
      const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
      // Data as the 0001 schema holds it, written by hand: today's store writes columns of later migrations.
      const { rows } = await sql<{ id: number }>`
        insert into devices (account_id, name, imei, model, time_zone) values (${account.id}, 'Truck', '1', 'm', 'UTC') returning id`.execute(db);
      const device = rows[0];
      await sql`
        insert into engine_segments (device_id, started_at, ended_at, state)
        values (${device!.id}, to_timestamp(${T0}::float8), to_timestamp(${T0 + 60}::float8), 'idle')`.execute(db);

      await migrateToLatest(db);
      expect(await executedMigrations(db)).toEqual(Object.keys(FLEET_HOURS_MIGRATIONS));
      expect(await store.listSegments({ deviceId: device!.id })).toHaveLength(1);
      expect(await store.consume({ key: 'k', windowStart: T0, windowSeconds: 60, limit: 1 })).toEqual({ count: 1, allowed: true });
    });

    it('a failing migration is named in a clear error and leaves the database as it was', async () => {
      const db = await fresh();
      await (await createFleetHoursMigrator(db)).migrateTo('0001_initial');
      // Something already occupies the name the next migration needs.
      await sql`create table rate_limit_counters (id integer)`.execute(db);
      await expect(migrateToLatest(db)).rejects.toThrow(/^Fleet Hours migration "0002_rate_limit_counters" failed: .*rate_limit_counters.*already exists/);
      expect(await executedMigrations(db)).toEqual(['0001_initial']);
    });

    it('refuses a database migrated by a newer version, naming the unknown migration', async () => {
      const db = await fresh();
      await migrateToLatest(db);
      await sql`insert into fleet_hours_migration (name, timestamp) values ('9999_from_the_future', '2030-01-01T00:00:00Z')`.execute(db);
      await expect(migrateToLatest(db)).rejects.toThrow(/Fleet Hours migration failed: .*9999_from_the_future/);
    });
  });
}

let pglite: Kysely<FleetHoursDatabase>;
let schemaCount = 0;
beforeAll(async () => {
  pglite = await createPGliteDatabase();
});
afterAll(async () => {
  await pglite?.destroy();
});
// A new schema per test on the one PGlite instance: the database is empty as far as the test sees.
describeMigrations('PGlite', async () => {
  const schema = `migration_test_${++schemaCount}`;
  await sql`create schema ${sql.id(schema)}`.execute(pglite);
  await sql`set search_path to ${sql.id(schema)}`.execute(pglite);
  return pglite;
});

describe('schemaIsCurrent() looks only at the schema the migrator uses', () => {
  it('is false while current_schema() is empty, even when a schema later on the search_path is migrated', async () => {
    await sql`create schema migrated_elsewhere`.execute(pglite);
    await sql`create schema empty_here`.execute(pglite);
    await sql`set search_path to migrated_elsewhere`.execute(pglite);
    await migrateToLatest(pglite);
    await sql`set search_path to empty_here, migrated_elsewhere`.execute(pglite);
    expect(await schemaIsCurrent(pglite)).toBe(false);
    await migrateToLatest(pglite);
    expect(await tablesOf(pglite)).toEqual(TABLES);
    expect(await schemaIsCurrent(pglite)).toBe(true);
  });
});

describeWithPostgres('migrations on the PostgreSQL server', () => {
  const servers: TestPostgres[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.drop()));
  });
  const freshSchema = async () => {
    const server = await createTestSchema();
    servers.push(server);
    return server.connect({ max: 2 });
  };

  describeMigrations('PostgreSQL', freshSchema);

  it('several instances starting at once migrate once, under the migration lock', async () => {
    const server = await createTestSchema();
    servers.push(server);
    const instances = Array.from({ length: 4 }, () => server.connect({ max: 2 }));
    await Promise.all(instances.map((db) => migrateToLatest(db)));
    expect(await executedMigrations(instances[0]!)).toEqual(Object.keys(FLEET_HOURS_MIGRATIONS));
    expect(await tablesOf(instances[0]!)).toEqual(TABLES);
  });

  it('creates the schema named by the search_path when it does not exist yet, and leaves other schemas alone', async () => {
    const holder = await createTestDatabase();
    servers.push(holder);
    // Another schema of the same database already holds a migrated Fleet Hours: it must not be taken for ours.
    const publicDb = holder.connect({ max: 1 });
    await migrateToLatest(publicDb);
    const db = createPostgresDatabase({ connectionString: holder.url, schema: 'fleet hours "tenant"', max: 1 });
    try {
      await migrateToLatest(db);
      expect(await tablesOf(db)).toEqual(TABLES);
      const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
      expect(rows[0]!.schema).toBe('fleet hours "tenant"');
    } finally {
      await db.destroy();
    }
  });

  it('a URL carrying options=-c search_path=… lands in that schema', async () => {
    const server = await createTestSchema();
    servers.push(server);
    const db = createPostgresDatabase({ connectionString: server.url, max: 1 });
    try {
      await migrateToLatest(db);
      const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
      expect(rows[0]!.schema).toBe(server.name);
    } finally {
      await db.destroy();
    }
  });
});

describe('_parseSearchPath()', () => {
  it('splits a search_path setting and unquotes quoted names', () => {
    expect(_parseSearchPath('"$user", public')).toEqual(['$user', 'public']);
    expect(_parseSearchPath('"fleet hours ""tenant""",public')).toEqual(['fleet hours "tenant"', 'public']);
    expect(_parseSearchPath('')).toEqual([]);
  });
});
