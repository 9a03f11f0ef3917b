/**
 * Test utilities for adapters of `@fleet-hours/core`: the shared storage contract suite. Needs
 * `vitest` and `fast-check` (optional peer dependencies).
 *
 * @module
 */
export * from './describe-storage-contract.js';
