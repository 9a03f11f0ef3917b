/**
 * D35 over HTTP, as an operator runs it: 8 clients send shuffled points of the same 3 devices at
 * once — native batches of 1–500, Traccar forwards and OsmAnd reports (single positions share
 * writes, P34), about one request in ten sent again — on PGlite and on PostgreSQL. No request is
 * answered 500; the points, segments, `last_reported_at` and the read API's hours, daily figures
 * and meter equal those of the 2xx requests sent one after another to other devices; the segments
 * are the points' (D2); and `verifyStore` finds every derived datum in agreement with its source (D36).
 */
import { telemetryToSegments } from '@fleet-hours/core';
import {
  createKyselyStore,
  createPGliteDatabase,
  migrateToLatest,
  verifyStore,
  type FleetHoursDatabase,
} from '@fleet-hours/storage-kysely';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestionApp, planRequests, randomFrom, runRound } from './support/concurrent-ingestion.js';
import { createTestSchema, describeWithPostgres, type TestPostgres } from './support/postgres.js';

function describeConcurrentIngestion(backend: string, database: () => Kysely<FleetHoursDatabase>, seeds: readonly number[]): void {
  describe(`D35: concurrent ingestion over HTTP on ${backend}`, () => {
    for (const seed of seeds) {
      it(`8 clients, 3 devices, native, Traccar and OsmAnd mixed, resends (seed ${seed}): no 500, and the state of the 2xx requests one after another`, async () => {
        const db = database();
        const ingestion = await ingestionApp(createKyselyStore(db));
        const requests = planRequests(randomFrom(seed), { devices: 3, points: 1_500 });
        const round = await runRound(ingestion, requests, { devices: 3, clients: 8 });
        // Only 200, or 503 for a write that could not finish within its deadline (it writes nothing).
        expect([...round.statuses.keys()].filter((status) => status !== 200 && status !== 503)).toEqual([]);
        expect(round.statuses.get(200) ?? 0).toBeGreaterThan(requests.length / 2);
        for (const [index, device] of round.concurrent.entries()) {
          const state = await ingestion.stateOf(device.id);
          expect(state.points.length).toBeGreaterThan(0);
          expect(state.segments).toEqual(telemetryToSegments(state.points));
          expect(state).toEqual(await ingestion.stateOf(round.serial[index]!.id));
        }
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
