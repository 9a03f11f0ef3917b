import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';

/**
 * The part of a PGlite instance (`@electric-sql/pglite`) the dialect uses, described structurally
 * so that the package does not need PGlite's types at compile time.
 */
export interface PGliteClient {
  query<Row>(query: string, params?: unknown[]): Promise<{ rows: Row[]; affectedRows?: number }>;
  close(): Promise<void>;
  readonly closed: boolean;
  readonly waitReady?: Promise<void>;
}

/** Options of {@link PGliteDialect}. */
export interface PGliteDialectConfig {
  /** A PGlite instance, or a function that creates one on first use. */
  readonly pglite: PGliteClient | (() => PGliteClient | Promise<PGliteClient>);
  /** Whether `db.destroy()` closes the instance. Default `true`, like Kysely's pool-based dialects. */
  readonly closeOnDestroy?: boolean;
}

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
 * const db = new Kysely<FleetHoursDatabase>({ dialect: new PGliteDialect({ pglite: new PGlite('./data') }) });
 * ```
 */
export class PGliteDialect implements Dialect {
  readonly #config: PGliteDialectConfig;

  constructor(config: PGliteDialectConfig) {
    this.#config = config;
  }

  createAdapter(): DialectAdapter {
    return new PostgresAdapter();
  }

  createDriver(): Driver {
    return new _PGliteDriver(this.#config);
  }

  createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new PostgresIntrospector(db);
  }

  createQueryCompiler(): QueryCompiler {
    return new PostgresQueryCompiler();
  }
}

class _PGliteDriver implements Driver {
  readonly #config: PGliteDialectConfig;
  #connection: _PGliteConnection | undefined;
  // The tail of the queue: resolves when the connection is free for the next holder.
  #queue: Promise<void> = Promise.resolve();
  #release: (() => void) | undefined;

  constructor(config: PGliteDialectConfig) {
    this.#config = config;
  }

  async init(): Promise<void> {
    const { pglite } = this.#config;
    const client = typeof pglite === 'function' ? await pglite() : pglite;
    await client.waitReady;
    this.#connection = new _PGliteConnection(client);
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const previous = this.#queue;
    let release!: () => void;
    this.#queue = new Promise<void>((resolve) => {
      release = resolve;
    });
    await previous;
    this.#release = release;
    return this.#connection!;
  }

  async releaseConnection(): Promise<void> {
    const release = this.#release;
    this.#release = undefined;
    release?.();
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    let begin = 'begin';
    if (settings.isolationLevel) begin += ` isolation level ${settings.isolationLevel}`;
    if (settings.accessMode) begin += ` ${settings.accessMode}`;
    await connection.executeQuery(CompiledQuery.raw(begin));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`savepoint ${_identifier(name)}`));
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`rollback to savepoint ${_identifier(name)}`));
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`release savepoint ${_identifier(name)}`));
  }

  async destroy(): Promise<void> {
    const client = this.#connection?.client;
    this.#connection = undefined;
    if (client && this.#config.closeOnDestroy !== false && !client.closed) await client.close();
  }
}

class _PGliteConnection implements DatabaseConnection {
  readonly client: PGliteClient;

  constructor(client: PGliteClient) {
    this.client = client;
  }

  async executeQuery<Row>(compiledQuery: CompiledQuery): Promise<QueryResult<Row>> {
    if (this.client.closed) throw _closedError();
    const result = await this.client.query<Row>(compiledQuery.sql, [...compiledQuery.parameters]);
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

function _identifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
