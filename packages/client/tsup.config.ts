import { defineConfig } from 'tsup';
import { LIBRARY_BUILD } from '../../tsup.library.js';

export default defineConfig({
  ...LIBRARY_BUILD,
  entry: { index: 'src/index.ts' },
});
