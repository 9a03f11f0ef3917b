/**
 * The fleet endpoints (D32) on PostgreSQL (DATABASE_URL, else postgres://postgres@127.0.0.1:5432/test
 * when it answers): 500 devices in five zones, each with a year of segments. The segments are
 * written with one SQL `insert … select generate_series` per 50 devices, then the store's derived
 * figures are rebuilt (`rebuildDailyFigures`), as after any write outside Fleet Hours. 24 segments
 * a day per device (one an hour, 25–34 minutes long, two moving for one idle): 4.4 M rows; the
 * product's ~150 a day (27 M rows) is too much for a quick run — FLEET_BENCH_PER_DAY changes it.
 *
 * Everything goes through one app (`createFleetHoursApp` over the Kysely store, which also holds
 * the rate-limit counters as the reference server does; limits raised out of the way; no socket:
 * `app.request()`), so a fleet page and the single-device requests it replaces pay the same
 * admission and serialization:
 *
 *   - one page of `/api/v1/hours` (100 devices; 7 and 365 days) and of `/api/v1/hours/daily`
 *     (20 devices, 365 days) and `/api/v1/meter` (100 devices): median and p95 latency, and the
 *     ratio to the same data asked as 100 (or 20) sequential single-device requests;
 *   - a full export: every page of `/api/v1/hours/daily` (500 devices × 366 days, 100 a page).
 *
 * Prints figures; asserts nothing. Run: `npm run bench -- fleet`.
 */
import { performance } from 'node:perf_hooks';
import { createFleetHours } from '@fleet-hours/core';
import { createFleetHoursApp } from '@fleet-hours/http';
import { createKyselyStore, createPostgresDatabase, migrateToLatest, rebuildDailyFigures } from '@fleet-hours/storage-kysely';
import { sql } from 'kysely';
import postgres from 'postgres';
import { benchAccount, reachable } from './_support.js';

const DEVICES = 500;
const DAYS = 365;
const PER_DAY = Number(process.env.FLEET_BENCH_PER_DAY ?? 24);
const ZONES = ['America/New_York', 'Europe/Berlin', 'Asia/Kathmandu', 'America/Los_Angeles', 'Australia/Sydney'];
const YEAR_START = Date.UTC(2025, 2, 1) / 1000; // 2025-03-01T00:00:00Z
const NOW = YEAR_START + DAYS * 86_400 + 3600; // after the year: every window is in the past
const WEEK = 'from=2026-02-22&to=2026-02-28';
const YEAR = 'from=2025-02-28&to=2026-02-28'; // the clamp's limit: 366 local dates

const serverUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';

/**
 * Times `a` and `b` in turns (a, b, a, b, …), so that both see the same load on a shared machine:
 * the median and p95 of each, and the median of the per-turn ratios b / a.
 */
async function compare(runs: number, a: () => Promise<unknown>, b: () => Promise<unknown>) {
  await a();
  await b();
  const times: { a: number[]; b: number[]; ratio: number[] } = { a: [], b: [], ratio: [] };
  for (let index = 0; index < runs; index += 1) {
    let started = performance.now();
    await a();
    const first = performance.now() - started;
    started = performance.now();
    await b();
    const second = performance.now() - started;
    times.a.push(first);
    times.b.push(second);
    times.ratio.push(second / first);
  }
  const stats = (values: number[]) => {
    const sorted = [...values].sort((x, y) => x - y);
    return { median: sorted[Math.floor(sorted.length / 2)]!, p95: sorted[Math.ceil(sorted.length * 0.95) - 1]! };
  };
  return { a: stats(times.a), b: stats(times.b), ratio: stats(times.ratio).median };
}

async function measure(runs: number, warmUp: number, run: () => Promise<unknown>): Promise<{ median: number; p95: number }> {
  for (let index = 0; index < warmUp; index += 1) await run();
  const times: number[] = [];
  for (let index = 0; index < runs; index += 1) {
    const started = performance.now();
    await run();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(runs / 2)]!, p95: times[Math.ceil(runs * 0.95) - 1]! };
}

const fmt = (ms: number) => ms.toFixed(1).padStart(8);

if (!(await reachable(serverUrl))) {
  console.log(`PostgreSQL server: not reachable at ${serverUrl.replace(/:[^:@/]*@/, ':***@')}, skipped`);
  process.exit(0);
}

const schema = `fh_bench_fleet_${process.pid}`;
const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
await admin.unsafe(`create schema ${schema}`);
// No deadline (D28): the bulk load's statements take longer than a request's 5 s.
const db = createPostgresDatabase({ connectionString: serverUrl, schema, max: 4, queryTimeout: 0 });
try {
  await migrateToLatest(db);
  const store = createKyselyStore(db);
  const { accountId, key } = await benchAccount(store, YEAR_START);
  const account = { id: accountId };
  const deviceIds: number[] = [];
  for (let index = 0; index < DEVICES; index += 1) {
    const device = await store.createDevice({
      accountId: account.id,
      name: `Truck ${index + 1}`,
      imei: `35${String(index).padStart(13, '0')}`,
      model: 'FMB920',
      timeZone: ZONES[index % ZONES.length]!,
    });
    deviceIds.push(device!.id);
  }

  const loadStarted = performance.now();
  const step = Math.floor(86_400 / PER_DAY);
  for (let first = 0; first < DEVICES; first += 50) {
    const ids = deviceIds.slice(first, first + 50);
    await sql`
      insert into engine_segments (device_id, started_at, ended_at, state)
      select device.id,
             to_timestamp(${YEAR_START}::float8 + slot * ${step} + (device.id % 30) * 60),
             to_timestamp(${YEAR_START}::float8 + slot * ${step} + (device.id % 30) * 60 + least(${step - 60}, 1500 + (slot % 10) * 60)),
             case when slot % 3 = 2 then 'idle' else 'moving' end
        from unnest(${ids}::int[]) as device(id)
       cross join generate_series(0, ${DAYS * PER_DAY - 1}) as slot`.execute(db);
  }
  await sql`update device_states set last_reported_at = to_timestamp(${NOW - 3600}::float8) where device_id in (select id from devices where account_id = ${account.id})`.execute(
    db,
  );
  const inserted = performance.now();
  // Segments written outside Fleet Hours: rebuild what the store derives from them (and the scan bound).
  await rebuildDailyFigures(db);
  const rebuilt = performance.now();
  await sql`vacuum analyze`.execute(db);
  const { rows } = await sql<{ count: string }>`select count(*) as count from engine_segments`.execute(db);
  console.log(
    `fleet: ${DEVICES} devices in ${ZONES.length} zones, ${Number(rows[0]!.count).toLocaleString('en')} segments (${PER_DAY} a day for ${DAYS} days each): ` +
      `insert ${((inserted - loadStarted) / 1000).toFixed(1)} s, rebuild of the derived figures ${((rebuilt - inserted) / 1000).toFixed(1)} s`,
  );

  const unlimited = 1_000_000_000;
  const app = createFleetHoursApp({
    fleetHours: createFleetHours({ store, now: () => NOW * 1000 }),
    rateLimitStore: store,
    rateLimits: {
      hours: unlimited,
      daily: unlimited,
      meter: unlimited,
      fleetHours: unlimited,
      fleetDaily: unlimited,
      fleetMeter: unlimited,
    },
    now: () => NOW * 1000,
    logger: () => {},
  });
  const get = async (path: string): Promise<string> => {
    const response = await app.request(path, { headers: { Authorization: `Bearer ${key}` } });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${text}`);
    return text;
  };

  // The same data both ways, checked once before timing.
  const page = async (path: string, query: string, limit: number) =>
    (JSON.parse(await get(`${path}?${query}&limit=${limit}`)) as { data: unknown[] }).data;
  const singles = async (suffix: string, query: string, count: number) => {
    const bodies: unknown[] = [];
    for (const id of deviceIds.slice(0, count))
      bodies.push(JSON.parse(await get(`/api/v1/devices/${id}${suffix}${query ? `?${query}` : ''}`)));
    return bodies;
  };
  const cases = [
    { label: '/api/v1/hours        100 devices,   7 days', path: '/api/v1/hours', suffix: '/hours', query: WEEK, count: 100, runs: 15 },
    { label: '/api/v1/hours        100 devices, 365 days', path: '/api/v1/hours', suffix: '/hours', query: YEAR, count: 100, runs: 10 },
    { label: '/api/v1/hours        500 devices,   7 days', path: '/api/v1/hours', suffix: '/hours', query: WEEK, count: 500, runs: 5 },
    {
      label: '/api/v1/hours/daily   20 devices, 365 days',
      path: '/api/v1/hours/daily',
      suffix: '/hours/daily',
      query: YEAR,
      count: 20,
      runs: 10,
    },
    { label: '/api/v1/meter        100 devices, a year  ', path: '/api/v1/meter', suffix: '/meter', query: '', count: 100, runs: 10 },
  ];
  console.log(
    '\nLatency in ms (median, p95), the page and the single requests timed in turns; ratio = median of (single requests / page) per turn.',
  );
  console.log('  one fleet page                                   median      p95 | N single requests median      p95 | ratio');
  for (const { label, path, suffix, query, count, runs } of cases) {
    const fleet = await page(path, query || 'x=', count);
    const single = await singles(suffix, query, count);
    if (JSON.stringify(fleet) !== JSON.stringify(single)) throw new Error(`${label}: the page differs from the single-device bodies`);
    const { a, b, ratio } = await compare(
      runs,
      () => get(`${path}?${query}&limit=${count}`),
      () => singles(suffix, query, count),
    );
    console.log(
      `  ${label}   ${fmt(a.median)} ${fmt(a.p95)} | ${String(count).padStart(3)} × single ${fmt(b.median)} ${fmt(b.p95)} | ${ratio.toFixed(1)}×`,
    );
  }

  // A full export: every page of the daily series, 100 devices a page (the most), following next_cursor.
  const exportAll = async () => {
    let cursor: string | null = null;
    let devices = 0;
    let days = 0;
    let bytes = 0;
    do {
      const text = await get(`/api/v1/hours/daily?${YEAR}&limit=100${cursor ? `&cursor=${cursor}` : ''}`);
      bytes += text.length;
      const body = JSON.parse(text) as { data: { data: unknown[] }[]; next_cursor: string | null };
      devices += body.data.length;
      for (const element of body.data) days += element.data.length;
      cursor = body.next_cursor;
    } while (cursor !== null);
    return { devices, days, bytes };
  };
  const exported = await exportAll();
  const full = await measure(5, 1, exportAll);
  console.log(
    `\nFull export: /api/v1/hours/daily, ${exported.devices} devices × 366 days (${exported.days.toLocaleString('en')} entries, ` +
      `${(exported.bytes / 1e6).toFixed(1)} MB of JSON, ${Math.ceil(exported.devices / 100)} pages of 100): median ${(full.median / 1000).toFixed(2)} s, p95 ${(full.p95 / 1000).toFixed(2)} s`,
  );
} finally {
  await db.destroy();
  await admin.unsafe(`drop schema ${schema} cascade`);
  await admin.end();
}
