import { defineConfig } from 'tsup';

// ESM only, on purpose: the server is an application and a CLI, not a library to `require`
// (scripts/lint-packages.mjs checks it with attw's esm-only profile). The `cli` entry
// (dist/cli.js) is not in `exports`: bin/fleet-hours.js imports it.
export default defineConfig({
  entry: { index: 'src/index.ts', cli: 'src/main.ts' },
  format: ['esm'],
  dts: { entry: { index: 'src/index.ts' } },
  clean: true,
  sourcemap: true,
  target: 'node20',
});
