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
import { summarize, sumByBucket } from '../packages/storage-kysely/src/sql/segment-queries.js';
import { reachable, measurePair } from './_support.js';

const TIME_ZONE = 'Europe/Berlin';
const DAY = 86_400;
const NOW = Date.UTC(2026, 5, 15, 14, 7, 30) / 1000; // a Monday afternoon: today is cut at now
const WARM_UP = 20;
const RUNS = 400;

/** ~150 segments a day from `start` until `end`, in runs of moving and idle with engine-off gaps and nights; the last one open. */
function history(start: number, end: number, seed: number): SegmentInput[] {
  const next = random(seed);
  const out: SegmentInput[] = [];
  let at = start;
  for (let index = 0; at < end; index += 1) {
    const moving = index % 2 === 0;
    const length = moving ? 180 + Math.floor(next() * 420) : 30 + Math.floor(next() * 150);
    out.push({ startedAt: at, endedAt: at + length, state: moving ? 'moving' : 'idle' });
    at += length + (index % 6 === 5 ? 60 + Math.floor(next() * 300) : 0);
    // Engine off overnight (19:00 to 06:00 UTC): about 150 segments a day.
    const secondOfDay = at % DAY;
    if (secondOfDay >= 19 * 3600) at += DAY - secondOfDay + 6 * 3600;
  }
  out[out.length - 1] = { ...out[out.length - 1]!, endedAt: null };
  return out;
}

const fmt = (ms: number) => ms.toFixed(3).padStart(8);

async function bench(db: Kysely<FleetHoursDatabase>): Promise<void> {
  await migrateToLatest(db);
  const store = createKyselyStore(db);
  const account = await store.createAccount({ name: 'Bench', plan: 'business', now: NOW });
  const fleetHours = createFleetHours({ store, now: () => NOW * 1000 });
  const yearDates = parseWindowQuery({ from: '2025-06-15' }); // 365 days back, ending now
  const window = resolveWindow({ ...yearDates, now: NOW, timeZone: TIME_ZONE });
  const boundaries = dayBuckets(window).boundaries.map((boundary) => Math.min(boundary, NOW));
  const calls: Record<string, Record<number, () => Promise<unknown>>> = { daily: {}, meter: {}, 'daily SQL': {}, 'meter SQL': {} };
  for (const years of [1, 5]) {
    const device = (await store.createDevice({
      accountId: account.id,
      name: `${years}y`,
      imei: `bench-${years}`,
      model: 'm',
      timeZone: TIME_ZONE,
    }))!;
    const segments = history(NOW - years * 365 * DAY, NOW - 600, years);
    const started = performance.now();
    await store.importSegments({ deviceId: device.id, segments });
    const importSeconds = (performance.now() - started) / 1000;
    console.log(
      `${years} year(s): one device, ${segments.length.toLocaleString('en')} segments, imported in ${importSeconds.toFixed(1)} s (figures included)`,
    );
    const query = { accountId: account.id, deviceId: device.id };
    calls.daily![years] = () => fleetHours.daily({ ...query, ...yearDates });
    calls.meter![years] = () => fleetHours.meter(query);
    calls['daily SQL']![years] = () => sumByBucket(device.id, boundaries, NOW).execute(db);
    calls['meter SQL']![years] = () => summarize(device.id, NOW).execute(db);
  }
  await sql`vacuum analyze`.execute(db);
  console.log('\ncall                      1 year: median     p95 | 5 years: median     p95 | 5y ÷ 1y');
  for (const [label, byYears] of Object.entries(calls)) {
    // Interleaved, so that load from elsewhere on the machine falls on both alike.
    const [one, five] = await measurePair(byYears[1]!, byYears[5]!, { warmUp: WARM_UP, runs: RUNS });
    console.log(
      `  ${label.padEnd(22)} ${fmt(one.median)} ${fmt(one.p95)} |      ${fmt(five.median)} ${fmt(five.p95)} | ${(five.median / one.median).toFixed(2)}`,
    );
  }
}

const serverUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
console.log(
  `D27: /hours/daily (365 days) and /meter through createFleetHours on the Kysely store; ${RUNS} sequential runs after ${WARM_UP} warm-up runs.`,
);
if (await reachable(serverUrl)) {
  const schema = `fh_bench_rollup_${process.pid}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create schema ${schema}`);
  const db = createPostgresDatabase({ connectionString: serverUrl, schema, max: 4 });
  try {
    console.log(
      `PostgreSQL ${(await sql<{ v: string }>`select current_setting('server_version') as v`.execute(db)).rows[0]!.v} (postgres.js), zone ${TIME_ZONE}`,
    );
    await bench(db);
  } finally {
    await db.destroy();
    await admin.unsafe(`drop schema ${schema} cascade`);
    await admin.end();
  }
} else {
  console.log(`PostgreSQL server: not reachable at ${serverUrl.replace(/:[^:@/]*@/, ':***@')}, skipped`);
}
