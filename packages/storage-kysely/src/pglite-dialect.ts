import type { Driver } from 'kysely';
import { _DEFAULT_QUERY_TIMEOUT_SECONDS, _DeadlineControl, _registerDeadline } from './_deadline.js';
import { _PostgresDialectBase } from './_postgres-dialect-base.js';
import { _PGliteDriver } from './_pglite-driver.js';

/**
 * The part of a PGlite instance (`@electric-sql/pglite`) the dialect uses, described structurally
 * so that the package does not need PGlite's types at compile time.
 */
export interface PGliteClient {
  query<Row>(query: string, params?: unknown[]): Promise<{ rows: Row[]; affectedRows?: number }>;
  close(): Promise<void>;
  readonly closed: boolean;
  readonly waitReady?: Promise<void>;
}

/** Options of {@link PGliteDialect}. */
export interface PGliteDialectConfig {
  /** A PGlite instance, or a function that creates one on first use. */
  readonly pglite: PGliteClient | (() => PGliteClient | Promise<PGliteClient>);
  /** Whether `db.destroy()` closes the instance. Default `true`, like Kysely's pool-based dialects. */
  readonly closeOnDestroy?: boolean;
  /**
   * Seconds a call may wait for its turn and run (D28): past it the call rejects, and the store
   * answers `StorageUnavailableError` (→ 503) instead of queueing without limit behind a long
   * transaction. Default 5; `0` turns the deadline off. (A query already running inside PGlite
   * cannot be interrupted: the deadline bounds the wait, the answer arrives when PGlite is done.)
   */
  readonly queryTimeout?: number;
}

/**
 * A Kysely dialect for embedded PGlite. PGlite is one PostgreSQL backend in this process, so the
 * dialect has exactly one connection and hands it to one query or transaction at a time (a
 * queue): a transaction is `BEGIN … COMMIT` on that connection and nothing else interleaves with
 * it. SQL, adapter and introspection are Kysely's PostgreSQL ones.
 *
 * @example
 * ```ts
 * import { PGlite } from '@electric-sql/pglite';
 * import { Kysely } from 'kysely';
 * import { PGliteDialect, type FleetHoursDatabase } from '@fleet-hours/storage-kysely';
 * const db = new Kysely<FleetHoursDatabase>({ dialect: new PGliteDialect({ pglite: () => new PGlite('./data') }) });
 * ```
 */
export class PGliteDialect extends _PostgresDialectBase {
  readonly #config: PGliteDialectConfig;
  readonly #deadline: _DeadlineControl;

  constructor(config: PGliteDialectConfig) {
    super();
    this.#config = config;
    this.#deadline = new _DeadlineControl(config.queryTimeout ?? _DEFAULT_QUERY_TIMEOUT_SECONDS);
    _registerDeadline(this, this.#deadline);
  }

  createDriver(): Driver {
    return new _PGliteDriver(this.#config, this.#deadline);
  }
}
