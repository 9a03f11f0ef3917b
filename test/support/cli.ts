/**
 * Helpers for end-to-end tests that run the built `fleet-hours` CLI as real processes, as an
 * operator would: `node packages/server/dist/cli.js …` (`npm test` builds it first).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';

/** The built CLI. */
export const CLI_PATH = join(dirname(fileURLToPath(import.meta.url)), '../../packages/server/dist/cli.js');

/** What a finished CLI process printed and how it ended. */
export interface CliResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Options of {@link runCli}. */
export interface RunCliOptions {
  /** Working directory; relative paths (import files, the default data dir) resolve against it. */
  readonly cwd?: string;
  /** Added to a clean environment (without DATABASE_URL or FLEET_HOURS_DATA_DIR). */
  readonly env?: Readonly<Record<string, string>>;
  /** Written to stdin, which is then closed. */
  readonly input?: string;
  /** Default 60 s. */
  readonly timeoutMs?: number;
}

/** Fails early and clearly when the CLI has not been built. */
export function assertCliBuilt(): void {
  if (!existsSync(CLI_PATH)) throw new Error(`${CLI_PATH} is missing: run "npm run build" first (npm test does)`);
}

/**
 * The environment of a CLI process: this one's, without the variables that choose a database, so
 * each test says which database it means.
 */
export function cleanEnv(extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  if (!('DATABASE_URL' in extra)) delete env.DATABASE_URL;
  if (!('FLEET_HOURS_DATA_DIR' in extra)) delete env.FLEET_HOURS_DATA_DIR;
  delete env.FLEET_HOURS_DEBUG;
  return env;
}

function spawnCli(args: readonly string[], options: RunCliOptions): ChildProcess {
  assertCliBuilt();
  return spawn(process.execPath, [CLI_PATH, ...args], {
    cwd: options.cwd ?? process.cwd(),
    env: cleanEnv(options.env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

/**
 * Runs `fleet-hours ARGS…` to completion.
 *
 * @returns Its exit code, signal, stdout and stderr.
 */
export function runCli(args: readonly string[], options: RunCliOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawnCli(args, options);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    child.stderr!.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `fleet-hours ${args.join(' ')} did not finish within ${options.timeoutMs ?? 60_000} ms\nstdout: ${stdout}\nstderr: ${stderr}`,
        ),
      );
    }, options.timeoutMs ?? 60_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    child.stdin!.end(options.input ?? '');
  });
}

/**
 * Runs `fleet-hours ARGS… --json`, checks it succeeded with nothing on stderr, and parses stdout,
 * which must be exactly one JSON document.
 */
export async function runCliJson<T = Record<string, unknown>>(args: readonly string[], options: RunCliOptions = {}): Promise<T> {
  const result = await runCli([...args, '--json'], options);
  if (result.code !== 0) throw new Error(`fleet-hours ${args.join(' ')} --json exited ${result.code}:\n${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

/** A background `fleet-hours serve` or `demo` process. */
export interface CliServer {
  /** The base URL it listens on, read from its output. */
  readonly url: string;
  readonly process: ChildProcess;
  /** Everything printed so far. */
  stdout(): string;
  stderr(): string;
  /** Sends a signal (default SIGTERM) and waits for the process to end. */
  stop(signal?: NodeJS.Signals): Promise<CliResult>;
}

/**
 * Starts a long-running command (`serve`, `demo`) and waits until `findUrl` finds its URL in the
 * output so far.
 *
 * @param args The arguments.
 * @param findUrl Reads the URL from stdout (and stderr), or returns null while not ready.
 * @throws When the process exits or prints nothing usable within the timeout (default 60 s).
 */
export function startCliServer(
  args: readonly string[],
  findUrl: (stdout: string, stderr: string) => string | null,
  options: RunCliOptions = {},
): Promise<CliServer> {
  return new Promise((resolve, reject) => {
    const child = spawnCli(args, options);
    let stdout = '';
    let stderr = '';
    let settled = false;
    const exited = new Promise<CliResult>((done) => child.on('close', (code, signal) => done({ code, signal, stdout, stderr })));
    const fail = (message: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${message}\nstdout: ${stdout}\nstderr: ${stderr}`));
    };
    const timer = setTimeout(
      () => fail(`fleet-hours ${args.join(' ')} printed no URL within ${options.timeoutMs ?? 60_000} ms`),
      options.timeoutMs ?? 60_000,
    );
    const check = () => {
      if (settled) return;
      const url = findUrl(stdout, stderr);
      if (url === null) return;
      settled = true;
      clearTimeout(timer);
      resolve({
        url,
        process: child,
        stdout: () => stdout,
        stderr: () => stderr,
        async stop(signal = 'SIGTERM') {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          return exited;
        },
      });
    };
    child.stdout!.setEncoding('utf8').on('data', (text: string) => {
      stdout += text;
      check();
    });
    child.stderr!.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
      check();
    });
    child.on('close', (code) => fail(`fleet-hours ${args.join(' ')} exited with ${code} before it was ready`));
    child.stdin!.end();
  });
}

/** Parses JSON log lines; a line that is not JSON fails the test that reads it. */
export function jsonLines(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new Error(`Not a JSON log line: ${line}`);
      }
    });
}

/** `fleet-hours serve …`, ready once it logs `{"msg":"listening","url":…}`. */
export function startServe(args: readonly string[], options: RunCliOptions = {}): Promise<CliServer> {
  return startCliServer(
    ['serve', '--port', '0', ...args],
    (stdout) => {
      const complete = stdout.slice(0, stdout.lastIndexOf('\n') + 1);
      const listening = jsonLines(complete).find((entry) => entry.msg === 'listening');
      return typeof listening?.url === 'string' ? listening.url : null;
    },
    options,
  );
}

/** A fresh PostgreSQL database for one test file, dropped by `drop()`. */
export interface TestDatabase {
  readonly url: string;
  drop(): Promise<void>;
}

/**
 * Creates `fh_e2e_<random>` on the server of `adminUrl` (through a postgres.js admin connection),
 * so a run never sees another's data.
 */
export async function createTestDatabase(adminUrl: string): Promise<TestDatabase> {
  const name = `fh_e2e_${Math.random().toString(36).slice(2, 10)}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      try {
        await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await admin.end();
      }
    },
  };
}
