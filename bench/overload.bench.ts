/**
 * Bounded waiting under overload (D28), on the reference server (`startServer` over PostgreSQL:
 * DATABASE_URL, else postgres://postgres@127.0.0.1:5432/test, in a schema of its own, dropped at
 * the end) with one device holding a year of segments (96 a day) and the rate limits raised out of
 * the way. Two parts:
 *
 * 1. Overload: 256 keep-alive connections from a separate process, each sending its next
 *    `GET /api/v1/devices/{id}/hours/daily` (365 days) as soon as the last is answered, for 30 s.
 *    Reported: requests by status, requests left unanswered (a socket error, or no answer 60 s
 *    after the load stopped), answers that are not JSON or not 200/429/503, p50/p99/max of the
 *    answered, and the server process's RSS (before, and the peak sampled every 250 ms during
 *    the run; it includes this harness, which is small next to the server).
 * 2. A stalled database: the same server set-up behind a TCP proxy that stops forwarding (every
 *    connection stays open, nothing passes). Reported: how long a request takes to be answered
 *    503, and, once the proxy forwards again (right after that 503), how long until a request is
 *    answered 200 (requests every 100 ms).
 *
 * Defaults of the reference server: 64 requests in flight, a pool of 10 connections, a 5 s
 * deadline per database call. Prints figures; asserts nothing about time. Exits 1 when a request
 * was left unanswered or answered something else than 200/429/503 with a JSON body.
 *
 * Run: `npm run bench -- overload`, or without building: `npx tsx bench/overload.bench.ts`.
 */
import { Agent, request as httpRequest } from 'node:http';
import { fileURLToPath } from 'node:url';
import { fingerprintApiKey, generateApiKey, type SegmentInput } from '@fleet-hours/core';
import { startServer } from '@fleet-hours/server';
import { createKyselyStore, createPostgresDatabase, migrateToLatest } from '@fleet-hours/storage-kysely';
import { startStallingProxy } from '../test/support/stalling-proxy.js';
import { loadProcess } from './_support.js';

const CONNECTIONS = Number(process.env.OVERLOAD_CONNECTIONS ?? 256);
const DURATION_MS = Number(process.env.OVERLOAD_SECONDS ?? 30) * 1000;
const DRAIN_MS = 60_000;
// The server's bound on requests in flight; unset: the reference server's default.
const MAX_IN_FLIGHT = process.env.OVERLOAD_MAX_IN_FLIGHT ? Number(process.env.OVERLOAD_MAX_IN_FLIGHT) : undefined;
const DAYS = 365;
const PER_DAY = 96;
const TIME_ZONE = 'America/New_York';

/** What the load role reports (scale.bench.ts runs this role too). */
export interface LoadResult {
  readonly sent: number;
  readonly byStatus: Record<string, number>;
  readonly unanswered: number;
  readonly socketErrors: number;
  readonly notJson: number;
  readonly seconds: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

if (process.env.FLEET_HOURS_BENCH_ROLE === 'load') {
  await runLoad();
} else {
  process.env.DATABASE_URL ||= 'postgres://postgres@127.0.0.1:5432/test';
  await runBench();
}

async function runBench(): Promise<void> {
  // Imported once DATABASE_URL is set: the test support reads it when loaded.
  const { createTestSchema } = await import('../test/support/postgres.js');
  const schema = await createTestSchema();
  try {
    const db = createPostgresDatabase({ connectionString: process.env.DATABASE_URL!, schema: schema.name });
    let seeded: Awaited<ReturnType<typeof seed>>;
    try {
      await migrateToLatest(db);
      seeded = await seed(db);
    } finally {
      await db.destroy();
    }
    const dailyPath = `/api/v1/devices/${seeded.deviceId}/hours/daily?from=${seeded.from}&to=${seeded.to}`;
    const unlimited = 1_000_000_000;
    const rateLimits = { devices: unlimited, hours: unlimited, daily: unlimited, meter: unlimited, unauthenticated: unlimited };
    console.log(
      `overload: reference server (startServer, PostgreSQL, ${MAX_IN_FLIGHT ?? 'default'} in flight, pool 10, 5 s deadline), 1 device with ${seeded.segments.toLocaleString('en-US')} segments ` +
        `(${PER_DAY}/day for ${DAYS} days), GET /hours/daily over ${DAYS} days`,
    );

    // 1. Overload.
    const bound = MAX_IN_FLIGHT === undefined ? {} : { maxInFlight: MAX_IN_FLIGHT };
    const server = await startServer({ database: { kind: 'postgres', url: schema.url }, port: 0, rateLimits, log: () => {}, ...bound });
    try {
      const sample = await get(`${server.url}${dailyPath}`, seeded.key);
      if (sample.status !== 200) throw new Error(`Warm-up request answered ${sample.status}: ${sample.body.slice(0, 200)}`);
      const rssBefore = process.memoryUsage.rss();
      let rssPeak = rssBefore;
      const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage.rss())), 250);
      const result = await load(`${server.url}${dailyPath}`, seeded.key).finally(() => clearInterval(sampler));
      const answered = Object.values(result.byStatus).reduce((sum, count) => sum + count, 0);
      const statuses = Object.entries(result.byStatus)
        .map(([status, count]) => `${status}: ${count}`)
        .join(', ');
      console.log(
        `  ${CONNECTIONS} connections for ${(result.seconds).toFixed(1)} s: ${result.sent} sent, ${answered} answered (${Math.round(answered / result.seconds)}/s) — ${statuses}`,
      );
      console.log(
        `  unanswered: ${result.unanswered} (socket errors ${result.socketErrors}); answers not JSON or not 200/429/503: ${result.notJson}`,
      );
      console.log(
        `  latency of the answered: p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms, max ${result.max.toFixed(1)} ms`,
      );
      console.log(`  server RSS: ${mib(rssBefore)} before, ${mib(rssPeak)} peak during the run`);
      const unexpected = Object.keys(result.byStatus).filter((status) => !['200', '429', '503'].includes(status));
      if (result.unanswered > 0 || result.notJson > 0 || unexpected.length > 0) process.exitCode = 1;
    } finally {
      await server.close();
    }

    // 2. A stalled database.
    const upstream = new URL(process.env.DATABASE_URL!);
    const proxy = await startStallingProxy(upstream.hostname, Number(upstream.port || 5432));
    const stalled = await startServer({ database: { kind: 'postgres', url: proxy.url(schema.url) }, port: 0, rateLimits, log: () => {} });
    try {
      const url = `${stalled.url}${dailyPath}`;
      const warm = await get(url, seeded.key);
      if (warm.status !== 200) throw new Error(`Warm-up request answered ${warm.status}`);
      proxy.stall();
      const stallStarted = performance.now();
      const during = await get(url, seeded.key);
      const to503 = performance.now() - stallStarted;
      proxy.resume();
      const resumed = performance.now();
      let back = await get(url, seeded.key);
      let attempts = 1;
      while (back.status !== 200 && performance.now() - resumed < 60_000) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        back = await get(url, seeded.key);
        attempts += 1;
      }
      const to200 = performance.now() - resumed;
      console.log(
        `  stalled database: answered ${during.status} (Retry-After ${during.retryAfter ?? 'none'}) after ${(to503 / 1000).toFixed(2)} s; ` +
          `link back: ${back.status} after ${(to200 / 1000).toFixed(2)} s (${attempts} request${attempts === 1 ? '' : 's'})`,
      );
      if (during.status !== 503 || back.status !== 200) process.exitCode = 1;
    } finally {
      await stalled.close();
      await proxy.stop();
    }
  } finally {
    await schema.drop();
  }
}

async function seed(db: ReturnType<typeof createPostgresDatabase>) {
  const store = createKyselyStore(db);
  const now = Math.floor(Date.now() / 1000);
  const account = await store.createAccount({ name: 'Bench', plan: 'business', now });
  const key = generateApiKey();
  await store.createApiKey({ accountId: account.id, fingerprint: await fingerprintApiKey(key), label: 'bench', expiresAt: null, now });
  const device = await store.createDevice({
    accountId: account.id,
    name: 'Bench truck',
    imei: '350000000000001',
    model: 'FMB920',
    timeZone: TIME_ZONE,
  });
  if (!device) throw new Error('Cannot create the bench device');
  const step = Math.floor(86_400 / PER_DAY);
  const firstDay = Math.floor(now / 86_400) * 86_400 - DAYS * 86_400;
  const segments: SegmentInput[] = [];
  for (let day = 0; day < DAYS; day += 1) {
    for (let slot = 0; slot < PER_DAY; slot += 1) {
      const startedAt = firstDay + day * 86_400 + slot * step;
      segments.push({ startedAt, endedAt: startedAt + 600, state: slot % 3 === 0 ? 'idle' : 'moving' });
    }
  }
  await store.importSegments({ deviceId: device.id, segments });
  const date = (epochSeconds: number) => new Date(epochSeconds * 1000).toISOString().slice(0, 10);
  return { key, deviceId: device.id, segments: segments.length, from: date(now - (DAYS - 1) * 86_400), to: date(now) };
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
}

/** One request on a fresh connection: status, Retry-After and body. */
function get(url: string, key: string): Promise<{ status: number; retryAfter: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { headers: { Authorization: `Bearer ${key}` } }, (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, retryAfter: response.headers['retry-after'], body }));
    });
    request.on('error', reject).end();
  });
}

function load(url: string, key: string): Promise<LoadResult> {
  return loadProcess<LoadResult>(fileURLToPath(import.meta.url), { BENCH_URL: url, BENCH_KEY: key });
}

/** The load role: CONNECTIONS keep-alive loops, each sending its next request once the last is answered. */
async function runLoad(): Promise<void> {
  const url = process.env.BENCH_URL!;
  const headers = { Authorization: `Bearer ${process.env.BENCH_KEY!}` };
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const byStatus: Record<string, number> = {};
  const latencies: number[] = [];
  let sent = 0;
  let socketErrors = 0;
  let notJson = 0;
  let stop = false;

  const once = () =>
    new Promise<void>((resolve) => {
      const started = performance.now();
      sent += 1;
      const request = httpRequest(url, { agent, headers }, (response) => {
        let body = '';
        response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        response.on('end', () => {
          latencies.push(performance.now() - started);
          const status = String(response.statusCode);
          byStatus[status] = (byStatus[status] ?? 0) + 1;
          const json = (response.headers['content-type'] ?? '').startsWith('application/json') && _parses(body);
          if (!json || !['200', '429', '503'].includes(status)) notJson += 1;
          resolve();
        });
        response.on('error', () => {
          socketErrors += 1;
          resolve();
        });
      });
      request.on('error', () => {
        socketErrors += 1;
        resolve();
      });
      request.end();
    });

  const loops = Array.from({ length: CONNECTIONS }, async () => {
    while (!stop) await once();
  });
  const started = performance.now();
  await new Promise((resolve) => setTimeout(resolve, DURATION_MS));
  stop = true;
  const seconds = (performance.now() - started) / 1000;
  // What is still in flight when the load stops must be answered too, within DRAIN_MS.
  let drainTimer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.all(loops), new Promise((resolve) => (drainTimer = setTimeout(resolve, DRAIN_MS)))]);
  clearTimeout(drainTimer);
  const answered = latencies.length;
  latencies.sort((a, b) => a - b);
  const quantile = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  const result: LoadResult = {
    sent,
    byStatus,
    unanswered: sent - answered,
    socketErrors,
    notJson,
    seconds,
    p50: quantile(0.5),
    p99: quantile(0.99),
    max: latencies.at(-1) ?? 0,
  };
  agent.destroy();
  process.stdout.write(JSON.stringify(result));
  process.exit(0);
}

function _parses(body: string): boolean {
  try {
    JSON.parse(body);
    return true;
  } catch {
    return false;
  }
}
