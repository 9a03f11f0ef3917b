/**
 * The write path against an earlier build, side by side (issue 30): runs `ingest-http.bench.ts`
 * (its native and Traccar parts) in turns on this checkout's build and on the build of
 * WRITE_PATH_BASE (default `d79ea2c`, the figures of issue 20), each run on a fresh database, and
 * prints each pair's ratio (this build ÷ the base) of native batches at concurrency 1 and 4 and of
 * Traccar forwards at concurrency 16, then the median of the pairs. The pairs alternate which build
 * goes first, so that a machine shared with other work slows both alike: only a ratio within a pair
 * means anything, single runs move by ±15 %.
 *
 * The base is exported with `git archive` into `<tmpdir>/fleet-hours-write-path-<commit>` and
 * built there once (`npm ci`, `npm run build`: a few minutes; later runs reuse it), or taken from
 * WRITE_PATH_BASE_DIR, a checkout of the base already built (e.g. a `git worktree` of it). Both
 * builds run this checkout's `ingest-http.bench.ts` and `_support.ts` (copied into the base's
 * `bench/.write-path/`, which no tracked file uses), so only the packages differ. Run:
 * `npm run bench -- write-path` (DATABASE_URL as for ingest-http); WRITE_PATH_PAIRS (default 3);
 * INGEST_HTTP_BENCH_BATCHES is passed on. Asserts nothing.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { reachable } from './_support.js';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..');
const BASE = process.env.WRITE_PATH_BASE ?? 'd79ea2c';
const BASE_DIR = process.env.WRITE_PATH_BASE_DIR || undefined;
const PAIRS = Number(process.env.WRITE_PATH_PAIRS ?? 3);
const FIGURES_LINE = 'ingest-http figures: ';

interface Figures {
  readonly native1: number;
  readonly native4: number;
  /** Median and p99 of a native batch's request at concurrency 1, ms. */
  readonly native1P50: number;
  readonly native1P99: number;
  readonly traccar: number;
  readonly traccarP50: number;
  readonly traccarP99: number;
}

const adminUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
if (!(await reachable(adminUrl))) {
  console.log(`write-path: PostgreSQL server not reachable at ${adminUrl.replace(/:[^:@/]*@/, ':***@')}, skipped`);
} else {
  const base = prepareBase();
  const ours = benchCopy(repo);
  console.log(
    `write-path: this build (${revision(repo)}) ÷ ${BASE_DIR ? `${revision(BASE_DIR)} in ${BASE_DIR}` : BASE}, ${PAIRS} pairs of ingest-http runs (native, traccar), fresh databases`,
  );
  const ratios: { native1: number[]; native4: number[]; traccar: number[] } = { native1: [], native4: [], traccar: [] };
  for (let pair = 0; pair < PAIRS; pair += 1) {
    // Alternate the order: whichever runs second meets the checkpoint and autovacuum of the first.
    const order = pair % 2 === 0 ? (['base', 'head'] as const) : (['head', 'base'] as const);
    const figures: Partial<Record<'base' | 'head', Figures | string>> = {};
    for (const which of order) figures[which] = runIngestHttp(which === 'base' ? base : ours);
    const { base: before, head: after } = figures as Record<'base' | 'head', Figures | string>;
    // A run with failed requests (a machine so busy that requests pass their deadline) leaves its pair out.
    if (typeof before === 'string' || typeof after === 'string') {
      console.log(`  pair ${pair + 1}: left out, ${[before, after].filter((run) => typeof run === 'string').join('; ')}`);
      continue;
    }
    const ratio = (key: 'native1' | 'native4' | 'traccar') => after[key] / before[key];
    for (const key of ['native1', 'native4', 'traccar'] as const) ratios[key].push(ratio(key));
    console.log(
      `  pair ${pair + 1} (${order.join(' first, ')} second): native c1 ${shown(after.native1)} ÷ ${shown(before.native1)} = ${ratio('native1').toFixed(2)}; ` +
        `c4 ${shown(after.native4)} ÷ ${shown(before.native4)} = ${ratio('native4').toFixed(2)}; ` +
        `Traccar c16 ${shown(after.traccar)} ÷ ${shown(before.traccar)} = ${ratio('traccar').toFixed(2)} ` +
        `(p50 ${after.traccarP50.toFixed(1)} vs ${before.traccarP50.toFixed(1)} ms, p99 ${after.traccarP99.toFixed(1)} vs ${before.traccarP99.toFixed(1)} ms); ` +
        `native c1 request p50 ${after.native1P50.toFixed(1)} vs ${before.native1P50.toFixed(1)} ms, p99 ${after.native1P99.toFixed(1)} vs ${before.native1P99.toFixed(1)} ms`,
    );
  }
  const median = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    const middle = Math.floor(sorted.length / 2);
    return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  };
  if (ratios.native1.length > 0)
    console.log(
      `  median ratio: native c1 ${median(ratios.native1).toFixed(2)}, c4 ${median(ratios.native4).toFixed(2)}, Traccar c16 ${median(ratios.traccar).toFixed(2)}`,
    );
}

/** The base's tree, exported and built once (a marker file says the build finished), or WRITE_PATH_BASE_DIR. */
function prepareBase(): string {
  if (BASE_DIR) return benchCopy(BASE_DIR);
  const commit = git(repo, ['rev-parse', '--short', `${BASE}^{commit}`]);
  const dir = join(tmpdir(), `fleet-hours-write-path-${commit}`);
  const marker = join(dir, '.write-path-built');
  if (!existsSync(marker)) {
    console.log(`write-path: exporting and building ${commit} in ${dir} (once)`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    run('sh', ['-c', `git -C "${repo}" archive ${commit} | tar -x -C "${dir}"`], repo);
    run('npm', ['ci', '--no-audit', '--no-fund', '--ignore-scripts'], dir);
    run('npm', ['run', 'build'], dir);
    writeFileSync(marker, `${commit}\n`);
  }
  return benchCopy(dir);
}

/**
 * The same measuring code in both trees, only the packages differ: this checkout's bench files in
 * `tree`'s `bench/.write-path/`, where they resolve `tree`'s packages; the directory to run them in.
 */
function benchCopy(tree: string): string {
  const dir = join(tree, 'bench', '.write-path');
  mkdirSync(dir, { recursive: true });
  for (const file of ['ingest-http.bench.ts', '_support.ts']) copyFileSync(join(here, file), join(dir, file));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    `${JSON.stringify({ extends: '../../tsconfig.base.json', compilerOptions: { noEmit: true }, include: ['./*.ts'] })}\n`,
  );
  return dir;
}

/** One run of `ingest-http.bench.ts` (native and Traccar parts) in `dir` (a {@link benchCopy}), with its tree's packages; why it failed, if it did. */
function runIngestHttp(dir: string): Figures | string {
  const tree = join(dir, '..', '..');
  const result = spawnSync(process.execPath, ['--import', 'tsx', join(dir, 'ingest-http.bench.ts')], {
    cwd: tree,
    encoding: 'utf8',
    maxBuffer: 1 << 24,
    env: {
      ...process.env,
      TSX_TSCONFIG_PATH: join(dir, 'tsconfig.json'),
      INGEST_HTTP_BENCH_PARTS: 'native,traccar',
      INGEST_HTTP_BENCH_JSON: '1',
    },
  });
  const line = result.stdout.split('\n').find((text) => text.startsWith(FIGURES_LINE));
  if (line === undefined) throw new Error(`ingest-http in ${tree} failed (${String(result.status)}): ${result.stderr}${result.stdout}`);
  if (result.status !== 0) return `a run in ${tree} failed: ${result.stderr.split('\n')[0]}`;
  return JSON.parse(line.slice(FIGURES_LINE.length)) as Figures;
}

function run(command: string, args: readonly string[], cwd: string): void {
  const result = spawnSync(command, args, { cwd, stdio: ['ignore', 'ignore', 'inherit'] });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed in ${cwd} (${String(result.status)})`);
}

function git(cwd: string, args: readonly string[]): string {
  const result = spawnSync('git', ['-C', cwd, ...args], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr}`);
  return result.stdout.trim();
}

function revision(tree: string): string {
  const dirty = git(tree, ['status', '--porcelain', '--untracked-files=no', '--', 'packages']).length > 0;
  return `${git(tree, ['rev-parse', '--short', 'HEAD'])}${dirty ? ' with uncommitted changes' : ''}`;
}

function shown(value: number): string {
  return value.toLocaleString('en-US');
}
