/**
 * P75 (D49): a filtered service page reads only the rows of `service_memos` that may match (the
 * partial indexes of migration 0017), not every row of the account after the cursor: its reads
 * follow the matches, not the size of the fleet. Counted in the plan of the statement as the
 * store compiled it, run with `EXPLAIN ANALYZE`; nothing is timed.
 */
import { sql, type Kysely, type KyselyPlugin } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { describeWithPostgres, resetTables } from '../../../../test/support/postgres.js';
import { explainAnalyze, rowsReadFrom, usePGlite, usePostgresSchema } from '../testing/fixture.js';
import { createKyselyStore, type KyselyFleetHoursStore } from './create-kysely-store.js';
import type { FleetHoursDatabase } from '../schema/database-schema.js';

const T0 = 1_767_225_600; // 2026-01-01T00:00:00Z
const DEVICES = 2_000;

/**
 * An account of 2,000 devices with a schedule each, every one remembered `ok` for good but the
 * last, remembered `overdue`: written through the store, at the versions its listing reads.
 */
async function seedRemembered(
  db: Kysely<FleetHoursDatabase>,
  store: KyselyFleetHoursStore,
): Promise<{ accountId: number; lastId: number }> {
  await resetTables(db);
  const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
  await sql`
    insert into devices (account_id, name, imei, model, time_zone)
    select ${account.id}::integer, 'Loader ' || n, 'imei-' || n, 'm', 'UTC' from generate_series(1, ${DEVICES}::integer) n`.execute(db);
  await sql`
    insert into service_schedules (device_id, name, interval_seconds, last_done_at, created_at)
    select id, 'Service', 3600, to_timestamp(${T0}::float8), to_timestamp(${T0}::float8) from devices where account_id = ${account.id}::integer`.execute(
    db,
  );
  // The statistics of a fleet just made, nothing remembered yet (as after a bulk load): the plan
  // must not need them to be fresh.
  await sql`analyze service_memos`.execute(db);
  const listed = await store.listServicePage({ accountId: account.id, limit: DEVICES, now: T0, unsettledOnly: false });
  expect(listed.devices).toHaveLength(DEVICES);
  const lastId = listed.lastDeviceId!;
  await store.rememberServiceMemos({
    devices: listed.devices.map(({ device, memoVersion }) => ({
      deviceId: device.id,
      memoVersion,
      okUntil: null,
      engineBefore: [],
      statuses: { statuses: [device.id === lastId ? 'overdue' : 'ok'], until: null },
    })),
  });
  return { accountId: account.id, lastId };
}

function describeFilteredWalk(name: string, database: () => Kysely<FleetHoursDatabase>): void {
  describe(`P75 (D49): the filtered service page's reads of service_memos, on ${name}`, () => {
    let seeded: { accountId: number; lastId: number };
    beforeAll(async () => {
      seeded = await seedRemembered(database(), createKyselyStore(database()));
    }, 120_000);

    /** The page and the rows of `service_memos` its statement read. */
    async function filteredPage(statuses: ('ok' | 'due_soon' | 'overdue')[], limit: number) {
      // The statements the store runs, to explain them afterwards as compiled.
      const seen: Parameters<KyselyPlugin['transformQuery']>[0][] = [];
      const db = database().withPlugin({
        transformQuery: (args) => {
          seen.push(args);
          return args.node;
        },
        transformResult: async ({ result }) => result,
      });
      const page = await createKyselyStore(db).listServicePage({
        accountId: seeded.accountId,
        limit,
        now: T0 + 60,
        unsettledOnly: false,
        filter: { statuses, matches: limit },
      });
      expect(seen).toHaveLength(1);
      const { node, queryId } = seen[0]!;
      const plan = await explainAnalyze(database(), database().getExecutor().compileQuery(node, queryId));
      return {
        ids: page.devices.map(({ device }) => device.id),
        read: rowsReadFrom(plan, 'service_memos'),
        joined: rowsReadFrom(plan, 'devices'),
      };
    }

    it(`P75: status=overdue, one match among ${DEVICES} devices remembered, reads a few rows, not the ${DEVICES}`, async () => {
      const { ids, read } = await filteredPage(['overdue'], 1);
      expect(ids).toEqual([seeded.lastId]);
      expect(read).toBeGreaterThanOrEqual(1);
      expect(read).toBeLessThanOrEqual(5);
    });

    it(`P75: status=ok, ${DEVICES - 1} matches, a page of 10 reads the matching rows only, and joins only its 10 to their devices`, async () => {
      const { ids, read, joined } = await filteredPage(['ok'], 10);
      expect(ids).toHaveLength(10);
      expect(read).toBe(DEVICES - 1);
      // The page's 10 devices, and the account's highest id.
      expect(joined).toBeLessThanOrEqual(11);
    });

    it('P75: a device no longer remembered (its version raised) is read again and appears', async () => {
      const { rows } = await sql<{ id: number }>`
        update service_memos set version = version + 1
         where device_id = (select min(id) from devices where account_id = ${seeded.accountId}::integer) returning device_id as id`.execute(
        database(),
      );
      const { ids, read } = await filteredPage(['overdue'], 2);
      expect(ids).toEqual([rows[0]!.id, seeded.lastId]);
      expect(read).toBeLessThanOrEqual(6);
    });
  });
}

describeFilteredWalk('PGlite', usePGlite());

describeWithPostgres('on PostgreSQL', () => {
  const { db } = usePostgresSchema(2);
  describeFilteredWalk('PostgreSQL', db);
});
