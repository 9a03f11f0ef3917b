/**
 * The Fleet Hours storage port on Kysely: PostgreSQL through postgres.js, or embedded PGlite.
 * Aggregation runs in the database, imports are one transaction per batch, and rate-limit
 * counters are shared by every server instance on the database.
 *
 * @module
 */
export * from './stores/create-kysely-store.js';
export * from './dialect/create-pglite-database.js';
export * from './dialect/create-postgres-database.js';
export type * from './schema/database-schema.js';
export * from './schema/migrate-to-latest.js';
export * from './stores/open-store.js';
export * from './dialect/pglite-dialect.js';
export * from './verify/rebuild-daily-figures.js';
export * from './verify/verify-daily-figures.js';
export * from './verify/verify-store.js';
export { maintainTelemetryPartitions, type TelemetryMaintenance } from './sql/point-partitions.js';
