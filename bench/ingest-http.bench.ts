/**
 * Telemetry ingestion over HTTP and through the CLI, on a PostgreSQL server (DATABASE_URL, else
 * postgres://postgres@127.0.0.1:5432/test; skipped when it does not answer), in a fresh database:
 *
 *   1. Native batches of 10,000 points (`POST /ingest/v1/telemetry`, NDJSON) to the reference
 *      server (`startServer`, as `fleet-hours serve` runs it: pool of 10, rate-limit counters in the
 *      database) over a real socket, from a separate process: points/s at concurrency 1 (one device, batches in order)
 *      and 4 (four devices at once), and the ratio to a bare multi-row INSERT of the same points
 *      through the same driver (goal ≥ 100,000 points/s and ≤ 3×).
 *   2. Single Traccar forwards (`POST /ingest/traccar`) of 200 devices at concurrency 16:
 *      positions/s and p99 latency (goal ≥ 1,000/s, p99 ≤ 100 ms).
 *   3. `fleet-hours import telemetry` of 1,000,000 points (the built CLI as a real process):
 *      points/s (goal ≥ 100,000/s).
 *
 * Run: `npm run bench -- ingest-http` (builds first; imports the packages' dist). Prints figures;
 * asserts nothing. INGEST_HTTP_BENCH_BATCHES (default 10) and INGEST_HTTP_BENCH_IMPORT_POINTS
 * (default 1,000,000) for a quicker run; INGEST_HTTP_BENCH_PARTS (default `native,traccar,import`)
 * runs only the parts named. Each part's figures come with the share of the CPU the host's other
 * tenants took meanwhile (steal, from /proc/stat), which makes the same run up to a third slower.
 * INGEST_HTTP_BENCH_JSON=1 adds the figures as one line of JSON (`write-path.bench.ts` reads it);
 * INGEST_HTTP_BENCH_SETTINGS sets PostgreSQL settings of the bench's database (see there).
 */
import { spawnSync } from 'node:child_process';
import { Agent, request } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { sql } from 'kysely';
import { loadProcess, stealMeter, stealNote } from './_support.js';

const BATCH = 10_000;
const BATCHES = Number(process.env.INGEST_HTTP_BENCH_BATCHES ?? 10);
const IMPORT_POINTS = Number(process.env.INGEST_HTTP_BENCH_IMPORT_POINTS ?? 1_000_000);
const PARTS = new Set((process.env.INGEST_HTTP_BENCH_PARTS ?? 'native,traccar,import').split(','));
const TRACCAR_DEVICES = 200;
const TRACCAR_CONCURRENCY = 16;
const TRACCAR_WARMUP_MS = 1_000;
const TRACCAR_MEASURE_MS = 10_000;
const STEP = 10;
/** Starts the line of figures as JSON that `INGEST_HTTP_BENCH_JSON=1` adds. */
const FIGURES_LINE = 'ingest-http figures: ';
const here = dirname(fileURLToPath(import.meta.url));

/** Deterministic reports every STEP s from `start`: trips, idling, engine off (the shape of ingest.bench.ts). */
function reports(start: number, count: number, seed: number): { time: number; ignition: boolean; speed_kmh: number }[] {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const points = new Array<{ time: number; ignition: boolean; speed_kmh: number }>(count);
  let mode = 0;
  for (let index = 0; index < count; index += 1) {
    if (next() < 0.02) mode = Math.floor(next() * 3);
    points[index] = {
      time: start + index * STEP,
      ignition: mode !== 2,
      speed_kmh: mode === 0 ? 20 + Math.floor(next() * 60) : mode === 1 ? Math.floor(next() * 4) : 0,
    };
  }
  return points;
}

const perSecond = (count: number, ms: number) => Math.round((count / ms) * 1000);
const shown = (value: number) => value.toLocaleString('en-US');

if (process.env.FLEET_HOURS_BENCH_ROLE === 'load') await runLoad();
else await runServer();

async function runServer(): Promise<void> {
  const adminUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
  const admin = postgres(adminUrl, { max: 1, connect_timeout: 3, onnotice: () => {} });
  try {
    await admin`select 1`;
  } catch {
    console.log(`ingest-http: PostgreSQL server not reachable at ${adminUrl.replace(/:[^:@/]*@/, ':***@')}, skipped`);
    await admin.end({ timeout: 1 });
    return;
  }
  const { fingerprintApiKey, generateIngestToken } = await import('@fleet-hours/core');
  const { startServer } = await import('@fleet-hours/server');
  const { createKyselyStore, createPostgresDatabase, migrateToLatest } = await import('@fleet-hours/storage-kysely');

  const databaseName = `fh_bench_ingest_http_${process.pid}`;
  await admin.unsafe(`create database ${databaseName}`);
  // Settings of the bench's database for every connection to it (`name=value;…`), to see where the
  // time goes: e.g. `jit=off`, or `session_preload_libraries=auto_explain;auto_explain.log_min_duration=0`.
  for (const setting of (process.env.INGEST_HTTP_BENCH_SETTINGS ?? '').split(';').filter(Boolean)) {
    const [name, ...value] = setting.split('=');
    await admin.unsafe(`alter database ${databaseName} set ${name!.trim()} = '${value.join('=').trim().replaceAll("'", "''")}'`);
  }
  const url = new URL(adminUrl);
  url.pathname = `/${databaseName}`;
  const databaseUrl = url.href;
  const db = createPostgresDatabase({ connectionString: databaseUrl, max: 10 });
  const work = mkdtempSync(join(tmpdir(), 'fleet-hours-bench-ingest-'));
  let started = 0;
  try {
    await migrateToLatest(db);
    const store = createKyselyStore(db);
    const now = Math.floor(Date.now() / 1000);
    const account = await store.createAccount({ name: 'Bench', plan: 'business', now });
    const token = generateIngestToken();
    await store.createIngestToken({
      accountId: account.id,
      fingerprint: await fingerprintApiKey(token),
      label: 'bench',
      expiresAt: null,
      now,
    });
    const newDevice = async (imei: string) =>
      (await store.createDevice({ accountId: account.id, name: `Truck ${imei}`, imei, model: 'FMB920', timeZone: 'Europe/Berlin' }))!.id;
    const nativeDevices = [
      await newDevice('100000000000000'),
      await newDevice('100000000000001'),
      await newDevice('100000000000002'),
      await newDevice('100000000000003'),
      await newDevice('100000000000004'),
    ];
    const traccarImeis = Array.from({ length: TRACCAR_DEVICES }, (_, index) => String(200_000_000_000_000 + index));
    for (const imei of traccarImeis) await newDevice(imei);
    const importDevice = await newDevice('300000000000000');

    // The reference server as `fleet-hours serve` runs it: its own pool of 10, counters in the database (D15).
    const unlimited = 1_000_000_000;
    const server = await startServer({
      database: { kind: 'postgres', url: databaseUrl },
      port: 0,
      rateLimits: { ingest: unlimited, unauthenticated: unlimited },
      log: () => {},
    });
    const start = now - 40 * 86_400;
    console.log(
      `ingest-http: PostgreSQL ${(await admin`select current_setting('server_version') as v`)[0]!.v} (postgres.js, pool 10), server and load in separate processes`,
    );
    // Each part starts from a steady state: after a checkpoint, so that none pays for the
    // write-ahead log of the one before it (PostgreSQL checkpoints every max_wal_size of log: one
    // forced by the first two parts during the import made it a fifth slower), and with the tables'
    // statistics up to date, as autovacuum keeps them within a minute of a change: a connection's
    // cached plans (P38) made while the tables were nearly empty are then made again for their
    // size. A role that may not checkpoint runs without.
    const settle = async () => {
      try {
        await admin`checkpoint`;
      } catch (error) {
        console.log(`  (no checkpoint before the part: ${(error as Error).message})`);
      }
      await sql`analyze`.execute(db);
    };
    try {
      // 1. Native batches.
      let failures = 0;
      const figures: Record<string, number> = {};
      if (PARTS.has('native')) {
        await settle();
        const native = (devices: readonly number[]) =>
          load({ kind: 'native', url: `${server.url}/ingest/v1/telemetry`, token, devices, start });
        const steal = stealMeter();
        const one = await native([nativeDevices[0]!]);
        const four = await native(nativeDevices.slice(1, 5));
        // The same points as the first run, through the same driver, as a bare multi-row INSERT (5,000 rows a statement).
        const bareDevice = await newDevice('100000000000009');
        const points = reports(start, BATCH * BATCHES, 1);
        started = performance.now();
        for (let offset = 0; offset < points.length; offset += 5_000) {
          await db
            .insertInto('telemetry_points')
            .values(
              points.slice(offset, offset + 5_000).map((point) => ({
                device_id: bareDevice,
                time: new Date(point.time * 1000),
                ignition: point.ignition,
                speed_kmh: point.speed_kmh,
              })),
            )
            .execute();
        }
        const bareMs = performance.now() - started;
        const onePerSecond = perSecond(one.points, one.ms);
        console.log(`  native batches of ${shown(BATCH)} points, ${BATCHES} per device (POST /ingest/v1/telemetry, NDJSON):`);
        console.log(
          `    concurrency 1 (one device)         ${shown(onePerSecond).padStart(9)} points/s  (median request ${one.median.toFixed(1)} ms)`,
        );
        console.log(
          `    concurrency 4 (four devices)       ${shown(perSecond(four.points, four.ms)).padStart(9)} points/s  (median request ${four.median.toFixed(1)} ms)`,
        );
        console.log(`    bare multi-row INSERT, same points ${shown(perSecond(points.length, bareMs)).padStart(9)} points/s`);
        console.log(`    ratio HTTP concurrency 1 / bare    ${(one.ms / bareMs).toFixed(2)}×${stealNote(steal)}`);
        failures += one.failures + four.failures;
        figures.native1 = onePerSecond;
        figures.native4 = perSecond(four.points, four.ms);
        figures.native1P50 = one.median;
        figures.native1P99 = one.p99;
      }

      // 2. Traccar forwards.
      if (PARTS.has('traccar')) {
        await settle();
        const steal = stealMeter();
        const traccar = await load({
          kind: 'traccar',
          url: `${server.url}/ingest/traccar`,
          token,
          imeis: traccarImeis,
          start: now - 86_400,
        });
        console.log(
          `  Traccar forwards, ${TRACCAR_DEVICES} devices, concurrency ${TRACCAR_CONCURRENCY}, ${TRACCAR_MEASURE_MS / 1000} s measured (POST /ingest/traccar):`,
        );
        console.log(
          `    ${shown(perSecond(traccar.points, traccar.ms)).padStart(9)} positions/s  p50 ${traccar.median.toFixed(2)} ms  p99 ${traccar.p99.toFixed(2)} ms  (${shown(traccar.points)} positions, ${traccar.failures} failed)${stealNote(steal)}`,
        );
        failures += traccar.failures;
        figures.traccar = perSecond(traccar.points, traccar.ms);
        figures.traccarP50 = traccar.median;
        figures.traccarP99 = traccar.p99;
      }
      if (failures > 0) process.exitCode = 1;
      // For `write-path.bench.ts`, which runs this file in two builds and compares their figures.
      if (process.env.INGEST_HTTP_BENCH_JSON) console.log(`${FIGURES_LINE}${JSON.stringify(figures)}`);
    } finally {
      await server.close();
    }

    // 3. fleet-hours import telemetry of IMPORT_POINTS points (one per second, ending a day ago).
    if (PARTS.has('import')) {
      await settle();
      const file = join(work, 'telemetry.ndjson');
      const importStart = now - 86_400 - IMPORT_POINTS;
      const lines: string[] = [];
      let state = 7;
      for (let index = 0; index < IMPORT_POINTS; index += 1) {
        if (index % 600 === 0) state = (state * 48_271) % 2_147_483_647;
        const mode = state % 3;
        lines.push(
          `{"time":"${new Date((importStart + index) * 1000).toISOString()}","ignition":${mode !== 2},"speed_kmh":${mode === 0 ? 42 : 1}}`,
        );
      }
      writeFileSync(file, `${lines.join('\n')}\n`);
      lines.length = 0;
      const cli = join(here, '../packages/server/dist/cli.js');
      const steal = stealMeter();
      started = performance.now();
      const result = spawnSync(
        process.execPath,
        [cli, 'import', 'telemetry', '--device', String(importDevice), file, '--database-url', databaseUrl, '--json'],
        { encoding: 'utf8', maxBuffer: 1 << 24 },
      );
      const importMs = performance.now() - started;
      if (result.status !== 0) {
        console.log(`  import telemetry failed (${String(result.status)}): ${result.stderr}`);
        process.exitCode = 1;
      } else {
        const report = JSON.parse(result.stdout) as {
          records: number;
          accepted: number;
          batches: number;
          read_seconds: number;
          write_seconds: number;
          points_per_second: number;
        };
        console.log(`  fleet-hours import telemetry of ${shown(report.records)} points (${report.batches} batches of ${shown(BATCH)}):`);
        console.log(
          `    ${shown(report.points_per_second).padStart(9)} points/s as the command reports it (read ${report.read_seconds.toFixed(1)} s, write ${report.write_seconds.toFixed(1)} s); ` +
            `${shown(perSecond(report.records, importMs))} points/s for the whole process (${(importMs / 1000).toFixed(1)} s, start and migration check included)${stealNote(steal)}`,
        );
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
    await db.destroy();
    await admin.unsafe(`drop database ${databaseName} with (force)`);
    await admin.end();
  }
}

interface LoadSpec {
  readonly kind: 'native' | 'traccar';
  readonly url: string;
  readonly token: string;
  readonly devices?: readonly number[];
  readonly imeis?: readonly string[];
  readonly start: number;
}

interface LoadResult {
  readonly points: number;
  readonly ms: number;
  readonly median: number;
  readonly p99: number;
  readonly failures: number;
}

function load(spec: LoadSpec): Promise<LoadResult> {
  return loadProcess<LoadResult>(fileURLToPath(import.meta.url), { BENCH_SPEC: JSON.stringify(spec) });
}

/**
 * POSTs `body` over a keep-alive connection of `agent` (node:http: a lighter client than fetch, so
 * that the load process, on the same two cores, takes less from the server it measures).
 */
function post(agent: Agent, url: string, headers: Record<string, string>, body: string): Promise<{ status: number; text: string }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        agent,
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

async function runLoad(): Promise<void> {
  const spec = JSON.parse(process.env.BENCH_SPEC!) as LoadSpec;
  const headers = { Authorization: `Bearer ${spec.token}` };
  const agent = new Agent({ keepAlive: true, maxSockets: TRACCAR_CONCURRENCY });
  const latencies: number[] = [];
  let failures = 0;
  let points = 0;
  let ms = 0;
  if (spec.kind === 'native') {
    // Bodies made before the clock starts: the load process measures the server, not JSON.stringify.
    const bodies = spec.devices!.map((deviceId, writer) => {
      const all = reports(spec.start, BATCH * BATCHES, writer === 0 && spec.devices!.length === 1 ? 1 : 10 + writer);
      return Array.from({ length: BATCHES }, (_, batch) =>
        all
          .slice(batch * BATCH, (batch + 1) * BATCH)
          .map((point) => `{"device_id":${deviceId},"time":${point.time},"ignition":${point.ignition},"speed_kmh":${point.speed_kmh}}`)
          .join('\n'),
      );
    });
    const started = performance.now();
    await Promise.all(
      bodies.map(async (own) => {
        for (const body of own) {
          const at = performance.now();
          const { status, text } = await post(agent, spec.url, { ...headers, 'Content-Type': 'application/x-ndjson' }, body);
          latencies.push(performance.now() - at);
          if (status !== 200) {
            failures += 1;
            process.stderr.write(`native batch answered ${status}: ${text.slice(0, 300)}\n`);
          } else points += BATCH;
        }
      }),
    );
    ms = performance.now() - started;
  } else {
    const imeis = spec.imeis!;
    const clock = imeis.map(() => spec.start);
    let measuring = false;
    let stop = false;
    let cursor = 0;
    const traccarTime = (seconds: number) => new Date(seconds * 1000).toISOString().replace('Z', '+00:00');
    const loop = async () => {
      while (!stop) {
        const device = cursor++ % imeis.length;
        clock[device]! += STEP;
        const time = clock[device]!;
        const body = JSON.stringify({
          position: {
            id: cursor,
            attributes: { ignition: time % 600 < 480, motion: time % 600 < 300, odometer: time, hours: time * 1000, batteryLevel: 90 },
            deviceId: device + 1,
            protocol: 'teltonika',
            serverTime: traccarTime(time + 1),
            deviceTime: traccarTime(time),
            fixTime: traccarTime(time),
            outdated: false,
            valid: true,
            latitude: 52.52,
            longitude: 13.405,
            altitude: 34,
            speed: time % 600 < 300 ? 25 : 0,
            course: 90,
            address: null,
            accuracy: 0,
            network: null,
          },
          device: {
            id: device + 1,
            name: `Truck ${device}`,
            uniqueId: imeis[device],
            status: 'online',
            lastUpdate: traccarTime(time),
            positionId: cursor,
            groupId: 0,
            phone: null,
            model: 'FMB920',
            contact: null,
            category: 'truck',
            disabled: false,
            attributes: {},
          },
        });
        const at = performance.now();
        const { status } = await post(agent, spec.url, { ...headers, 'Content-Type': 'application/json' }, body);
        if (!measuring) continue;
        latencies.push(performance.now() - at);
        if (status === 200) points += 1;
        else failures += 1;
      }
    };
    const loops = Array.from({ length: TRACCAR_CONCURRENCY }, loop);
    await new Promise((resolve) => setTimeout(resolve, TRACCAR_WARMUP_MS));
    measuring = true;
    const started = performance.now();
    await new Promise((resolve) => setTimeout(resolve, TRACCAR_MEASURE_MS));
    measuring = false;
    ms = performance.now() - started;
    stop = true;
    await Promise.all(loops);
  }
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const quantile = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  const result: LoadResult = { points, ms, median: quantile(0.5), p99: quantile(0.99), failures };
  process.stdout.write(JSON.stringify(result));
}
