/**
 * HTTP throughput of `GET /api/v1/devices/{id}/hours` (7-day window) through a real socket, as a
 * ratio to a bare Hono route returning a constant JSON body on the same server.
 *
 * The server (this process) is `serve()` from @fleet-hours/http on 127.0.0.1, port 0, over a memory
 * store holding one device with a year of segments (150 a day), rate limits raised out of the way
 * and the access log silenced. The load comes from a second process (this file again, in its
 * "load" role), so client and server do not share an event loop: a fixed number of concurrent
 * keep-alive connections, each sending its next request as soon as the last one is answered, for
 * a fixed time after a warm-up. Prints figures; asserts nothing about time.
 *
 * Run: `npm run bench -- http` (builds first; imports the packages' dist).
 */
import { fileURLToPath } from 'node:url';
import { createFleetHours, createMemoryStore, fingerprintApiKey, generateApiKey, type SegmentInput } from '@fleet-hours/core';
import { createFleetHoursApp, serve } from '@fleet-hours/http';
import { Hono } from 'hono';
import { keepAliveLoad, loadProcess, type KeepAliveLoadResult } from './_support.js';

const CONNECTIONS = 16;
const WARMUP_MS = 1_000;
const MEASURE_MS = 5_000;
const SEGMENTS_PER_DAY = 150;
const DAYS = 365;

interface LoadResult extends KeepAliveLoadResult {
  /** Bytes of the measured answers. */
  readonly bytes: number;
}

if (process.env.FLEET_HOURS_BENCH_ROLE === 'load') {
  await runLoad();
} else {
  await runServer();
}

async function runServer(): Promise<void> {
  const store = createMemoryStore();
  const now = Math.floor(Date.now() / 1000);
  const account = await store.createAccount({ name: 'Bench', plan: 'business', now });
  const key = generateApiKey();
  await store.createApiKey({ accountId: account.id, fingerprint: await fingerprintApiKey(key), label: 'bench', expiresAt: null, now });
  const device = await store.createDevice({
    accountId: account.id,
    name: 'Bench truck',
    imei: '350000000000001',
    model: 'FMB920',
    timeZone: 'America/New_York',
  });
  if (!device) throw new Error('Cannot create the bench device');

  // 150 segments a day, 200 s of engine time each, alternating moving and idle, for a year up to today.
  const step = Math.floor(86_400 / SEGMENTS_PER_DAY);
  const firstDay = Math.floor(now / 86_400) * 86_400 - DAYS * 86_400;
  const segments: SegmentInput[] = [];
  for (let day = 0; day < DAYS; day += 1) {
    for (let slot = 0; slot < SEGMENTS_PER_DAY; slot += 1) {
      const startedAt = firstDay + day * 86_400 + slot * step;
      segments.push({ startedAt, endedAt: startedAt + 200, state: slot % 2 === 0 ? 'moving' : 'idle' });
    }
  }
  await store.importSegments({ deviceId: device.id, segments });

  const unlimited = 1_000_000_000;
  const fleetHoursApp = createFleetHoursApp({
    fleetHours: createFleetHours({ store, now: Date.now }),
    rateLimits: { devices: unlimited, hours: unlimited, daily: unlimited, meter: unlimited, unauthenticated: unlimited },
    logger: () => {},
  });
  const host = new Hono();
  host.get('/bare', (c) => c.json({ ok: true, service: 'fleet-hours', version: 1 }));
  host.route('/', fleetHoursApp);
  const server = await serve({ app: host, port: 0, hostname: '127.0.0.1', handleSignals: false });

  try {
    const hoursPath = `/api/v1/devices/${device.id}/hours`;
    const check = await fetch(`${server.url}${hoursPath}`, { headers: { Authorization: `Bearer ${key}` } });
    const sample = await check.text();
    if (check.status !== 200) throw new Error(`Warm-up request answered ${check.status}: ${sample}`);

    console.log(
      `http: ${CONNECTIONS} keep-alive connections from a separate process, ${WARMUP_MS / 1000} s warm-up + ${MEASURE_MS / 1000} s measured per route; ` +
        `1 device, ${segments.length.toLocaleString('en-US')} segments (${SEGMENTS_PER_DAY}/day for ${DAYS} days) in the memory store`,
    );
    console.log(`  sample ${hoursPath} body: ${sample}`);
    const hours = await load(`${server.url}${hoursPath}`, key);
    const bare = await load(`${server.url}/bare`, null);
    report(`GET ${hoursPath} (7-day window)`, hours);
    report('GET /bare (constant JSON, same server)', bare);
    console.log(`  ratio hours / bare: ${(hours.requests / hours.seconds / (bare.requests / bare.seconds)).toFixed(3)}`);
    if (hours.failures > 0 || bare.failures > 0) process.exitCode = 1;
  } finally {
    await server.close();
  }
}

function report(label: string, result: LoadResult): void {
  const perSecond = result.requests / result.seconds;
  console.log(
    `  ${label.padEnd(52)} ${Math.round(perSecond).toLocaleString('en-US').padStart(8)} req/s` +
      `  p50 ${result.p50.toFixed(2)} ms  p99 ${result.p99.toFixed(2)} ms  (${result.requests} requests, ${result.failures} failed, ${Math.round(result.bytes / result.requests)} B/response)`,
  );
}

function load(url: string, key: string | null): Promise<LoadResult> {
  return loadProcess<LoadResult>(fileURLToPath(import.meta.url), { BENCH_URL: url, BENCH_KEY: key ?? '' });
}

/** The load role: CONNECTIONS loops, each awaiting its response before sending the next request. */
async function runLoad(): Promise<void> {
  const url = process.env.BENCH_URL!;
  const headers: Record<string, string> = process.env.BENCH_KEY ? { Authorization: `Bearer ${process.env.BENCH_KEY}` } : {};
  // The size of an answer, averaged over every request sent (the measured ones answer the same bodies).
  let bytes = 0;
  let sent = 0;
  const measured = await keepAliveLoad({
    connections: CONNECTIONS,
    warmupMs: WARMUP_MS,
    measureMs: MEASURE_MS,
    send: async () => {
      const response = await fetch(url, { headers });
      bytes += (await response.arrayBuffer()).byteLength;
      sent += 1;
      return response.status === 200 ? 200 : `HTTP ${response.status}`;
    },
  });
  const result: LoadResult = { ...measured, bytes: Math.round((bytes / Math.max(1, sent)) * measured.requests) };
  process.stdout.write(JSON.stringify(result));
}
