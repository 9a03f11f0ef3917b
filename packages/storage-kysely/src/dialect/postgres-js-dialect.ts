import type { Driver } from 'kysely';
import { PostgresDialectBase } from './postgres-dialect-base.js';
import { PostgresJsDriver } from './postgres-js-driver.js';
import type { PostgresJsPoolOptions } from './postgres-js-types.js';

export type { PostgresJsPoolOptions, PostgresJsSql, PostgresJsTransactionSql } from './postgres-js-types.js';

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
export class PostgresJsDialect extends PostgresDialectBase {
  readonly #options: PostgresJsPoolOptions;

  constructor(options: PostgresJsPoolOptions) {
    super();
    this.#options = options;
  }

  createDriver(): Driver {
    return new PostgresJsDriver(this.#options);
  }
}
