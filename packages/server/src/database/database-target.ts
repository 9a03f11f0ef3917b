import { resolve } from 'node:path';
import { UsageError } from '../cli/cli-errors.js';
import type { GlobalFlags } from '../cli/parse-cli-args.js';

/** The default directory of the embedded database, relative to the working directory. */
export const DEFAULT_DATA_DIR = '.fleet-hours';

/** Which database a command uses. */
export type DatabaseTarget =
  | { readonly kind: 'postgres'; readonly url: string }
  | { readonly kind: 'pglite'; readonly dataDir: string }
  | { readonly kind: 'pglite-memory' };

/**
 * Chooses the database from the command line and the environment. An option given on the command
 * line beats the environment: `--database-url` → PostgreSQL; `--data-dir` → the embedded database
 * there (even when `DATABASE_URL` is set); neither → `DATABASE_URL` when set and not empty, else
 * the embedded database in `FLEET_HOURS_DATA_DIR` or `./.fleet-hours`.
 *
 * @param flags The global options as given.
 * @param env The environment.
 * @param cwd Relative data directories resolve against it.
 * @returns The target.
 * @throws {UsageError} When both `--database-url` and `--data-dir` are given.
 */
export function resolveDatabaseTarget(flags: GlobalFlags, env: Readonly<Record<string, string | undefined>>, cwd: string): DatabaseTarget {
  if (flags.databaseUrl !== undefined && flags.dataDir !== undefined) {
    throw new UsageError('Give either --database-url (a PostgreSQL server) or --data-dir (the embedded database), not both');
  }
  if (flags.databaseUrl !== undefined) return { kind: 'postgres', url: readDatabaseUrl(flags.databaseUrl, '--database-url') };
  if (flags.dataDir !== undefined) return { kind: 'pglite', dataDir: resolve(cwd, nonEmpty(flags.dataDir, '--data-dir')) };
  const envUrl = env.DATABASE_URL?.trim();
  if (envUrl) return { kind: 'postgres', url: readDatabaseUrl(envUrl, 'DATABASE_URL') };
  const envDir = env.FLEET_HOURS_DATA_DIR?.trim();
  return { kind: 'pglite', dataDir: resolve(cwd, envDir || DEFAULT_DATA_DIR) };
}

/**
 * Describes a target for messages and logs, without a password:
 * `PostgreSQL postgres://fleet:***@db/fh`, `embedded PGlite in /srv/.fleet-hours`.
 */
export function describeDatabaseTarget(target: DatabaseTarget): string {
  if (target.kind === 'postgres') return `PostgreSQL ${redactUrl(target.url)}`;
  if (target.kind === 'pglite') return `embedded PGlite in ${target.dataDir}`;
  return 'embedded PGlite in memory';
}

/** A connection string with its password replaced by `***`. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
  }
}

function readDatabaseUrl(text: string, what: string): string {
  const url = nonEmpty(text, what);
  if (!/^postgres(ql)?:\/\//i.test(url)) {
    throw new UsageError(
      `${what} must be a PostgreSQL connection string such as postgres://user@host:5432/dbname, got "${redactUrl(url)}"`,
    );
  }
  return url;
}

function nonEmpty(text: string, what: string): string {
  const trimmed = text.trim();
  if (trimmed === '') throw new UsageError(`${what} must not be empty`);
  return trimmed;
}
