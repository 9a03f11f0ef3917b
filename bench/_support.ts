/**
 * What several benchmarks share: whether the PostgreSQL server answers, timing figures, and the
 * load process that drives a server from outside it. Not a benchmark itself (`bench/run.ts` runs
 * only `*.bench.ts`).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
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
