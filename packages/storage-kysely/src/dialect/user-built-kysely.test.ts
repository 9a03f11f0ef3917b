/**
 * Adapters take user-built clients: an application that already runs Kysely on
 * PostgreSQL through the community `kysely-postgres-js` dialect hands that instance to
 * createKyselyStore() and gets a store that passes the whole storage and rate-limit contract.
 *
 * The package's own connector (createPostgresDatabase) uses its own postgres.js dialect instead,
 * because kysely-postgres-js does not recover from an outage (D18; see the README). That is a
 * property of the connection, not of the store, so the user's choice of dialect still works.
 */
import { Kysely } from 'kysely';
import { PostgresJSDialect } from 'kysely-postgres-js';
import postgres from 'postgres';
import { afterAll, beforeAll } from 'vitest';
import { createTestSchema, describeWithPostgres, type TestPostgres } from '../../../../test/support/postgres.js';
import { describeKyselyContracts } from '../testing/fixture.js';
import type { FleetHoursDatabase } from '../schema/database-schema.js';
import { migrateToLatest } from '../schema/migrate-to-latest.js';

describeWithPostgres('createKyselyStore() on a Kysely the user built with kysely-postgres-js', () => {
  let server: TestPostgres;
  let db: Kysely<FleetHoursDatabase>;
  beforeAll(async () => {
    server = await createTestSchema();
    const sql = postgres(process.env.DATABASE_URL!, { max: 4, onnotice: () => {}, connection: { search_path: server.name } });
    db = new Kysely<FleetHoursDatabase>({ dialect: new PostgresJSDialect({ postgres: sql }) });
    await migrateToLatest(db);
  });
  afterAll(async () => {
    await db?.destroy();
    await server?.drop();
  });

  describeKyselyContracts('kysely-postgres-js', () => db);
});
