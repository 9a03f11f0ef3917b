/**
 * What the day fields (D59) and utilization (D60) cost, on PostgreSQL (DATABASE_URL, else
 * postgres://postgres@127.0.0.1:5432/test; skipped when it does not answer), each build's reference
 * server (`startServer`) in a fresh database of its own:
 *
 * (a) `/hours/daily` of one device over 365 days (a year of segments, 6 a day, its account's work
 *     calendar set where the build has calendars), p50 of N sequential requests, this build against
 *     an earlier build (`UTILIZATION_BENCH_BASE`, default /work/wt-base: its built packages, run as
 *     they are, never rebuilt), requests in turns so both see the same machine.
 * (b) `/api/v1/utilization?group_by=month` of 1,000 devices × 365 days (segments made by SQL
 *     `generate_series`), in a process of its own: every page walked at the largest page size, and
 *     `by=tag` (every device in one answer); the time of each and the process's peak RSS, against the
 *     server's read deadline (5 s per database call, `--query-timeout`).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { figureOf, loadProcess, reachable, stealMeter, stealNote } from './_support.js';

const DAY = 86_400;
const RUNS = Number(process.env.UTILIZATION_BENCH_RUNS ?? 200);
const FLEET_DEVICES = Number(process.env.UTILIZATION_BENCH_DEVICES ?? 1000);
/** (b): the share of the fleet's devices with a work calendar: 1, the account's; less, each such device's own (spread by id). */
const FLEET_CALENDARS = Number(process.env.UTILIZATION_BENCH_CALENDARS ?? 1);
const BASE = process.env.UTILIZATION_BENCH_BASE ?? '/work/wt-base';
const ADMIN_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const UNLIMITED = 1_000_000_000;
/** Six segments a day, in hours after local midnight: [start, end, state]. */
const DAY_SHAPE: readonly [number, number, 'moving' | 'idle'][] = [
  [6.5, 8, 'moving'],
  [8, 8.3, 'idle'],
  [9, 12, 'moving'],
  [12, 12.5, 'idle'],
  [13, 16.75, 'moving'],
  [16.75, 17.2, 'idle'],
];
const SHIFT = [['07:00', '17:00']] as const;
const CALENDAR = { weekly: { mon: SHIFT, tue: SHIFT, wed: SHIFT, thu: SHIFT, fri: SHIFT, sat: [], sun: [] }, exceptions: [] };

/** A build's packages: this checkout's (by name) or another checkout's built dist. */
interface Build {
  readonly name: string;
  readonly core: typeof import('@fleet-hours/core');
  readonly server: typeof import('@fleet-hours/server');
  readonly storage: typeof import('@fleet-hours/storage-kysely');
}

async function buildAt(root: string | null, name: string): Promise<Build> {
  const load = (pkg: string, dist: string) => import(root === null ? `@fleet-hours/${pkg}` : `${root}/packages/${pkg}/${dist}`);
  return {
    name,
    core: await load('core', 'dist/index.js'),
    server: await load('server', 'dist/index.js'),
    storage: await load('storage-kysely', 'dist/index.js'),
  };
}

/** A fresh database; its URL and how to drop it. */
async function freshDatabase(admin: postgres.Sql, label: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `fh_bench_utilcost_${label}_${process.pid}`;
  await admin.unsafe(`create database ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return { url: url.href, drop: async () => void (await admin.unsafe(`drop database if exists ${name} with (force)`)) };
}

/** The local midnights (Europe/Berlin, as UTC+1 for simplicity of the data) of the last 365 days, oldest first. */
function yearOfDays(now: number): number[] {
  const today = Math.floor(now / DAY) * DAY - 3600;
  return Array.from({ length: 365 }, (_, index) => today - (364 - index) * DAY);
}

/**
 * One device with a year of segments (and the account's calendar where the build has calendars),
 * through the build's own store; a server of that build on it. The daily request's path and key.
 */
async function serveOneDevice(build: Build, url: string, now: number) {
  const { core, storage, server } = build;
  const db = storage.createPostgresDatabase({ connectionString: url, max: 2 });
  await storage.migrateToLatest(db);
  const store = storage.createKyselyStore(db);
  const account = await store.createAccount({ name: 'Bench', plan: 'business', now });
  const key = core.generateApiKey();
  await store.createApiKey({ accountId: account.id, fingerprint: await core.fingerprintApiKey(key), label: null, expiresAt: null, now });
  const device = (await store.createDevice({
    accountId: account.id,
    name: 'Loader',
    imei: '350000000000001',
    model: 'FMB920',
    timeZone: 'Europe/Berlin',
  }))!;
  const segments = yearOfDays(now).flatMap((midnight) =>
    DAY_SHAPE.map(([from, to, state]) => ({ startedAt: midnight + from * 3600, endedAt: midnight + to * 3600, state })),
  );
  await store.importSegments({ deviceId: device.id, segments });
  const calendars = 'putWorkCalendar' in store;
  if (calendars) await store.putWorkCalendar({ accountId: account.id, deviceId: null, calendar: CALENDAR });
  await db.destroy();
  const started = await server.startServer({
    database: { kind: 'postgres', url },
    port: 0,
    rateLimits: { daily: UNLIMITED, hours: UNLIMITED, unauthenticated: UNLIMITED },
    log: () => {},
  });
  const to = new Date(now * 1000).toISOString().slice(0, 10);
  const from = new Date((now - 364 * DAY) * 1000).toISOString().slice(0, 10);
  return {
    server: started,
    calendars,
    segments: segments.length,
    request: async () => {
      const response = await fetch(`${started.url}/api/v1/devices/${device.id}/hours/daily?from=${from}&to=${to}`, {
        headers: { Authorization: `Bearer ${key}` },
      });
      const body = (await response.json()) as { data?: unknown[] };
      if (response.status !== 200 || body.data?.length !== 365) throw new Error(`daily answered ${response.status}`);
    },
  };
}

async function dailyAgainstBase(admin: postgres.Sql): Promise<void> {
  if (!existsSync(`${BASE}/packages/server/dist/index.js`)) {
    console.log(`(a) no built base at ${BASE}: skipped`);
    return;
  }
  const now = Math.floor(Date.now() / 1000);
  const builds = [await buildAt(null, 'this build'), await buildAt(BASE, `base (${BASE})`)];
  const databases = [await freshDatabase(admin, 'this'), await freshDatabase(admin, 'base')];
  const served = [];
  try {
    for (const [index, build] of builds.entries()) served.push(await serveOneDevice(build, databases[index]!.url, now));
    const steal = stealMeter();
    for (let warm = 0; warm < 20; warm += 1) for (const one of served) await one.request();
    const times: number[][] = served.map(() => []);
    for (let run = 0; run < RUNS; run += 1)
      for (const [index, one] of served.entries()) {
        const started = performance.now();
        await one.request();
        times[index]!.push(performance.now() - started);
      }
    const figures = times.map(figureOf);
    console.log(
      `(a) GET /hours/daily, 365 days, one device (${served[0]!.segments} segments), ${RUNS} requests each in turns${stealNote(steal)}`,
    );
    for (const [index, build] of builds.entries())
      console.log(
        `    ${build.name.padEnd(40)} p50 ${figures[index]!.median.toFixed(2)} ms  p95 ${figures[index]!.p95.toFixed(2)} ms` +
          `  (calendar ${served[index]!.calendars ? 'set' : 'none: no calendars in this build'})`,
      );
    console.log(`    ratio of p50s, this build ÷ base: ${(figures[0]!.median / figures[1]!.median).toFixed(2)}`);
  } finally {
    for (const one of served) await one.server.close();
    for (const database of databases) await database.drop();
  }
}

/** (b), in a process of its own: the fleet's utilization by month over a year, its time and the process's peak RSS. */
async function fleetUtilization(): Promise<void> {
  const input = JSON.parse(process.env.BENCH_INPUT!) as { url: string; key: string; from: string; to: string };
  const { startServer } = await import('@fleet-hours/server');
  const server = await startServer({
    database: { kind: 'postgres', url: input.url },
    port: 0,
    rateLimits: { fleetUtilization: UNLIMITED, unauthenticated: UNLIMITED },
    log: () => {},
  });
  const rssBefore = process.memoryUsage.rss();
  const get = async (query: string) => {
    const response = await fetch(`${server.url}/api/v1/utilization?group_by=month&from=${input.from}&to=${input.to}&${query}`, {
      headers: { Authorization: `Bearer ${input.key}` },
    });
    const body = (await response.json()) as { data: unknown[]; next_cursor: string | null };
    if (response.status !== 200) throw new Error(`utilization answered ${response.status}: ${JSON.stringify(body)}`);
    return body;
  };
  const walk = async () => {
    let cursor: string | null = null;
    let devices = 0;
    let pages = 0;
    do {
      const page = await get(`limit=100${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`);
      devices += page.data.length;
      pages += 1;
      cursor = page.next_cursor;
    } while (cursor !== null);
    return { devices, pages };
  };
  const timed = async <T>(work: () => Promise<T>) => {
    const started = performance.now();
    const result = await work();
    return { ms: performance.now() - started, result };
  };
  await walk(); // warm-up: the plans and the zone cache
  const walked = [await timed(walk), await timed(walk), await timed(walk)];
  const byTag = [];
  for (let run = 0; run < 3; run += 1) {
    try {
      byTag.push(await timed(() => get('by=tag')));
    } catch (error) {
      console.error(`by=tag: ${(error as Error).message}`);
      byTag.push({ ms: Number.NaN, result: { data: [], next_cursor: null } });
    }
  }
  await server.close();
  console.log(
    JSON.stringify({
      walkedMs: walked.map((one) => one.ms),
      pages: walked[0]!.result.pages,
      devices: walked[0]!.result.devices,
      byTagMs: byTag.map((one) => one.ms),
      tags: byTag[0]!.result.data.length,
      rssBeforeMiB: rssBefore / 2 ** 20,
      peakRssMiB: process.resourceUsage().maxRSS / 1024,
    }),
  );
}

async function fleetAtScale(admin: postgres.Sql): Promise<void> {
  const { core, storage } = await buildAt(null, 'this build');
  const database = await freshDatabase(admin, 'fleet');
  try {
    const now = Math.floor(Date.now() / 1000);
    const db = storage.createPostgresDatabase({ connectionString: database.url, max: 2 });
    await storage.migrateToLatest(db);
    const store = storage.createKyselyStore(db);
    const account = await store.createAccount({ name: 'Bench fleet', plan: 'business', now });
    const key = core.generateApiKey();
    await store.createApiKey({ accountId: account.id, fingerprint: await core.fingerprintApiKey(key), label: null, expiresAt: null, now });
    if (FLEET_CALENDARS >= 1) await store.putWorkCalendar({ accountId: account.id, deviceId: null, calendar: CALENDAR });
    const seeding = performance.now();
    const sql = postgres(database.url, { max: 1, onnotice: () => {} });
    await sql`insert into devices (account_id, name, imei, model, status, time_zone, tags)
      select ${account.id}, 'Truck ' || g, (360000000000000 + g)::text, 'FMB920', 'active', 'Europe/Berlin', array['site-' || (g % 10)]
        from generate_series(1, ${FLEET_DEVICES}::int) as g`;
    const first = yearOfDays(now)[0]!;
    await sql`insert into engine_segments (device_id, started_at, ended_at, state, source)
      select d.id, to_timestamp(${first}::float8 + day * 86400 + s.a * 3600), to_timestamp(${first}::float8 + day * 86400 + s.b * 3600), s.state, 'import'
        from devices as d cross join generate_series(0, 364) as day
             cross join unnest(${DAY_SHAPE.map((shape) => shape[0])}::float8[], ${DAY_SHAPE.map((shape) => shape[1])}::float8[],
                               ${DAY_SHAPE.map((shape) => shape[2])}::text[]) as s(a, b, state)
       where d.account_id = ${account.id}`;
    await sql.end();
    if (FLEET_CALENDARS < 1) {
      // Device n (1-based, in id order) has its own calendar when floor(n × share) steps up at n.
      const devices = [...(await store.listDevices({ accountId: account.id }))].sort((a, b) => a.id - b.id);
      for (const [index, device] of devices.entries()) {
        if (Math.floor((index + 1) * FLEET_CALENDARS) > Math.floor(index * FLEET_CALENDARS))
          await store.putWorkCalendar({ accountId: account.id, deviceId: device.id, calendar: CALENDAR });
      }
    }
    await storage.rebuildDailyFigures(db);
    await db.destroy();
    const seeded = (performance.now() - seeding) / 1000;
    const to = new Date(now * 1000).toISOString().slice(0, 10);
    const from = new Date((now - 364 * DAY) * 1000).toISOString().slice(0, 10);
    const steal = stealMeter();
    if (process.env.UTILIZATION_BENCH_SEED_ONLY === '1') return;
    const result = await loadProcess<{
      walkedMs: number[];
      pages: number;
      devices: number;
      byTagMs: number[];
      tags: number;
      rssBeforeMiB: number;
      peakRssMiB: number;
    }>(fileURLToPath(import.meta.url), { BENCH_INPUT: JSON.stringify({ url: database.url, key, from, to }) });
    const segments = FLEET_DEVICES * 365 * DAY_SHAPE.length;
    console.log(
      `(b) GET /api/v1/utilization?group_by=month, ${FLEET_DEVICES} devices × 365 days (${segments.toLocaleString('en-US')} segments, ${FLEET_CALENDARS >= 1 ? "the account's calendar" : `${FLEET_CALENDARS * 100}% of devices with a calendar`}, seeded in ${seeded.toFixed(0)} s)${stealNote(steal)}`,
    );
    console.log(
      `    every page (limit=100, the largest): ${result.pages} pages, ${result.devices} devices, ${result.walkedMs.map((ms) => `${(ms / 1000).toFixed(2)} s`).join(' · ')}`,
    );
    console.log(
      `    by=tag, one answer of every device: ${result.tags} tags, ${result.byTagMs.map((ms) => `${(ms / 1000).toFixed(2)} s`).join(' · ')}`,
    );
    console.log(
      `    server process RSS ${result.rssBeforeMiB.toFixed(0)} MiB before, ${result.peakRssMiB.toFixed(0)} MiB peak; read deadline 5 s a database call`,
    );
  } finally {
    // UTILIZATION_BENCH_KEEP=1 keeps the fleet's database, to look at it afterwards.
    if (process.env.UTILIZATION_BENCH_KEEP === '1') console.log(`    kept: ${database.url}`);
    else await database.drop();
  }
}

if (process.env.FLEET_HOURS_BENCH_ROLE === 'load') await fleetUtilization();
else if (!(await reachable(ADMIN_URL)))
  console.log(`utilization-cost: PostgreSQL not reachable at ${ADMIN_URL.replace(/:[^:@/]*@/, ':***@')}, skipped`);
else {
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
  const version = (await admin`select current_setting('server_version') as v`)[0]!.v as string;
  console.log(`utilization-cost: PostgreSQL ${version}, each build's reference server (pool 10) in its own database`);
  try {
    if (process.env.UTILIZATION_BENCH_ONLY !== 'fleet') await dailyAgainstBase(admin);
    if (process.env.UTILIZATION_BENCH_ONLY !== 'daily') await fleetAtScale(admin);
  } finally {
    await admin.end({ timeout: 1 });
  }
}
