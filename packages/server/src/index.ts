/**
 * The Fleet Hours reference server and operator CLI `fleet-hours`: the composition root that puts
 * `@fleet-hours/http` on `@fleet-hours/storage-kysely` (PostgreSQL or embedded PGlite), plus
 * account, key and device administration, NDJSON/CSV imports and the demo fleet.
 *
 * @module
 */
export * from './run-cli.js';
export * from './cli-io.js';
export * from './cli-errors.js';
export * from './command-specs.js';
export * from './parse-cli-args.js';
export * from './format-help.js';
export * from './database-target.js';
export * from './open-database.js';
export * from './start-server.js';
export * from './read-import-file.js';
export * from './parse-csv-line.js';
export * from './format-table.js';
export * from './progress-bar.js';
export * from './present-records.js';
export * from './demo-fleet.js';
export * from './seed-demo.js';
export * from './demo-banner.js';
export * from './data-dir-lock.js';
