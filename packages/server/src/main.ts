#!/usr/bin/env node
import { runCli } from './run-cli.js';

// `fleet-hours accounts list | head -1`: a reader that goes away is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

const exitCode = await runCli(process.argv.slice(2));
// The exit code is set, not forced, so pending output is flushed; should a handle still keep the
// process alive after the command is done, it ends shortly after anyway.
process.exitCode = exitCode;
setTimeout(() => process.exit(exitCode), 3000).unref();
