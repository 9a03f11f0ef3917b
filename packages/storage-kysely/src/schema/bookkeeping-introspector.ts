import { sql, type DatabaseIntrospector, type Kysely, type SchemaMetadata, type TableMetadata } from 'kysely';

/**
 * `db` as Kysely's `Migrator` should see it: the same database, whose `introspection` looks at one
 * schema and the named tables only.
 *
 * Kysely's own introspector reads every table of every schema of the database (with each column's
 * serial sequence) to learn whether the bookkeeping tables exist. While another client drops a
 * schema or a table (a second application, a retention run dropping a month, parallel test
 * suites), that read fails with 3F000 or 42P01 although nothing of ours changed. Asking the
 * catalog about our own schema and tables by name cannot meet a relation that vanishes under it.
 *
 * @param db The database.
 * @param schema The schema the bookkeeping tables live in.
 * @param tables The bookkeeping tables' names.
 */
export function withBookkeepingIntrospection<DB>(db: Kysely<DB>, schema: string, tables: readonly string[]): Kysely<DB> {
  const introspector: DatabaseIntrospector = {
    async getSchemas(): Promise<SchemaMetadata[]> {
      const { rows } = await sql<SchemaMetadata>`
        select nspname as name from pg_catalog.pg_namespace where nspname = ${schema}`.execute(db);
      return rows;
    },
    async getTables(): Promise<TableMetadata[]> {
      const { rows } = await sql<{ name: string }>`
        select c.relname as name
          from pg_catalog.pg_class c
          join pg_catalog.pg_namespace n on n.oid = c.relnamespace
         where n.nspname = ${schema} and c.relname = any(${[...tables]}::text[]) and c.relkind in ('r', 'p')`.execute(db);
      return rows.map(({ name }) => ({ name, schema, isView: false, columns: [] }));
    },
    async getMetadata(options) {
      return { tables: await this.getTables(options) };
    },
  };
  // Kysely keeps its state in private fields, so every other member is read from, and bound to, `db` itself.
  return new Proxy(db, {
    get(target, property) {
      if (property === 'introspection') return introspector;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
