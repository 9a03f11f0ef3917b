import { resolve } from 'node:path';
import { defineConfig, type Options } from 'tsup';
import { LIBRARY_BUILD } from '../../tsup.library.js';
import { fleetViewScript } from './src/pages/fleet-view-script.js';

type EsbuildPlugin = NonNullable<Options['esbuildPlugins']>[number];

/**
 * The fleet view's script bundled at build time: `src/pages/fleet-view-script.ts` becomes a module
 * that returns the bundle's text, so the package ships the script and no bundler. The tests and
 * `tsx` run the source module, which bundles the same modules the same way on first use.
 */
const fleetViewBundle: EsbuildPlugin = {
  name: 'fleet-view-bundle',
  setup(build) {
    build.onLoad({ filter: /[\\/]pages[\\/]fleet-view-script\.ts$/ }, async () => {
      const text = await fleetViewScript(resolve('src/pages/fleet-view/main.js'));
      return { contents: `export async function fleetViewScript() { return ${JSON.stringify(text)}; }`, loader: 'ts' };
    });
  },
};

export default defineConfig({
  ...LIBRARY_BUILD,
  entry: { index: 'src/index.ts' },
  esbuildPlugins: [fleetViewBundle],
});
