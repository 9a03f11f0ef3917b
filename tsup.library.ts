import type { Options } from 'tsup';

/**
 * How each library package (core, http, storage-kysely) is built: ES modules and CommonJS, each
 * with its types and source maps, for Node 20. A package's `tsup.config.ts` adds its entries.
 */
export const LIBRARY_BUILD = {
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
} satisfies Options;
