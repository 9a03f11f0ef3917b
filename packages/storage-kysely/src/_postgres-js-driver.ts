import type { CompiledQuery, DatabaseConnection, QueryResult, TransactionSettings } from 'kysely';
import { _PostgresDriverBase, _transactionModes } from './_postgres-driver-base.js';
import type { PostgresJsSql, PostgresJsTransactionSql } from './_postgres-js-dialect.js';

/**
 * The driver of `_PostgresJsDialect`: a query outside a transaction goes to postgres.js's
 * pool (`sql.unsafe`), a transaction is `sql.begin(…)` held open until Kysely commits or rolls
 * back. Savepoints come from the shared base.
 */
export class _PostgresJsDriver extends _PostgresDriverBase {
  readonly #connect: () => Promise<PostgresJsSql>;
  readonly #endTimeout: number;
  #sql: PostgresJsSql | undefined;

  constructor(connect: () => Promise<PostgresJsSql>, endTimeout: number) {
    super();
    this.#connect = connect;
    this.#endTimeout = endTimeout;
  }

  async init(): Promise<void> {
    this.#sql = await this.#connect();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    if (!this.#sql) throw new Error('driver has already been destroyed');
    return new _PostgresJsConnection(this.#sql);
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    await (connection as _PostgresJsConnection).begin(_transactionModes(settings));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as _PostgresJsConnection).finish('commit');
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as _PostgresJsConnection).finish('rollback');
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    // A transaction left open (its commit or rollback threw) is rolled back, so its connection returns to the pool.
    await (connection as _PostgresJsConnection).finish('rollback').catch(() => {});
  }

  async destroy(): Promise<void> {
    const sql = this.#sql;
    this.#sql = undefined;
    // With a timeout: postgres.js 3.4 can wait forever for connections that failed to connect.
    await sql?.end({ timeout: this.#endTimeout });
  }
}

const ROLLBACK = Symbol('rollback');

interface _OpenTransaction {
  readonly sql: PostgresJsTransactionSql;
  readonly end: (action: 'commit' | 'rollback') => void;
  readonly outcome: Promise<unknown>;
  /** Set once postgres.js reports the transaction's connection closed. */
  lost: unknown;
}

/** A Kysely "connection": the pool, or, inside a transaction, the connection postgres.js pinned for it. */
class _PostgresJsConnection implements DatabaseConnection {
  readonly #sql: PostgresJsSql;
  #transaction: _OpenTransaction | undefined;

  constructor(sql: PostgresJsSql) {
    this.#sql = sql;
  }

  async executeQuery<Row>(compiledQuery: CompiledQuery): Promise<QueryResult<Row>> {
    const result = await this.run(compiledQuery.sql, [...compiledQuery.parameters]);
    const command: string | undefined = result.command;
    return {
      rows: Array.from(result as Iterable<Row>),
      ...(command === 'INSERT' || command === 'UPDATE' || command === 'DELETE' || command === 'MERGE'
        ? { numAffectedRows: BigInt(result.count ?? 0) }
        : {}),
    };
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<Row>(): AsyncIterableIterator<QueryResult<Row>> {
    throw new Error('Streaming is not supported by this dialect');
  }

  async run(query: string, parameters: unknown[] = []): Promise<any> {
    const transaction = this.#transaction;
    if (transaction === undefined) return this.#sql.unsafe(query, parameters, { prepare: true });
    // postgres.js 3.4 writes to a transaction's connection even after it closed, and that throws
    // from a timer (an uncaught exception): never hand it a query for a lost connection.
    if (transaction.lost !== undefined) throw transaction.lost;
    return transaction.sql.unsafe(query, parameters, { prepare: true });
  }

  /** Opens `sql.begin(…)` and keeps its callback pending until {@link finish}: postgres.js then commits or rolls back. */
  async begin(options: string): Promise<void> {
    let started!: { resolve: (sql: PostgresJsTransactionSql) => void; reject: (error: unknown) => void };
    const ready = new Promise<PostgresJsTransactionSql>((resolve, reject) => {
      started = { resolve, reject };
    });
    let end!: (action: 'commit' | 'rollback') => void;
    const finished = new Promise<void>((resolve, reject) => {
      end = (action) => (action === 'commit' ? resolve() : reject(ROLLBACK));
    });
    let transaction: _OpenTransaction | undefined;
    const outcome = this.#sql.begin(options, (sql) => {
      started.resolve(sql);
      return finished;
    });
    outcome.catch((error: unknown) => {
      // BEGIN failed (the callback never ran), or the connection closed during the transaction.
      started.reject(error);
      if (transaction && error !== ROLLBACK) transaction.lost = error;
    });
    const sql = await ready;
    transaction = { sql, end, outcome, lost: undefined };
    this.#transaction = transaction;
  }

  async finish(action: 'commit' | 'rollback'): Promise<void> {
    const transaction = this.#transaction;
    if (!transaction) return;
    this.#transaction = undefined;
    // A closed connection rejects the running query first and reports the close right after, in
    // the same turn: let that report land before deciding, one macrotask later.
    await new Promise((resolve) => setImmediate(resolve));
    if (transaction.lost !== undefined) {
      // The server ended the transaction with the connection; postgres.js must not be asked to
      // COMMIT or ROLLBACK on it (see run()), so its callback is left pending and garbage.
      if (action === 'commit') throw transaction.lost;
      return;
    }
    transaction.end(action);
    try {
      await transaction.outcome;
    } catch (error) {
      if (error !== ROLLBACK) throw error;
    }
  }
}
