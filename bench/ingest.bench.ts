/**
 * Telemetry ingestion through the Kysely store (`writeTelemetry`, D20–D22) on PostgreSQL
 * (DATABASE_URL, else postgres://postgres@127.0.0.1:5432/test when it answers) and on PGlite in
 * memory, in native batches of 10,000 points (the ingestion API's largest batch):
 *
 *   - points/s at concurrency 1 (one device, batches in order) and 4 (four devices at once);
 *   - the same points as a bare multi-row INSERT into `telemetry_points` through the same driver
 *     and Kysely, 5,000 rows a statement (what storing them costs without merging, re-deriving or
 *     segments), and the ratio;
 *   - a batch that arrives late, inside the stored data (filling a hole, as a tracker sends what it
 *     buffered offline; or interleaved between stored points, the worst case), against a batch in
 *     order after them: the cost ratio (only the segments around a write change, D20). The
 *     interleaved batch cuts the stored segments at nearly every point, so it is also compared with
 *     its own points sent in order (the same points; the segments each adds are printed beside
 *     it: interleaved among stored points, the same points make several times as many).
 *
 * Imports the packages' built dist by name (`npm run bench -- ingest` builds first). Prints
 * figures; asserts nothing. INGEST_BENCH_BATCHES=4 for a quicker run. INGEST_BENCH_POSITIONS=1 gives
 * every point a position (issue 34: the store keeps each device's newest; a build without positions
 * ignores them), to weigh that step side by side with an earlier build; INGEST_BENCH_PGLITE=0 leaves
 * PGlite out.
 */
import { performance } from 'node:perf_hooks';
import { sql, type Kysely } from 'kysely';
import postgres from 'postgres';
import type { DeviceTelemetryPoint, TelemetryPoint } from '@fleet-hours/core';
import {
  createKyselyStore,
  createPGliteDatabase,
  createPostgresDatabase,
  migrateToLatest,
  type FleetHoursDatabase,
  type KyselyFleetHoursStore,
} from '@fleet-hours/storage-kysely';
import { mulberry32 as random } from '@fleet-hours/server';
import { reachable } from './_support.js';

const BATCH = 10_000;
const BATCHES = Number(process.env.INGEST_BENCH_BATCHES ?? 10);
const POSITIONS = process.env.INGEST_BENCH_POSITIONS === '1';
const STEP = 10; // seconds between reports: a tracker reporting every 10 s
const START = Date.UTC(2026, 0, 1) / 1000;
const NOW = START + 365 * 86_400;

/** `count` reports from `start`, every STEP s: trips (moving), idling, engine off, and now and then a gap of data loss. */
function reports(start: number, count: number, seed: number): TelemetryPoint[] {
  const next = random(seed);
  const points: TelemetryPoint[] = new Array(count);
  let at = start;
  let mode = 0;
  for (let index = 0; index < count; index += 1) {
    if (next() < 0.02) mode = Math.floor(next() * 3); // 0 moving, 1 idle, 2 off
    points[index] = {
      time: at,
      ignition: mode !== 2,
      speedKmh: mode === 0 ? 20 + Math.floor(next() * 60) : mode === 1 ? Math.floor(next() * 4) : 0,
      ...(POSITIONS ? { latitude: 48 + index / 1e6, longitude: 11 + index / 1e6 } : {}),
    };
    at += next() < 0.002 ? 900 : STEP;
  }
  return points;
}

const rate = (points: number, ms: number) =>
  `${Math.round((points / ms) * 1000)
    .toLocaleString('en')
    .padStart(9)} points/s`;

async function benchBackend(name: string, db: Kysely<FleetHoursDatabase>): Promise<void> {
  await migrateToLatest(db);
  const store: KyselyFleetHoursStore = createKyselyStore(db);
  const account = await store.createAccount({ name: 'Bench', plan: 'business', now: START });
  let imei = 0;
  const device = async () =>
    (await store.createDevice({ accountId: account.id, name: 'Truck', imei: String(++imei), model: 'm', timeZone: 'UTC' }))!.id;
  const write = (deviceId: number, points: readonly TelemetryPoint[]) =>
    store.writeTelemetry({
      accountId: account.id,
      points: points.map((point): DeviceTelemetryPoint => ({ deviceId, ...point })),
      now: NOW,
    });
  const batches = (points: readonly TelemetryPoint[]) =>
    Array.from({ length: Math.ceil(points.length / BATCH) }, (_, index) => points.slice(index * BATCH, (index + 1) * BATCH));
  console.log(`\n${name}: ${BATCHES} batches of ${BATCH.toLocaleString('en')} points per device, one report every ${STEP} s`);

  // Warm-up: the first statements pay for planning and cold caches.
  await write(await device(), reports(START, BATCH, 99));

  // Concurrency 1: one device, batches in order.
  const single = batches(reports(START, BATCH * BATCHES, 1));
  const singleDevice = await device();
  const perBatch: number[] = [];
  let started = performance.now();
  for (const batch of single) {
    const batchStarted = performance.now();
    await write(singleDevice, batch);
    perBatch.push(performance.now() - batchStarted);
  }
  const singleMs = performance.now() - started;

  // The same points as a bare multi-row INSERT, same driver: 4 parameters a row, in statements of
  // 5,000 rows (PGlite's protocol counts parameters in 16 signed bits: at most 32,767 a statement).
  const bareDevice = await device();
  const bareBatch: number[] = [];
  started = performance.now();
  for (const batch of single) {
    const batchStarted = performance.now();
    for (let offset = 0; offset < batch.length; offset += 5_000) {
      await db
        .insertInto('telemetry_points')
        .values(
          batch.slice(offset, offset + 5_000).map((point) => ({
            device_id: bareDevice,
            time: new Date(point.time * 1000),
            ignition: point.ignition,
            speed_kmh: point.speedKmh,
          })),
        )
        .execute();
    }
    bareBatch.push(performance.now() - batchStarted);
  }
  const bareMs = performance.now() - started;
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  console.log(
    `  concurrency 1 (one device)          ${rate(single.length * BATCH, singleMs)}  (median batch ${median(perBatch).toFixed(1)} ms)`,
  );
  console.log(
    `  bare multi-row INSERT, same points  ${rate(single.length * BATCH, bareMs)}  (median batch ${median(bareBatch).toFixed(1)} ms)`,
  );
  console.log(`  ratio store / bare (total time)     ${(singleMs / bareMs).toFixed(2)}`);

  // Concurrency 4: four devices, each its batches in order, all at once.
  const writers = await Promise.all(
    Array.from({ length: 4 }, async (_, index) => ({
      deviceId: await device(),
      batches: batches(reports(START, BATCH * BATCHES, 10 + index)),
    })),
  );
  started = performance.now();
  await Promise.all(
    writers.map(async ({ deviceId, batches: own }) => {
      for (const batch of own) await write(deviceId, batch);
    }),
  );
  const fourMs = performance.now() - started;
  console.log(`  concurrency 4 (four devices)        ${rate(4 * BATCHES * BATCH, fourMs)}`);

  // Late batches against batches in order, on one device that holds BATCHES × 10,000 points:
  // - a buffered batch (a tracker that was offline sends what it kept): it fills a hole of 10,000
  //   reports inside the stored history, the common case;
  // - an interleaved batch: 10,000 points 5 s after stored ones with other speeds, so nearly every
  //   point starts a segment of its own (the worst case: its cost is the segments it writes);
  // - a batch in order after the newest point.
  // Alternated, several of each; medians compared.
  const rounds = Math.min(5, BATCHES);
  const lateDevice = await device();
  const full = reports(START, BATCH * (BATCHES + rounds), 3);
  const holes = Array.from({ length: rounds }, (_, round) => Math.floor(((round + 0.5) * (BATCHES + rounds) * BATCH) / (rounds + 1)));
  const inHole = new Set(holes.flatMap((from) => Array.from({ length: BATCH }, (_, index) => from + index)));
  const history = full.filter((_, index) => !inHole.has(index));
  for (const batch of batches(history)) await write(lateDevice, batch);
  // The tables' statistics up to date, as autovacuum keeps them within a minute: the connections'
  // cached plans (P38) made while the tables were nearly empty are made again for their size.
  await sql`analyze devices, telemetry_points, engine_segments, engine_day_figures`.execute(db);
  const buffered: number[] = [];
  const interleaved: number[] = [];
  const inOrder: number[] = [];
  const sameInOrder: number[] = [];
  // Segments each write adds (net), counted outside the timed calls: the content of a write.
  const segmentCount = async () =>
    Number((await sql<{ n: string }>`select count(*) as n from engine_segments where device_id = ${lateDevice}`.execute(db)).rows[0]!.n);
  const added = { interleaved: [] as number[], inOrder: [] as number[], sameInOrder: [] as number[] };
  /** Writes `points` to the late device, its time into `times` and, when given, the segments it added into `segments`. */
  const timed = async (points: readonly TelemetryPoint[], times: number[], segments?: number[]) => {
    const before = segments ? await segmentCount() : 0;
    const at = performance.now();
    await write(lateDevice, points);
    times.push(performance.now() - at);
    if (segments) segments.push((await segmentCount()) - before);
  };
  let tail = full.at(-1)!.time + STEP;
  for (let round = 0; round < rounds; round += 1) {
    await timed(full.slice(holes[round]!, holes[round]! + BATCH), buffered);
    const from = Math.floor(((round + 0.25) * history.length) / (rounds + 1));
    const stretch = history
      .slice(from, from + BATCH)
      .map((point, index) => ({ ...point, time: point.time + 5, speedKmh: (index * 7) % 50 }));
    await timed(stretch, interleaved, added.interleaved);
    const appended = reports(tail, BATCH, 50 + round);
    tail = appended.at(-1)!.time + STEP;
    await timed(appended, inOrder, added.inOrder);
    // The interleaved batch's own points (speeds, gaps) moved after the newest point: what the same
    // points cost in order (they make fewer segments there: no stored point lies between them).
    const same = stretch.map((point) => ({ ...point, time: tail + point.time - stretch[0]!.time }));
    tail = same.at(-1)!.time + STEP;
    await timed(same, sameInOrder, added.sameInOrder);
  }
  const ratio = (values: number[]) =>
    `median ${median(values).toFixed(1).padStart(7)} ms: ratio ${(median(values) / median(inOrder)).toFixed(2)}`;
  console.log(
    `  in order after the newest point     median ${median(inOrder).toFixed(1).padStart(7)} ms  (${median(added.inOrder).toLocaleString('en')} segments added)`,
  );
  console.log(`  late, buffered (fills a hole)       ${ratio(buffered)}`);
  console.log(
    `  late, interleaved (worst case)      ${ratio(interleaved)}  (${median(added.interleaved).toLocaleString('en')} segments added)`,
  );
  console.log(
    `  its points in order after the newest median ${median(sameInOrder).toFixed(1).padStart(7)} ms  (${median(added.sameInOrder).toLocaleString('en')} segments added): ` +
      `interleaved ÷ the same points in order ${(median(interleaved) / median(sameInOrder)).toFixed(2)}`,
  );
}

const serverUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
if (await reachable(serverUrl)) {
  const schema = `fh_bench_ingest_${process.pid}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create schema ${schema}`);
  const db = createPostgresDatabase({ connectionString: serverUrl, schema, max: 8 });
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
if (process.env.INGEST_BENCH_PGLITE !== '0') {
  const pglite = await createPGliteDatabase();
  try {
    await benchBackend('PGlite in memory', pglite);
  } finally {
    await pglite.destroy();
  }
}
