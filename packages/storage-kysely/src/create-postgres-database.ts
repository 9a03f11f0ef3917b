import {
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type QueryCompiler,
  type TransactionSettings,
} from 'kysely';
import { _importPeer } from './_import-peer.js';
import type { FleetHoursDatabase } from './database-schema.js';

/**
 * The part of a postgres.js `Sql` instance (`postgres(...)`) the dialect uses, described
 * structurally: `kysely-postgres-js` reserves a connection per query or transaction.
 */
export interface PostgresJsSql {
  reserve(): Promise<PostgresJsReservedSql>;
  end(options?: { timeout?: number }): Promise<void>;
}

/** A connection reserved from a postgres.js pool. */
export interface PostgresJsReservedSql {
  release(): void;
  unsafe(query: string, parameters?: any[], options?: any): Promise<any>;
}

/** Options of {@link createPostgresDatabase}. */
export interface PostgresDatabaseOptions {
  /** `postgres://user:password@host:port/database`. Either this or `sql`. */
  readonly connectionString?: string;
  /** A postgres.js instance you created; ended by `db.destroy()`. Either this or `connectionString`. */
  readonly sql?: PostgresJsSql;
  /**
   * Schema for every connection (`search_path`), e.g. one per tenant or per test run. Only with
   * `connectionString`: for your own `sql`, set `connection: { search_path }` on it.
   */
  readonly schema?: string;
  /** Pool size. Default 10. */
  readonly max?: number;
  /** Seconds to wait for a connection before the query fails as unavailable (D18). Default 10. */
  readonly connectTimeout?: number;
  /** `application_name` of the connections, shown in `pg_stat_activity`. Default `fleet-hours`. */
  readonly applicationName?: string;
}

/**
 * Connects to a PostgreSQL server through postgres.js and `kysely-postgres-js`, pooled. Nothing
 * connects until the first query, and a connection lost to a restart or a network failure is
 * replaced on the next query, so the store recovers by itself (D18). Needs the `postgres` and
 * `kysely-postgres-js` peer dependencies.
 *
 * @param options A connection string (or your own postgres.js instance), and optionally a schema and pool size.
 * @returns The database; `db.destroy()` ends the pool.
 * @throws {TypeError} Without `connectionString` or `sql`, or with `schema` and `sql` together.
 * @example
 * ```ts
 * import { createKyselyStore, createPostgresDatabase, migrateToLatest } from '@fleet-hours/storage-kysely';
 * const db = createPostgresDatabase({ connectionString: 'postgres://fleet@127.0.0.1:5432/fleet', schema: 'fleet_hours' });
 * await migrateToLatest(db);
 * const store = createKyselyStore(db);
 * ```
 */
export function createPostgresDatabase(options: PostgresDatabaseOptions): Kysely<FleetHoursDatabase> {
  const { connectionString, sql, schema } = options;
  if ((connectionString === undefined) === (sql === undefined)) {
    throw new TypeError('createPostgresDatabase() takes either connectionString or sql');
  }
  if (sql !== undefined && schema !== undefined) {
    throw new TypeError('createPostgresDatabase(): schema applies to a connectionString; for your own sql, pass connection: { search_path } to postgres()');
  }
  if (schema !== undefined && (typeof schema !== 'string' || schema.length === 0)) {
    throw new TypeError('createPostgresDatabase(): schema must be a non-empty string');
  }

  const connect = async (): Promise<PostgresJsSql> => {
    if (sql !== undefined) return sql;
    const { default: postgres } = await _importPeer('postgres kysely-postgres-js', 'createPostgresDatabase()', () => import('postgres'));
    return postgres(connectionString!, {
      max: options.max ?? 10,
      connect_timeout: options.connectTimeout ?? 10,
      // postgres.js waits up to 20 s between reconnection attempts after repeated failures, and
      // queries wait with it. Capped at 2 s: during an outage requests fail fast (503, D18), and
      // once the server is back the pool reconnects within 2 s.
      backoff: (retries: number) => Math.min(0.05 * 2 ** retries, 2),
      onnotice: () => {},
      connection: {
        application_name: options.applicationName ?? 'fleet-hours',
        ...(schema === undefined ? {} : { search_path: `"${schema.replace(/"/g, '""')}"` }),
      },
    });
  };
  return new Kysely<FleetHoursDatabase>({ dialect: new _PostgresJsDialect(connect) });
}

/**
 * `kysely-postgres-js`'s dialect, loaded when the first query runs so that the package can be
 * imported without the optional peer dependencies installed (PGlite users need neither).
 */
class _PostgresJsDialect implements Dialect {
  readonly #connect: () => Promise<PostgresJsSql>;

  constructor(connect: () => Promise<PostgresJsSql>) {
    this.#connect = connect;
  }

  createAdapter(): DialectAdapter {
    return new PostgresAdapter();
  }

  createDriver(): Driver {
    return new _LazyDriver(async () => {
      const { PostgresJSDriver } = await _importPeer('postgres kysely-postgres-js', 'createPostgresDatabase()', () => import('kysely-postgres-js'));
      const postgres = await this.#connect();
      return new PostgresJSDriver({ postgres: postgres as ConstructorParameters<typeof PostgresJSDriver>[0]['postgres'] });
    });
  }

  createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new PostgresIntrospector(db);
  }

  createQueryCompiler(): QueryCompiler {
    return new PostgresQueryCompiler();
  }
}

class _LazyDriver implements Driver {
  readonly #load: () => Promise<Driver>;
  #driver: Driver | undefined;

  constructor(load: () => Promise<Driver>) {
    this.#load = load;
  }

  get #loaded(): Driver {
    if (!this.#driver) throw new Error('driver has already been destroyed');
    return this.#driver;
  }

  async init(): Promise<void> {
    const driver = await this.#load();
    await driver.init();
    this.#driver = driver;
  }

  acquireConnection(): Promise<DatabaseConnection> {
    return this.#loaded.acquireConnection();
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.#loaded.beginTransaction(connection, settings);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.#loaded.commitTransaction(connection);
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.#loaded.rollbackTransaction(connection);
  }

  savepoint(connection: DatabaseConnection, name: string, compileQuery: Parameters<NonNullable<Driver['savepoint']>>[2]): Promise<void> {
    return this.#loaded.savepoint!(connection, name, compileQuery);
  }

  rollbackToSavepoint(connection: DatabaseConnection, name: string, compileQuery: Parameters<NonNullable<Driver['rollbackToSavepoint']>>[2]): Promise<void> {
    return this.#loaded.rollbackToSavepoint!(connection, name, compileQuery);
  }

  releaseSavepoint(connection: DatabaseConnection, name: string, compileQuery: Parameters<NonNullable<Driver['releaseSavepoint']>>[2]): Promise<void> {
    return this.#loaded.releaseSavepoint!(connection, name, compileQuery);
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.#loaded.releaseConnection(connection);
  }

  async destroy(): Promise<void> {
    const driver = this.#driver;
    this.#driver = undefined;
    await driver?.destroy();
  }
}
