import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { StorageUnavailableError, type FleetHoursStore, type RateLimitStore } from '@fleet-hours/core';
import { CommandError } from '../cli/cli-errors.js';
import { lockDataDir, LOCK_FILE_NAME, type DataDirLock } from './data-dir-lock.js';
import { describeDatabaseTarget, redactUrl, type DatabaseTarget } from './database-target.js';

/** An open database: the store, the shared rate-limit counters (D15) and how to close it. */
export interface OpenedDatabase {
  readonly target: DatabaseTarget;
  readonly store: FleetHoursStore;
  /** Counters in the database, so that several server instances share the limits (D15). */
  readonly rateLimitStore?: RateLimitStore | undefined;
  close(): Promise<void>;
}

/** How {@link DatabaseOpener} opens a target. */
export interface OpenDatabaseOptions {
  /** Bring the schema up to date first. */
  readonly migrate: boolean;
  /** Seconds every database call may take before it fails as unavailable (D28). Default 5 (the storage's); `0`: none. */
  readonly queryTimeout?: number;
  /** Connections to a PostgreSQL server at most. Default 10 (the storage's). */
  readonly poolSize?: number;
}

/** Opens a target; `migrate` brings the schema up to date first. Tests pass one over a memory store. */
export type DatabaseOpener = (target: DatabaseTarget, options: OpenDatabaseOptions) => Promise<OpenedDatabase>;

/**
 * Opens a PostgreSQL server or the embedded PGlite database through `@fleet-hours/storage-kysely`
 * (loaded on first use, so `--help` starts fast). An embedded directory is locked for this process
 * (PGlite is single-process), and a directory holding something other than a database is refused.
 *
 * @param target Where.
 * @param options `migrate`: run the migrations before returning; the deadline of a call and the pool size (D28).
 * @returns The open database.
 * @throws {CommandError} When it cannot be opened, with the reason and no password; the storage's
 *   error (e.g. `StorageUnavailableError` for a server that cannot be reached, D18) is its `cause`.
 * @example
 * ```ts
 * import { openDatabase } from '@fleet-hours/server';
 * const database = await openDatabase({ kind: 'pglite', dataDir: './fleet-data' }, { migrate: true });
 * console.log((await database.store.listAccounts()).length);
 * await database.close();
 * ```
 */
export const openDatabase: DatabaseOpener = async (target, { migrate, queryTimeout, poolSize }) => {
  let lock: DataDirLock | null = null;
  if (target.kind === 'pglite') {
    refuseForeignDirectory(target.dataDir);
    lock = lockDataDir(target.dataDir);
  }
  try {
    const storage = await import('@fleet-hours/storage-kysely');
    const limits = { ...(queryTimeout === undefined ? {} : { queryTimeout }), ...(poolSize === undefined ? {} : { poolSize }) };
    const opened = await storage.openStore(
      target.kind === 'postgres'
        ? { databaseUrl: target.url, migrate: false, ...limits }
        : target.kind === 'pglite'
          ? { dataDir: target.dataDir, migrate: false, ...limits }
          : { inMemory: true, migrate: false, ...limits },
    );
    try {
      // One query when the schema is already current (P19).
      if (migrate) await storage.migrateToLatest(opened.db);
    } catch (error) {
      await closeWithin(opened.close(), CLOSE_TIMEOUT_MS);
      throw error;
    }
    let closed = false;
    return {
      target,
      store: opened.store,
      rateLimitStore: opened.store,
      async close() {
        if (closed) return;
        closed = true;
        try {
          await closeWithin(opened.close(), CLOSE_TIMEOUT_MS);
        } finally {
          lock?.release();
        }
      },
    };
  } catch (error) {
    lock?.release();
    throw new CommandError(`Cannot open the database (${describeDatabaseTarget(target)}): ${describeOpenError(error)}`, { cause: error });
  }
};

/**
 * How long closing may take. The store bounds its own close (`closeTimeout`, 5 s by default, because
 * postgres.js can wait forever on a connection that broke mid-query); a command's outcome is known
 * by the time it closes, so the CLI stops waiting sooner than that.
 */
const CLOSE_TIMEOUT_MS = 1_000;

async function closeWithin(closing: Promise<void>, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([closing.catch(() => {}), new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** Refuses a non-empty directory that is not a PGlite database, e.g. a mistyped `--data-dir .`. */
function refuseForeignDirectory(dataDir: string): void {
  if (!existsSync(dataDir)) return;
  let entries: string[];
  try {
    entries = readdirSync(dataDir).filter((entry) => entry !== LOCK_FILE_NAME);
  } catch (error) {
    throw new CommandError(`Cannot use ${dataDir} as the embedded database: ${(error as Error).message}`);
  }
  if (entries.length > 0 && !existsSync(join(dataDir, 'PG_VERSION'))) {
    throw new CommandError(`${dataDir} is not empty and holds no embedded database: choose an empty or new directory with --data-dir`);
  }
}

/**
 * Why a database could not be opened, without a password. An unreachable database is told by its
 * class (`StorageUnavailableError`, thrown by the storage for every kind of connection failure, D18);
 * its cause says how (`connect ECONNREFUSED 127.0.0.1:5432`).
 */
function describeOpenError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const how = error instanceof StorageUnavailableError && error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return redactUrl(`${message.split('\n')[0]}${how}`);
}
