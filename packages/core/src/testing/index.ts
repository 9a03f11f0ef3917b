/**
 * Test utilities for adapters of `@fleet-hours/core`: the shared storage and rate-limit contract suites. Need
 * `vitest` and `fast-check` (optional peer dependencies).
 *
 * @module
 */
export * from './describe-storage-contract.js';
export * from './describe-rate-limit-contract.js';
export * from './read-csv.js';
export { withFailingAudit } from './atomic-writes-contract.js';
export { aempPollRecordAt } from './aemp-source-contract.js';
