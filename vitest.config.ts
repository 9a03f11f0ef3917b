import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const src = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * The files that run long (end-to-end processes, the browser, the stores on PGlite and PostgreSQL)
 * start first, so that the short ones fill the workers at the end: without the timings of an
 * earlier run (a fresh clone, CI) vitest starts the larger files first, and the end-to-end files
 * are small but slow, so one of them could run on alone for a minute after everything else.
 */
class LongFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const long = (file: TestSpecification) =>
      /\/test\/(e2e|browser)\/|\/test\/jsdoc-examples|\/storage-kysely\/src\/(stores|dialect|schema|verify)\//.test(file.moduleId);
    return [...sorted.filter(long), ...sorted.filter((file) => !long(file))];
  }
}

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
    ],
  },
  test: {
    // Two test files at a time: most of the suite waits on child processes and the database, and
    // vitest's default on a 2-core machine (cores - 1) runs the files one after another.
    maxWorkers: 2,
    sequence: { sequencer: LongFirstSequencer },
    include: ['packages/*/src/**/*.test.ts', 'test/**/*.test.ts', 'examples/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
