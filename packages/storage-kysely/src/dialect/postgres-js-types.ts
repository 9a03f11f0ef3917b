/** The types the postgres.js dialect and its driver share (a module of their own, so neither imports the other's). */
import type { DeadlineControl } from './deadline.js';

/** The part of a postgres.js `Sql` instance (`postgres(...)`) the driver uses. */
export interface PostgresJsSql {
  // biome-ignore lint/suspicious/noExplicitAny: postgres.js's own signature, so that its instances fit structurally.
  unsafe(query: string, parameters?: any[], options?: { prepare?: boolean }): Promise<any>;
  begin(options: string, transaction: (sql: PostgresJsTransactionSql) => Promise<unknown>): Promise<unknown>;
  end(options?: { timeout?: number }): Promise<void>;
}

/** The transaction-scoped `sql` postgres.js hands to a `begin()` callback. */
export interface PostgresJsTransactionSql {
  // biome-ignore lint/suspicious/noExplicitAny: postgres.js's own signature, so that its instances fit structurally.
  unsafe(query: string, parameters?: any[], options?: { prepare?: boolean }): Promise<any>;
}

/** How `PostgresJsDialect` gets and keeps its pool. */
export interface PostgresJsPoolOptions {
  /** Creates the pool (or hands over the caller's). */
  readonly connect: () => Promise<PostgresJsSql>;
  /**
   * Whether `connect()` creates a new pool on every call (one this package configured), so that
   * a pool holding a connection stuck on a stalled link can be replaced (D28). A caller's own
   * `sql` is never replaced nor ended before `db.destroy()`.
   */
  readonly renewable: boolean;
  /** Seconds `destroy()` (and the end of a replaced pool) lets running queries finish. */
  readonly endTimeout: number;
  /** The deadline of every call (D28). */
  readonly deadline: DeadlineControl;
}
