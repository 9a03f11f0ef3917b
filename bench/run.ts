/**
 * Runs every benchmark in bench/ (files named `*.bench.ts`), one process each, in name order.
 * `npm run bench -- http` runs only the files whose name contains "http".
 * Benchmarks print figures and ratios; they never assert timings.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const filters = process.argv.slice(2);
const files = readdirSync(here)
  .filter((file) => file.endsWith('.bench.ts'))
  .filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)))
  .sort();

let failed = 0;
for (const file of files) {
  console.log(`\n=== ${file}`);
  // The benchmarks measure the built packages (npm run bench builds them first): bench/tsconfig.json
  // has no paths to the sources, so the packages resolve to their dist as an embedder's would.
  const result = spawnSync(process.execPath, ['--import', 'tsx', join(here, file)], {
    stdio: 'inherit',
    env: { ...process.env, TSX_TSCONFIG_PATH: join(here, 'tsconfig.json') },
  });
  if (result.status !== 0) failed += 1;
}
if (files.length === 0) console.log(`No benchmark matches ${filters.join(', ')}`);
process.exit(failed === 0 ? 0 : 1);
