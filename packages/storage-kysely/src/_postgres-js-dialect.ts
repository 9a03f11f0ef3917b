import type { Driver } from 'kysely';
import { _PostgresDialectBase } from './_postgres-dialect-base.js';
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
 */
export class _PostgresJsDialect extends _PostgresDialectBase {
  readonly #connect: () => Promise<PostgresJsSql>;
  readonly #endTimeout: number;

  constructor(connect: () => Promise<PostgresJsSql>, endTimeout: number) {
    super();
    this.#connect = connect;
    this.#endTimeout = endTimeout;
  }

  createDriver(): Driver {
    return new _PostgresJsDriver(this.#connect, this.#endTimeout);
  }
}
