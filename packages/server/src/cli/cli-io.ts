import type { Readable } from 'node:stream';

/** Something text can be written to: `process.stdout`, `process.stderr`, or a buffer in tests. */
export interface TextSink {
  write(text: string): unknown;
}

/** What the CLI reads from and writes to; {@link processIo} binds it to the running process. */
export interface CliIo {
  readonly stdout: TextSink;
  readonly stderr: TextSink;
  /** Read by `import … -`. */
  readonly stdin: Readable;
  /** Whether stderr is a terminal: progress bars are drawn only then. */
  readonly stderrIsTTY: boolean;
  /** Environment variables (`DATABASE_URL`, `FLEET_HOURS_DATA_DIR`). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Relative paths (files, `--data-dir`) resolve against this directory. */
  readonly cwd: string;
  /** The clock, epoch milliseconds. */
  readonly now: () => number;
  /** Resolves with the signal name when the process is asked to stop (SIGTERM, SIGINT). Used by `serve` and `demo`. */
  readonly waitForStop: () => Promise<string>;
}

/**
 * The {@link CliIo} of the running process. Its `waitForStop` is the one place the server handles
 * SIGTERM and SIGINT (`startServer` installs no handlers): the first signal resolves it, and a
 * second one while shutting down exits at once with code 1.
 *
 * @returns The process's streams, environment, clock and stop signal.
 * @example
 * ```ts
 * // not executed: opens an embedded database on disk, as the example of runCli does
 * import { processIo, runCli } from '@fleet-hours/server';
 * // The process's streams and signals, with an environment of its own.
 * process.exitCode = await runCli(['accounts', 'list'], { ...processIo(), env: { FLEET_HOURS_DATA_DIR: './fleet-data' } });
 * ```
 */
export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    stderrIsTTY: Boolean(process.stderr.isTTY),
    env: process.env,
    cwd: process.cwd(),
    now: Date.now,
    waitForStop: () =>
      new Promise((resolve) => {
        const onSignal = (signal: NodeJS.Signals) => {
          process.off('SIGTERM', onSignal);
          process.off('SIGINT', onSignal);
          const force = (again: NodeJS.Signals) => {
            process.stderr.write(`Received ${again} again: exiting without waiting for open requests\n`);
            process.exit(1);
          };
          process.once('SIGTERM', force);
          process.once('SIGINT', force);
          resolve(signal);
        };
        process.on('SIGTERM', onSignal);
        process.on('SIGINT', onSignal);
      }),
  };
}
