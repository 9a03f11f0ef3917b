import { PGlite } from '@electric-sql/pglite';
import { Kysely, sql, type DatabaseConnection, type Driver, type KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, createTestSchema, describeWithPostgres, type TestPostgres } from '../../../../test/support/postgres.js';
import { parseSearchPath } from '../dialect/search-path.js';
import { createKyselyStore } from '../stores/create-kysely-store.js';
import { verifyStore } from '../verify/verify-store.js';
import { createPGliteDatabase } from '../dialect/create-pglite-database.js';
import { PGliteDialect } from '../dialect/pglite-dialect.js';
import { createPostgresDatabase } from '../dialect/create-postgres-database.js';
import type { FleetHoursDatabase } from './database-schema.js';
import { createFleetHoursMigrator, FLEET_HOURS_MIGRATIONS, migrateToLatest, schemaIsCurrent } from './migrate-to-latest.js';

const TABLES = [
  'account_event_settings',
  'account_work_calendars',
  'accounts',
  'aemp_polls',
  'aemp_sources',
  'api_keys',
  'audit_entries',
  'device_positions',
  'device_states',
  'device_tags',
  'device_work_calendars',
  'devices',
  'engine_day_figures',
  'engine_segments',
  'event_checks',
  'fleet_hours_migration',
  'fleet_hours_migration_lock',
  'hour_meter_readings',
  'idempotency_keys',
  'ingest_tokens',
  'rate_limit_counters',
  'service_memos',
  'service_schedules',
  'telemetry_horizon',
  'telemetry_points',
  'webhook_attempts',
  'webhook_deliveries',
  'webhook_endpoints',
  'webhook_events',
];
/** The tables of 0010 (D40, D41). */
const WEBHOOK_TABLES = ['account_event_settings', 'webhook_attempts', 'webhook_deliveries', 'webhook_endpoints', 'webhook_events'];
/** The tables of 0022 (D58). */
const CALENDAR_TABLES = ['account_work_calendars', 'device_work_calendars'];
/** The tables of 0026 (D65). */
const AEMP_TABLES = ['aemp_polls', 'aemp_sources'];
const T0 = 1_767_225_600;

const tablesOf = async (db: Kysely<FleetHoursDatabase>) => {
  const { rows } = await sql<{ name: string }>`
    select table_name as name from information_schema.tables
     where table_schema = current_schema()
       -- D42: the monthly partitions of telemetry_points are not tables of their own.
       and not exists (select 1 from pg_inherits join pg_class on pg_class.oid = inhrelid
                        where pg_class.relname = table_name and pg_class.relnamespace = (select oid from pg_namespace where nspname = current_schema()))
     order by 1`.execute(db);
  return rows.map((row) => row.name);
};
/** A plugin that records every query run through it. */
const recording = (queries: string[]): KyselyPlugin => ({
  transformQuery: ({ node }) => {
    queries.push(node.kind);
    return node;
  },
  transformResult: async ({ result }) => result,
});
const executedMigrations = async (db: Kysely<FleetHoursDatabase>) =>
  (await (await createFleetHoursMigrator(db)).getMigrations())
    .filter((migration) => migration.executedAt !== undefined)
    .map((migration) => migration.name);

/** The schema tests, run on a fresh database of each backend (PGlite: one instance, reset by dropping its schema). */
function describeMigrations(name: string, fresh: () => Promise<Kysely<FleetHoursDatabase>>): void {
  /** A fresh database migrated up to `migration` only, with a store and an account on it. */
  const olderSchema = async (migration: string) => {
    const db = await fresh();
    const migrator = await createFleetHoursMigrator(db);
    expect((await migrator.migrateTo(migration)).error).toBeUndefined();
    const store = createKyselyStore(db);
    const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
    return { db, migrator, store, account };
  };
  describe(`migrateToLatest() on ${name}`, () => {
    it('creates the whole schema on an empty database', async () => {
      const db = await fresh();
      expect(await tablesOf(db)).toEqual([]);
      await migrateToLatest(db);
      expect(await tablesOf(db)).toEqual(TABLES);
      expect(await executedMigrations(db)).toEqual(Object.keys(FLEET_HOURS_MIGRATIONS));
    });

    it('is idempotent: running it again changes nothing and keeps the data', async () => {
      const db = await fresh();
      await migrateToLatest(db);
      const store = createKyselyStore(db);
      await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
      await migrateToLatest(db);
      await migrateToLatest(db);
      expect(await executedMigrations(db)).toEqual(Object.keys(FLEET_HOURS_MIGRATIONS));
      expect((await store.listAccounts()).map((account) => account.name)).toEqual(['Acme']);
    });

    it('on a current schema, answers in one query (P19), so every process may call it on every start', async () => {
      const db = await fresh();
      await migrateToLatest(db);
      const queries: string[] = [];
      await migrateToLatest(db.withPlugin(recording(queries)));
      expect(queries).toHaveLength(1);
    });

    it('schemaIsCurrent() is true only when exactly the known migrations have run, in one query', async () => {
      const db = await fresh();
      expect(await schemaIsCurrent(db)).toBe(false);
      await (await createFleetHoursMigrator(db)).migrateTo('0001_initial');
      expect(await schemaIsCurrent(db)).toBe(false);
      await migrateToLatest(db);
      const queries: string[] = [];
      expect(await schemaIsCurrent(db.withPlugin(recording(queries)))).toBe(true);
      expect(queries).toHaveLength(1);
      await sql`insert into fleet_hours_migration (name, timestamp) values ('9999_from_the_future', '2030-01-01T00:00:00Z')`.execute(db);
      expect(await schemaIsCurrent(db)).toBe(false);
    });

    it('runs only the missing migrations on an older database, keeping its data', async () => {
      const db = await fresh();
      const { error } = await (await createFleetHoursMigrator(db)).migrateTo('0001_initial');
      expect(error).toBeUndefined();
      expect(await tablesOf(db)).not.toContain('rate_limit_counters');
      const store = createKyselyStore(db);
      const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
      // Data as the 0001 schema holds it, written by hand: today's store writes columns of later migrations.
      const { rows } = await sql<{ id: number }>`
        insert into devices (account_id, name, imei, model, time_zone) values (${account.id}, 'Truck', '1', 'm', 'UTC') returning id`.execute(
        db,
      );
      const device = rows[0];
      await sql`
        insert into engine_segments (device_id, started_at, ended_at, state)
        values (${device!.id}, to_timestamp(${T0}::float8), to_timestamp(${T0 + 60}::float8), 'idle')`.execute(db);

      await migrateToLatest(db);
      expect(await executedMigrations(db)).toEqual(Object.keys(FLEET_HOURS_MIGRATIONS));
      expect(await store.listSegments({ deviceId: device!.id })).toHaveLength(1);
      expect(await store.consume({ key: 'k', windowStart: T0, windowSeconds: 60, limit: 1 })).toEqual({ count: 1, allowed: true });
    });

    it('a failing migration is named in a clear error and leaves the database as it was', async () => {
      const db = await fresh();
      await (await createFleetHoursMigrator(db)).migrateTo('0001_initial');
      // Something already occupies the name the next migration needs.
      await sql`create table rate_limit_counters (id integer)`.execute(db);
      await expect(migrateToLatest(db)).rejects.toThrow(
        /^Fleet Hours migration "0002_rate_limit_counters" failed: .*rate_limit_counters.*already exists/,
      );
      expect(await executedMigrations(db)).toEqual(['0001_initial']);
    });

    it('P40, D38, D39: deleting a device or its account takes its points, segments, day figures, readings and schedules; truncate devices cascade empties them; down restores the keys', async () => {
      const db = await fresh();
      await migrateToLatest(db);
      const store = createKyselyStore(db);
      const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
      const other = await store.createAccount({ name: 'Other', plan: 'business', now: T0 });
      const device = async (accountId: number, imei: string) =>
        (await store.createDevice({ accountId, name: imei, imei, model: 'm', timeZone: 'UTC' }))!.id;
      const [first, second, third] = [await device(account.id, '1'), await device(account.id, '2'), await device(other.id, '3')];
      // Two engine cycles a device: points, closed segments and a day's figures for each.
      const feed = async (accountId: number, deviceId: number) =>
        store.writeTelemetry({
          accountId,
          points: [0, 60, 120, 600, 660, 720].map((offset, index) => ({
            deviceId,
            time: T0 + offset,
            ignition: index % 3 !== 2,
            speedKmh: index % 3 === 0 ? 30 : 0,
          })),
          now: T0 + 86_400,
        });
      // And an operator's readings and schedules (D38, D39): two readings, one schedule.
      const operate = async (deviceId: number) => {
        for (const readAt of [T0, T0 + 3600]) await store.addHourMeterReading({ deviceId, readAt, readingSeconds: 1000, now: T0 + 86_400 });
        await store.createServiceSchedule({ deviceId, name: 'Oil', intervalSeconds: 3600, lastDoneAt: T0, now: T0 + 86_400 });
      };
      for (const [accountId, deviceId] of [
        [account.id, first],
        [account.id, second],
        [other.id, third],
      ] as const) {
        await feed(accountId, deviceId);
        await operate(deviceId);
      }
      const rowsOf = async (tables: 'all' | 'telemetry' = 'all') => {
        const { rows } = await sql<{
          device_id: number;
          points: number;
          segments: number;
          figures: number;
          readings: number;
          schedules: number;
        }>`
          select d.id as device_id,
                 (select count(*)::integer from telemetry_points p where p.device_id = d.id) as points,
                 (select count(*)::integer from engine_segments s where s.device_id = d.id) as segments,
                 (select count(*)::integer from engine_day_figures f where f.device_id = d.id) as figures,
                 ${tables === 'all' ? sql`(select count(*)::integer from hour_meter_readings r where r.device_id = d.id)` : sql`0`} as readings,
                 ${tables === 'all' ? sql`(select count(*)::integer from service_schedules c where c.device_id = d.id)` : sql`0`} as schedules
            from (select device_id as id from telemetry_points union select device_id from engine_segments union select device_id from engine_day_figures
                  ${tables === 'all' ? sql`union select device_id from hour_meter_readings union select device_id from service_schedules` : sql``}) d
           order by 1`.execute(db);
        return rows.map((row) => [row.device_id, row.points, row.segments, row.figures, row.readings, row.schedules]);
      };
      expect(await rowsOf()).toEqual([
        [first, 6, 4, 1, 2, 1],
        [second, 6, 4, 1, 2, 1],
        [third, 6, 4, 1, 2, 1],
      ]);

      await sql`delete from devices where id = ${first}`.execute(db);
      expect(await rowsOf()).toEqual([
        [second, 6, 4, 1, 2, 1],
        [third, 6, 4, 1, 2, 1],
      ]);
      await sql`delete from accounts where id = ${account.id}`.execute(db);
      expect(await rowsOf()).toEqual([[third, 6, 4, 1, 2, 1]]);
      // The readings' and schedules' foreign keys (0006) make a truncate of devices name them: `cascade`.
      await expect(sql`truncate devices`.execute(db)).rejects.toThrow(/cannot truncate a table referenced in a foreign key constraint/);
      expect(await rowsOf()).toEqual([[third, 6, 4, 1, 2, 1]]);
      await sql`truncate devices cascade`.execute(db);
      expect(await rowsOf()).toEqual([]);

      // Down to 0004: the foreign keys are back, and refuse a row of no device.
      const fourth = await device(other.id, '4');
      await feed(other.id, fourth);
      const { error } = await (await createFleetHoursMigrator(db)).migrateTo('0004_telemetry');
      expect(error).toBeUndefined();
      expect(await rowsOf('telemetry')).toEqual([[fourth, 6, 4, 1, 0, 0]]);
      await expect(
        sql`insert into telemetry_points (device_id, "time", ignition, speed_kmh) values (${fourth + 1}, now(), true, 0)`.execute(db),
      ).rejects.toThrow(/foreign key/);
      await sql`delete from devices where id = ${fourth}`.execute(db);
      expect(await rowsOf('telemetry')).toEqual([]);
      await migrateToLatest(db);
      expect(await executedMigrations(db)).toEqual(Object.keys(FLEET_HOURS_MIGRATIONS));
    });

    it('D38, D39: 0006 down drops the readings and schedules and keeps every other row; up again makes them, empty and in use', async () => {
      const db = await fresh();
      await migrateToLatest(db);
      const store = createKyselyStore(db);
      const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
      const device = (await store.createDevice({ accountId: account.id, name: 'Loader', imei: '1', model: 'm', timeZone: 'UTC' }))!;
      await store.importSegments({ deviceId: device.id, segments: [{ startedAt: T0, endedAt: T0 + 60, state: 'idle' }] });
      await store.addHourMeterReading({ deviceId: device.id, readAt: T0, readingSeconds: 36_000_000_000, now: T0 });
      await store.createServiceSchedule({ deviceId: device.id, name: 'Oil', intervalSeconds: 3600, lastDoneAt: T0, now: T0 });

      const { error } = await (await createFleetHoursMigrator(db)).migrateTo('0005_device_rows_checked_by_lock');
      expect(error).toBeUndefined();
      expect(await tablesOf(db)).toEqual(
        TABLES.filter(
          (table) =>
            table !== 'hour_meter_readings' &&
            table !== 'service_schedules' &&
            table !== 'device_states' &&
            table !== 'event_checks' &&
            table !== 'service_memos' &&
            table !== 'telemetry_horizon' &&
            table !== 'idempotency_keys' &&
            table !== 'audit_entries' &&
            // 0020 (D61)
            table !== 'device_tags' &&
            // 0022 (D58)
            !CALENDAR_TABLES.includes(table) &&
            // 0024 (issue 34)
            table !== 'device_positions' &&
            !AEMP_TABLES.includes(table) &&
            !WEBHOOK_TABLES.includes(table),
        ),
      );
      expect(await store.listSegments({ deviceId: device.id })).toHaveLength(1);
      // 0005's trigger alone takes a device's rows again: a plain truncate of devices works.
      await sql`truncate devices`.execute(db);
      expect(await store.listSegments({ deviceId: device.id })).toEqual([]);

      await migrateToLatest(db);
      expect(await tablesOf(db)).toEqual(TABLES);
      const again = (await store.createDevice({ accountId: account.id, name: 'Loader', imei: '1', model: 'm', timeZone: 'UTC' }))!;
      expect(await store.listHourMeterReadings({ deviceIds: [device.id, again.id] })).toEqual([]);
      expect(await store.addHourMeterReading({ deviceId: again.id, readAt: T0, readingSeconds: 60, now: T0 })).toMatchObject({
        readingSeconds: 60,
      });
      expect(
        await store.createServiceSchedule({ deviceId: again.id, name: 'Oil', intervalSeconds: 3600, lastDoneAt: T0, now: T0 }),
      ).toMatchObject({ name: 'Oil' });
    });

    it('D53: 0018 down drops the idempotency keys and keeps every other row; up again makes them, empty and in use', async () => {
      const db = await fresh();
      await migrateToLatest(db);
      const store = createKyselyStore(db);
      const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
      const claim = {
        accountId: account.id,
        key: 'k',
        fingerprint: 'f',
        claimId: 'c',
        now: T0,
        expiredBefore: T0 - 86_400,
        abandonedBefore: T0 - 60,
      };
      expect(await store.claimIdempotencyKey(claim)).toEqual({ state: 'claimed' });
      const { error } = await (await createFleetHoursMigrator(db)).migrateTo('0017_matching_memo_indexes');
      expect(error).toBeUndefined();
      // Down to 0017 undoes every later migration: 0019's change log too.
      // Down to 0017 undoes 0019, 0020 (D61) and 0022 (D58) too.
      expect(await tablesOf(db)).toEqual(
        TABLES.filter(
          (table) =>
            table !== 'idempotency_keys' &&
            table !== 'audit_entries' &&
            table !== 'device_tags' &&
            !CALENDAR_TABLES.includes(table) &&
            table !== 'device_positions' &&
            !AEMP_TABLES.includes(table),
        ),
      );
      expect(await store.listAccounts()).toHaveLength(1);
      await migrateToLatest(db);
      expect(await tablesOf(db)).toEqual(TABLES);
      expect(await store.findIdempotencyKey({ accountId: account.id, key: 'k' })).toBeNull();
      expect(await store.claimIdempotencyKey(claim)).toEqual({ state: 'claimed' });
    });

    it('D40, D41: 0010 down drops the webhook tables and keeps every other row; up again makes them, empty and in use', async () => {
      const db = await fresh();
      await migrateToLatest(db);
      const store = createKyselyStore(db);
      const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
      const secret = `whsec_${'A'.repeat(43)}=`;
      await store.createWebhookEndpoint({
        accountId: account.id,
        url: 'https://a.example/',
        eventTypes: ['device.silent'],
        secret,
        now: T0,
      });
      await store.raiseEvents({
        events: [{ id: 'evt_1', accountId: account.id, type: 'device.silent', deviceId: 1, body: '{}', raisedAt: T0 }],
        now: T0,
      });
      const { error } = await (await createFleetHoursMigrator(db)).migrateTo('0006_hour_meter_and_service');
      expect(error).toBeUndefined();
      expect(await tablesOf(db)).toEqual(
        TABLES.filter(
          (table) =>
            table !== 'device_states' &&
            table !== 'event_checks' &&
            table !== 'service_memos' &&
            table !== 'telemetry_horizon' &&
            table !== 'idempotency_keys' &&
            table !== 'audit_entries' &&
            // 0020 (D61)
            table !== 'device_tags' &&
            // 0022 (D58)
            !CALENDAR_TABLES.includes(table) &&
            // 0024 (issue 34)
            table !== 'device_positions' &&
            !AEMP_TABLES.includes(table) &&
            !WEBHOOK_TABLES.includes(table),
        ),
      );
      expect(await store.listAccounts()).toHaveLength(1);
      await migrateToLatest(db);
      expect(await tablesOf(db)).toEqual(TABLES);
      expect(await store.listWebhookEndpoints({ accountId: account.id })).toEqual([]);
      expect(
        await store.createWebhookEndpoint({
          accountId: account.id,
          url: 'https://a.example/',
          eventTypes: ['device.silent'],
          secret,
          now: T0,
        }),
      ).toMatchObject({
        enabled: true,
      });
      await expect(
        sql`insert into webhook_endpoints (account_id, url, event_types, secret, created_at) values (${account.id}, 'x', '{}', 'plain', now())`.execute(
          db,
        ),
      ).rejects.toThrow(/webhook_endpoints_secret_check/);
    });

    it('P56: 0007 fills the running totals of existing day rows as the store keeps them; down drops them, keeping the rows', async () => {
      const db = await fresh();
      await migrateToLatest(db);
      const store = createKyselyStore(db);
      const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
      for (const timeZone of ['UTC', 'America/New_York']) {
        const device = (await store.createDevice({ accountId: account.id, name: timeZone, imei: timeZone, model: 'm', timeZone }))!;
        // Ten days of two segments each, the later days first: each earlier batch moves the totals of the days after it.
        for (let day = 9; day >= 0; day -= 1) {
          const start = T0 + day * 86_400 + 3600 * (day % 5);
          await store.importSegments({
            deviceId: device.id,
            segments: [
              { startedAt: start, endedAt: start + 1800 + day, state: 'moving' },
              { startedAt: start + 7200, endedAt: start + 7200 + 600 * (day + 1), state: 'idle' },
            ],
          });
        }
      }
      const rows = async () =>
        (
          await sql<{ device_id: number; day_start: string; moving: string; idle: string; moving_before: string; idle_before: string }>`
            select device_id, day_start, moving_seconds as moving, idle_seconds as idle,
                   moving_before_seconds as moving_before, idle_before_seconds as idle_before
              from engine_day_figures order by device_id, day_start`.execute(db)
        ).rows.map((row) => ({ ...row, device_id: Number(row.device_id) }));
      const written = await rows();
      expect(written.length).toBeGreaterThanOrEqual(20);
      // The store's running totals are the sums of the rows before, device by device.
      const sums = new Map<number, { moving: number; idle: number }>();
      for (const row of written) {
        const before = sums.get(row.device_id) ?? { moving: 0, idle: 0 };
        expect({ day: row.day_start, moving: Number(row.moving_before), idle: Number(row.idle_before) }).toEqual({
          day: row.day_start,
          ...before,
        });
        sums.set(row.device_id, { moving: before.moving + Number(row.moving), idle: before.idle + Number(row.idle) });
      }

      const { error } = await (await createFleetHoursMigrator(db)).migrateTo('0006_hour_meter_and_service');
      expect(error).toBeUndefined();
      const columns = await sql<{ name: string }>`
        select column_name as name from information_schema.columns where table_schema = current_schema() and table_name = 'engine_day_figures'`.execute(
        db,
      );
      expect(columns.rows.map((column) => column.name)).not.toContain('moving_before_seconds');
      await migrateToLatest(db);
      expect(await rows()).toEqual(written);
      expect((await verifyStore(db)).devices).toEqual([]);
    });

    it('D61, D63, P95: 0020 gives existing devices no tags and no identity; down drops them and device_tags, keeping the devices; up again tags new devices', async () => {
      const { db, migrator, store, account } = await olderSchema('0017_matching_memo_indexes');
      await sql`insert into devices (account_id, name, imei, model, time_zone) values (${account.id}::int, 'Old', '1', 'm', 'UTC')`.execute(
        db,
      );
      await migrateToLatest(db);
      const [old] = await store.listDevices({ accountId: account.id });
      expect(old).toMatchObject({ name: 'Old', tags: [], oemName: null, equipmentModel: null, serialNumber: null, pin: null });
      await store.updateDevice({ deviceId: old!.id, changes: { tags: ['north'], pin: 'P' } });
      expect(await store.listDevices({ accountId: account.id, tag: 'north' })).toHaveLength(1);

      expect((await migrator.migrateTo('0017_matching_memo_indexes')).error).toBeUndefined();
      expect(await tablesOf(db)).not.toContain('device_tags');
      expect((await sql<{ name: string }>`select name from devices`.execute(db)).rows).toEqual([{ name: 'Old' }]);
      await migrateToLatest(db);
      expect(await tablesOf(db)).toEqual(TABLES);
      const again = (await store.createDevice({
        accountId: account.id,
        name: 'New',
        imei: '2',
        model: 'm',
        timeZone: 'UTC',
        tags: ['north'],
      }))!;
      expect((await store.listDevices({ accountId: account.id, tag: 'north' })).map((device) => device.id)).toEqual([again.id]);
    });

    it('D58, P112: 0022 keeps one default per account and one calendar per device; a removed device takes its own along; down drops them', async () => {
      const db = await fresh();
      await migrateToLatest(db);
      const store = createKyselyStore(db);
      const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
      const device = (await store.createDevice({ accountId: account.id, name: 'Loader', imei: '1', model: 'm', timeZone: 'UTC' }))!;
      const day = [['07:00', '17:00']] as const;
      const calendar = { weekly: { mon: day, tue: day, wed: day, thu: day, fri: day, sat: [], sun: [] }, exceptions: [] };
      await store.putWorkCalendar({ accountId: account.id, deviceId: device.id, calendar });
      await store.putWorkCalendar({ accountId: account.id, deviceId: null, calendar });
      const count = async (table: string) =>
        Number((await sql<{ count: string }>`select count(*)::text as count from ${sql.table(table)}`.execute(db)).rows[0]!.count);
      // A second row for one place is refused by the keys.
      await expect(
        sql`insert into account_work_calendars (account_id, body, version) values (${account.id}::int, null, 1)`.execute(db),
      ).rejects.toThrow(/account_work_calendars_pkey/);
      await expect(
        sql`insert into device_work_calendars (device_id, account_id, body, version) values (${device.id}::int, ${account.id}::int, null, 1)`.execute(
          db,
        ),
      ).rejects.toThrow(/device_work_calendars_pkey/);
      await sql`delete from devices where id = ${device.id}`.execute(db);
      expect([await count('device_work_calendars'), await count('account_work_calendars')]).toEqual([0, 1]);
      expect((await (await createFleetHoursMigrator(db)).migrateTo('0020_device_tags_and_identity')).error).toBeUndefined();
      // Back at 0020: the calendars' tables are gone, and so is every later migration's (0024's positions).
      expect(await tablesOf(db)).toEqual(
        TABLES.filter((table) => !CALENDAR_TABLES.includes(table) && table !== 'device_positions' && !AEMP_TABLES.includes(table)),
      );
      await migrateToLatest(db);
      expect(await store.findWorkCalendar({ accountId: account.id, deviceId: null })).toEqual({ calendar: null, version: 0 });
    });

    it('P99: 0021 gives existing webhook endpoints no description; down drops the column, keeping the endpoints', async () => {
      const { db, migrator, store, account } = await olderSchema('0020_device_tags_and_identity');
      await sql`insert into webhook_endpoints (account_id, url, event_types, secret, created_at)
        values (${account.id}::int, 'https://old.example/', '{}', ${`whsec_${'A'.repeat(43)}=`}, now())`.execute(db);
      await migrateToLatest(db);
      const [old] = await store.listWebhookEndpoints({ accountId: account.id });
      expect(old).toMatchObject({ url: 'https://old.example/', description: null });
      await store.updateWebhookEndpoint({ endpointId: old!.id, changes: { description: 'Dispatch' }, now: T0 });

      expect((await migrator.migrateTo('0020_device_tags_and_identity')).error).toBeUndefined();
      expect((await sql<{ url: string }>`select url from webhook_endpoints`.execute(db)).rows).toEqual([{ url: 'https://old.example/' }]);
      await migrateToLatest(db);
      expect((await store.findWebhookEndpoint({ endpointId: old!.id }))?.description).toBeNull();
    });

    it('D38, D39: 0006 refuses a reading or a schedule no rule allows, naming its check', async () => {
      const db = await fresh();
      await migrateToLatest(db);
      const store = createKyselyStore(db);
      const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
      const device = (await store.createDevice({ accountId: account.id, name: 'Loader', imei: '1', model: 'm', timeZone: 'UTC' }))!;
      const schedule = { deviceId: device.id, name: 'Oil', intervalSeconds: 3600, lastDoneAt: T0, now: T0 };
      await expect(store.addHourMeterReading({ deviceId: device.id, readAt: T0, readingSeconds: -1, now: T0 })).rejects.toThrow(
        /hour_meter_readings_reading_check/,
      );
      await expect(store.createServiceSchedule({ ...schedule, intervalSeconds: 0 })).rejects.toThrow(
        /service_schedules_interval_seconds_check/,
      );
      await expect(store.createServiceSchedule({ ...schedule, intervalDays: 0 })).rejects.toThrow(/service_schedules_interval_days_check/);
      await expect(store.createServiceSchedule({ ...schedule, lastDoneHourMeterSeconds: -1 })).rejects.toThrow(
        /service_schedules_last_done_check/,
      );
      expect(await store.listHourMeterReadings({ deviceIds: [device.id] })).toEqual([]);
      expect(await store.listServiceSchedules({ deviceIds: [device.id] })).toEqual([]);
    });

    it('refuses a database migrated by a newer version, naming the unknown migration', async () => {
      const db = await fresh();
      await migrateToLatest(db);
      await sql`insert into fleet_hours_migration (name, timestamp) values ('9999_from_the_future', '2030-01-01T00:00:00Z')`.execute(db);
      await expect(migrateToLatest(db)).rejects.toThrow(/Fleet Hours migration failed: .*9999_from_the_future/);
    });
  });
}

let pglite: Kysely<FleetHoursDatabase>;
let schemaCount = 0;
beforeAll(async () => {
  pglite = await createPGliteDatabase();
});
afterAll(async () => {
  await pglite?.destroy();
});
// A new schema per test on the one PGlite instance: the database is empty as far as the test sees.
describeMigrations('PGlite', async () => {
  const schema = `migration_test_${++schemaCount}`;
  await sql`create schema ${sql.id(schema)}`.execute(pglite);
  await sql`set search_path to ${sql.id(schema)}`.execute(pglite);
  return pglite;
});

describe('schemaIsCurrent() looks only at the schema the migrator uses', () => {
  it('is false while current_schema() is empty, even when a schema later on the search_path is migrated', async () => {
    await sql`create schema migrated_elsewhere`.execute(pglite);
    await sql`create schema empty_here`.execute(pglite);
    await sql`set search_path to migrated_elsewhere`.execute(pglite);
    await migrateToLatest(pglite);
    await sql`set search_path to empty_here, migrated_elsewhere`.execute(pglite);
    expect(await schemaIsCurrent(pglite)).toBe(false);
    await migrateToLatest(pglite);
    expect(await tablesOf(pglite)).toEqual(TABLES);
    expect(await schemaIsCurrent(pglite)).toBe(true);
  });
});

describe('migrateToLatest() reads the catalog of its own schema only', () => {
  it("never reads every schema's tables, so another client dropping its schema or table meanwhile cannot fail it", async () => {
    // A dialect whose connections fail any read of every relation's columns (Kysely's own
    // introspection, which meets whatever another client drops during it) with 42P01, as
    // PostgreSQL does when a relation is dropped under that read. Our reads are by name.
    let catalogReads = 0;
    class CatalogRaceDialect extends PGliteDialect {
      override createDriver(): Driver {
        const driver = super.createDriver();
        const originals = new WeakMap<DatabaseConnection, DatabaseConnection>();
        const original = (connection: DatabaseConnection) => originals.get(connection) ?? connection;
        return {
          init: () => driver.init(),
          acquireConnection: async () => {
            const connection = await driver.acquireConnection();
            const racing: DatabaseConnection = {
              executeQuery: async (query) => {
                if (query.sql.includes('pg_attribute')) {
                  catalogReads += 1;
                  throw Object.assign(new Error('relation "other.dropped_meanwhile" does not exist'), { code: '42P01' });
                }
                return connection.executeQuery(query);
              },
              streamQuery: (query, chunkSize) => connection.streamQuery(query, chunkSize),
            };
            originals.set(racing, connection);
            return racing;
          },
          beginTransaction: (connection, settings) => driver.beginTransaction(original(connection), settings),
          commitTransaction: (connection) => driver.commitTransaction(original(connection)),
          rollbackTransaction: (connection) => driver.rollbackTransaction(original(connection)),
          releaseConnection: (connection) => driver.releaseConnection(original(connection)),
          destroy: () => driver.destroy(),
        };
      }
    }
    const db = new Kysely<FleetHoursDatabase>({ dialect: new CatalogRaceDialect({ pglite: () => new PGlite() }) });
    try {
      await sql`create schema other`.execute(db);
      await sql`create table other.dropped_meanwhile (id serial primary key)`.execute(db);
      await migrateToLatest(db);
      expect(catalogReads).toBe(0);
      expect(await executedMigrations(db)).toEqual(Object.keys(FLEET_HOURS_MIGRATIONS));
      expect(await tablesOf(db)).toEqual(TABLES);
      // The migrator's other reads of the bookkeeping see our tables, and only them.
      const migrator = await createFleetHoursMigrator(db);
      expect((await migrator.getMigrations()).every((migration) => migration.executedAt instanceof Date)).toBe(true);
      expect(await migrator.migrateToLatest()).toEqual({ results: [] });
      expect(catalogReads).toBe(0);
    } finally {
      await db.destroy();
    }
  });
});

describeWithPostgres('migrations on the PostgreSQL server', () => {
  const servers: TestPostgres[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.drop()));
  });
  const freshSchema = async () => {
    const server = await createTestSchema();
    servers.push(server);
    return server.connect({ max: 2 });
  };

  describeMigrations('PostgreSQL', freshSchema);

  it('migrates while another client creates and drops schemas and tables all the time', async () => {
    const churn = await createTestSchema();
    servers.push(churn);
    const dropper = churn.connect({ max: 1 });
    let running = true;
    let dropped = 0;
    const dropping = (async () => {
      while (running) {
        const name = `${churn.name}_churn`;
        await sql`create schema ${sql.id(name)}`.execute(dropper);
        await sql`create table ${sql.id(name, 'parent')} (id serial, at int) partition by range (at)`.execute(dropper);
        for (let part = 0; part < 4; part += 1) {
          await sql`create table ${sql.id(name, `part_${part}`)} partition of ${sql.id(name, 'parent')}
                      for values from (${sql.lit(part * 10)}) to (${sql.lit(part * 10 + 10)})`.execute(dropper);
        }
        await sql`drop schema ${sql.id(name)} cascade`.execute(dropper);
        dropped += 1;
      }
    })();
    try {
      for (let round = 0; round < 6; round += 1) {
        const fresh = await freshSchema();
        await migrateToLatest(fresh);
        expect(await tablesOf(fresh)).toEqual(TABLES);
      }
    } finally {
      running = false;
      await dropping;
    }
    expect(dropped).toBeGreaterThan(0);
  });

  it('several instances starting at once migrate once, under the migration lock', async () => {
    const server = await createTestSchema();
    servers.push(server);
    const instances = Array.from({ length: 4 }, () => server.connect({ max: 2 }));
    await Promise.all(instances.map((db) => migrateToLatest(db)));
    expect(await executedMigrations(instances[0]!)).toEqual(Object.keys(FLEET_HOURS_MIGRATIONS));
    expect(await tablesOf(instances[0]!)).toEqual(TABLES);
  });

  it('creates the schema named by the search_path when it does not exist yet, and leaves other schemas alone', async () => {
    const holder = await createTestDatabase();
    servers.push(holder);
    // Another schema of the same database already holds a migrated Fleet Hours: it must not be taken for ours.
    const publicDb = holder.connect({ max: 1 });
    await migrateToLatest(publicDb);
    const db = createPostgresDatabase({ connectionString: holder.url, schema: 'fleet hours "tenant"', max: 1 });
    try {
      await migrateToLatest(db);
      expect(await tablesOf(db)).toEqual(TABLES);
      const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
      expect(rows[0]!.schema).toBe('fleet hours "tenant"');
    } finally {
      await db.destroy();
    }
  });

  it('a URL carrying options=-c search_path=… lands in that schema', async () => {
    const server = await createTestSchema();
    servers.push(server);
    const db = createPostgresDatabase({ connectionString: server.url, max: 1 });
    try {
      await migrateToLatest(db);
      const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
      expect(rows[0]!.schema).toBe(server.name);
    } finally {
      await db.destroy();
    }
  });
});

describe('parseSearchPath()', () => {
  it('splits a search_path setting and unquotes quoted names', () => {
    expect(parseSearchPath('"$user", public')).toEqual(['$user', 'public']);
    expect(parseSearchPath('"fleet hours ""tenant""",public')).toEqual(['fleet hours "tenant"', 'public']);
    expect(parseSearchPath('')).toEqual([]);
  });
});
