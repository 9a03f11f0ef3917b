import {
  createKyselyStore,
  createPGliteDatabase,
  migrateToLatest,
  verifyStore,
  type FleetHoursDatabase,
} from '@fleet-hours/storage-kysely';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkRound, ingestionApp, planRequests, randomFrom, runRound } from './support/concurrent-ingestion.js';
import { createTestSchema, describeWithPostgres, type TestPostgres } from './support/postgres.js';

function describeConcurrentIngestion(backend: string, database: () => Kysely<FleetHoursDatabase>, seeds: readonly number[]): void {
  describe(`D35: concurrent ingestion over HTTP on ${backend}`, () => {
    for (const seed of seeds) {
      it(`8 clients, 3 devices, native, Traccar and OsmAnd mixed, resends (seed ${seed}): no 500, and the state of the 2xx requests one after another`, async () => {
        const db = database();
        const ingestion = await ingestionApp(createKyselyStore(db));
        const requests = planRequests(randomFrom(seed), { devices: 3, points: 1_500 });
        const round = await runRound(ingestion, requests, { devices: 3, clients: 8 });
        const checked = await checkRound(ingestion, round);
        expect(checked.problems).toEqual([]);
        expect(round.statuses.get(200) ?? 0).toBeGreaterThan(requests.length / 2);
        for (const device of round.concurrent) expect((await ingestion.stateOf(device.id)).points.length).toBeGreaterThan(0);
        for (const device of round.concurrent) expect(await verifyStore(db, { deviceId: device.id })).toEqual({ checked: 1, devices: [] });
      });
    }
  });
}

describe('on PGlite', () => {
  let db: Kysely<FleetHoursDatabase>;
  beforeAll(async () => {
    db = await createPGliteDatabase();
    await migrateToLatest(db);
  });
  afterAll(async () => {
    await db?.destroy();
  });
  describeConcurrentIngestion('PGlite', () => db, [1]);
});

describeWithPostgres('on PostgreSQL', () => {
  let server: TestPostgres;
  let db: Kysely<FleetHoursDatabase>;
  beforeAll(async () => {
    server = await createTestSchema();
    db = server.connect({ max: 10 });
    await migrateToLatest(db);
  });
  afterAll(async () => {
    await server?.drop();
  });
  describeConcurrentIngestion('PostgreSQL', () => db, [1, 2, 3]);
});
