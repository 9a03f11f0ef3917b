/**
 * The write routes (managing the fleet over HTTP) on the reference server over PostgreSQL
 * (DATABASE_URL, else postgres://postgres@127.0.0.1:5432/test; skipped when it does not answer), in
 * a fresh database: each route's latency p50 / p99 and requests per second at 16 keep-alive
 * connections from a separate process, and a read route's under the same server for scale.
 *
 * The server is `startServer` as `fleet-hours serve` runs it (pool of 10, MANAGE_BENCH_POOL to change it; rate-limit counters in the
 * database), with the limits raised out of the way. Each connection changes its own device, so the
 * figures are those of 16 clients at once, not of 16 writers queued on one row; `MANAGE_BENCH_ONE_DEVICE=1`
 * puts them all on one device instead. A route the server does not serve (404/405 on its first
 * request) is reported as such and skipped.
 *
 * Run: `npm run bench -- manage` (builds first; imports the packages' dist). Prints figures;
 * asserts nothing. MANAGE_BENCH_SECONDS (default 5) is the measured time per route.
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { KeepAliveLoadResult } from './_support.js';
import { benchAccount, keepAliveLoad, loadProcess, startBenchServer, stealMeter, stealNote, withFreshDatabase } from './_support.js';

const CONNECTIONS = 16;
const WARMUP_MS = 1_000;
const MEASURE_MS = Number(process.env.MANAGE_BENCH_SECONDS ?? 5) * 1000;
/** The server's pool of connections (MANAGE_BENCH_POOL, default 10 as `fleet-hours serve`'s). */
const POOL = Number(process.env.MANAGE_BENCH_POOL ?? 10);

/** What the load process is told: the server, the key, and per connection its device and schedule. */
interface LoadInput {
  readonly url: string;
  readonly key: string;
  readonly scenario: ScenarioName;
  readonly devices: readonly number[];
  readonly schedules: readonly number[];
}

type LoadResult = KeepAliveLoadResult;

/** One request of a scenario: connection `connection`'s `n`-th. */
interface BenchRequest {
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
  readonly idempotent?: boolean;
}

const SCENARIOS = {
  'PATCH /api/v1/devices/{id}': (input: LoadInput, connection: number, n: number): BenchRequest => ({
    method: 'PATCH',
    path: `/api/v1/devices/${input.devices[connection]}`,
    body: { name: `Truck ${connection}-${n}` },
  }),
  'POST /api/v1/devices': (_input: LoadInput, connection: number, n: number): BenchRequest => ({
    method: 'POST',
    path: '/api/v1/devices',
    body: {
      name: `New ${connection}-${n}`,
      imei: `9${String(connection).padStart(2, '0')}${String(n).padStart(12, '0')}`,
      model: 'FMB920',
      timezone: 'Europe/Berlin',
    },
    idempotent: true,
  }),
  'POST /api/v1/devices/{id}/hour-meter/readings': (input: LoadInput, connection: number, n: number): BenchRequest => ({
    method: 'POST',
    path: `/api/v1/devices/${input.devices[connection]}/hour-meter/readings`,
    // A reading an hour after the last, each connection on its own device: the meter only grows.
    body: {
      read_at: new Date(Date.UTC(2026, 0, 1) + n * 3_600_000).toISOString().replace('.000Z', 'Z'),
      reading_seconds: 3_600_000 + n * 3_600,
    },
    idempotent: true,
  }),
  'POST /api/v1/devices/{id}/service/schedules/{schedule_id}/done': (input: LoadInput, connection: number): BenchRequest => ({
    method: 'POST',
    path: `/api/v1/devices/${input.devices[connection]}/service/schedules/${input.schedules[connection]}/done`,
    body: {},
    idempotent: true,
  }),
  'GET /api/v1/devices/{id}/hours (read, for scale)': (input: LoadInput, connection: number): BenchRequest => ({
    method: 'GET',
    path: `/api/v1/devices/${input.devices[connection]}/hours`,
  }),
} as const;

type ScenarioName = keyof typeof SCENARIOS;

if (process.env.FLEET_HOURS_BENCH_ROLE === 'load') await runLoad();
else await runServer();

async function runServer(): Promise<void> {
  const { createKyselyStore } = await import('@fleet-hours/storage-kysely');
  await withFreshDatabase('manage', async (database) => {
    const store = createKyselyStore(database.db);
    const now = Math.floor(Date.now() / 1000);
    const { accountId, key } = await benchAccount(store, now, 'manage');
    const oneDevice = process.env.MANAGE_BENCH_ONE_DEVICE === '1';
    const devices: number[] = [];
    const schedules: number[] = [];
    for (let connection = 0; connection < CONNECTIONS; connection += 1) {
      if (oneDevice && connection > 0) {
        devices.push(devices[0]!);
        schedules.push(schedules[0]!);
        continue;
      }
      const device = await store.createDevice({
        accountId,
        name: `Truck ${connection}`,
        imei: String(100_000_000_000_000 + connection),
        model: 'FMB920',
        timeZone: 'Europe/Berlin',
      });
      const schedule = await store.createServiceSchedule({
        deviceId: device!.id,
        name: 'Engine oil',
        intervalSeconds: 250 * 3600,
        lastDoneAt: now - 86_400,
        lastDoneHourMeterSeconds: null,
        now,
      });
      devices.push(device!.id);
      schedules.push(schedule!.id);
    }

    const { server, version } = await startBenchServer(database, ['writes', 'hours', 'unauthenticated'], POOL);
    console.log(
      `manage: PostgreSQL ${version} (postgres.js, pool ${POOL}), ${CONNECTIONS} keep-alive connections from a separate process, ` +
        `${WARMUP_MS / 1000} s warm-up + ${MEASURE_MS / 1000} s measured per route; ${oneDevice ? 'all on one device' : 'a device per connection'}`,
    );
    try {
      for (const scenario of Object.keys(SCENARIOS) as ScenarioName[]) {
        const steal = stealMeter();
        const result = await loadProcess<LoadResult | { readonly unserved: number }>(fileURLToPath(import.meta.url), {
          BENCH_INPUT: JSON.stringify({ url: server.url, key, scenario, devices, schedules } satisfies LoadInput),
        });
        if ('unserved' in result) {
          console.log(`  ${scenario.padEnd(64)} not served by this build (${result.unserved}), skipped`);
          continue;
        }
        const statuses = Object.entries(result.statuses)
          .map(([status, count]) => `${status}×${count}`)
          .join(' ');
        console.log(
          `  ${scenario.padEnd(64)} p50 ${result.p50.toFixed(1).padStart(6)} ms  p99 ${result.p99.toFixed(1).padStart(6)} ms  ` +
            `${Math.round(result.requests / result.seconds)
              .toLocaleString('en-US')
              .padStart(6)} req/s  (${result.requests} requests, ${result.failures} failed: ${statuses}${stealNote(steal)})`,
        );
        if (result.failures > 0) process.exitCode = 1;
      }
    } finally {
      await server.close();
    }
  });
}

/** The load role: one loop per connection, each sending its next request when the last is answered. */
async function runLoad(): Promise<void> {
  const input = JSON.parse(process.env.BENCH_INPUT!) as LoadInput;
  const make = SCENARIOS[input.scenario];
  const send = async (request: BenchRequest): Promise<number> => {
    const headers: Record<string, string> = { Authorization: `Bearer ${input.key}` };
    if (request.body !== undefined) headers['Content-Type'] = 'application/json';
    if (request.idempotent) headers['Idempotency-Key'] = randomUUID();
    const response = await fetch(`${input.url}${request.path}`, {
      method: request.method,
      headers,
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
    });
    await response.arrayBuffer();
    return response.status;
  };
  const first = await send(make(input, 0, 0));
  if (first === 404 || first === 405) {
    process.stdout.write(JSON.stringify({ unserved: first }));
    return;
  }
  const result: LoadResult = await keepAliveLoad({
    connections: CONNECTIONS,
    warmupMs: WARMUP_MS,
    measureMs: MEASURE_MS,
    send: (connection, n) => send(make(input, connection, n)),
  });
  process.stdout.write(JSON.stringify(result));
}
