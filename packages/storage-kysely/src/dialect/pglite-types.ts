/** The types `PGliteDialect` and its driver share (a module of their own, so neither imports the other's). */

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

/** Options of `PGliteDialect`. */
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
