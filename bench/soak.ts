import postgres from 'postgres';
import {
  createKyselyStore,
  createPGliteDatabase,
  createPostgresDatabase,
  migrateToLatest,
  verifyStore,
  type FleetHoursDatabase,
} from '@fleet-hours/storage-kysely';
import type { Kysely } from 'kysely';
import { checkRound, ingestionApp, planRequests, randomFrom, runRound } from '../test/support/concurrent-ingestion.js';
import { reachable } from './_support.js';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 120);
const POINTS = Number(process.env.SOAK_POINTS ?? 5_000);
const FIRST_SEED = Number(process.env.SOAK_SEED ?? Date.now() % 1_000_000);

async function soak(backend: string, db: Kysely<FleetHoursDatabase>): Promise<boolean> {
  await migrateToLatest(db);
  const ingestion = await ingestionApp(createKyselyStore(db));
  console.log(
    `soak on ${backend}: ${SECONDS} s of rounds of ${POINTS.toLocaleString('en')} points, 8 clients, 3 devices, first seed ${FIRST_SEED}`,
  );
  const deadline = Date.now() + SECONDS * 1000;
  let ok = true;
  let rounds = 0;
  const totals = { requests: 0, acknowledged: 0, points: 0, segments: 0, days: 0 };
  for (let seed = FIRST_SEED; Date.now() < deadline; seed += 1) {
    const started = Date.now();
    const requests = planRequests(randomFrom(seed), { devices: 3, points: POINTS });
    const round = await runRound(ingestion, requests, { devices: 3, clients: 8 });
    const { problems, points, segments, days } = await checkRound(ingestion, round);
    const acknowledged = round.statuses.get(200) ?? 0;
    rounds += 1;
    totals.requests += requests.length;
    totals.acknowledged += acknowledged;
    totals.points += points;
    totals.segments += segments;
    totals.days += days;
    console.log(
      `  round ${rounds} (seed ${seed}): ${requests.length} requests (${[...round.statuses].map(([status, count]) => `${count}×${status}`).join(', ')}) in ${Date.now() - started} ms; ` +
        `${points} points, ${segments} segments, ${days} daily entries, hours and meter compared: ${problems.length === 0 ? 'equal' : problems.join('; ')}`,
    );
    if (problems.length > 0) ok = false;
  }
  const verified = await verifyStore(db);
  console.log(
    `  ${rounds} rounds, ${totals.requests.toLocaleString('en')} requests (${totals.acknowledged.toLocaleString('en')} answered 200), ${totals.points.toLocaleString('en')} points, ` +
      `${totals.segments.toLocaleString('en')} segments and ${totals.days.toLocaleString('en')} daily entries compared; verify (D36) of ${verified.checked} devices: ${verified.devices.length} differ`,
  );
  return ok && verified.devices.length === 0;
}

const url = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
let passed: boolean;
if (await reachable(url)) {
  const schema = `fh_soak_${process.pid}`;
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create schema ${schema}`);
  const db = createPostgresDatabase({ connectionString: url, schema, max: 10 });
  try {
    passed = await soak('PostgreSQL', db);
  } finally {
    await db.destroy();
    await admin.unsafe(`drop schema ${schema} cascade`);
    await admin.end();
  }
} else {
  const db = await createPGliteDatabase();
  try {
    passed = await soak('PGlite (no PostgreSQL at DATABASE_URL)', db);
  } finally {
    await db.destroy();
  }
}
console.log(passed ? 'soak: passed' : 'soak: FAILED');
process.exit(passed ? 0 : 1);
