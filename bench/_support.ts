/**
 * What several benchmarks share: whether the PostgreSQL server answers, a fresh database and an
 * account with a key in it, timing figures, and the load process that drives a server from outside
 * it with its keep-alive loops. Not a benchmark itself (`bench/run.ts` runs
 * only `*.bench.ts`).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fingerprintApiKey, generateApiKey, type FleetHoursStore, type RateLimits } from '@fleet-hours/core';
import { startServer } from '@fleet-hours/server';
import { createPostgresDatabase, migrateToLatest, type FleetHoursDatabase } from '@fleet-hours/storage-kysely';
import type { Kysely } from 'kysely';
import postgres from 'postgres';

/** Whether a PostgreSQL server answers at `url` within 3 s; benchmarks skip it otherwise. */
export async function reachable(url: string): Promise<boolean> {
  const probe = postgres(url, { max: 1, connect_timeout: 3, onnotice: () => {} });
  try {
    await probe`select 1`;
    return true;
  } catch {
    return false;
  } finally {
    await probe.end({ timeout: 1 });
  }
}

/** The median and the 95th percentile (nearest rank) of a set of timings, in ms. */
export interface Figure {
  readonly median: number;
  readonly p95: number;
}

/** The {@link Figure} of timings; `times` is left as it is. */
export function figureOf(times: readonly number[]): Figure {
  const sorted = [...times].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)]!, p95: sorted[Math.ceil(sorted.length * 0.95) - 1]! };
}

/**
 * Times two calls in turns, after `warmUp` turns that are not counted, so that both see the same
 * machine load: the fair way to give a ratio of the two on a shared machine.
 */
export async function measurePair(
  first: () => Promise<unknown>,
  second: () => Promise<unknown>,
  { warmUp, runs }: { readonly warmUp: number; readonly runs: number },
): Promise<[Figure, Figure]> {
  for (let index = 0; index < warmUp; index += 1) {
    await first();
    await second();
  }
  const times: [number[], number[]] = [[], []];
  for (let index = 0; index < runs; index += 1) {
    for (const [slot, run] of [first, second].entries()) {
      const started = performance.now();
      await run();
      times[slot]!.push(performance.now() - started);
    }
  }
  return [figureOf(times[0]), figureOf(times[1])];
}

/**
 * Runs `file` (a benchmark) as a separate process in its load role (`FLEET_HOURS_BENCH_ROLE=load`,
 * with `env` added), so that the load and the server it measures do not share an event loop, and
 * resolves with the JSON it prints on stdout.
 */
export function loadProcess<Result>(file: string, env: Record<string, string>): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', file], {
      env: { ...process.env, FLEET_HOURS_BENCH_ROLE: 'load', ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(output) as Result) : reject(new Error(`Load process exited with ${String(code)}`)),
    );
  });
}

/**
 * The share of the machine's CPU time taken by other tenants of its host ("steal", Linux's
 * `/proc/stat`) since `start()`: on a shared virtual machine the same run can be a third slower
 * when it is high, so figures are printed with it. `null` where `/proc/stat` is not readable.
 */
export function stealMeter(): { readonly share: () => number | null } {
  const read = (): number[] | null => {
    try {
      const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
      return line.trim().split(/\s+/).slice(1).map(Number);
    } catch {
      return null;
    }
  };
  const start = read();
  return {
    share: () => {
      const end = read();
      if (!start || !end || start.length < 8) return null;
      const delta = end.map((value, index) => value - (start[index] ?? 0));
      const all = delta.reduce((sum, value, index) => (index < 8 ? sum + value : sum), 0);
      return all > 0 ? delta[7]! / all : null;
    },
  };
}

/** `; 12% of the CPU taken by the host's other tenants (steal)` for a {@link stealMeter}, or nothing. */
export function stealNote(meter: { readonly share: () => number | null }): string {
  const share = meter.share();
  return share === null ? '' : `; ${Math.round(share * 100)}% of the CPU taken by the host's other tenants (steal)`;
}

/** What {@link keepAliveLoad} measured: requests answered in the measured time, by status, and their latency. */
export interface KeepAliveLoadResult {
  readonly requests: number;
  /** Requests whose status was not a number below 300. */
  readonly failures: number;
  readonly statuses: Readonly<Record<string, number>>;
  readonly seconds: number;
  readonly p50: number;
  readonly p99: number;
}

/**
 * The load of a load process: `connections` loops, each sending its next request (`send`, the
 * connection's `n`-th from 1, resolving with the answer's status or a word for what went wrong) when
 * the last is answered; `warmupMs` unmeasured, then `measureMs` measured.
 */
export async function keepAliveLoad(options: {
  readonly connections: number;
  readonly warmupMs: number;
  readonly measureMs: number;
  readonly send: (connection: number, n: number) => Promise<number | string>;
}): Promise<KeepAliveLoadResult> {
  let measuring = false;
  let stop = false;
  let requests = 0;
  let failures = 0;
  const statuses: Record<string, number> = {};
  const latencies: number[] = [];
  const loop = async (connection: number) => {
    for (let n = 1; !stop; n += 1) {
      const started = performance.now();
      let status: number | string;
      try {
        status = await options.send(connection, n);
      } catch {
        status = 'error';
      }
      if (!measuring) continue;
      requests += 1;
      statuses[status] = (statuses[status] ?? 0) + 1;
      if (typeof status !== 'number' || status >= 300) failures += 1;
      latencies.push(performance.now() - started);
    }
  };
  const loops = Array.from({ length: options.connections }, (_, connection) => loop(connection));
  await new Promise((resolve) => setTimeout(resolve, options.warmupMs));
  measuring = true;
  const started = performance.now();
  await new Promise((resolve) => setTimeout(resolve, options.measureMs));
  measuring = false;
  const seconds = (performance.now() - started) / 1000;
  stop = true;
  await Promise.all(loops);
  latencies.sort((a, b) => a - b);
  const quantile = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { requests, failures, statuses, seconds, p50: quantile(0.5), p99: quantile(0.99) };
}

/**
 * Runs `run` on a fresh database `fh_bench_<name>_<pid>` of the PostgreSQL server at DATABASE_URL
 * (else postgres://postgres@127.0.0.1:5432/test), migrated, for a benchmark that starts the
 * reference server on it (`url`), seeds it through `db` (2 connections) and asks the server things
 * through `admin`; drops it after. Says so on the console and runs nothing when the server does not
 * answer.
 */
export async function withFreshDatabase(
  name: string,
  run: (database: { readonly admin: postgres.Sql; readonly url: string; readonly db: Kysely<FleetHoursDatabase> }) => Promise<void>,
): Promise<void> {
  const adminUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
  const admin = postgres(adminUrl, { max: 1, connect_timeout: 3, onnotice: () => {} });
  try {
    await admin`select 1`;
  } catch {
    console.log(`${name}: PostgreSQL server not reachable at ${adminUrl.replace(/:[^:@/]*@/, ':***@')}, skipped`);
    await admin.end({ timeout: 1 });
    return;
  }
  const databaseName = `fh_bench_${name.replaceAll('-', '_')}_${process.pid}`;
  await admin.unsafe(`create database ${databaseName}`);
  const url = new URL(adminUrl);
  url.pathname = `/${databaseName}`;
  // The loader's statements write whole fleets at once: no deadline (D28 is the served store's).
  const db = createPostgresDatabase({ connectionString: url.href, max: 2, queryTimeout: 0 });
  try {
    await migrateToLatest(db);
    await run({ admin, url: url.href, db });
  } finally {
    await db.destroy();
    await admin.unsafe(`drop database if exists ${databaseName} with (force)`);
    await admin.end({ timeout: 1 });
  }
}

/** An account `Bench` on the business plan with an API key (`read` unless `scope` says `manage`), created at `now`. */
export async function benchAccount(
  store: Pick<FleetHoursStore, 'createAccount' | 'createApiKey'>,
  now: number,
  scope?: 'manage',
): Promise<{ readonly accountId: number; readonly key: string }> {
  const account = await store.createAccount({ name: 'Bench', plan: 'business', now });
  const key = generateApiKey();
  await store.createApiKey({
    accountId: account.id,
    fingerprint: await fingerprintApiKey(key),
    label: 'bench',
    expiresAt: null,
    now,
    ...(scope ? { scope } : {}),
  });
  return { accountId: account.id, key };
}

/**
 * The reference server as `fleet-hours serve` runs it (pool of 10, rate-limit counters in the
 * database) on the database at `url`, on a free port, silent, with the `raised` limits out of the
 * way; and the PostgreSQL server's version, for the report.
 */
export async function startBenchServer(
  database: { readonly admin: postgres.Sql; readonly url: string },
  raised: readonly (keyof RateLimits)[],
  poolSize?: number,
): Promise<{ readonly server: Awaited<ReturnType<typeof startServer>>; readonly version: string }> {
  const server = await startServer({
    database: { kind: 'postgres', url: database.url },
    port: 0,
    rateLimits: Object.fromEntries(raised.map((name) => [name, 1_000_000_000])),
    log: () => {},
    ...(poolSize === undefined ? {} : { poolSize }),
  });
  const version = (await database.admin`select current_setting('server_version') as v`)[0]!.v as string;
  return { server, version };
}
