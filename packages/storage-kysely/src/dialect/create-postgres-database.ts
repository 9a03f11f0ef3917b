import { Kysely } from 'kysely';
import { DEFAULT_QUERY_TIMEOUT_SECONDS, DeadlineControl, registerDeadline } from './deadline.js';
import { importPeer } from './import-peer.js';
import { registerMaintenanceSession } from './maintenance-session.js';
import { PostgresJsDialect, type PostgresJsSql } from './postgres-js-dialect.js';
import type { FleetHoursDatabase } from '../schema/database-schema.js';

export type { PostgresJsSql, PostgresJsTransactionSql } from './postgres-js-dialect.js';

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
  /** Pool size: at most this many connections to the server. Default 10. */
  readonly max?: number;
  /**
   * Seconds every database call may take (D28): the server's `statement_timeout` on every
   * connection, and the same deadline on the client, because a stalled link (connection open, no
   * answer) never lets the server's fire. A call past it rejects with `StorageUnavailableError`
   * (→ 503), and a pool left with a stuck connection is replaced, so the store recovers by itself.
   * Default 5; `0` turns the deadline off. With your own `sql`, only the client-side deadline
   * applies and the pool is never replaced: set `connection: { statement_timeout }` on it yourself.
   */
  readonly queryTimeout?: number;
  /** Seconds to wait for a connection before the query fails as unavailable (D18). Default 10. */
  readonly connectTimeout?: number;
  /** `application_name` of the connections, shown in `pg_stat_activity`. Default `fleet-hours`. */
  readonly applicationName?: string;
  /** Seconds `db.destroy()` lets running queries finish before it closes the connections anyway. Default 5. */
  readonly closeTimeout?: number;
}

/**
 * Connects to a PostgreSQL server through postgres.js, pooled. Nothing connects until the first
 * query, and a connection lost to a restart or a network failure is replaced on the next query,
 * so the store recovers by itself (D18). Every call has a deadline, 5 s by default (D28,
 * `queryTimeout`). Needs the `postgres` peer dependency.
 *
 * The Kysely dialect is this package's own, over postgres.js's pool: a query outside a
 * transaction may run on any pooled connection, so `db.connection()` does not pin a session (use
 * a transaction for that).
 *
 * @param options A connection string (or your own postgres.js instance), and optionally a schema and pool size.
 * @returns The database; `db.destroy()` ends the pool.
 * @throws {TypeError} Without `connectionString` or `sql`, or with `schema` and `sql` together.
 * @throws {RangeError} When `queryTimeout` is negative or not a number.
 * @example
 * ```ts
 * // not executed: needs a PostgreSQL server
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
    throw new TypeError(
      'createPostgresDatabase(): schema applies to a connectionString; for your own sql, pass connection: { search_path } to postgres()',
    );
  }
  if (schema !== undefined && (typeof schema !== 'string' || schema.length === 0)) {
    throw new TypeError('createPostgresDatabase(): schema must be a non-empty string');
  }

  const deadline = new DeadlineControl(options.queryTimeout ?? DEFAULT_QUERY_TIMEOUT_SECONDS);
  // The pool's options; `bounded: false` for the maintenance session (D46), which has no deadline.
  const connectWith = async (max: number, bounded: boolean): Promise<PostgresJsSql> => {
    const { default: postgres } = await importPeer('postgres', 'createPostgresDatabase()', () => import('postgres'));
    return postgres(connectionString!, {
      max,
      connect_timeout: options.connectTimeout ?? 10,
      // postgres.js waits up to 20 s between reconnection attempts after repeated failures, and
      // queries queued for a connection wait with it, one attempt each. Capped at 0.5 s: during an
      // outage queued requests fail within seconds (503, D18), and once the server is back the pool
      // reconnects within half a second. Attempts only happen for queries, so this cannot hammer
      // a server that is down.
      backoff: (retries: number) => Math.min(0.05 * 2 ** retries, 0.5),
      onnotice: () => {},
      connection: {
        application_name: options.applicationName ?? 'fleet-hours',
        // D27: every query reads a bounded number of rows, but over years of history the planner's
        // estimates can pass jit_above_cost, and compiling a plan then costs far more than running
        // the query (P39).
        jit: 'off',
        // P39: with the default random_page_cost of 4, PostgreSQL reads a small fleet's table whole
        // rather than probing the keys a statement names. 1.1 is PostgreSQL's suggestion for data
        // in memory or on SSD, as the keys and recent pages every request reads are.
        random_page_cost: '1.1',
        // D28: the server cancels a statement past the deadline (57014, mapped to unavailable).
        ...(bounded && deadline.configuredMs > 0 ? { statement_timeout: deadline.configuredMs } : {}),
        ...(schema === undefined ? {} : { search_path: `"${schema.replace(/"/g, '""')}"` }),
      },
    });
  };
  const connect = async (): Promise<PostgresJsSql> => (sql !== undefined ? sql : connectWith(options.max ?? 10, true));
  const dialect = new PostgresJsDialect({ connect, renewable: sql === undefined, endTimeout: options.closeTimeout ?? 5, deadline });
  const db = registerDeadline(new Kysely<FleetHoursDatabase>({ dialect }), deadline);
  registerMaintenanceSession(db, sql !== undefined ? { sql } : { connect: () => connectWith(1, false) });
  return db;
}
