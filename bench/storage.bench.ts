/**
 * The Kysely store on PostgreSQL (DATABASE_URL, else postgres://postgres@127.0.0.1:5432/test when
 * it answers) and on PGlite in memory, with one device holding a year of segments (~150 a day):
 *
 *   - latency (median, p95) of the store-backed calls behind /hours (7- and 365-day windows),
 *     /hours/daily (7 and 365) and /meter, through createFleetHours(): device lookup, window
 *     resolution, the aggregation query, the response object;
 *   - the same aggregation SQL alone through the same driver ("bare"), and the ratio of medians;
 *   - for the 365-day daily series, the fallback a store without the capability gets
 *     (listSegments + the core's in-memory sumSegmentsByBucket);
 *   - the import rate of one 1,000,000-segment batch (one transaction).
 *
 * Imports the packages' built dist by name (`npm run bench -- storage` builds first), and the
 * store's internal SQL builders from source. Prints figures; asserts nothing.
 * STORAGE_BENCH_IMPORT=200000 for a quicker import run.
 */
import { performance } from 'node:perf_hooks';
import { sql, type Kysely } from 'kysely';
import postgres from 'postgres';
import { createFleetHours, dayBuckets, parseWindowQuery, resolveWindow, type SegmentInput } from '@fleet-hours/core';
import { sumSegmentsByBucket } from '@fleet-hours/core/adapter';
import {
  createKyselyStore,
  createPGliteDatabase,
  createPostgresDatabase,
  migrateToLatest,
  type FleetHoursDatabase,
  type KyselyFleetHoursStore,
} from '@fleet-hours/storage-kysely';
import { mulberry32 as random } from '@fleet-hours/server';
// Internal, not in the package's API: the very SQL builders the store runs, from source (its
// imports of the core are types only), so "bare" measures the store's SQL, not a copy of it.
import { summarize, sumByBucket } from '../packages/storage-kysely/src/sql/segment-queries.js';
import { reachable } from './_support.js';

const TIME_ZONE = 'America/New_York';
const YEAR_START = Date.UTC(2025, 2, 1, 5) / 1000; // 2025-03-01T00:00:00-05:00
const DAYS = 365;
const PER_DAY = 150;
const NOW = YEAR_START + DAYS * 86_400 + 3600; // an hour after the year: every window is in the past
const IMPORT_COUNT = Number(process.env.STORAGE_BENCH_IMPORT ?? 1_000_000);
const WARM_UP = 20;
const RUNS = 100;

/** `count` segments from `start`, in runs of moving and idle with engine-off gaps: ~150 a day. */
function segments(start: number, count: number, seed: number): SegmentInput[] {
  const next = random(seed);
  const out: SegmentInput[] = new Array(count);
  let at = start;
  for (let index = 0; index < count; index += 1) {
    const moving = index % 2 === 0;
    const length = moving ? 180 + Math.floor(next() * 420) : 30 + Math.floor(next() * 150);
    out[index] = { startedAt: at, endedAt: at + length, state: moving ? 'moving' : 'idle' };
    at += length + (index % 6 === 5 ? 60 + Math.floor(next() * 300) : 0);
  }
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

/** The store's own aggregation SQL (what `sumSegmentSeconds` and `summarizeDeviceSegments` run), bare through the driver. */
const bareBuckets = sumByBucket;
const bareMeter = summarize;

const fmt = (ms: number) => ms.toFixed(2).padStart(8);

async function benchBackend(name: string, db: Kysely<FleetHoursDatabase>): Promise<void> {
  await migrateToLatest(db);
  const store: KyselyFleetHoursStore = createKyselyStore(db);
  const account = await store.createAccount({ name: 'Bench', plan: 'business', now: YEAR_START });
  const device = (await store.createDevice({ accountId: account.id, name: 'Truck', imei: '1', model: 'm', timeZone: TIME_ZONE }))!;
  const year = segments(YEAR_START, DAYS * PER_DAY, 1);
  await store.importSegments({ deviceId: device.id, segments: year });
  // Steady state: autovacuum sets the visibility map soon after a bulk import (index-only scans).
  await sql`vacuum analyze`.execute(db);

  const fleetHours = createFleetHours({ store, now: () => NOW * 1000 });
  const query = { accountId: account.id, deviceId: device.id };
  const weekDates = parseWindowQuery({ from: '2026-02-22', to: '2026-02-28' });
  const yearDates = parseWindowQuery({ from: '2025-02-28', to: '2026-02-28' }); // the clamp's limit: 366 local dates
  const week = resolveWindow({ ...weekDates, now: NOW, timeZone: TIME_ZONE });
  const wholeYear = resolveWindow({ ...yearDates, now: NOW, timeZone: TIME_ZONE });
  const cap = (boundaries: readonly number[]) => boundaries.map((boundary) => Math.min(boundary, NOW));

  console.log(`\n${name}: one device, ${year.length.toLocaleString('en')} segments over ${DAYS} days (${TIME_ZONE})`);
  console.log('  call (createFleetHours)      store median    p95 |  bare SQL median    p95 | ratio');
  const rows: [string, () => Promise<unknown>, () => Promise<unknown>][] = [
    [
      '/hours        7 days',
      () => fleetHours.hours({ ...query, ...weekDates }),
      () => bareBuckets(device.id, cap([week.start, week.end]), NOW).execute(db),
    ],
    [
      '/hours      365 days',
      () => fleetHours.hours({ ...query, ...yearDates }),
      () => bareBuckets(device.id, cap([wholeYear.start, wholeYear.end]), NOW).execute(db),
    ],
    [
      '/hours/daily  7 days',
      () => fleetHours.daily({ ...query, ...weekDates }),
      () => bareBuckets(device.id, cap(dayBuckets(week).boundaries), NOW).execute(db),
    ],
    [
      '/hours/daily 365 days',
      () => fleetHours.daily({ ...query, ...yearDates }),
      () => bareBuckets(device.id, cap(dayBuckets(wholeYear).boundaries), NOW).execute(db),
    ],
    ['/meter (whole history)', () => fleetHours.meter(query), () => bareMeter(device.id, NOW).execute(db)],
  ];
  for (const [label, viaStore, bare] of rows) {
    const a = await measure(viaStore);
    const b = await measure(bare);
    console.log(
      `  ${label.padEnd(24)} ${fmt(a.median)} ${fmt(a.p95)} | ${fmt(b.median)} ${fmt(b.p95)} | ${(a.median / b.median).toFixed(2)}`,
    );
  }
  const yearBoundaries = cap(dayBuckets(wholeYear).boundaries);
  const fallback = await measure(async () =>
    sumSegmentsByBucket(
      await store.listSegments({ deviceId: device.id, start: yearBoundaries[0], end: yearBoundaries.at(-1) }),
      yearBoundaries,
      NOW,
    ),
  );
  const inDatabase = await measure(() => store.sumSegmentSeconds({ deviceId: device.id, boundaries: yearBoundaries, now: NOW }));
  console.log(
    `  daily 365 without the capability (listSegments + sumSegmentsByBucket): median ${fmt(fallback.median)} ms, p95 ${fmt(fallback.p95)} ms` +
      ` = ${(fallback.median / inDatabase.median).toFixed(1)} × sumSegmentSeconds (${inDatabase.median.toFixed(2)} ms)`,
  );

  const importDevice = (await store.createDevice({ accountId: account.id, name: 'Import', imei: '2', model: 'm', timeZone: TIME_ZONE }))!;
  const batch = segments(YEAR_START, IMPORT_COUNT, 2);
  const started = performance.now();
  const summary = await store.importSegments({ deviceId: importDevice.id, segments: batch });
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `  import: ${IMPORT_COUNT.toLocaleString('en')} segments in one batch (one transaction): ${seconds.toFixed(1)} s = ` +
      `${Math.round(IMPORT_COUNT / seconds).toLocaleString('en')} segments/s (inserted ${summary?.inserted.toLocaleString('en')})`,
  );
}

const serverUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
console.log(`Latencies in ms over ${RUNS} sequential runs after ${WARM_UP} warm-up runs; ratio = store median / bare SQL median.`);
if (await reachable(serverUrl)) {
  const schema = `fh_bench_${process.pid}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create schema ${schema}`);
  const db = createPostgresDatabase({ connectionString: serverUrl, schema, max: 4 });
  try {
    await benchBackend(
      `PostgreSQL server (${(await sql<{ v: string }>`select current_setting('server_version') as v`.execute(db)).rows[0]!.v}, postgres.js)`,
      db,
    );
  } finally {
    await db.destroy();
    await admin.unsafe(`drop schema ${schema} cascade`);
    await admin.end();
  }
} else {
  console.log(`\nPostgreSQL server: not reachable at ${serverUrl.replace(/:[^:@/]*@/, ':***@')}, skipped`);
}
const pglite = await createPGliteDatabase();
try {
  await benchBackend('PGlite in memory', pglite);
} finally {
  await pglite.destroy();
}
