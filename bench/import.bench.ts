/**
 * Import throughput of `fleet-hours import segments`: a million segments (NDJSON and CSV) into a
 * fresh embedded database, and into the PostgreSQL server when DATABASE_URL is set, each as one
 * transaction, run through the built CLI as an operator runs it. Also the parse rate alone
 * (reading and checking the file in-process, nothing written), to show where the time goes.
 *
 * `npm run bench -- import` (IMPORT_BENCH_SEGMENTS=200000 for a quicker run). Prints figures; asserts nothing.
 */
import { spawnSync } from 'node:child_process';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseSegmentRecord } from '@fleet-hours/core/adapter';
import { readImportFile } from '@fleet-hours/server';
import postgres from 'postgres';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cliPath = join(root, 'packages/server/dist/cli.js');
const count = Number(process.env.IMPORT_BENCH_SEGMENTS ?? 1_000_000);
const work = mkdtempSync(join(tmpdir(), 'fleet-hours-import-bench-'));

const T0 = Date.UTC(2018, 0, 1) / 1000;
const iso = (seconds: number) => new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');

/** Alternating moving (10-40 min) and idle (1-10 min) stretches with engine-off gaps, one device. */
async function writeSegments(path: string, format: 'ndjson' | 'csv'): Promise<void> {
  const out = createWriteStream(path);
  if (format === 'csv') out.write('started_at,ended_at,state\n');
  let at = T0;
  let seed = 42;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
  let buffer = '';
  for (let index = 0; index < count; index += 1) {
    const moving = index % 2 === 0;
    const length = moving ? 600 + Math.floor(random() * 1800) : 60 + Math.floor(random() * 540);
    const start = iso(at);
    const end = iso(at + length);
    const state = moving ? 'moving' : 'idle';
    buffer += format === 'csv' ? `${start},${end},${state}\n` : `{"started_at":"${start}","ended_at":"${end}","state":"${state}"}\n`;
    at += length + (index % 20 === 19 ? 3600 : 0);
    if (buffer.length > 1 << 20) {
      if (!out.write(buffer)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
      buffer = '';
    }
  }
  out.write(buffer);
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
}

function cli(args: string[], env: NodeJS.ProcessEnv = {}) {
  const result = spawnSync(process.execPath, [cliPath, ...args], {
    encoding: 'utf8',
    env: { ...process.env, DATABASE_URL: '', ...env },
    maxBuffer: 64 << 20,
  });
  if (result.status !== 0) throw new Error(`fleet-hours ${args.join(' ')} failed (${result.status}): ${result.stderr}`);
  return result.stdout;
}

function importRun(label: string, database: string[], file: string): void {
  const account = JSON.parse(cli(['accounts', 'create', '--name', 'Bench', '--json', ...database])) as { id: number };
  const device = JSON.parse(
    cli([
      'devices',
      'create',
      '--account',
      String(account.id),
      '--name',
      'Bench',
      '--imei',
      '1',
      '--model',
      'M',
      '--timezone',
      'Europe/Berlin',
      '--json',
      ...database,
    ]),
  ) as { id: number };
  const started = performance.now();
  const report = JSON.parse(cli(['import', 'segments', '--device', String(device.id), file, '--json', ...database])) as {
    inserted: number;
    read_seconds: number;
    write_seconds: number;
    segments_per_second: number;
  };
  const wall = (performance.now() - started) / 1000;
  console.log(
    `${label.padEnd(34)} ${String(report.inserted).padStart(9)} inserted  read ${report.read_seconds.toFixed(1).padStart(5)} s  ` +
      `write ${report.write_seconds.toFixed(1).padStart(5)} s  process ${wall.toFixed(1).padStart(5)} s  ` +
      `→ ${Math.round(report.inserted / wall).toLocaleString('en-US')} segments/s (whole command)`,
  );
}

async function parseOnly(file: string): Promise<void> {
  const started = performance.now();
  const contents = await readImportFile({
    source: createReadStream(file, { highWaterMark: 1 << 20 }),
    name: file,
    columns: ['started_at', 'ended_at', 'state'],
    parse: parseSegmentRecord,
  });
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `parse only (${contents.format})`.padEnd(34) +
      ` ${String(contents.items.length).padStart(9)} segments in ${seconds.toFixed(1)} s → ${Math.round(contents.items.length / seconds).toLocaleString('en-US')} segments/s`,
  );
}

try {
  const ndjson = join(work, 'segments.ndjson');
  const csv = join(work, 'segments.csv');
  await writeSegments(ndjson, 'ndjson');
  await writeSegments(csv, 'csv');
  console.log(
    `${count.toLocaleString('en-US')} segments: NDJSON ${(statSync(ndjson).size / 1e6).toFixed(0)} MB, CSV ${(statSync(csv).size / 1e6).toFixed(0)} MB; Node ${process.version}\n`,
  );

  await parseOnly(ndjson);
  await parseOnly(csv);
  importRun('PGlite, NDJSON, one transaction', ['--data-dir', join(work, 'pglite-ndjson')], ndjson);
  importRun('PGlite, CSV, one transaction', ['--data-dir', join(work, 'pglite-csv')], csv);

  const databaseUrl = process.env.DATABASE_URL;
  if (databaseUrl) {
    const name = `fh_bench_${process.pid}`;
    const admin = postgres(databaseUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`CREATE DATABASE ${name}`);
    try {
      const url = new URL(databaseUrl);
      url.pathname = `/${name}`;
      importRun('PostgreSQL, NDJSON, one transaction', ['--database-url', url.toString()], ndjson);
    } finally {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    }
  } else {
    console.log('PostgreSQL: skipped (DATABASE_URL is not set)');
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
