#!/usr/bin/env node
// The `fleet-hours` command. It lives outside dist/ so that npm links it into node_modules/.bin at
// install time, before the `prepare` script has built dist/ (npm skips a bin whose file is missing).
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write('fleet-hours is not built yet: run "npm run build" in the repository first\n');
  process.exit(1);
}
await import(cli.href);
