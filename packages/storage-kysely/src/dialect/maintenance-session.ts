/**
 * D46: a database session of its own for the partition maintenance, outside the request deadline.
 * `detach partition … concurrently` waits for every transaction that reads `telemetry_points`; on
 * a pooled connection its `statement_timeout` (the request deadline, D28) would cancel it half
 * done. A database made by `createPostgresDatabase` from a connection string opens one connection
 * of its own for it, without `statement_timeout`, ended after the run; with the caller's own
 * postgres.js instance a reserved connection is used and its settings reset before it goes back.
 * Any other database (PGlite: one session, no other transaction to wait for) runs the statements
 * on itself.
 */
import { sql, type Kysely } from 'kysely';
import type { PostgresJsSql } from './postgres-js-dialect.js';

/** A session: statements run one after the other on one connection. */
export interface MaintenanceSession {
  /** Runs one statement and answers its rows. */
  query<Row>(text: string): Promise<Row[]>;
  /** Whether this is a session of its own (settings and session locks apply to it alone). */
  readonly own: boolean;
  /** Ends the session (the connection is ended or released). */
  close(): Promise<void>;
}

type _Opener = () => Promise<MaintenanceSession>;
const _openers = new WeakMap<object, _Opener>();

/**
 * Records how a database made by this package opens a maintenance session: `connect` makes a
 * postgres.js instance of one connection without deadline (`connectionString`), or `reserve`
 * reserves a connection of the caller's own pool.
 */
export function registerMaintenanceSession(
  db: object,
  source: { readonly connect: () => Promise<PostgresJsSql> } | { readonly sql: PostgresJsSql },
): void {
  _openers.set(db, async () => {
    if ('connect' in source) {
      const single = await source.connect();
      return {
        own: true,
        query: async <Row>(text: string) => Array.from((await single.unsafe(text)) as Iterable<Row>),
        close: () => single.end({ timeout: 5 }),
      };
    }
    type Reserved = PostgresJsSql & { release(): void };
    const reserved = await (source.sql as unknown as { reserve(): Promise<Reserved> }).reserve();
    return {
      own: true,
      query: async <Row>(text: string) => Array.from((await reserved.unsafe(text)) as Iterable<Row>),
      close: async () => {
        try {
          // The connection goes back to the caller's pool as it came.
          await reserved.unsafe('reset statement_timeout');
          await reserved.unsafe('reset lock_timeout');
          await reserved.unsafe('select pg_advisory_unlock_all()');
        } finally {
          reserved.release();
        }
      },
    };
  });
}

/** Opens a maintenance session on `db` (see the file's comment). */
// biome-ignore lint/suspicious/noExplicitAny: any schema will do: the statements are text.
export async function openMaintenanceSession(db: Kysely<any>): Promise<MaintenanceSession> {
  const opener = _openers.get(db);
  if (opener) return opener();
  return {
    own: false,
    query: async <Row>(text: string) => (await sql.raw<Row>(text).execute(db)).rows,
    close: async () => {},
  };
}
