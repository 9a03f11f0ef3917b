import { readFileSync } from 'node:fs';

/**
 * The version in this package's `package.json`, or `unknown`. This file sits directly in `src/`, and
 * its code directly in `dist/` once built, so the manifest is one directory up in both.
 */
export function packageVersion(): string {
  try {
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: string };
    return manifest.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}
