/**
 * The PostgreSQL server for tests: `process.env.DATABASE_URL` (CI sets it). Each caller gets a
 * fresh, uniquely named schema or database that it drops when done, so test files run in parallel
 * and leave nothing behind; leftovers of a crashed run are dropped after six hours.
 *
 * Without DATABASE_URL, {@link describeWithPostgres} skips with a message saying so.
 */
import { createPostgresDatabase, type FleetHoursDatabase } from '@fleet-hours/storage-kysely';
import { sql, type Kysely } from 'kysely';
import postgres from 'postgres';
import { describe } from 'vitest';

/** The server's URL, or `undefined` when tests should run without one. */
export const DATABASE_URL: string | undefined = process.env.DATABASE_URL || undefined;

const PREFIX = 'fh_test_';
const STALE_AFTER_MS = 6 * 60 * 60 * 1000;

/**
 * `describe` when DATABASE_URL is set; otherwise `describe.skip`, with the reason in the suite name.
 *
 * @param name The suite name.
 * @param body The suite.
 */
export function describeWithPostgres(name: string, body: () => void): void {
  if (DATABASE_URL) describe(name, body);
  else describe.skip(`${name} (skipped: set DATABASE_URL, e.g. postgres://postgres@127.0.0.1:5432/test, to run it)`, body);
}

/** A fresh schema or database on the test server. */
export interface TestPostgres {
  /** `schema` (in DATABASE_URL's database) or `database` (a database of its own). */
  readonly kind: 'schema' | 'database';
  /** Its name. */
  readonly name: string;
  /**
   * A connection string that lands in it: for a schema, DATABASE_URL with
   * `options=-c search_path=<name>` (understood by postgres.js and libpq); for a database, its URL.
   * Hand it to a child process (the server, the CLI) as DATABASE_URL.
   */
  readonly url: string;
  /** A new pooled `Kysely` on it (search_path set for a schema); every one is destroyed by {@link TestPostgres.drop}. */
  connect(options?: { readonly max?: number; readonly applicationName?: string }): Kysely<FleetHoursDatabase>;
  /** Destroys the connections made by `connect()` and drops the schema or database. */
  drop(): Promise<void>;
}

/**
 * Creates an empty schema in DATABASE_URL's database. Cheap: prefer it.
 *
 * @returns The schema; call `drop()` in `afterAll`.
 * @throws {Error} When DATABASE_URL is not set.
 */
export async function createTestSchema(): Promise<TestPostgres> {
  const baseUrl = _requireUrl();
  const name = _uniqueName();
  await _withAdmin(baseUrl, async (sql) => {
    await _dropStale(sql, 'schema');
    await sql.unsafe(`create schema ${_quote(name)}`);
  });
  const url = new URL(baseUrl);
  url.searchParams.set('options', `-c search_path=${name}`);
  return _testPostgres(
    'schema',
    name,
    url.toString(),
    (options) => createPostgresDatabase({ connectionString: baseUrl, schema: name, ...options }),
    async () => {
      await _withAdmin(baseUrl, (sql) => sql.unsafe(`drop schema if exists ${_quote(name)} cascade`));
    },
  );
}

/**
 * Creates an empty database of its own, for tests that need one (a child process given only a
 * URL, `ALTER DATABASE`, terminating every connection to it).
 *
 * @returns The database; call `drop()` in `afterAll`.
 * @throws {Error} When DATABASE_URL is not set.
 */
export async function createTestDatabase(): Promise<TestPostgres> {
  const baseUrl = _requireUrl();
  const name = _uniqueName();
  await _withAdmin(baseUrl, async (sql) => {
    await _dropStale(sql, 'database');
    await sql.unsafe(`create database ${_quote(name)}`);
  });
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return _testPostgres(
    'database',
    name,
    url.toString(),
    (options) => createPostgresDatabase({ connectionString: url.toString(), ...options }),
    async () => {
      await _withAdmin(baseUrl, (sql) => sql.unsafe(`drop database if exists ${_quote(name)} with (force)`));
    },
  );
}

function _testPostgres(
  kind: TestPostgres['kind'],
  name: string,
  url: string,
  open: (options: { max?: number; applicationName?: string }) => Kysely<FleetHoursDatabase>,
  dropIt: () => Promise<void>,
): TestPostgres {
  const opened: Kysely<FleetHoursDatabase>[] = [];
  return {
    kind,
    name,
    url,
    connect(options = {}) {
      const db = open({ max: options.max ?? 4, ...(options.applicationName ? { applicationName: options.applicationName } : {}) });
      opened.push(db);
      return db;
    },
    async drop() {
      await Promise.allSettled(opened.splice(0).map((db) => db.destroy()));
      await dropIt();
    },
  };
}

function _requireUrl(): string {
  if (!DATABASE_URL) throw new Error('DATABASE_URL is not set: use describeWithPostgres() so the suite is skipped without it');
  return DATABASE_URL;
}

/** `fh_test_<creation time, base 36>_<random>`: unique across parallel files and runs, and ageable. */
function _uniqueName(): string {
  return `${PREFIX}${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 10)}`;
}

async function _withAdmin<T>(url: string, work: (sql: postgres.Sql) => Promise<T>): Promise<T> {
  const sql = postgres(url, { max: 1, onnotice: () => {}, connect_timeout: 10 });
  try {
    return await work(sql);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** Drops test schemas or databases left by a crashed run, once they are old enough to be nobody's. */
async function _dropStale(sql: postgres.Sql, kind: TestPostgres['kind']): Promise<void> {
  const rows =
    kind === 'schema'
      ? await sql<{ name: string }[]>`select nspname as name from pg_namespace where nspname like ${`${PREFIX}%`}`
      : await sql<{ name: string }[]>`select datname as name from pg_database where datname like ${`${PREFIX}%`}`;
  for (const { name } of rows) {
    const created = Number.parseInt(name.slice(PREFIX.length).split('_')[0] ?? '', 36);
    if (!Number.isFinite(created) || Date.now() - created < STALE_AFTER_MS) continue;
    await sql
      .unsafe(kind === 'schema' ? `drop schema if exists ${_quote(name)} cascade` : `drop database if exists ${_quote(name)} with (force)`)
      .catch(() => {});
  }
}

function _quote(identifier: string): string {
  return `"${identifier.replace(/"/g, '""')}"`;
}

/**
 * Empties every Fleet Hours table and restarts the ids, for a fresh store per test on a shared
 * database (one PGlite or schema per file, never one per test).
 *
 * @param db A migrated database.
 */
export async function resetTables(db: Kysely<FleetHoursDatabase>): Promise<void> {
  await sql`truncate telemetry_points, engine_segments, engine_day_figures, hour_meter_readings, service_schedules, webhook_attempts, webhook_deliveries, webhook_events, webhook_endpoints, account_event_settings, event_checks, device_states, devices, api_keys, accounts, rate_limit_counters restart identity cascade`.execute(
    db,
  );
}
