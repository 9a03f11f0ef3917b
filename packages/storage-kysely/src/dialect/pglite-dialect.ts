import type { Driver } from 'kysely';
import { DEFAULT_QUERY_TIMEOUT_SECONDS, DeadlineControl, registerDeadline } from './deadline.js';
import { PostgresDialectBase } from './postgres-dialect-base.js';
import { PGliteDriver } from './pglite-driver.js';
import type { PGliteDialectConfig } from './pglite-types.js';

export type { PGliteClient, PGliteDialectConfig } from './pglite-types.js';

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
export class PGliteDialect extends PostgresDialectBase {
  readonly #config: PGliteDialectConfig;
  readonly #deadline: DeadlineControl;

  constructor(config: PGliteDialectConfig) {
    super();
    this.#config = config;
    this.#deadline = new DeadlineControl(config.queryTimeout ?? DEFAULT_QUERY_TIMEOUT_SECONDS);
    registerDeadline(this, this.#deadline);
  }

  createDriver(): Driver {
    return new PGliteDriver(this.#config, this.#deadline);
  }
}
