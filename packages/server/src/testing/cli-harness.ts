import { Readable } from 'node:stream';
import { createMemoryRateLimitStore, createMemoryStore, type FleetHoursStore } from '@fleet-hours/core';
import type { DatabaseOpener } from '../database/open-database.js';
import type { CliIo } from '../cli/cli-io.js';
import { runCli } from '../run-cli.js';

/** A CLI run's outcome, in-process. */
export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs the CLI in-process over one shared memory store (tests only): what `runCli` prints and
 * returns, with a fixed clock and files resolved against `cwd`; `store` replaces the memory store.
 */
export function createCliHarness(options: { readonly cwd?: string; readonly now?: number; readonly store?: FleetHoursStore } = {}) {
  const store: FleetHoursStore = options.store ?? createMemoryStore();
  const opened: string[] = [];
  let closes = 0;
  const openDatabase: DatabaseOpener = async (target) => {
    opened.push(target.kind);
    return {
      target,
      store,
      rateLimitStore: createMemoryRateLimitStore(),
      async close() {
        closes += 1;
      },
    };
  };
  const nowMs = options.now ?? Date.UTC(2026, 2, 15, 12, 0, 0);

  const run = async (
    argv: readonly string[],
    extra: { stdin?: string; env?: Record<string, string>; stderrIsTTY?: boolean } = {},
  ): Promise<CliRun> => {
    let stdout = '';
    let stderr = '';
    const io: CliIo = {
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text) },
      stdin: Readable.from(extra.stdin === undefined ? [] : [Buffer.from(extra.stdin)]),
      stderrIsTTY: extra.stderrIsTTY ?? false,
      env: extra.env ?? {},
      cwd: options.cwd ?? process.cwd(),
      now: () => nowMs,
      waitForStop: () => new Promise(() => {}),
    };
    const code = await runCli(argv, io, { openDatabase });
    return { code, stdout, stderr };
  };

  /** Runs with `--json` and parses stdout, failing loudly when the command did not succeed. */
  const json = async <T = Record<string, unknown>>(argv: readonly string[], extra: { stdin?: string } = {}): Promise<T> => {
    const result = await run([...argv, '--json'], extra);
    if (result.code !== 0) throw new Error(`fleet-hours ${argv.join(' ')} exited ${result.code}: ${result.stderr}`);
    return JSON.parse(result.stdout) as T;
  };

  return { store, run, json, opened, closeCount: () => closes, nowSeconds: Math.floor(nowMs / 1000) };
}
