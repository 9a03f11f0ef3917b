/**
 * The fleet view's script as its page inlines it: the modules of `fleet-view/` (JavaScript checked
 * by `npm run typecheck` through their JSDoc) bundled into one script by esbuild. The package's
 * build (`tsup.config.ts`) bundles them once and puts the text in place of this module; run from
 * source (the tests, `tsx`), the first page built bundles them here.
 */
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The entry module of the fleet view's script. */
export const FLEET_VIEW_ENTRY = fileURLToPath(new URL('./fleet-view/main.js', import.meta.url));

/**
 * The script's text: one IIFE, its modules in the order they import one another.
 *
 * @param entry The entry module; default {@link FLEET_VIEW_ENTRY}.
 */
export async function fleetViewScript(entry = FLEET_VIEW_ENTRY): Promise<string> {
  const { build } = await import('esbuild');
  const bundled = await build({
    entryPoints: [entry],
    // The modules' names in the bundle's comments, the same wherever it is built from.
    absWorkingDir: dirname(entry),
    bundle: true,
    write: false,
    format: 'iife',
    target: 'es2020',
    charset: 'utf8',
    legalComments: 'none',
    logLevel: 'silent',
  });
  return bundled.outputFiles[0]!.text;
}
