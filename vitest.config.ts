import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (path: string) => fileURLToPath(new URL(path, import.meta.url));

// Tests import every package from its source, so `vitest` never runs against a stale build.
// The end-to-end tests in test/ spawn the built CLI instead, which `npm test` builds first.
export default defineConfig({
  resolve: {
    alias: [
      { find: /^@fleet-hours\/core\/testing$/, replacement: src('./packages/core/src/testing/index.ts') },
      { find: /^@fleet-hours\/core\/adapter$/, replacement: src('./packages/core/src/adapter.ts') },
      { find: /^@fleet-hours\/core$/, replacement: src('./packages/core/src/index.ts') },
      { find: /^@fleet-hours\/http$/, replacement: src('./packages/http/src/index.ts') },
      { find: /^@fleet-hours\/storage-kysely$/, replacement: src('./packages/storage-kysely/src/index.ts') },
      { find: /^@fleet-hours\/server$/, replacement: src('./packages/server/src/index.ts') },
      { find: /^@fleet-hours\/client$/, replacement: src('./packages/client/src/index.ts') },
    ],
  },
  test: {
    // Two test files at a time: most of the suite waits on child processes and the database, and
    // vitest's default on a 2-core machine (cores - 1) runs the files one after another.
    maxWorkers: 2,
    include: ['packages/*/src/**/*.test.ts', 'test/**/*.test.ts', 'examples/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
