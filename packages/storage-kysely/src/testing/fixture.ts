/**
 * Test fixture (not part of the package): what several storage test files share — the contracts
 * run on a Kysely store, query plans read with `EXPLAIN ANALYZE`, and retries while a pool reconnects.
 */
import { StorageUnavailableError, type TelemetryPoint } from '@fleet-hours/core';
import { describeRateLimitContract, describeStorageContract, STORAGE_CAPABILITIES } from '@fleet-hours/core/testing';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll } from 'vitest';
import { createTestSchema, resetTables, type TestPostgres } from '../../../../test/support/postgres.js';
import { createKyselyStore, type KyselyFleetHoursStore } from '../stores/create-kysely-store.js';
import { createPGliteDatabase } from '../dialect/create-pglite-database.js';
import type { FleetHoursDatabase } from '../schema/database-schema.js';
import { migrateToLatest } from '../schema/migrate-to-latest.js';

/** One migrated PGlite for the enclosing suite (or file), made before its tests and destroyed after them. */
export function usePGlite(): () => Kysely<FleetHoursDatabase> {
  let db: Kysely<FleetHoursDatabase>;
  beforeAll(async () => {
    db = await createPGliteDatabase();
    await migrateToLatest(db);
  });
  afterAll(async () => {
    await db?.destroy();
  });
  return () => db;
}

/**
 * A schema of its own on the test PostgreSQL for the enclosing suite, migrated, reached through a
 * pool of `max` connections, and dropped after the suite; `server()` makes more pools on it.
 */
export function usePostgresSchema(max: number): { readonly db: () => Kysely<FleetHoursDatabase>; readonly server: () => TestPostgres } {
  let server: TestPostgres;
  let db: Kysely<FleetHoursDatabase>;
  beforeAll(async () => {
    server = await createTestSchema();
    db = server.connect({ max });
    await migrateToLatest(db);
  });
  afterAll(async () => {
    await server?.drop();
  });
  return { db: () => db, server: () => server };
}

/** A store on the database of `db()` with empty tables: the tables are emptied on each call. */
export function freshStoreOn(db: () => Kysely<FleetHoursDatabase>): () => Promise<KyselyFleetHoursStore> {
  return async () => {
    await resetTables(db());
    return createKyselyStore(db());
  };
}

/**
 * Runs the storage and the rate-limit contract on a Kysely store over `db()`, emptied before each
 * test; `propertyRunShare` as the storage contract takes it (PGlite: fewer runs of its costliest
 * properties, which PostgreSQL runs in full).
 */
export function describeKyselyContracts(name: string, db: () => Kysely<FleetHoursDatabase>, { propertyRunShare = 1 } = {}): void {
  const makeStore = freshStoreOn(db);
  // The Kysely store offers every optional capability, the fleet pages' batch ones (D32) included.
  describeStorageContract(name, { makeStore, capabilities: STORAGE_CAPABILITIES, propertyRunShare });
  describeRateLimitContract(name, { makeStore });
}

/** A node of a PostgreSQL query plan, as `EXPLAIN (ANALYZE, FORMAT JSON)` writes it. */
export interface PlanNode {
  readonly 'Node Type': string;
  readonly 'Relation Name'?: string;
  readonly 'Index Name'?: string;
  readonly 'Actual Rows': number;
  readonly 'Actual Loops': number;
  readonly 'Rows Removed by Filter'?: number;
  readonly 'Rows Removed by Index Recheck'?: number;
  readonly Plans?: readonly PlanNode[];
}

/** `EXPLAIN (ANALYZE, FORMAT JSON)` of a compiled query. */
export async function explainAnalyze(
  db: Kysely<FleetHoursDatabase>,
  compiled: { sql: string; parameters: readonly unknown[] },
): Promise<PlanNode> {
  const { rows } = await db.executeQuery<{ 'QUERY PLAN': unknown }>({
    ...compiled,
    sql: `explain (analyze, format json) ${compiled.sql}`,
    query: { kind: 'RawNode' } as never,
    queryId: { queryId: 'explain' },
  } as never);
  const raw = rows[0]!['QUERY PLAN'];
  const parsed = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { Plan: PlanNode }[];
  return parsed[0]!.Plan;
}

/** Rows every scan of `table` produced or filtered away: what the query read from it. */
export function rowsReadFrom(node: PlanNode, table: string): number {
  const own =
    node['Relation Name'] === table
      ? (node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0)) * node['Actual Loops']
      : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + rowsReadFrom(child, table), 0);
}

/** Retries a call that may still fail as unavailable while the pool is replaced and reconnects. */
export async function eventually<T>(call: () => Promise<T>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof StorageUnavailableError) || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** Points every 30 s from `start`, states changing every few points (ignition off one in nine, speeds 0–19 km/h). */
export const pointsFrom = (start: number, count: number, seed: number): TelemetryPoint[] =>
  Array.from({ length: count }, (_, index) => ({
    time: start + index * 30,
    ignition: (index + seed) % 9 !== 0,
    speedKmh: ((index + seed) * 7) % 20,
  }));
