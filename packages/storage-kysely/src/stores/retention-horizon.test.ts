/**
 * D45 and D46 on the Kysely store, on PGlite and on PostgreSQL:
 *
 * - D45: once maintenance dropped points, the database holds the horizon; every write refuses a
 *   point before it (`BeyondRetentionError`, nothing of the batch written) whatever retention the
 *   writer was given; a late point after it whose neighbour was dropped, and `verifyStore` with
 *   repair, change nothing before it. Property: any history, drops at any time, late points on both
 *   sides and repairs answer every instant before the horizon as the same writes without the drops
 *   (the core's memory store, which keeps every point, is the oracle).
 * - D46: concurrent runs neither fail nor drop twice; a partition left pending detach (a run
 *   cancelled, or a reader that outlived the detach's lock timeout) counts as dropped and the next
 *   run finishes it; a detach waits for a reader past the request deadline.
 */
import { BeyondRetentionError, createMemoryStore, type EngineSegment, type FleetHoursStore, type TelemetryPoint } from '@fleet-hours/core';
import fc from 'fast-check';
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestSchema, describeWithPostgres, type TestPostgres } from '../../../../test/support/postgres.js';
import { createPGliteDatabase } from '../dialect/create-pglite-database.js';
import { createPostgresDatabase } from '../dialect/create-postgres-database.js';
import type { FleetHoursDatabase } from '../schema/database-schema.js';
import { migrateToLatest } from '../schema/migrate-to-latest.js';
import { usePGlite } from '../testing/fixture.js';
import { listPointPartitions, maintainTelemetryPartitions, readTelemetryHorizon } from '../sql/point-partitions.js';
import { verifyStore } from '../verify/verify-store.js';
import { createKyselyStore } from './create-kysely-store.js';

const T0 = 1_767_225_600; // 2026-01-01T00:00:00Z
const FEB = 1_769_904_000; // 2026-02-01T00:00:00Z
const DAY = 86_400;
const NOW = T0 + 160 * DAY;

/** The segments' parts before `horizon`, adjacent parts of one state joined: what every answer before it reads. */
function before(segments: readonly EngineSegment[], horizon: number) {
  const parts: { startedAt: number; endedAt: number; state: string }[] = [];
  for (const segment of segments) {
    if (segment.startedAt >= horizon) continue;
    const endedAt = Math.min(segment.endedAt ?? horizon, horizon);
    const last = parts[parts.length - 1];
    if (last && last.endedAt === segment.startedAt && last.state === segment.state) last.endedAt = endedAt;
    else parts.push({ startedAt: segment.startedAt, endedAt, state: segment.state });
  }
  return parts;
}

/** A device of one account on each store, the same writes sent to both. */
async function twin(store: FleetHoursStore, oracle: FleetHoursStore, imei: string) {
  const made = async (on: FleetHoursStore) => {
    const account = await on.createAccount({ name: 'Acme', plan: 'business', now: T0 });
    const device = (await on.createDevice({ accountId: account.id, name: 'T', imei, model: 'm', timeZone: 'UTC' }))!;
    return { accountId: account.id, deviceId: device.id };
  };
  const [mine, theirs] = [await made(store), await made(oracle)];
  return {
    mine,
    /** Writes to the store; the oracle gets what the store accepted. `refused` when the store refused it for the horizon. */
    async write(points: readonly TelemetryPoint[]): Promise<'written' | 'refused'> {
      try {
        await store.writeTelemetry({ accountId: mine.accountId, points: points.map((p) => ({ ...p, deviceId: mine.deviceId })), now: NOW });
      } catch (error) {
        if (error instanceof BeyondRetentionError) return 'refused';
        throw error;
      }
      await oracle.writeTelemetry({
        accountId: theirs.accountId,
        points: points.map((p) => ({ ...p, deviceId: theirs.deviceId })),
        now: NOW,
      });
      return 'written';
    },
    segments: async () =>
      [await store.listSegments({ deviceId: mine.deviceId }), await oracle.listSegments({ deviceId: theirs.deviceId })] as const,
  };
}

function describeHorizon(name: string, database: () => Kysely<FleetHoursDatabase>, fresh: () => Promise<Kysely<FleetHoursDatabase>>): void {
  describe(`retention horizon on ${name}`, () => {
    let imei = 0;

    it('D45, P59: the horizon is recorded; a point before it is refused whole by any write; a late point after it and a repair change nothing before it', async () => {
      const db = database();
      const store = createKyselyStore(db);
      const pair = await twin(store, createMemoryStore(), `h${++imei}`);
      // Engine on every minute from 28 to 31 January (the last at 23:58), then from 06:00 on 1 February.
      const minutes = (from: number, count: number, speedKmh: number) =>
        Array.from({ length: count }, (_, index) => ({ time: from + index * 60, ignition: true, speedKmh }));
      await pair.write(minutes(FEB - 4 * DAY, 4 * 1_440 - 1, 30));
      await pair.write(minutes(FEB + 6 * 3_600, 600, 0));
      const kept = await store.listTelemetryPoints({ deviceId: pair.mine.deviceId, start: FEB });
      const done = await maintainTelemetryPartitions(db, { now: FEB + 40 * DAY, retentionDays: 35 });
      expect(done).toMatchObject({ dropped: expect.arrayContaining(['telemetry_points_p202601']), pending: [], busy: false });
      expect(await readTelemetryHorizon(db)).toBe(FEB);
      const [stored] = await pair.segments();

      // The lone point inside the dropped month, by a writer given no retention at all: refused, naming it.
      const lone = store.writeTelemetry({
        accountId: pair.mine.accountId,
        points: [
          { deviceId: pair.mine.deviceId, time: FEB + 7 * 3_600, ignition: true, speedKmh: 0 },
          { deviceId: pair.mine.deviceId, time: FEB - 2 * DAY, ignition: true, speedKmh: 0 },
        ],
        now: NOW,
      });
      await expect(lone).rejects.toBeInstanceOf(BeyondRetentionError);
      await expect(lone).rejects.toMatchObject({
        code: 'beyond_retention',
        index: 1,
        horizon: FEB,
        message:
          'time 2026-01-30T00:00:00Z is older than the retention horizon 2026-02-01T00:00:00Z (points before it were dropped): nothing was written',
      });
      expect(await store.listTelemetryPoints({ deviceId: pair.mine.deviceId, start: FEB })).toEqual(kept);
      expect((await pair.segments())[0]).toEqual(stored);

      // A late point just after the horizon, its neighbour (23:58) dropped: the segment up to it is final and kept.
      expect(await pair.write([{ time: FEB + 30, ignition: true, speedKmh: 0 }])).toBe('written');
      const [mine, oracle] = await pair.segments();
      expect(before(mine, FEB)).toEqual(before(stored, FEB));
      expect(before(mine, FEB)).toEqual(before(oracle, FEB));
      expect(mine).toEqual(oracle);

      // verify compares only from the horizon; repair changes nothing before it.
      expect(await verifyStore(db, { deviceId: pair.mine.deviceId })).toEqual({ checked: 1, devices: [] });
      await verifyStore(db, { deviceId: pair.mine.deviceId, repair: true });
      expect((await pair.segments())[0]).toEqual(mine);
    });

    it('D45: a segment import with a segment starting before the horizon is refused whole (nothing written); one from the horizon on is accepted', async () => {
      const db = await fresh();
      try {
        await migrateToLatest(db);
        const store = createKyselyStore(db);
        const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
        const made = (imei: string) => store.createDevice({ accountId: account.id, name: imei, imei, model: 'm', timeZone: 'UTC' });
        const device = (await made('s1'))!;
        const other = (await made('s2'))!;
        const jan = { startedAt: FEB - 6 * DAY, endedAt: FEB - 6 * DAY + 3_600, state: 'moving' as const };
        expect(await store.importSegments({ deviceId: device.id, segments: [jan] })).toMatchObject({ inserted: 1 });
        // Points of another device in January, so that maintenance drops that month and records the horizon.
        await store.writeTelemetry({
          accountId: account.id,
          points: [{ deviceId: other.id, time: FEB - 3 * DAY, ignition: true, speedKmh: 9 }],
          now: NOW,
        });
        await maintainTelemetryPartitions(db, { now: FEB + 40 * DAY, retentionDays: 35 });
        expect(await readTelemetryHorizon(db)).toBe(FEB);
        const days = Array.from({ length: 20 }, (_, index) => FEB - 10 * DAY + index * DAY);
        const state = async () => ({
          segments: await store.listSegments({ deviceId: device.id }),
          days: await store.sumSegmentSeconds!({ deviceId: device.id, boundaries: days, now: NOW }),
          totals: await store.summarizeDeviceSegments!({ deviceId: device.id, now: NOW }),
          device: await store.findDevice({ accountId: account.id, deviceId: device.id }),
        });
        const stored = await state();

        const after = { startedAt: FEB + DAY, endedAt: FEB + DAY + 600, state: 'moving' as const };
        const refused = [
          // A new segment before the horizon, after one from it.
          [after, { startedAt: FEB - 4 * DAY, endedAt: FEB - 4 * DAY + 60, state: 'idle' as const }],
          // Crossing it; even one identical to a stored one (it would be skipped).
          [{ startedAt: FEB - 30, endedAt: FEB + 30, state: 'moving' as const }],
          [jan],
        ];
        for (const segments of refused) {
          const index = segments.length - 1;
          const importing = store.importSegments({ deviceId: device.id, segments });
          await expect(importing).rejects.toBeInstanceOf(BeyondRetentionError);
          await expect(importing).rejects.toMatchObject({
            code: 'beyond_retention',
            index,
            time: segments[index]!.startedAt,
            horizon: FEB,
          });
          expect(await state()).toEqual(stored);
        }

        // From the horizon on (a segment starting exactly at it included): accepted.
        const atHorizon = { startedAt: FEB, endedAt: FEB + 60, state: 'idle' as const };
        const kept = await store.importSegments({ deviceId: device.id, segments: [after, atHorizon] });
        expect(kept).toMatchObject({ inserted: 2 });
        expect((await store.listSegments({ deviceId: device.id, start: FEB })).map((segment) => segment.startedAt)).toEqual([
          FEB,
          FEB + DAY,
        ]);
      } finally {
        await db.destroy();
      }
    }, 60_000);

    it('D45, P61 property (the memory store, which keeps every point, is the oracle): any history, drops at any time, late points on both sides and repairs answer every instant before the horizon as without the drops', async () => {
      const db = database();
      const store = createKyselyStore(db);
      const point = fc.record({
        time: fc.integer({ min: T0, max: NOW - 1 }),
        ignition: fc.boolean(),
        speedKmh: fc.constantFrom(0, 3, 40),
      });
      await fc.assert(
        fc.asyncProperty(
          fc.array(
            fc.record({
              day: fc.integer({ min: 0, max: 150 }),
              count: fc.integer({ min: 1, max: 60 }),
              step: fc.integer({ min: 5, max: 400 }),
            }),
            { minLength: 1, maxLength: 5 },
          ),
          fc.array(fc.record({ afterDays: fc.integer({ min: 0, max: 150 }), retentionDays: fc.integer({ min: 1, max: 150 }) }), {
            minLength: 1,
            maxLength: 2,
          }),
          fc.array(fc.array(point, { minLength: 1, maxLength: 3 }), { maxLength: 6 }),
          fc.boolean(),
          async (history, drops, late, repair) => {
            // Each run starts with every point kept (a run's drops are database-wide).
            await sql`delete from telemetry_horizon`.execute(db);
            const pair = await twin(store, createMemoryStore(), `p${++imei}`);
            for (const { day, count, step } of history)
              await pair.write(
                Array.from({ length: count }, (_, index) => ({
                  time: T0 + day * DAY + index * step,
                  ignition: index % 9 !== 8,
                  speedKmh: Math.floor(index / 4) % 2 === 0 ? 0 : 40,
                })),
              );
            for (const { afterDays, retentionDays } of drops)
              await maintainTelemetryPartitions(db, { now: T0 + afterDays * DAY + retentionDays * DAY, retentionDays });
            const horizon = (await readTelemetryHorizon(db)) ?? -Infinity;
            for (const batch of late) {
              const outcome = await pair.write(batch);
              expect(outcome).toBe(batch.some((each) => each.time < horizon) ? 'refused' : 'written');
            }
            if (repair) await verifyStore(db, { deviceId: pair.mine.deviceId, repair: true });
            const [mine, oracle] = await pair.segments();
            expect(before(mine, horizon)).toEqual(before(oracle, horizon));
          },
        ),
        { numRuns: 10 },
      );
    }, 240_000);

    it('D46, P60: runs at once neither fail nor drop twice', async () => {
      const db = await fresh();
      try {
        await migrateToLatest(db);
        const store = createKyselyStore(db);
        const pair = await twin(store, createMemoryStore(), 'c1');
        for (const month of [0, 31, 62, 93])
          await pair.write(
            Array.from({ length: 30 }, (_, index) => ({ time: T0 + month * DAY + index * 60, ignition: true, speedKmh: 9 })),
          );
        const runs = await Promise.all([1, 2, 3].map(() => maintainTelemetryPartitions(db, { now: T0 + 100 * DAY, retentionDays: 40 })));
        // Every run succeeds; January and February are dropped once between them.
        expect(runs.flatMap((run) => run.dropped).sort()).toEqual(['telemetry_points_p202601', 'telemetry_points_p202602']);
        expect(await readTelemetryHorizon(db)).toBe(T0 + 59 * DAY);
      } finally {
        await db.destroy();
      }
    }, 60_000);
  });
}

describe('on PGlite', () => {
  const db = usePGlite();
  describeHorizon('PGlite', db, async () => createPGliteDatabase());
});

describeWithPostgres('on PostgreSQL', () => {
  const servers: TestPostgres[] = [];
  let db: Kysely<FleetHoursDatabase>;
  beforeAll(async () => {
    const server = await createTestSchema();
    servers.push(server);
    db = server.connect({ max: 4 });
    await migrateToLatest(db);
  });
  afterAll(async () => {
    for (const server of servers) await server.drop();
  });
  describeHorizon(
    'PostgreSQL',
    () => db,
    async () => {
      const server = await createTestSchema();
      servers.push(server);
      return server.connect({ max: 4 });
    },
  );

  /** A transaction on a connection of its own that has read `telemetry_points` and stays open until `end()`. */
  async function holdReader(server: TestPostgres) {
    const reader = server.connect({ max: 1 });
    let end!: () => void;
    const ended = new Promise<void>((resolve) => {
      end = resolve;
    });
    let started!: () => void;
    const ready = new Promise<void>((resolve) => {
      started = resolve;
    });
    const done = reader.transaction().execute(async (trx) => {
      await sql`select count(*) from telemetry_points`.execute(trx);
      started();
      await ended;
    });
    await ready;
    return {
      end: async () => {
        end();
        await done;
        await reader.destroy();
      },
    };
  }

  it('D46, P60: a reader outliving the lock timeout leaves the partition pending (counted as dropped: refused, verify clean); the next run finishes it', async () => {
    const server = await createTestSchema();
    servers.push(server);
    const db = server.connect({ max: 4 });
    await migrateToLatest(db);
    const store = createKyselyStore(db);
    const pair = await twin(store, createMemoryStore(), 'r1');
    for (const month of [0, 31])
      await pair.write(Array.from({ length: 30 }, (_, index) => ({ time: T0 + month * DAY + index * 60, ignition: true, speedKmh: 9 })));
    const reader = await holdReader(server);
    // The wedge: a detach of January cancelled by a request deadline (as the old hourly run's was).
    const bounded = createPostgresDatabase({ connectionString: server.url, queryTimeout: 1 });
    await expect(
      sql`alter table telemetry_points detach partition telemetry_points_p202601 concurrently`.execute(bounded),
    ).rejects.toThrow();
    await bounded.destroy();
    // The reader still runs: finishing the detach gives up after the lock timeout and leaves it to the next run.
    const first = await maintainTelemetryPartitions(db, { now: T0 + 80 * DAY, retentionDays: 40, lockTimeoutSeconds: 0.5 });
    expect(first).toMatchObject({ dropped: [], pending: ['telemetry_points_p202601'], busy: false });
    expect((await listPointPartitions(db)).find((partition) => partition.name === 'telemetry_points_p202601')?.pending).toBe(true);
    // Counted as dropped: refused, and verify compares nothing before the horizon.
    expect(await pair.write([{ time: T0 + 5 * DAY, ignition: true, speedKmh: 0 }])).toBe('refused');
    expect(await verifyStore(db, { deviceId: pair.mine.deviceId })).toEqual({ checked: 1, devices: [] });
    // A write of another month meanwhile goes through.
    expect(await pair.write([{ time: T0 + 40 * DAY, ignition: true, speedKmh: 0 }])).toBe('written');
    await reader.end();
    const next = await maintainTelemetryPartitions(db, { now: T0 + 80 * DAY, retentionDays: 40 });
    expect(next).toMatchObject({ dropped: ['telemetry_points_p202601'], pending: [] });
    expect((await listPointPartitions(db)).map((partition) => partition.name)).not.toContain('telemetry_points_p202601');
    expect(await readTelemetryHorizon(db)).toBe(FEB);
    expect(await verifyStore(db, { deviceId: pair.mine.deviceId })).toEqual({ checked: 1, devices: [] });
  }, 60_000);

  it('D46: the detach runs outside the request deadline: it waits for a reader longer than the deadline and finishes', async () => {
    const server = await createTestSchema();
    servers.push(server);
    const db = createPostgresDatabase({ connectionString: server.url, queryTimeout: 1 });
    try {
      await migrateToLatest(db);
      const store = createKyselyStore(db);
      const pair = await twin(store, createMemoryStore(), 'd1');
      await pair.write(Array.from({ length: 30 }, (_, index) => ({ time: T0 + index * 60, ignition: true, speedKmh: 9 })));
      const reader = await holdReader(server);
      const run = maintainTelemetryPartitions(db, { now: T0 + 80 * DAY, retentionDays: 40, lockTimeoutSeconds: 60 });
      // The reader ends after the 1 s deadline has passed for the detach waiting on it.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await reader.end();
      expect(await run).toMatchObject({ dropped: ['telemetry_points_p202601'], pending: [] });
    } finally {
      await db.destroy();
    }
  }, 60_000);

  it('D46: three runs on three pools at once, with a reader: none fails, each partition dropped once', async () => {
    const server = await createTestSchema();
    servers.push(server);
    const db = server.connect({ max: 2 });
    await migrateToLatest(db);
    const pair = await twin(createKyselyStore(db), createMemoryStore(), 't1');
    for (const month of [0, 31])
      await pair.write(Array.from({ length: 30 }, (_, index) => ({ time: T0 + month * DAY + index * 60, ignition: true, speedKmh: 9 })));
    const pools = [1, 2, 3].map(() => server.connect({ max: 2 }));
    const reader = await holdReader(server);
    const runs = Promise.all(
      pools.map((pool) => maintainTelemetryPartitions(pool, { now: T0 + 100 * DAY, retentionDays: 40, lockTimeoutSeconds: 30 })),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    await reader.end();
    const done = await runs;
    expect(done.flatMap((run) => run.dropped).sort()).toEqual(['telemetry_points_p202601', 'telemetry_points_p202602']);
    // The others skipped while one held the lock; a later run finds nothing left.
    expect(await maintainTelemetryPartitions(db, { now: T0 + 100 * DAY, retentionDays: 40 })).toMatchObject({ dropped: [], pending: [] });
  }, 60_000);
});
