/**
 * D35 (serial equivalence per device), deterministically, on PostgreSQL: one connection holds a
 * device's row lock with a telemetry write it has not committed; another write of the same device
 * starts and waits for that lock; the first commits. The waiting write must plan from what the
 * first one committed, as if the two had come one after the other: under READ COMMITTED a statement
 * that takes the lock and reads in one go reads the snapshot from before its wait, so the lock is
 * taken in a statement of its own and everything it protects is read after it
 * (`stores/telemetry-store.ts`). The concurrency property of the storage contract runs the same on random
 * interleavings of every kind of write (`describeStorageContract`).
 */
import { telemetryToSegments, type TelemetryPoint } from '@fleet-hours/core';
import { sql, type Kysely } from 'kysely';
import postgres from 'postgres';
import { afterAll, expect, it } from 'vitest';
import { DATABASE_URL, describeWithPostgres, resetTables } from '../../../../test/support/postgres.js';
import { createPostgresDatabase } from '../dialect/create-postgres-database.js';
import { pointsFrom, usePostgresSchema } from '../testing/fixture.js';
import { createKyselyStore } from './create-kysely-store.js';
import type { FleetHoursDatabase } from '../schema/database-schema.js';
import { verifyDailyFigures } from '../verify/verify-daily-figures.js';

const T0 = 1_767_225_600; // 2026-01-01T00:00:00Z
const LATER = T0 + 40 * 86_400;

/** D21 by hand: two points of one second merge into ignition on if either is, the higher speed. */
function merged(...batches: readonly (readonly TelemetryPoint[])[]): TelemetryPoint[] {
  const bySecond = new Map<number, TelemetryPoint>();
  for (const point of batches.flat()) {
    const stored = bySecond.get(point.time);
    bySecond.set(
      point.time,
      stored
        ? { time: point.time, ignition: stored.ignition || point.ignition, speedKmh: Math.max(stored.speedKmh, point.speedKmh) }
        : point,
    );
  }
  return [...bySecond.values()].sort((a, b) => a.time - b.time);
}

/** Resolves once a backend waits for a lock that `holder` (a backend pid) holds. */
async function someoneWaitsFor(db: Kysely<FleetHoursDatabase>, holder: number): Promise<void> {
  for (let waited = 0; waited < 20_000; waited += 20) {
    const { rows } = await sql<{
      waiting: number;
    }>`select count(*)::integer as waiting from pg_stat_activity where ${holder}::integer = any(pg_blocking_pids(pid))`.execute(db);
    if (rows[0]!.waiting > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('No write came to wait for the lock');
}

describeWithPostgres('D35: a write that waits for the lock of an uncommitted write of its device', () => {
  const { db } = usePostgresSchema(4);

  // `size`: the waiting write's points. 60,000 are more than one statement writes, so it goes
  // straight to the transaction under the lock; 40 take the unlocked path, whose write statement
  // checks the device's row version after its wait.
  for (const [size, path] of [
    [60_000, 'under the lock, in a transaction'],
    [40, 'without a lock, checking the row version'],
  ] as const) {
    it(`plans from what that write committed, as if they came one after the other (${path})`, async () => {
      await resetTables(db());
      const store = createKyselyStore(db());
      const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
      const device = (await store.createDevice({
        accountId: account.id,
        name: 'Truck',
        imei: '356307042441013',
        model: 'm',
        timeZone: 'Europe/Berlin',
      }))!;
      const history = pointsFrom(T0 - 3_000, 100, 5);
      await store.writeTelemetry({
        accountId: account.id,
        points: history.map((point) => ({ deviceId: device.id, ...point })),
        now: LATER,
      });

      // Theirs: the same seconds as the first of mine, other values, and seconds between them.
      const mine = pointsFrom(T0, size, 0);
      const theirs = [...pointsFrom(T0, 300, 4), ...pointsFrom(T0 + 15, 300, 2)];
      let waiting: Promise<unknown> | undefined;
      await db()
        .transaction()
        .execute(async (trx) => {
          await createKyselyStore(trx).writeTelemetry({
            accountId: account.id,
            points: theirs.map((point) => ({ imei: device.imei, ...point })),
            now: LATER,
          });
          const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
          waiting = store.writeTelemetry({
            accountId: account.id,
            points: mine.map((point) => ({ deviceId: device.id, ...point })),
            now: LATER,
          });
          // Caught here so that a failure is seen below, after the commit, not as an unhandled rejection.
          waiting = waiting.catch((error: unknown) => error);
          await someoneWaitsFor(db(), rows[0]!.pid);
        });
      const answer = await waiting;
      if (answer instanceof Error) throw answer;
      // Counted as written after theirs: a point that their point of its second already holds is a duplicate.
      const stored = new Map(merged(history, theirs).map((point) => [point.time, point]));
      const duplicates = mine.filter((point) => {
        const before = stored.get(point.time);
        return (
          before !== undefined &&
          before.ignition === (before.ignition || point.ignition) &&
          before.speedKmh === Math.max(before.speedKmh, point.speedKmh)
        );
      }).length;
      expect(duplicates).toBeGreaterThan(0);
      expect(answer).toMatchObject({ accepted: mine.length - duplicates, duplicates });

      // The state of the two writes one after the other (in either order: D21 merges alike).
      const points = merged(history, theirs, mine);
      expect(await store.listTelemetryPoints({ deviceId: device.id })).toEqual(points);
      const segments = (await store.listSegments({ deviceId: device.id })).map(({ startedAt, endedAt, state }) => ({
        startedAt,
        endedAt,
        state,
      }));
      expect(segments).toEqual(telemetryToSegments(points));
      expect((await verifyDailyFigures(db())).mismatches).toEqual([]);
      expect((await store.findDevice({ accountId: account.id, deviceId: device.id }))?.lastReportedAt).toBe(points.at(-1)!.time);
      const totals = await store.summarizeDeviceSegments!({ deviceId: device.id, now: LATER });
      let movingSeconds = 0;
      let idleSeconds = 0;
      for (const segment of segments) {
        const seconds = Math.min(segment.endedAt ?? LATER, LATER) - segment.startedAt;
        if (segment.state === 'moving') movingSeconds += seconds;
        else idleSeconds += seconds;
      }
      expect(totals).toMatchObject({ movingSeconds, idleSeconds });
    });
  }

  it('on a server whose transactions are SERIALIZABLE, a write that loses a race (40001) runs again: every write is acknowledged and exact', async () => {
    await resetTables(db());
    const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db());
    // An operator's server with default_transaction_isolation = serializable: a row lock on a row
    // another transaction changed since the statement's snapshot fails with 40001 instead of waiting.
    const serializable = createPostgresDatabase({
      sql: postgres(DATABASE_URL!, {
        max: 6,
        onnotice: () => {},
        connection: { search_path: rows[0]!.schema, default_transaction_isolation: 'serializable' },
      }),
    });
    closers.push(() => serializable.destroy());
    const store = createKyselyStore(serializable);
    const { rows: isolation } = await sql<{ level: string }>`select current_setting('transaction_isolation') as level`.execute(
      serializable,
    );
    expect(isolation[0]!.level).toBe('serializable');
    const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
    const device = (await store.createDevice({
      accountId: account.id,
      name: 'Truck',
      imei: '356307042441077',
      model: 'm',
      timeZone: 'America/New_York',
    }))!;
    // 24 writers of one device at once, their points interleaved (each one in 24 of the whole).
    const all = pointsFrom(T0, 24 * 40, 2);
    const shares = Array.from({ length: 24 }, (_, writer) => all.filter((_, index) => index % 24 === writer));
    const answers = await Promise.allSettled(
      shares.map((share) =>
        store.writeTelemetry({ accountId: account.id, points: share.map((point) => ({ deviceId: device.id, ...point })), now: LATER }),
      ),
    );
    expect(answers.filter((answer) => answer.status === 'rejected')).toEqual([]);
    expect(await store.listTelemetryPoints({ deviceId: device.id })).toEqual(all);
    expect(
      (await store.listSegments({ deviceId: device.id })).map(({ startedAt, endedAt, state }) => ({ startedAt, endedAt, state })),
    ).toEqual(telemetryToSegments(all));
    expect((await verifyDailyFigures(db())).mismatches).toEqual([]);
  });

  const closers: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const close of closers) await close();
  });
});
