import {
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
} from 'kysely';

/**
 * What every PostgreSQL dialect of this package shares: SQL, adapter and introspection are
 * Kysely's PostgreSQL ones, whatever carries the queries. A dialect only brings its driver (as
 * Kysely's own dialects do, each reusing the shared adapter, introspector and compiler).
 */
export abstract class PostgresDialectBase implements Dialect {
  abstract createDriver(): Driver;

  createAdapter(): DialectAdapter {
    return new PostgresAdapter();
  }

  // biome-ignore lint/suspicious/noExplicitAny: Kysely's Dialect interface declares it so.
  createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new PostgresIntrospector(db);
  }

  createQueryCompiler(): QueryCompiler {
    return new PostgresQueryCompiler();
  }
}
