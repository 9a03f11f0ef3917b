import { CompiledQuery, type DatabaseConnection, type QueryResult, type TransactionSettings } from 'kysely';
import { withDeadline, type DeadlineControl } from './deadline.js';
import { PostgresDriverBase, transactionModes } from './postgres-driver-base.js';
import type { PGliteClient, PGliteDialectConfig } from './pglite-types.js';

/**
 * The driver of `PGliteDialect`: one connection, handed to one query or transaction at a time (a
 * queue). Savepoints come from the shared base. Waiting in the queue and every query have the
 * deadline (D28): a caller behind a long transaction gives up instead of waiting without limit.
 */
export class PGliteDriver extends PostgresDriverBase {
  readonly #config: PGliteDialectConfig;
  readonly #deadline: DeadlineControl;
  #connection: _PGliteConnection | undefined;
  // The tail of the queue: resolves when the connection is free for the next holder.
  #queue: Promise<void> = Promise.resolve();
  #release: (() => void) | undefined;

  constructor(config: PGliteDialectConfig, deadline: DeadlineControl) {
    super();
    this.#config = config;
    this.#deadline = deadline;
  }

  async init(): Promise<void> {
    const { pglite } = this.#config;
    const client = typeof pglite === 'function' ? await pglite() : pglite;
    await client.waitReady;
    this.#connection = new _PGliteConnection(client, this.#deadline);
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const previous = this.#queue;
    let release!: () => void;
    this.#queue = new Promise<void>((resolve) => {
      release = resolve;
    });
    // A caller whose turn comes after its deadline passes it on at once.
    await withDeadline(previous, this.#deadline.timeoutMs, { onLate: release });
    this.#release = release;
    return this.#connection!;
  }

  async releaseConnection(): Promise<void> {
    const release = this.#release;
    this.#release = undefined;
    release?.();
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`begin ${transactionModes(settings)}`.trimEnd()));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async destroy(): Promise<void> {
    const client = this.#connection?.client;
    this.#connection = undefined;
    if (client && this.#config.closeOnDestroy !== false && !client.closed) await client.close();
  }
}

class _PGliteConnection implements DatabaseConnection {
  readonly client: PGliteClient;
  readonly #deadline: DeadlineControl;

  constructor(client: PGliteClient, deadline: DeadlineControl) {
    this.client = client;
    this.#deadline = deadline;
  }

  async executeQuery<Row>(compiledQuery: CompiledQuery): Promise<QueryResult<Row>> {
    if (this.client.closed) throw _closedError();
    const result = await withDeadline(this.client.query<Row>(compiledQuery.sql, [...compiledQuery.parameters]), this.#deadline.timeoutMs);
    return { rows: result.rows, numAffectedRows: BigInt(result.affectedRows ?? 0) };
  }

  async *streamQuery<Row>(compiledQuery: CompiledQuery, chunkSize: number): AsyncIterableIterator<QueryResult<Row>> {
    if (!Number.isInteger(chunkSize) || chunkSize <= 0) throw new RangeError('chunkSize must be a positive integer');
    // PGlite has no cursors over its query API: the result is read whole, then handed out in chunks.
    const { rows } = await this.executeQuery<Row>(compiledQuery);
    for (let offset = 0; offset < rows.length; offset += chunkSize) yield { rows: rows.slice(offset, offset + chunkSize) };
  }
}

/** A closed PGlite instance: the storage is gone for good, mapped to StorageUnavailableError by the store (D18). */
function _closedError(): Error {
  return Object.assign(new Error('PGlite is closed'), { code: 'PGLITE_CLOSED' });
}
