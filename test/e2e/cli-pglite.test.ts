import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeCliEndToEnd } from './_cli-scenario.js';

// One embedded data directory for the whole file: each process that opens it costs about a second.
describeCliEndToEnd('embedded PGlite', async () => {
  const dataDir = join(mkdtempSync(join(tmpdir(), 'fleet-hours-e2e-pglite-')), 'data');
  return {
    args: ['--data-dir', dataDir],
    sharedWhileServing: false,
    cleanup: async () => rmSync(join(dataDir, '..'), { recursive: true, force: true }),
  };
});
