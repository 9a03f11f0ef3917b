import { defineConfig } from 'tsup';
import { LIBRARY_BUILD } from '../../tsup.library.js';

// One entry per public entry point; tsup emits, for entry `name`, `dist/name.js` + `dist/name.d.ts`
// (ESM) and `dist/name.cjs` + `dist/name.d.cts` (CommonJS). To add a subpath such as
// `@fleet-hours/core/adapter` from `src/adapter.ts`:
//   1. here: `'adapter/index': 'src/adapter.ts'`;
//   2. package.json `exports`: `"./adapter": { "import": { "types": "./dist/adapter/index.d.ts",
//      "default": "./dist/adapter/index.js" }, "require": { "types": "./dist/adapter/index.d.cts",
//      "default": "./dist/adapter/index.cjs" } }` (types per condition, so CommonJS consumers get
//      CommonJS types);
//   3. package.json `typesVersions["*"]`: `"adapter": ["./dist/adapter/index.d.ts"]` (TypeScript's
//      node10 resolution ignores `exports`);
//   4. the root tsconfig.json `paths` and vitest.config.ts `alias` (tests and tsc read the source).
// `npm run lint:packages` (publint + attw, part of `npm test`) then checks that every subpath in
// `exports` resolves to the right files and types in every resolution mode, node10 included.
export default defineConfig({
  ...LIBRARY_BUILD,
  entry: { index: 'src/index.ts', 'adapter/index': 'src/adapter.ts', 'testing/index': 'src/testing/index.ts' },
});
