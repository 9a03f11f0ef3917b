import { Kysely } from 'kysely';
import { DeadlineControl, deadlineOf, registerDeadline } from './deadline.js';
import { importPeer } from './import-peer.js';
import type { FleetHoursDatabase } from '../schema/database-schema.js';
import { PGliteDialect, type PGliteClient } from './pglite-dialect.js';

/** Options of {@link createPGliteDatabase}. */
export interface PGliteDatabaseOptions {
  /** Directory of the embedded database, created when missing. Omit (and omit `pglite`) for a database in memory. */
  readonly dataDir?: string;
  /** An instance you created (with extensions or options of your own); closed by `db.destroy()`. */
  readonly pglite?: PGliteClient;
  /** Seconds a call may wait for its turn and run before it fails as unavailable (D28). Default 5; `0` turns it off. */
  readonly queryTimeout?: number;
}

/**
 * Opens an embedded PostgreSQL (PGlite) as a `Kysely<FleetHoursDatabase>`: in a data directory,
 * in memory, or over a PGlite instance you pass. Needs the `@electric-sql/pglite` peer dependency.
 * PGlite is one backend in this process: queries and transactions take turns (see {@link PGliteDialect}).
 * One process at a time may open a data directory.
 *
 * @param options `dataDir`, or `pglite`, or nothing for memory.
 * @returns The database, ready; `db.destroy()` closes PGlite.
 * @throws {RangeError} When `queryTimeout` is negative or not a number.
 * @example
 * ```ts
 * import { createKyselyStore, createPGliteDatabase, migrateToLatest } from '@fleet-hours/storage-kysely';
 * const db = await createPGliteDatabase({ dataDir: './.fleet-hours/data' });
 * await migrateToLatest(db);
 * const store = createKyselyStore(db);
 * ```
 */
export async function createPGliteDatabase(options: PGliteDatabaseOptions = {}): Promise<Kysely<FleetHoursDatabase>> {
  // Checked before PGlite opens, so that a bad value leaves nothing open.
  if (options.queryTimeout !== undefined) new DeadlineControl(options.queryTimeout);
  const pglite = options.pglite ?? (await _openPGlite(options.dataDir));
  await pglite.waitReady;
  const dialect = new PGliteDialect({ pglite, ...(options.queryTimeout === undefined ? {} : { queryTimeout: options.queryTimeout }) });
  return registerDeadline(new Kysely<FleetHoursDatabase>({ dialect }), deadlineOf(dialect)!);
}

async function _openPGlite(dataDir: string | undefined): Promise<PGliteClient> {
  const { PGlite } = await importPeer('@electric-sql/pglite', 'createPGliteDatabase()', () => import('@electric-sql/pglite'));
  if (dataDir === undefined) return new PGlite();
  // PGlite creates only the last directory of a path; `memory://…` and `idb://…` are not paths.
  if (!/^[a-z]+:\/\//i.test(dataDir)) {
    const { mkdir } = await import('node:fs/promises');
    await mkdir(dataDir, { recursive: true });
  }
  return new PGlite(dataDir);
}
