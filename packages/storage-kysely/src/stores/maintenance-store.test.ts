/**
 * The Kysely store's readings (D38) and schedules (D39) beyond the shared contract: what a page of
 * the fleet costs (one statement through an index, whatever the number of devices), what the
 * writes leave alone (the device row's version that D35's writes check), and the memo version
 * their triggers raise (P58).
 */
import { sql, type Kysely } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { describeWithPostgres, resetTables } from '../../../../test/support/postgres.js';
import { explainAnalyze, type PlanNode, rowsReadFrom, usePGlite, usePostgresSchema } from '../testing/fixture.js';
import { readingsOfDevices, schedulesOfDevices } from '../sql/maintenance-queries.js';
import { createKyselyStore } from './create-kysely-store.js';
import type { FleetHoursDatabase } from '../schema/database-schema.js';
import { rebuildDailyFigures } from '../verify/rebuild-daily-figures.js';

const T0 = 1_767_225_600; // 2026-01-01T00:00:00Z
const ACCOUNTS = 100;
const DEVICES_PER_ACCOUNT = 500;

/** The names of the indexes a plan reads. */
function indexesOf(node: PlanNode): string[] {
  return [...(node['Index Name'] ? [node['Index Name']] : []), ...(node.Plans ?? []).flatMap(indexesOf)];
}

/**
 * 100 accounts of 500 devices each (created together, as an account's devices are), and two
 * readings and two schedules of every device, written a round at a time over the whole fleet as
 * operators would: 100,000 rows in each table, a page's rows 1 % of them. Written ten accounts a
 * statement, each well within the store's deadline of a statement (D28).
 */
async function seedFleet(db: Kysely<FleetHoursDatabase>): Promise<void> {
  await resetTables(db);
  await sql`insert into accounts (name, plan, created_at) select 'Account ' || n, 'business', now() from generate_series(1, ${ACCOUNTS}) n`.execute(
    db,
  );
  const chunks = Array.from({ length: ACCOUNTS / 10 }, (_, index) => ({ first: index * 10 + 1, last: index * 10 + 10 }));
  for (const { first, last } of chunks) {
    await sql`
      insert into devices (account_id, name, imei, model, time_zone)
      select (n - 1) / ${DEVICES_PER_ACCOUNT} + 1, 'Loader ' || n, 'imei-' || n, 'm', 'UTC'
        from generate_series(${(first - 1) * DEVICES_PER_ACCOUNT + 1}::integer, ${last * DEVICES_PER_ACCOUNT}::integer) n`.execute(db);
  }
  for (const round of [1, 2]) {
    for (const { first, last } of chunks) {
      await sql`
        insert into hour_meter_readings (device_id, read_at, reading_seconds, recorded_at)
        select id, to_timestamp(${T0 + round * 3600}::float8), ${round * 1000}, now()
          from devices where account_id between ${first} and ${last} order by id`.execute(db);
      await sql`
        insert into service_schedules (device_id, name, interval_seconds, last_done_at, created_at)
        select id, 'Service ' || ${round}, 3600, now(), now() from devices where account_id between ${first} and ${last} order by id`.execute(
        db,
      );
    }
  }
  await sql`analyze devices, hour_meter_readings, service_schedules`.execute(db);
}

function describeFleetPageCost(name: string, database: () => Kysely<FleetHoursDatabase>): void {
  describe(`a page of the fleet's readings and schedules on ${name}`, () => {
    let page: number[];
    beforeAll(async () => {
      await seedFleet(database());
      const { rows } = await sql<{ id: number }>`select id from devices where account_id = 7 order by id`.execute(database());
      page = rows.map((row) => row.id);
    }, 120_000);

    it('D32, D38, D39: listHourMeterReadings() and listServiceSchedules() of 500 devices are one statement each', async () => {
      const statements: string[] = [];
      const store = createKyselyStore(
        database().withPlugin({
          transformQuery: ({ node }) => {
            statements.push(node.kind);
            return node;
          },
          transformResult: async ({ result }) => result,
        }),
      );
      expect(page).toHaveLength(DEVICES_PER_ACCOUNT);
      const readings = await store.listHourMeterReadings({ deviceIds: page });
      expect(readings).toHaveLength(2 * DEVICES_PER_ACCOUNT);
      expect(readings.slice(0, 2).map((reading) => [reading.deviceId, reading.readAt])).toEqual([
        [page[0], T0 + 7200],
        [page[0], T0 + 3600],
      ]);
      expect(await store.listServiceSchedules({ deviceIds: page })).toHaveLength(2 * DEVICES_PER_ACCOUNT);
      expect(statements).toHaveLength(2);
    });

    it('D32, D38: the readings of a page are read through the unique (device_id, read_at) index, and only theirs', async () => {
      const plan = await explainAnalyze(database(), readingsOfDevices(page).compile(database()));
      expect(indexesOf(plan)).toContain('hour_meter_readings_device_read_at_key');
      expect(rowsReadFrom(plan, 'hour_meter_readings')).toBe(2 * DEVICES_PER_ACCOUNT);
    });

    it('D32, D39: the schedules of a page are read through the (device_id, id) primary key, and only theirs', async () => {
      const plan = await explainAnalyze(database(), schedulesOfDevices(page).compile(database()));
      expect(indexesOf(plan)).toContain('service_schedules_pkey');
      expect(rowsReadFrom(plan, 'service_schedules')).toBe(2 * DEVICES_PER_ACCOUNT);
    });
  });
}

function describeDeviceVersion(name: string, database: () => Kysely<FleetHoursDatabase>): void {
  it(`D35, D38, D39: readings and schedules leave the device's version (the xmin of its device_states row, D44) as it was, on ${name}`, async () => {
    await resetTables(database());
    const store = createKyselyStore(database());
    const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
    const device = (await store.createDevice({ accountId: account.id, name: 'Loader', imei: '1', model: 'm', timeZone: 'UTC' }))!;
    const version = async () =>
      (await sql<{ version: string }>`select xmin::text as version from device_states where device_id = ${device.id}`.execute(database()))
        .rows[0]!.version;
    const before = await version();
    const reading = (await store.addHourMeterReading({ deviceId: device.id, readAt: T0, readingSeconds: 60, now: T0 }))!;
    await store.addHourMeterReading({ deviceId: device.id, readAt: T0, readingSeconds: 120, now: T0 });
    const schedule = (await store.createServiceSchedule({
      deviceId: device.id,
      name: 'Oil',
      intervalSeconds: 3600,
      lastDoneAt: T0,
      now: T0,
    }))!;
    await store.updateServiceSchedule({ scheduleId: schedule.id, changes: { lastDoneAt: T0 + 60, lastDoneHourMeterSeconds: null } });
    await store.removeServiceSchedule({ scheduleId: schedule.id });
    await store.removeHourMeterReading({ deviceId: device.id, readingId: reading.id });
    expect(await version()).toBe(before);
  });
}

/**
 * P58: the memo version rises for changes made in SQL outside Fleet Hours too (the triggers of
 * migration 0012), and for `rebuildDailyFigures`; writing what is remembered leaves it; deleting a
 * device takes its version row with it.
 */
function describeMemoVersionOutside(name: string, database: () => Kysely<FleetHoursDatabase>): void {
  it(`P58: readings, schedules and zones changed in SQL, and figures rebuilt, raise the memo version; a new name or what is remembered do not; on ${name}`, async () => {
    await resetTables(database());
    const db = database();
    const store = createKyselyStore(db);
    const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
    const device = (await store.createDevice({ accountId: account.id, name: 'Loader', imei: '1', model: 'm', timeZone: 'UTC' }))!;
    await store.addHourMeterReading({ deviceId: device.id, readAt: T0, readingSeconds: 60, now: T0 });
    await store.createServiceSchedule({ deviceId: device.id, name: 'Oil', intervalSeconds: 3600, lastDoneAt: T0, now: T0 });
    const version = async () => {
      const { devices } = await store.listServicePage({ accountId: account.id, limit: 1, now: T0 + 60, unsettledOnly: false });
      return devices[0]!.memoVersion;
    };
    const changes: [string, () => Promise<unknown>][] = [
      ['a reading updated', () => sql`update hour_meter_readings set reading_seconds = 90 where device_id = ${device.id}`.execute(db)],
      [
        'a schedule interval updated',
        () => sql`update service_schedules set interval_seconds = 7200 where device_id = ${device.id}`.execute(db),
      ],
      ['a schedule name updated', () => sql`update service_schedules set name = 'Engine oil' where device_id = ${device.id}`.execute(db)],
      [
        'what a read remembers',
        async () => {
          await store.rememberServiceMemos({
            devices: [
              {
                deviceId: device.id,
                memoVersion: await version(),
                engineBefore: [{ instant: T0, seconds: { movingSeconds: 1, idleSeconds: 2 } }],
                okUntil: T0 + 999,
              },
            ],
          });
        },
      ],
      ['the zone updated', () => sql`update devices set time_zone = 'Asia/Tokyo' where id = ${device.id}`.execute(db)],
      ['the zone set to itself', () => sql`update devices set time_zone = 'Asia/Tokyo' where id = ${device.id}`.execute(db)],
      ['figures rebuilt', () => rebuildDailyFigures(db)],
      ['a reading deleted', () => sql`delete from hour_meter_readings where device_id = ${device.id}`.execute(db)],
    ];
    const rose: Record<string, boolean> = {};
    for (const [change, run] of changes) {
      const before = await version();
      await run();
      rose[change] = (await version()) > before;
    }
    expect(rose).toEqual({
      'a reading updated': true,
      'a schedule interval updated': true,
      'a schedule name updated': false,
      'what a read remembers': false,
      'the zone updated': true,
      'the zone set to itself': false,
      'figures rebuilt': true,
      'a reading deleted': true,
    });
    // The device deleted with its schedule: the cascade raises nothing, and its version row goes too.
    await sql`delete from devices where id = ${device.id}`.execute(db);
    const { rows } = await sql<{ left: number }>`select count(*)::integer as left from service_memos`.execute(db);
    expect(rows[0]!.left).toBe(0);
  });
}

/** One PGlite for the file. */
const pglite = usePGlite();
describeFleetPageCost('PGlite', pglite);
describeDeviceVersion('PGlite', pglite);
describeMemoVersionOutside('PGlite', pglite);

describeWithPostgres('on PostgreSQL', () => {
  const { db } = usePostgresSchema(2);
  describeFleetPageCost('PostgreSQL', db);
  describeDeviceVersion('PostgreSQL', db);
  describeMemoVersionOutside('PostgreSQL', db);
});
