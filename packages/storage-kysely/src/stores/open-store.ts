import type { Kysely } from 'kysely';
import { createKyselyStore, type KyselyFleetHoursStore } from './create-kysely-store.js';
import { createPGliteDatabase } from '../dialect/create-pglite-database.js';
import { createPostgresDatabase } from '../dialect/create-postgres-database.js';
import type { FleetHoursDatabase } from '../schema/database-schema.js';
import { migrateToLatest } from '../schema/migrate-to-latest.js';

/** Options of {@link openStore}: a PostgreSQL server, or embedded PGlite on disk or in memory. */
export interface OpenStoreOptions {
  /** A PostgreSQL connection string. Takes precedence over `dataDir` and `inMemory`. */
  readonly databaseUrl?: string | undefined;
  /** PGlite's data directory (created when missing), when there is no `databaseUrl`. */
  readonly dataDir?: string | undefined;
  /** PGlite in memory, when there is neither `databaseUrl` nor `dataDir`: gone when the process ends. */
  readonly inMemory?: boolean | undefined;
  /** Run {@link migrateToLatest} before returning. Default `true`. */
  readonly migrate?: boolean | undefined;
  /**
   * Seconds every database call may take before it fails with `StorageUnavailableError` (→ 503,
   * D28); a stalled link to a PostgreSQL server counts as unreachable. Default 5; `0` turns the
   * deadline off. Migrations run without it.
   */
  readonly queryTimeout?: number | undefined;
  /** Connections to the PostgreSQL server at most (its pool size). Default 10. PGlite has one. */
  readonly poolSize?: number | undefined;
}

/** What {@link openStore} returns. */
export interface OpenedStore {
  readonly store: KyselyFleetHoursStore;
  readonly db: Kysely<FleetHoursDatabase>;
  readonly backend: 'postgres' | 'pglite';
  /** Ends the pool or closes PGlite. Safe to call more than once. */
  close(): Promise<void>;
}

/**
 * Opens a ready store the way the reference server does: PostgreSQL when a database URL is given,
 * otherwise embedded PGlite in `dataDir` (or in memory), migrated to the latest schema.
 *
 * @param options Where the data lives, the deadline of a call and the pool size.
 * @returns The store, its database, which backend it is, and `close()`.
 * @throws {TypeError} When none of `databaseUrl`, `dataDir` and `inMemory` is given.
 * @throws {StorageUnavailableError} When the PostgreSQL server cannot be reached for the migration.
 * @example
 * ```ts
 * import { openStore } from '@fleet-hours/storage-kysely';
 * const { store, backend, close } = await openStore({ databaseUrl: process.env.DATABASE_URL, dataDir: './.fleet-hours/data' });
 * await close();
 * ```
 */
export async function openStore(options: OpenStoreOptions): Promise<OpenedStore> {
  let db: Kysely<FleetHoursDatabase>;
  let backend: OpenedStore['backend'];
  const timeout = options.queryTimeout === undefined ? {} : { queryTimeout: options.queryTimeout };
  if (options.databaseUrl) {
    db = createPostgresDatabase({
      connectionString: options.databaseUrl,
      ...timeout,
      ...(options.poolSize === undefined ? {} : { max: options.poolSize }),
    });
    backend = 'postgres';
  } else if (options.dataDir !== undefined && options.dataDir !== '') {
    db = await createPGliteDatabase({ dataDir: options.dataDir, ...timeout });
    backend = 'pglite';
  } else if (options.inMemory) {
    db = await createPGliteDatabase({ ...timeout });
    backend = 'pglite';
  } else {
    throw new TypeError('openStore() needs a databaseUrl, a dataDir, or inMemory: true');
  }

  if (options.migrate !== false) {
    try {
      await migrateToLatest(db);
    } catch (error) {
      await db.destroy().catch(() => {});
      throw error;
    }
  }

  let closing: Promise<void> | undefined;
  return {
    store: createKyselyStore(db),
    db,
    backend,
    close: () => (closing ??= db.destroy()),
  };
}
