#!/usr/bin/env node
// The `fleet-hours` command. It lives outside dist/ so that npm links it into node_modules/.bin at
// install time, before the `prepare` script has built dist/ (npm skips a bin whose file is missing).
try {
  await import('../dist/cli.js');
} catch (error) {
  if (error?.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/cli.js')) {
    process.stderr.write('fleet-hours is not built yet: run "npm run build" in the repository first\n');
    process.exit(1);
  }
  throw error;
}
