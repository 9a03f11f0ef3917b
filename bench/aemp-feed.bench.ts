/**
 * The served AEMP feed's cost (issue 34): a snapshot page of 100 equipment (`GET /aemp/v2/Fleet/1`,
 * XML and JSON) against the fleet meter page of the same 100 devices (`GET /api/v1/meter`), on the
 * reference server over PostgreSQL (DATABASE_URL, else postgres://postgres@127.0.0.1:5432/test;
 * skipped when it does not answer), in a fresh database.
 *
 * The fleet: 1,000 devices in five zones, each with a year of segments (AEMP_FEED_BENCH_PER_DAY a
 * day, default 24, two moving for one idle; written by one SQL `insert … select generate_series` per
 * 100 devices, then the store's derived figures rebuilt, as after any write outside Fleet Hours), a
 * reading of its hour meter 30 days ago, its newest position and its last report an hour ago: every
 * element of an equipment has a value. The server is `startServer` as `fleet-hours serve` runs it
 * (pool of 10), the limits raised out of the way. Each route in turn gets 16 keep-alive connections
 * from a separate process for 1 s of warm-up and AEMP_FEED_BENCH_SECONDS (default 5) measured; the
 * three routes run AEMP_FEED_BENCH_ROUNDS times (default 2) in turns, and each round prints p50 / p99
 * and requests/s of each, and the AEMP pages' p50 and throughput as ratios of the meter page's.
 *
 * Before timing, checks that each answer is 200 and holds 100 equipment (or devices). Then, where
 * the time goes: each route one request at a time through an app in this process over the same
 * database, with the store calls of a request and their time.
 * Run: `npm run bench -- aemp-feed` (builds first; imports the packages' dist). Asserts no timing.
 */
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { FleetHoursStore } from '@fleet-hours/core';
import type { KeepAliveLoadResult } from './_support.js';
import { benchAccount, keepAliveLoad, loadProcess, startBenchServer, stealMeter, stealNote, withFreshDatabase } from './_support.js';

const DEVICES = 1_000;
const DAYS = 365;
const PER_DAY = Number(process.env.AEMP_FEED_BENCH_PER_DAY ?? 24);
const CONNECTIONS = 16;
const WARMUP_MS = 1_000;
const MEASURE_MS = Number(process.env.AEMP_FEED_BENCH_SECONDS ?? 5) * 1000;
const ROUNDS = Number(process.env.AEMP_FEED_BENCH_ROUNDS ?? 2);
const ZONES = ['America/New_York', 'Europe/Berlin', 'Asia/Kathmandu', 'America/Los_Angeles', 'Australia/Sydney'];

/** The routes timed, each with what its answer must hold. */
const ROUTES = {
  'GET /api/v1/meter (100 devices)': { path: '/api/v1/meter?limit=100', accept: 'application/json', holds: '"device_id"' },
  'GET /aemp/v2/Fleet/1, XML': { path: '/aemp/v2/Fleet/1', accept: 'application/xml', holds: '<Equipment>' },
  'GET /aemp/v2/Fleet/1, JSON': { path: '/aemp/v2/Fleet/1', accept: 'application/json', holds: '"EquipmentHeader"' },
} as const;
type RouteName = keyof typeof ROUTES;

interface LoadInput {
  readonly url: string;
  readonly key: string;
  readonly route: RouteName;
}

interface LoadResult extends KeepAliveLoadResult {
  /** The size of a page. */
  readonly bytes: number;
}

if (process.env.FLEET_HOURS_BENCH_ROLE === 'load') await runLoad();
else await runServer();

async function runServer(): Promise<void> {
  const { createKyselyStore, rebuildDailyFigures } = await import('@fleet-hours/storage-kysely');
  const { sql } = await import('kysely');
  await withFreshDatabase('aemp-feed', async (database) => {
    const { db } = database;
    const store = createKyselyStore(db);
    const nowSeconds = Math.floor(Date.now() / 1000);
    const yearStart = nowSeconds - DAYS * 86_400;
    const { accountId, key } = await benchAccount(store, yearStart);

    const loadStarted = performance.now();
    await sql`
      insert into devices (account_id, name, imei, model, time_zone, oem_name, equipment_model, serial_number, pin)
      select ${accountId}::int, 'Excavator ' || g, lpad(g::text, 15, '0'), 'FMB920',
             (${ZONES}::text[])[1 + g % ${ZONES.length}], 'Acme', 'EX-210', 'SN' || g, 'PIN' || lpad(g::text, 10, '0')
        from generate_series(1, ${DEVICES}::int) as g`.execute(db);
    const ids = (await sql<{ id: number }>`select id from devices where account_id = ${accountId} order by id`.execute(db)).rows.map(
      (row) => row.id,
    );
    const step = Math.floor(86_400 / PER_DAY);
    for (let first = 0; first < ids.length; first += 100) {
      await sql`
        insert into engine_segments (device_id, started_at, ended_at, state)
        select device.id,
               to_timestamp(${yearStart}::float8 + slot * ${step} + (device.id % 30) * 60),
               to_timestamp(${yearStart}::float8 + slot * ${step} + (device.id % 30) * 60 + least(${step - 60}, 1500 + (slot % 10) * 60)),
               case when slot % 3 = 2 then 'idle' else 'moving' end
          from unnest(${ids.slice(first, first + 100)}::int[]) as device(id)
         cross join generate_series(0, ${DAYS * PER_DAY - 1}) as slot
         where ${yearStart}::float8 + slot * ${step} + (device.id % 30) * 60 + least(${step - 60}, 1500 + (slot % 10) * 60) < ${nowSeconds - 3600}`.execute(
        db,
      );
    }
    await sql`
      insert into hour_meter_readings (device_id, read_at, reading_seconds, recorded_at)
      select id, to_timestamp(${nowSeconds - 30 * 86_400}::float8), 3600 * (1000 + id), to_timestamp(${nowSeconds - 30 * 86_400}::float8)
        from devices where account_id = ${accountId}`.execute(db);
    await sql`
      insert into device_positions (device_id, time, latitude, longitude)
      select id, to_timestamp(${nowSeconds - 3600}::float8), 48 + (id % 100) / 100.0, 11 + (id % 37) / 37.0
        from devices where account_id = ${accountId}`.execute(db);
    await sql`update device_states set last_reported_at = to_timestamp(${nowSeconds - 3600}::float8)
               where device_id in (select id from devices where account_id = ${accountId})`.execute(db);
    const inserted = performance.now();
    await rebuildDailyFigures(db);
    await sql`vacuum analyze`.execute(db);
    const { rows } = await sql<{ count: string }>`select count(*) as count from engine_segments`.execute(db);
    console.log(
      `aemp-feed: ${DEVICES.toLocaleString('en-US')} devices in ${ZONES.length} zones, ${Number(rows[0]!.count).toLocaleString('en-US')} segments ` +
        `(${PER_DAY} a day for ${DAYS} days each), a reading, a position and a report each: ` +
        `written in ${((inserted - loadStarted) / 1000).toFixed(1)} s, derived figures rebuilt in ${((performance.now() - inserted) / 1000).toFixed(1)} s`,
    );

    const { server, version } = await startBenchServer(database, ['fleetMeter', 'aempFleet', 'unauthenticated']);
    console.log(
      `aemp-feed: PostgreSQL ${version} (postgres.js, pool 10), ${CONNECTIONS} keep-alive connections from a separate process, ` +
        `${WARMUP_MS / 1000} s warm-up + ${MEASURE_MS / 1000} s measured per route, ${ROUNDS} rounds in turns`,
    );
    try {
      for (let round = 1; round <= ROUNDS; round += 1) {
        console.log(`  round ${round}:`);
        const results = new Map<RouteName, LoadResult>();
        for (const route of Object.keys(ROUTES) as RouteName[]) {
          const steal = stealMeter();
          const result = await loadProcess<LoadResult>(fileURLToPath(import.meta.url), {
            BENCH_INPUT: JSON.stringify({ url: server.url, key, route } satisfies LoadInput),
          });
          results.set(route, result);
          console.log(
            `    ${route.padEnd(34)} p50 ${result.p50.toFixed(1).padStart(6)} ms  p99 ${result.p99.toFixed(1).padStart(6)} ms  ` +
              `${Math.round(result.requests / result.seconds)
                .toLocaleString('en-US')
                .padStart(
                  6,
                )} req/s  ${Math.round(result.bytes / 1024)} KiB a page  (${result.requests} requests, ${result.failures} failed${stealNote(steal)})`,
          );
          if (result.failures > 0) process.exitCode = 1;
        }
        const meter = results.get('GET /api/v1/meter (100 devices)')!;
        for (const route of ['GET /aemp/v2/Fleet/1, XML', 'GET /aemp/v2/Fleet/1, JSON'] as const) {
          const aemp = results.get(route)!;
          console.log(
            `    ${route} ÷ meter page: p50 ${(aemp.p50 / meter.p50).toFixed(2)}×, p99 ${(aemp.p99 / meter.p99).toFixed(2)}×, ` +
              `throughput ${(aemp.requests / aemp.seconds / (meter.requests / meter.seconds)).toFixed(2)}×`,
          );
        }
      }
    } finally {
      await server.close();
    }
    await whereTheTimeGoes(createKyselyStore(db), key);
  });
}

/**
 * Where a page's time goes, one request at a time through an app in this process over the same
 * database (no socket, no other load): each route 40 times after 5, the median, and the store calls
 * of a request with their time (calls made side by side overlap).
 */
async function whereTheTimeGoes(store: FleetHoursStore, key: string): Promise<void> {
  const { createFleetHours } = await import('@fleet-hours/core');
  const { createFleetHoursApp } = await import('@fleet-hours/http');
  const calls = new Map<string, { calls: number; ms: number }>();
  const timed = new Proxy(store, {
    get(target, name, receiver) {
      const value: unknown = Reflect.get(target, name, receiver);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        const started = performance.now();
        try {
          return await value.apply(target, args);
        } finally {
          const entry = calls.get(String(name)) ?? { calls: 0, ms: 0 };
          calls.set(String(name), { calls: entry.calls + 1, ms: entry.ms + performance.now() - started });
        }
      };
    },
  });
  const app = createFleetHoursApp({
    fleetHours: createFleetHours({ store: timed, now: Date.now }),
    rateLimits: { fleetMeter: 1e9, aempFleet: 1e9 },
    now: Date.now,
    logger: () => {},
  });
  const ask = async (route: RouteName) => {
    const started = performance.now();
    const response = await app.request(ROUTES[route].path, { headers: { Authorization: `Bearer ${key}`, Accept: ROUTES[route].accept } });
    await response.text();
    return performance.now() - started;
  };
  console.log('  one request at a time, in this process (no socket): median of 40, and the store calls of a request');
  for (const route of Object.keys(ROUTES) as RouteName[]) {
    for (let warm = 0; warm < 5; warm += 1) await ask(route);
    calls.clear();
    const times: number[] = [];
    for (let run = 0; run < 40; run += 1) times.push(await ask(route));
    times.sort((a, b) => a - b);
    const each = [...calls]
      .sort((a, b) => b[1].ms - a[1].ms)
      .map(([name, { calls: n, ms }]) => `${name} ×${n / 40} ${(ms / 40).toFixed(1)} ms`);
    console.log(`    ${route.padEnd(34)} ${times[20]!.toFixed(1).padStart(6)} ms: ${each.join(', ')}`);
  }
}

/** The load role: 16 keep-alive loops on one route; a page must hold its equipment (or devices) to count. */
async function runLoad(): Promise<void> {
  const input = JSON.parse(process.env.BENCH_INPUT!) as LoadInput;
  const route = ROUTES[input.route];
  let bytes = 0;
  const send = async (): Promise<number | string> => {
    const response = await fetch(`${input.url}${route.path}`, { headers: { Authorization: `Bearer ${input.key}`, Accept: route.accept } });
    const text = await response.text();
    bytes = Buffer.byteLength(text);
    return response.status === 200 && !text.includes(route.holds) ? 'short page' : response.status;
  };
  if ((await send()) !== 200) throw new Error(`${input.route}: the first answer is not a page of 100`);
  const result = await keepAliveLoad({ connections: CONNECTIONS, warmupMs: WARMUP_MS, measureMs: MEASURE_MS, send });
  process.stdout.write(JSON.stringify({ ...result, bytes } satisfies LoadResult));
}
