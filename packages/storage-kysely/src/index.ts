/**
 * The Fleet Hours storage port on Kysely: PostgreSQL through postgres.js, or embedded PGlite.
 * Aggregation runs in the database, imports are one transaction per batch, and rate-limit
 * counters are shared by every server instance on the database.
 *
 * @module
 */
export * from './create-kysely-store.js';
export * from './create-pglite-database.js';
export * from './create-postgres-database.js';
export type * from './database-schema.js';
export * from './migrate-to-latest.js';
export * from './open-store.js';
export * from './pglite-dialect.js';
export * from './rebuild-daily-figures.js';
export * from './verify-daily-figures.js';
export * from './verify-store.js';
