import type { Driver } from 'kysely';
import { _PostgresDialectBase } from './_postgres-dialect-base.js';
import type { _DeadlineControl } from './_deadline.js';
import { _PostgresJsDriver } from './_postgres-js-driver.js';

/** The part of a postgres.js `Sql` instance (`postgres(...)`) the driver uses. */
export interface PostgresJsSql {
  unsafe(query: string, parameters?: any[], options?: { prepare?: boolean }): Promise<any>;
  begin(options: string, transaction: (sql: PostgresJsTransactionSql) => Promise<unknown>): Promise<unknown>;
  end(options?: { timeout?: number }): Promise<void>;
}

/** The transaction-scoped `sql` postgres.js hands to a `begin()` callback. */
export interface PostgresJsTransactionSql {
  unsafe(query: string, parameters?: any[], options?: { prepare?: boolean }): Promise<any>;
}

/**
 * A Kysely dialect over postgres.js that leaves the pool to postgres.js: a query outside a
 * transaction goes to the pool (`sql.unsafe`), a transaction is `sql.begin(…)`. It never calls
 * `sql.reserve()`: in postgres.js 3.4 a `reserve()` that fails while the server is down stays
 * queued and later captures a healthy connection for good, so after an outage the pool runs dry
 * and every query hangs (this is what `kysely-postgres-js` 3 does for every query). Statements are
 * prepared per connection (`prepare: true`), one round trip per query once warm.
 *
 * Every call has a client-side deadline (D28): a stalled link never answers, so the server's
 * `statement_timeout` cannot fire. A call that misses it rejects at once; when it has still not
 * settled a grace period later (the server would have cancelled it by then), its pool is taken for
 * stuck and replaced: new calls get a fresh pool, the old one is ended (its stuck connections
 * destroyed), so no stuck connection is ever reused.
 */
export class _PostgresJsDialect extends _PostgresDialectBase {
  readonly #options: _PostgresJsPoolOptions;

  constructor(options: _PostgresJsPoolOptions) {
    super();
    this.#options = options;
  }

  createDriver(): Driver {
    return new _PostgresJsDriver(this.#options);
  }
}

/** How `_PostgresJsDialect` gets and keeps its pool. */
export interface _PostgresJsPoolOptions {
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
  readonly deadline: _DeadlineControl;
}
