/**
 * D27, cost by window and not by history: one device with 1 year and one with 5 years of ~150
 * segments a day, on PostgreSQL (DATABASE_URL, else postgres://postgres@127.0.0.1:5432/test when it
 * answers). Through createFleetHours() over the Kysely store:
 *
 *   - /hours/daily over 365 days ending now (today cut at now, an open segment running);
 *   - /meter (the device's whole history).
 *
 * Prints the median and p95 of each, and the 5-year ÷ 1-year ratio of medians (1.0: the cost does
 * not grow with history). Also the bare aggregation SQL of each. Asserts nothing.
 */
import { performance } from 'node:perf_hooks';
import { createFleetHours, dayBuckets, parseWindowQuery, resolveWindow, type SegmentInput } from '@fleet-hours/core';
import { mulberry32 as random } from '@fleet-hours/server';
import { createKyselyStore, createPostgresDatabase, migrateToLatest, type FleetHoursDatabase } from '@fleet-hours/storage-kysely';
import { sql, type Kysely } from 'kysely';
import postgres from 'postgres';
// Internal, not in the package's API: the very SQL builders the store runs, for the bare figures.
import { _summarize, _sumByBucket } from '../packages/storage-kysely/src/_segment-queries.js';

const TIME_ZONE = 'Europe/Berlin';
const DAY = 86_400;
const NOW = Date.UTC(2026, 5, 15, 14, 7, 30) / 1000; // a Monday afternoon: today is cut at now
const WARM_UP = 20;
const RUNS = 200;

/** ~150 segments a day from `start` until `end`, in runs of moving and idle with engine-off gaps; the last one open. */
function history(start: number, end: number, seed: number): SegmentInput[] {
  const next = random(seed);
  const out: SegmentInput[] = [];
  let at = start;
  for (let index = 0; at < end; index += 1) {
    const moving = index % 2 === 0;
    const length = moving ? 180 + Math.floor(next() * 420) : 30 + Math.floor(next() * 150);
    out.push({ startedAt: at, endedAt: at + length, state: moving ? 'moving' : 'idle' });
    at += length + (index % 6 === 5 ? 60 + Math.floor(next() * 300) : 0);
  }
  out[out.length - 1] = { ...out[out.length - 1]!, endedAt: null };
  return out;
}

async function measure(run: () => Promise<unknown>): Promise<{ median: number; p95: number }> {
  for (let index = 0; index < WARM_UP; index += 1) await run();
  const times: number[] = [];
  for (let index = 0; index < RUNS; index += 1) {
    const started = performance.now();
    await run();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(RUNS / 2)]!, p95: times[Math.ceil(RUNS * 0.95) - 1]! };
}

const fmt = (ms: number) => ms.toFixed(3).padStart(8);

async function bench(db: Kysely<FleetHoursDatabase>): Promise<void> {
  await migrateToLatest(db);
  const store = createKyselyStore(db);
  const account = await store.createAccount({ name: 'Bench', plan: 'business', now: NOW });
  const fleetHours = createFleetHours({ store, now: () => NOW * 1000 });
  const results: Record<string, Record<string, { median: number; p95: number }>> = {};
  for (const years of [1, 5]) {
    const device = (await store.createDevice({ accountId: account.id, name: `${years}y`, imei: `bench-${years}`, model: 'm', timeZone: TIME_ZONE }))!;
    const segments = history(NOW - years * 365 * DAY, NOW - 600, years);
    const started = performance.now();
    await store.importSegments({ deviceId: device.id, segments });
    const importSeconds = (performance.now() - started) / 1000;
    await sql`vacuum analyze`.execute(db);
    const query = { accountId: account.id, deviceId: device.id };
    const yearDates = parseWindowQuery({ from: '2025-06-15' }); // 365 days back, ending now
    const window = resolveWindow({ ...yearDates, now: NOW, timeZone: TIME_ZONE });
    const boundaries = dayBuckets(window).boundaries.map((boundary) => Math.min(boundary, NOW));
    console.log(`\n${years} year(s): ${segments.length.toLocaleString('en')} segments (imported in ${importSeconds.toFixed(1)} s, figures included)`);
    results[years] = {
      daily: await measure(() => fleetHours.daily({ ...query, ...yearDates })),
      meter: await measure(() => fleetHours.meter(query)),
      dailySql: await measure(() => _sumByBucket(device.id, boundaries, NOW).execute(db)),
      meterSql: await measure(() => _summarize(device.id, NOW).execute(db)),
    };
    for (const [label, figure] of Object.entries(results[years]!)) console.log(`  ${label.padEnd(9)} median ${fmt(figure.median)} ms  p95 ${fmt(figure.p95)} ms`);
  }
  console.log('\n5 years ÷ 1 year (medians):');
  for (const label of ['daily', 'meter', 'dailySql', 'meterSql']) {
    console.log(`  ${label.padEnd(9)} ${(results[5]![label]!.median / results[1]![label]!.median).toFixed(2)}`);
  }
}

async function reachable(url: string): Promise<boolean> {
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

const serverUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
console.log(`D27: /hours/daily (365 days) and /meter through createFleetHours on the Kysely store; ${RUNS} sequential runs after ${WARM_UP} warm-up runs.`);
if (await reachable(serverUrl)) {
  const schema = `fh_bench_rollup_${process.pid}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create schema ${schema}`);
  const db = createPostgresDatabase({ connectionString: serverUrl, schema, max: 4 });
  try {
    console.log(`PostgreSQL ${(await sql<{ v: string }>`select current_setting('server_version') as v`.execute(db)).rows[0]!.v} (postgres.js), zone ${TIME_ZONE}`);
    await bench(db);
  } finally {
    await db.destroy();
    await admin.unsafe(`drop schema ${schema} cascade`);
    await admin.end();
  }
} else {
  console.log(`PostgreSQL server: not reachable at ${serverUrl.replace(/:[^:@/]*@/, ':***@')}, skipped`);
}
