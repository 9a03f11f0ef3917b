import { createFleetHours, parseWindowQuery, SegmentOverlapError, type SegmentInput } from '@fleet-hours/core';
import { sql, type Kysely } from 'kysely';
import { beforeEach, describe, expect, it } from 'vitest';
import { describeWithPostgres, resetTables } from '../../../../test/support/postgres.js';
import { describeKyselyContracts, explainAnalyze, freshStoreOn, rowsReadFrom, usePGlite, usePostgresSchema } from '../testing/fixture.js';
import { sumByBucket } from '../sql/segment-queries.js';
import { createKyselyStore, type KyselyFleetHoursStore } from './create-kysely-store.js';
import type { FleetHoursDatabase } from '../schema/database-schema.js';

const T0 = 1_767_225_600; // 2026-01-01T00:00:00Z
const DAY = 86_400;

/** One PGlite for the whole file; every test starts from empty tables. */
const pglite = usePGlite();
const freshPGliteStore = freshStoreOn(pglite);

// PGlite computes in this process: a quarter of the runs of the costliest properties, which the
// PostgreSQL run below takes in full, keeps the file within its timeouts on a busy machine.
describeKyselyContracts('kysely on PGlite', pglite, { propertyRunShare: 0.25 });

describeWithPostgres('kysely on PostgreSQL', () => {
  const { db, server } = usePostgresSchema(8);
  const freshStore = freshStoreOn(db);

  describeKyselyContracts('kysely on PostgreSQL', db);

  it('two store instances on one database see the same keys: a revocation holds on every instance at once (D10)', async () => {
    const other = createKyselyStore(server().connect({ max: 2 }));
    const store = await freshStore();
    const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
    const key = await store.createApiKey({ accountId: account.id, fingerprint: 'e'.repeat(64), label: null, expiresAt: null, now: T0 });
    expect((await other.findApiKey({ fingerprint: 'e'.repeat(64) }))?.apiKey.revokedAt).toBeNull();
    await store.revokeApiKey({ keyId: key!.id, now: T0 + 5 });
    expect((await other.findApiKey({ fingerprint: 'e'.repeat(64) }))?.apiKey.revokedAt).toBe(T0 + 5);
  });

  it('two store instances on separate pools share the rate-limit counters exactly under concurrency (D15)', async () => {
    const stores = [await freshStore(), createKyselyStore(server().connect({ max: 4 }))];
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, index) =>
        stores[index % 2]!.consume({ key: 'key:1:/hours', windowStart: T0, windowSeconds: 60, limit: 30 }),
      ),
    );
    expect(results.filter((result) => result.allowed)).toHaveLength(30);
    expect(new Set(results.filter((result) => result.allowed).map((result) => result.count)).size).toBe(30);
  });

  describeImportAtScale(db);
});

describe('kysely store on PGlite', () => {
  let store: KyselyFleetHoursStore;
  beforeEach(async () => {
    store = await freshPGliteStore();
  });

  const seedDevice = async (target: KyselyFleetHoursStore = store) => {
    const account = await target.createAccount({ name: 'Acme', plan: 'business', now: T0 });
    return (await target.createDevice({ accountId: account.id, name: 'Truck', imei: '1', model: 'm', timeZone: 'Europe/Berlin' }))!;
  };

  it('the fingerprint column refuses anything but a SHA-256 hex digest, so a clear key cannot be stored (D10)', async () => {
    const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
    await expect(
      store.createApiKey({ accountId: account.id, fingerprint: 'fh_not-a-fingerprint', label: null, expiresAt: null, now: T0 }),
    ).rejects.toThrow(/api_keys_fingerprint_is_sha256/);
    expect(await store.listApiKeys({ accountId: account.id })).toEqual([]);
  });

  it('an instant timestamptz cannot hold is refused before the database is asked, with a RangeError naming the row', async () => {
    const device = await seedDevice();
    const batch: SegmentInput[] = [
      { startedAt: T0, endedAt: T0 + 60, state: 'idle' },
      { startedAt: T0 + 120, endedAt: 9_000_000_000_000_000, state: 'idle' },
    ];
    const queries: string[] = [];
    const recorded = createKyselyStore(
      pglite().withPlugin({
        transformQuery: ({ node }) => {
          queries.push(node.kind);
          return node;
        },
        transformResult: async ({ result }) => result,
      }),
    );
    const refusal = recorded.importSegments({ deviceId: device.id, segments: batch });
    await expect(refusal).rejects.toBeInstanceOf(RangeError);
    await expect(refusal).rejects.toMatchObject({
      name: 'InvalidSegmentError',
      row: 2,
      message: 'Row 2: ended_at must be epoch seconds between the years 0001 and 9999, got "9000000000000000"',
    });
    await expect(recorded.importSegments({ deviceId: device.id, segments: [], reportedAt: 1.5 })).rejects.toThrow(
      new RangeError('reportedAt must be whole epoch seconds, got "1.5"'),
    );
    expect(queries).toEqual([]);
    expect(await store.listSegments({ deviceId: device.id })).toEqual([]);
  });

  it('a database failure in the middle of a batch rolls back everything written before it', async () => {
    const device = await seedDevice();
    // A trigger makes the database refuse one row deep inside the third insert statement.
    const poisoned = T0 + 120_000 * 60;
    await sql`
      create function fail_on_poisoned_row() returns trigger language plpgsql as $$
      begin
        if new.started_at = to_timestamp(${sql.lit(poisoned)}) then raise exception 'injected failure'; end if;
        return new;
      end $$`.execute(pglite());
    await sql`create trigger fail_on_poisoned_row before insert on engine_segments for each row execute function fail_on_poisoned_row()`.execute(
      pglite(),
    );
    try {
      const batch = Array.from(
        { length: 130_000 },
        (_, index): SegmentInput => ({ startedAt: T0 + index * 60, endedAt: T0 + index * 60 + 30, state: 'idle' }),
      );
      await expect(store.importSegments({ deviceId: device.id, segments: batch })).rejects.toThrow(/injected failure/);
      expect(await store.listSegments({ deviceId: device.id })).toEqual([]);
      expect((await store.findDevice({ accountId: device.accountId, deviceId: device.id }))?.lastReportedAt).toBeNull();
    } finally {
      await sql`drop trigger fail_on_poisoned_row on engine_segments`.execute(pglite());
      await sql`drop function fail_on_poisoned_row()`.execute(pglite());
    }
  });

  it('the rate-limit counters of ended windows are deleted as new windows begin', async () => {
    await store.consume({ key: 'a', windowStart: T0, windowSeconds: 60, limit: 5 });
    await store.consume({ key: 'b', windowStart: T0 + 60, windowSeconds: 60, limit: 5 });
    await store.consume({ key: 'c', windowStart: T0 + 180, windowSeconds: 60, limit: 5 });
    const { rows } = await sql<{ key: string }>`select key from rate_limit_counters order by key`.execute(pglite());
    // A window is kept one window past its end (clock skew between instances), then deleted.
    expect(rows.map((row) => row.key)).toEqual(['c']);
    expect(await store.consume({ key: 'a', windowStart: T0 + 180, windowSeconds: 60, limit: 5 })).toEqual({ count: 1, allowed: true });
  });

  it('a 7-day window reads only the segments near it, not the device history (index range on started_at)', async () => {
    const device = await seedDevice();
    // A year of 30-minute segments, one every hour, plus one 3-day segment in March.
    const year: SegmentInput[] = [];
    for (let start = T0; start < T0 + 365 * DAY; start += 3600) {
      if (start >= T0 + 60 * DAY && start < T0 + 63 * DAY) continue;
      year.push({ startedAt: start, endedAt: start + 1800, state: start % 7200 === 0 ? 'moving' : 'idle' });
    }
    year.push({ startedAt: T0 + 60 * DAY, endedAt: T0 + 63 * DAY, state: 'moving' });
    await store.importSegments({ deviceId: device.id, segments: year });

    const windowStart = T0 + 200 * DAY;
    const boundaries = Array.from({ length: 8 }, (_, index) => windowStart + index * DAY);
    const plan = await explainAnalyze(pglite(), sumByBucket(device.id, boundaries, T0 + 400 * DAY).compile(pglite()));
    const read = rowsReadFrom(plan, 'engine_segments');
    // 7 days × 24 segments, plus at most the longest segment's 3 days before the window.
    expect(read).toBeGreaterThanOrEqual(7 * 24);
    expect(read).toBeLessThanOrEqual(10 * 24 + 2);
    expect(year.length).toBeGreaterThan(8000);

    const fleetHours = createFleetHours({ store, now: () => (T0 + 400 * DAY) * 1000 });
    const daily = await fleetHours.daily({
      accountId: device.accountId,
      deviceId: device.id,
      ...parseWindowQuery({ from: '2026-07-20', to: '2026-07-26' }),
    });
    expect(daily?.days.map((day) => day.engineSeconds)).toEqual(Array.from({ length: 7 }, () => 12 * 3600));
  });

  it('concurrent transactions on the single PGlite connection take turns: imports of one device never interleave', async () => {
    const device = await seedDevice();
    const batches = Array.from({ length: 6 }, (_, batch) =>
      Array.from(
        { length: 20 },
        (_, index): SegmentInput => ({
          startedAt: T0 + index * 100 + batch * 5,
          endedAt: T0 + index * 100 + batch * 5 + 50,
          state: 'idle',
        }),
      ),
    );
    const outcomes = await Promise.allSettled(batches.map((segments) => store.importSegments({ deviceId: device.id, segments })));
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    for (const outcome of outcomes) if (outcome.status === 'rejected') expect(outcome.reason).toBeInstanceOf(SegmentOverlapError);
    expect(await store.listSegments({ deviceId: device.id })).toHaveLength(20);
  });

  describeImportAtScale(pglite);
});

/**
 * A batch far beyond PostgreSQL's 65,535 bind parameters (4 per row would allow 16,383 rows) goes
 * in whole, in one transaction; re-importing it is a no-op (D1).
 */
function describeImportAtScale(database: () => Kysely<FleetHoursDatabase>): void {
  it('importSegments() writes a 100,000-segment batch whole, then skips all of it on re-import', async () => {
    const db = database();
    await resetTables(db);
    const store = createKyselyStore(db);
    const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
    const device = (await store.createDevice({ accountId: account.id, name: 'Truck', imei: '1', model: 'm', timeZone: 'UTC' }))!;
    const batch = Array.from(
      { length: 100_000 },
      (_, index): SegmentInput => ({
        startedAt: T0 + index * 60,
        endedAt: index === 99_999 ? null : T0 + index * 60 + 45,
        state: index % 3 === 0 ? 'moving' : 'idle',
      }),
    );
    expect(await store.importSegments({ deviceId: device.id, segments: batch })).toEqual({ inserted: 100_000, closed: 0, skipped: 0 });
    expect(await store.importSegments({ deviceId: device.id, segments: batch })).toEqual({ inserted: 0, closed: 0, skipped: 100_000 });
    const now = T0 + 100_000 * 60;
    const summary = await store.summarizeDeviceSegments({ deviceId: device.id, now });
    // Closed: 33,333 moving and 66,666 idle segments of 45 s; the last one (moving) is open for 60 s.
    expect(summary).toEqual({ firstStartedAt: T0, movingSeconds: 33_333 * 45 + 60, idleSeconds: 66_666 * 45 });
    expect((await store.findDevice({ accountId: account.id, deviceId: device.id }))?.lastReportedAt).toBe(T0 + 99_999 * 60);
  }, 60_000);
}
