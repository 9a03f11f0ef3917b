/**
 * P95 (D49, D61): a page with `tag=` reads the devices having the tag from `device_tags`' key, not
 * the account's devices: one tagged device among 2,000 costs a few rows read, whatever the others.
 * Counted in the plan of the statement as the store compiled it, run with `EXPLAIN ANALYZE`;
 * nothing is timed.
 */
import { sql, type Kysely, type KyselyPlugin } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { describeWithPostgres, resetTables } from '../../../../test/support/postgres.js';
import { explainAnalyze, rowsReadFrom, usePGlite, usePostgresSchema } from '../testing/fixture.js';
import { createKyselyStore } from './create-kysely-store.js';
import type { FleetHoursDatabase } from '../schema/database-schema.js';

const T0 = 1_767_225_600; // 2026-01-01T00:00:00Z
const DEVICES = 2_000;

function describeTaggedReads(name: string, database: () => Kysely<FleetHoursDatabase>): void {
  describe(`P95 (D49, D61): the reads of a tag= page, on ${name}`, () => {
    let seeded: { accountId: number; rare: number[] };
    beforeAll(async () => {
      const db = database();
      await resetTables(db);
      const store = createKyselyStore(db);
      const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
      // Every device tagged `common`; the 1,000th and the last also `rare` (the trigger of migration 0020 keeps device_tags).
      await sql`
        insert into devices (account_id, name, imei, model, time_zone, tags)
        select ${account.id}::integer, 'Loader ' || n, 'imei-' || n, 'm', 'UTC',
               case when n in (1000, ${DEVICES}::integer) then array['common', 'rare'] else array['common'] end
          from generate_series(1, ${DEVICES}::integer) n`.execute(db);
      await sql`
        insert into service_schedules (device_id, name, interval_seconds, last_done_at, created_at)
        select id, 'Service', 3600, to_timestamp(${T0}::float8), to_timestamp(${T0}::float8) from devices where account_id = ${account.id}::integer`.execute(
        db,
      );
      await sql`analyze devices`.execute(db);
      const rare = (await store.listDevices({ accountId: account.id, tag: 'rare' })).map((device) => device.id);
      seeded = { accountId: account.id, rare };
    }, 120_000);

    /** The statement a call of the store runs, explained: its answer and the rows it read of some tables. */
    async function explained<T>(call: (store: ReturnType<typeof createKyselyStore>) => Promise<T>) {
      const seen: Parameters<KyselyPlugin['transformQuery']>[0][] = [];
      const db = database().withPlugin({
        transformQuery: (args) => {
          seen.push(args);
          return args.node;
        },
        transformResult: async ({ result }) => result,
      });
      const answer = await call(createKyselyStore(db));
      expect(seen).toHaveLength(1);
      const plan = await explainAnalyze(database(), database().getExecutor().compileQuery(seen[0]!.node, seen[0]!.queryId));
      return { answer, devices: rowsReadFrom(plan, 'devices'), tags: rowsReadFrom(plan, 'device_tags') };
    }

    it(`P95: listDevices({ tag, limit: 2 }) of two tagged devices among ${DEVICES} reads a few rows, not the ${DEVICES}`, async () => {
      expect(seeded.rare).toHaveLength(2);
      const { answer, devices, tags } = await explained((store) =>
        store.listDevices({ accountId: seeded.accountId, tag: 'rare', limit: 2 }),
      );
      expect(answer.map((device) => device.id)).toEqual(seeded.rare);
      expect(devices).toBeLessThanOrEqual(4);
      expect(tags).toBeLessThanOrEqual(4);
      // After the cursor: the second only.
      const after = await explained((store) =>
        store.listDevices({ accountId: seeded.accountId, tag: 'rare', limit: 2, afterId: seeded.rare[0]! }),
      );
      expect(after.answer.map((device) => device.id)).toEqual([seeded.rare[1]]);
      expect(after.devices + after.tags).toBeLessThanOrEqual(6);
    });

    it('P95: listServicePage({ tag }) lists the tagged devices only, and its statement reads them, not the account', async () => {
      const { answer, devices } = await explained((store) =>
        store.listServicePage({ accountId: seeded.accountId, limit: 3, now: T0 + 60, unsettledOnly: false, tag: 'rare' }),
      );
      expect(answer.devices.map(({ device }) => device.id)).toEqual(seeded.rare);
      expect(answer.lastDeviceId).toBe(seeded.rare[1]);
      expect(devices).toBeLessThanOrEqual(10);
    });
  });
}

describeTaggedReads('PGlite', usePGlite());

describeWithPostgres('on PostgreSQL', () => {
  const { db } = usePostgresSchema(2);
  describeTaggedReads('PostgreSQL', db);
});
