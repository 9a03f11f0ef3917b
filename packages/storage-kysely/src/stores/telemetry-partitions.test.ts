/**
 * D42–D44 on the Kysely store, on PGlite and on PostgreSQL:
 *
 * - D42: migration 0008 turns a database written by the previous version into the partitioned
 *   layout without losing or changing anything (its old table becomes the partition of everything
 *   before the first month after its newest point); a write into a month without a partition
 *   creates it, also when many writes of new months come at once.
 * - D43: dropping the partitions past the retention (`maintainTelemetryPartitions`) never changes
 *   an answer of hours, daily hours, meter or service, and `verifyStore` still finds every device
 *   clean (it compares segments with points only where points are kept).
 * - D44: migration 0009 moves each device's state into `device_states` unchanged.
 */
import { createFleetHours, parseWindowQuery, type DeviceTelemetryPoint, type FleetHoursStore } from '@fleet-hours/core';
import fc from 'fast-check';
import { sql, type Kysely } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestSchema, describeWithPostgres, type TestPostgres } from '../../../../test/support/postgres.js';
import { createPGliteDatabase } from '../dialect/create-pglite-database.js';
import type { FleetHoursDatabase } from '../schema/database-schema.js';
import { createFleetHoursMigrator, migrateToLatest } from '../schema/migrate-to-latest.js';
import { listPointPartitions, maintainTelemetryPartitions } from '../sql/point-partitions.js';
import { verifyStore } from '../verify/verify-store.js';
import { createKyselyStore } from './create-kysely-store.js';

const T0 = 1_767_225_600; // 2026-01-01T00:00:00Z
const DAY = 86_400;

/** Points of a device every `step` seconds from `from`, engine on, alternating stretches of speed. */
function pointsOf(deviceId: number, from: number, count: number, step = 30): DeviceTelemetryPoint[] {
  return Array.from({ length: count }, (_, index) => ({
    deviceId,
    time: from + index * step,
    ignition: index % 50 !== 49,
    speedKmh: Math.floor(index / 7) % 3 === 0 ? 0 : 40,
  }));
}

/** Everything a device's reads answer, through the core's service over the store. */
async function answersOf(store: FleetHoursStore, accountId: number, deviceIds: readonly number[], now: number) {
  const service = createFleetHours({ store, now: () => now * 1000 });
  const answers = [];
  for (const deviceId of deviceIds) {
    answers.push({
      hours: await service.hours({ accountId, deviceId, ...parseWindowQuery({ from: '2025-12-01', to: '2026-06-30' }) }),
      daily: await service.daily({ accountId, deviceId, ...parseWindowQuery({ from: '2025-12-25', to: '2026-05-10' }) }),
      meter: await service.meter({ accountId, deviceId }),
      service: await service.service({ accountId, deviceId }),
      lastReportedAt: (await store.findDevice({ accountId, deviceId }))?.lastReportedAt,
    });
  }
  return answers;
}

function describePartitions(name: string, fresh: () => Promise<Kysely<FleetHoursDatabase>>): void {
  describe(`telemetry partitions on ${name}`, () => {
    it('D42, D44, P46, P49: migrations 0008 and 0009 keep every point and every derived datum of a database written by the previous version', async () => {
      // What the previous version stored, written through this version's store on a database of its own...
      const source = await fresh();
      const old = await fresh();
      try {
        await migrateToLatest(source);
        const store = createKyselyStore(source);
        const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
        const truck = (await store.createDevice({
          accountId: account.id,
          name: 'Truck',
          imei: '1',
          model: 'm',
          timeZone: 'Europe/Berlin',
        }))!;
        const loader = (await store.createDevice({
          accountId: account.id,
          name: 'Loader',
          imei: '2',
          model: 'm',
          timeZone: 'America/New_York',
        }))!;
        const now = T0 + 80 * DAY;
        for (const month of [0, 31, 62]) {
          await store.writeTelemetry({ accountId: account.id, points: pointsOf(truck.id, T0 + month * DAY, 400), now });
          await store.writeTelemetry({ accountId: account.id, points: pointsOf(loader.id, T0 + month * DAY + 7_200, 300, 20), now });
        }
        await store.importSegments({
          deviceId: loader.id,
          segments: [{ startedAt: T0 + 20 * DAY, endedAt: T0 + 20 * DAY + 3_600, state: 'idle' }],
        });
        await store.createServiceSchedule({ deviceId: truck.id, name: 'Oil', intervalSeconds: 36_000, lastDoneAt: T0, now: T0 });

        // ...copied row for row into a database at 0006, in that version's layout (the state in `devices`).
        expect((await (await createFleetHoursMigrator(old)).migrateTo('0006_hour_meter_and_service')).error).toBeUndefined();
        const copy = async (table: string, columns: string) => {
          const { rows } = await sql<Record<string, unknown>>`select ${sql.raw(columns)} from ${sql.table(table)}`.execute(source);
          for (const row of rows)
            await sql`insert into ${sql.table(table)} (${sql.raw(Object.keys(row).join(', '))}) values (${sql.join(Object.values(row))})`.execute(
              old,
            );
        };
        await copy('accounts', 'id, name, plan, created_at');
        await sql`
          insert into devices (id, account_id, name, imei, registration, model, status, time_zone)
          select * from (values (${truck.id}::int, ${account.id}::int, 'Truck', '1', null::text, 'm', 'active', 'Europe/Berlin'),
                                (${loader.id}::int, ${account.id}::int, 'Loader', '2', null::text, 'm', 'active', 'America/New_York')) as d`.execute(
          old,
        );
        const { rows: states } = await sql<Record<string, unknown>>`
          select device_id, last_reported_at, longest_segment_seconds, closed_moving_seconds, closed_idle_seconds, figures_time_zone
            from device_states`.execute(source);
        for (const state of states)
          await sql`
            update devices set last_reported_at = ${state.last_reported_at as Date}, longest_segment_seconds = ${state.longest_segment_seconds as number},
                   closed_moving_seconds = ${state.closed_moving_seconds as number}, closed_idle_seconds = ${state.closed_idle_seconds as number},
                   figures_time_zone = ${state.figures_time_zone as string}
             where id = ${state.device_id as number}`.execute(old);
        await copy('telemetry_points', 'device_id, "time", ignition, speed_kmh');
        await copy('engine_segments', 'device_id, started_at, ended_at, state, source');
        await copy('engine_day_figures', 'device_id, day_start, day_end, moving_seconds, idle_seconds');
        await copy(
          'service_schedules',
          'id, device_id, name, interval_seconds, interval_days, due_soon_seconds, due_soon_days, last_done_at, last_done_hour_meter_seconds, created_at',
        );
        const before = await sql<{ count: number | string }>`select count(*) as count from telemetry_points`.execute(old);

        await migrateToLatest(old);
        const migrated = createKyselyStore(old);
        expect(await sql<{ count: number | string }>`select count(*) as count from telemetry_points`.execute(old)).toEqual(before);
        for (const device of [truck, loader]) {
          expect(await migrated.listTelemetryPoints({ deviceId: device.id })).toEqual(
            await store.listTelemetryPoints({ deviceId: device.id }),
          );
          expect(await migrated.listSegments({ deviceId: device.id })).toEqual(await store.listSegments({ deviceId: device.id }));
        }
        expect(await answersOf(migrated, account.id, [truck.id, loader.id], now)).toEqual(
          await answersOf(store, account.id, [truck.id, loader.id], now),
        );
        expect(await verifyStore(old)).toEqual({ checked: 2, devices: [] });
        // The old table is one partition, up to the first month after its newest point (March 2026).
        const partitions = await listPointPartitions(old);
        expect(partitions[0]).toEqual({ name: 'telemetry_points_before', from: null, to: Date.UTC(2026, 3, 1) / 1000 });
        const { rows: kind } = await sql<{
          kind: string;
        }>`select relkind::text as kind from pg_class where oid = 'telemetry_points'::regclass`.execute(old);
        expect(kind).toEqual([{ kind: 'p' }]);

        // Writes go on: into the old table's months, and into a month without a partition yet (May 2026), created then.
        const later = [...pointsOf(truck.id, T0 + 80 * DAY, 10), ...pointsOf(truck.id, T0 + 125 * DAY, 10)];
        await migrated.writeTelemetry({ accountId: account.id, points: later, now: T0 + 130 * DAY });
        await store.writeTelemetry({ accountId: account.id, points: later, now: T0 + 130 * DAY });
        expect((await listPointPartitions(old)).map((partition) => partition.name)).toContain('telemetry_points_p202605');
        expect(await migrated.listTelemetryPoints({ deviceId: truck.id })).toEqual(await store.listTelemetryPoints({ deviceId: truck.id }));
        expect(await verifyStore(old)).toEqual({ checked: 2, devices: [] });
      } finally {
        await source.destroy();
        await old.destroy();
      }
    }, 120_000);

    it('D42, P46: writes of many months without partitions at once all succeed, each month created once', async () => {
      const db = await fresh();
      try {
        await migrateToLatest(db);
        const store = createKyselyStore(db);
        const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
        const devices = [];
        for (let index = 0; index < 6; index += 1)
          devices.push(
            (await store.createDevice({ accountId: account.id, name: `D${index}`, imei: `${index}`, model: 'm', timeZone: 'UTC' }))!,
          );
        // Each write spans three months of 2024; every pair of writes shares months.
        const writes = devices.map((device, index) => pointsOf(device.id, Date.UTC(2024, index, 20) / 1000, 100, 20 * 3_600));
        const answers = await Promise.all(writes.map((points) => store.writeTelemetry({ accountId: account.id, points, now: T0 })));
        expect(answers.map((answer) => answer.accepted)).toEqual(writes.map((points) => points.length));
        for (const [index, device] of devices.entries())
          expect(await store.listTelemetryPoints({ deviceId: device.id })).toHaveLength(writes[index]!.length);
        const names = (await listPointPartitions(db)).map((partition) => partition.name);
        expect(names.filter((partition) => partition.startsWith('telemetry_points_p2024'))).toEqual(
          Array.from({ length: 9 }, (_, month) => `telemetry_points_p2024${String(month + 1).padStart(2, '0')}`),
        );
      } finally {
        await db.destroy();
      }
    });

    it('D43, P48: dropping the partitions past the retention changes no answer of hours, daily, meter or service; verify stays clean', async () => {
      const db = await fresh();
      try {
        await migrateToLatest(db);
        const store = createKyselyStore(db);
        const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
        let imei = 0;
        const dropped: string[] = [];
        await fc.assert(
          fc.asyncProperty(
            fc.array(
              fc.record({
                day: fc.integer({ min: 0, max: 150 }),
                count: fc.integer({ min: 1, max: 120 }),
                step: fc.integer({ min: 5, max: 400 }),
              }),
              {
                minLength: 1,
                maxLength: 6,
              },
            ),
            fc.integer({ min: 1, max: 200 }),
            fc.constantFrom('UTC', 'Europe/Berlin', 'Pacific/Chatham'),
            async (batches, retentionDays, timeZone) => {
              // D45: an earlier run's drop recorded a horizon that would refuse this run's history.
              await sql`delete from telemetry_horizon`.execute(db);
              imei += 1;
              const device = (await store.createDevice({ accountId: account.id, name: 'T', imei: `${imei}`, model: 'm', timeZone }))!;
              const now = T0 + 160 * DAY;
              for (const batch of batches)
                await store.writeTelemetry({
                  accountId: account.id,
                  points: pointsOf(device.id, T0 + batch.day * DAY, batch.count, batch.step),
                  now,
                });
              await store.createServiceSchedule({ deviceId: device.id, name: 'Oil', intervalSeconds: 7_200, lastDoneAt: T0, now: T0 });
              const before = await answersOf(store, account.id, [device.id], now);
              const points = await store.listTelemetryPoints({ deviceId: device.id });
              const done = await maintainTelemetryPartitions(db, { now, retentionDays });
              expect(done.horizon).toBe(now - retentionDays * DAY);
              dropped.push(...done.dropped);
              // Whole months are dropped: every point of the horizon's month and later is kept, none of a month before it.
              const horizonMonth =
                Date.UTC(new Date(done.horizon! * 1000).getUTCFullYear(), new Date(done.horizon! * 1000).getUTCMonth(), 1) / 1000;
              expect(await store.listTelemetryPoints({ deviceId: device.id })).toEqual(
                points.filter((point) => point.time >= horizonMonth),
              );
              expect(await answersOf(store, account.id, [device.id], now)).toEqual(before);
              expect(await verifyStore(db, { deviceId: device.id })).toEqual({ checked: 1, devices: [] });
            },
          ),
          { numRuns: 12 },
        );
        // The property dropped something at least once (a later run's write may make a dropped month again).
        expect(dropped.length).toBeGreaterThan(0);
      } finally {
        await db.destroy();
      }
    }, 120_000);
  });
}

describePartitions('PGlite', async () => {
  const db = await createPGliteDatabase();
  return db;
});

describeWithPostgres('telemetry partitions', () => {
  const servers: TestPostgres[] = [];
  afterAll(async () => {
    for (const server of servers) await server.drop();
  });
  describePartitions('PostgreSQL', async () => {
    const server = await createTestSchema();
    servers.push(server);
    return server.connect({ max: 4 });
  });
});
