import type { CompiledQuery, DatabaseConnection, QueryResult, TransactionSettings } from 'kysely';
import { PostgresDriverBase, transactionModes } from './postgres-driver-base.js';
import { DEADLINE_EXCEEDED_CODE, withDeadline, type DeadlineControl } from './deadline.js';
import type { PostgresJsPoolOptions, PostgresJsSql, PostgresJsTransactionSql } from './postgres-js-types.js';

/**
 * The driver of `PostgresJsDialect`: a query outside a transaction goes to postgres.js's
 * pool (`sql.unsafe`), a transaction is `sql.begin(…)` held open until Kysely commits or rolls
 * back. Savepoints come from the shared base.
 *
 * Every query, `BEGIN`, `COMMIT` and `ROLLBACK` has the client-side deadline (D28). A call still
 * unsettled {@link STUCK_GRACE_MS} after it missed the deadline — the server would have cancelled
 * it by then (`statement_timeout`) — means a stuck link: the pool is replaced (when it is ours),
 * the old one ended, its stuck connections destroyed after `endTimeout`.
 */
export class PostgresJsDriver extends PostgresDriverBase {
  readonly #options: PostgresJsPoolOptions;
  #pool: Promise<PostgresJsSql> | undefined;
  #destroyed = false;
  // Pools replaced because a call on them got stuck, still ending.
  readonly #retiring = new Set<Promise<void>>();

  constructor(options: PostgresJsPoolOptions) {
    super();
    this.#options = options;
  }

  async init(): Promise<void> {
    this.#pool = this.#options.connect();
    await this.#pool;
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    if (this.#destroyed || !this.#pool) throw new Error('driver has already been destroyed');
    return new _PostgresJsConnection(await this.#pool, this.#options.deadline, (sql, call) => this.#watchStuck(sql, call));
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    await (connection as _PostgresJsConnection).begin(transactionModes(settings));
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
    const pool = this.#pool;
    this.#pool = undefined;
    this.#destroyed = true;
    const sql = await pool?.catch(() => undefined);
    // With a timeout: postgres.js 3.4 can wait forever for connections that failed to connect.
    await Promise.all([sql?.end({ timeout: this.#options.endTimeout }), ...this.#retiring]);
  }

  /** A call on `sql` missed its deadline: when it is still running after the grace period, replace the pool. */
  #watchStuck(sql: PostgresJsSql, call: Promise<unknown>): void {
    if (!this.#options.renewable) return;
    let settled = false;
    const mark = () => {
      settled = true;
    };
    call.then(mark, mark);
    setTimeout(() => {
      if (!settled) void this.#replace(sql);
    }, STUCK_GRACE_MS).unref();
  }

  async #replace(stuck: PostgresJsSql): Promise<void> {
    const current = this.#pool;
    if (this.#destroyed || current === undefined || (await current.catch(() => undefined)) !== stuck || this.#pool !== current) return;
    this.#pool = this.#options.connect();
    const ending = stuck.end({ timeout: this.#options.endTimeout }).catch(() => {});
    this.#retiring.add(ending);
    void ending.then(() => this.#retiring.delete(ending));
  }
}

/**
 * How long after a missed deadline a call may still settle before its pool counts as stuck: a
 * server that is merely slow has answered by then, its `statement_timeout` firing at the deadline.
 */
export const STUCK_GRACE_MS = 1_000;

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
  readonly #deadline: DeadlineControl;
  readonly #onMissed: (sql: PostgresJsSql, call: Promise<unknown>) => void;
  #transaction: _OpenTransaction | undefined;

  constructor(sql: PostgresJsSql, deadline: DeadlineControl, onMissed: (sql: PostgresJsSql, call: Promise<unknown>) => void) {
    this.#sql = sql;
    this.#deadline = deadline;
    this.#onMissed = onMissed;
  }

  /** `call` bounded by the deadline (D28); a miss is reported to the driver, which may replace a stuck pool. */
  #bounded<T>(call: PromiseLike<T>, onLate?: (value: T) => void): Promise<T> {
    return withDeadline(call, this.#deadline.timeoutMs, {
      onMissed: (running) => this.#onMissed(this.#sql, running),
      ...(onLate ? { onLate } : {}),
    });
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
  // biome-ignore lint/correctness/useYield: Kysely's Driver asks for a generator; this one refuses before yielding.
  async *streamQuery<Row>(): AsyncIterableIterator<QueryResult<Row>> {
    throw new Error('Streaming is not supported by this dialect');
  }

  // biome-ignore lint/suspicious/noExplicitAny: postgres.js answers rows of any shape; callers type them.
  async run(query: string, parameters: unknown[] = []): Promise<any> {
    const transaction = this.#transaction;
    if (transaction === undefined) return this.#bounded(this.#sql.unsafe(query, parameters, { prepare: true }));
    // postgres.js 3.4 writes to a transaction's connection even after it closed, and that throws
    // from a timer (an uncaught exception): never hand it a query for a lost connection.
    if (transaction.lost !== undefined) throw transaction.lost;
    return this.#bounded(transaction.sql.unsafe(query, parameters, { prepare: true }));
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
    // A transaction that starts after its deadline has passed is rolled back at once, so that its
    // connection goes back to the pool.
    const sql = await this.#bounded(ready, () => end('rollback'));
    transaction = { sql, end, outcome, lost: undefined };
    this.#transaction = transaction;
    // The migrations run with the deadline lifted (withoutDeadline): so does the server's.
    if (this.#deadline.lifted) await this.run('set local statement_timeout = 0');
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
      await this.#bounded(transaction.outcome);
    } catch (error) {
      if (error === ROLLBACK) return;
      // A ROLLBACK that does not come back in time is left to run: its connection is stuck, and
      // the driver replaces a stuck pool. A COMMIT's outcome is unknown: the caller must hear of it.
      if (action === 'rollback' && (error as { code?: unknown } | null)?.code === DEADLINE_EXCEEDED_CODE) return;
      throw error;
    }
  }
}
