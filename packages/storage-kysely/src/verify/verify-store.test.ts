/**
 * D36 Verify and repair: `verifyStore()` checks every derived datum of a device against its source
 * (telemetry segments against the points, figures and totals against the segments,
 * `last_reported_at` against the newest point or imported instant), names what differs and by how
 * many seconds, repairs it under the device's lock while writes go on, and reads in chunks.
 */
import { telemetryToSegments, type DeviceTelemetryPoint, type SegmentInput } from '@fleet-hours/core';
import { sql, type Kysely, type KyselyPlugin } from 'kysely';
import { describe, expect, it } from 'vitest';
import { describeWithPostgres, resetTables } from '../../../../test/support/postgres.js';
import { usePGlite, usePostgresSchema } from '../testing/fixture.js';
import { createKyselyStore } from '../stores/create-kysely-store.js';
import type { FleetHoursDatabase } from '../schema/database-schema.js';
import { verifyStore, type StoreDifference } from './verify-store.js';

const T0 = 1_767_225_600; // 2026-01-01T00:00:00Z
const DAY = 86_400;
const NOW = T0 + 10 * DAY;

/** Deterministic points over two days: runs of reports 20–400 s apart (gaps beyond 300 s too), ignition and speed changing. */
function points(deviceId: number, count: number, start = T0 + 6 * 3600, seed = 7): DeviceTelemetryPoint[] {
  let state = seed;
  const random = () => (state = (state * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
  const result: DeviceTelemetryPoint[] = [];
  let time = start;
  for (let index = 0; index < count; index += 1) {
    time += 20 + Math.floor(random() * 380);
    result.push({ deviceId, time, ignition: random() > 0.15, speedKmh: random() > 0.5 ? Math.floor(random() * 80) : 0 });
  }
  return result;
}

/** Every statement's result size, through a Kysely plugin on the database handed to `verifyStore`. */
function countingRows(db: Kysely<FleetHoursDatabase>): { readonly db: Kysely<FleetHoursDatabase>; readonly sizes: number[] } {
  const sizes: number[] = [];
  const plugin: KyselyPlugin = {
    transformQuery: ({ node }) => node,
    transformResult: async ({ result }) => {
      sizes.push(result.rows.length);
      return result;
    },
  };
  return { db: db.withPlugin(plugin), sizes };
}

function describeVerifyStore(name: string, database: () => Kysely<FleetHoursDatabase>): void {
  describe(`verifyStore() (D36) on ${name}`, () => {
    const seed = async (timeZone = 'Europe/Berlin') => {
      const db = database();
      await resetTables(db);
      const store = createKyselyStore(db);
      const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
      const device = (await store.createDevice({ accountId: account.id, name: 'Truck', imei: '356307042441013', model: 'm', timeZone }))!;
      const written = points(device.id, 400);
      // Out of order, in three batches: the stored segments are re-derived around each.
      for (const share of [0, 2, 1])
        await store.writeTelemetry({ accountId: account.id, points: written.filter((_, index) => index % 3 === share), now: NOW });
      return { db, store, account, device, written };
    };
    const telemetrySegments = async (db: Kysely<FleetHoursDatabase>, deviceId: number): Promise<SegmentInput[]> =>
      (
        await sql<{ started_at: number; ended_at: number; state: 'moving' | 'idle' }>`
          select date_part('epoch', started_at) as started_at, date_part('epoch', ended_at) as ended_at, state
            from engine_segments where device_id = ${deviceId} and source = 'telemetry' order by started_at`.execute(db)
      ).rows.map((row) => ({ startedAt: Number(row.started_at), endedAt: Number(row.ended_at), state: row.state }));
    const expectRepairedAndClean = async (db: Kysely<FleetHoursDatabase>, deviceId: number, found: readonly StoreDifference[]) => {
      const repaired = await verifyStore(db, { repair: true });
      expect(repaired.devices).toEqual([{ deviceId, differences: found, omitted: 0, repaired: true }]);
      expect(await verifyStore(db)).toEqual({ checked: 1, devices: [] });
    };

    it('D36: a device written through the store (telemetry out of order, imports beside it) agrees with its sources', async () => {
      const { db, store, device } = await seed();
      await store.importSegments({
        deviceId: device.id,
        segments: [{ startedAt: T0, endedAt: T0 + 3600, state: 'idle' }],
        reportedAt: NOW,
      });
      expect(await verifyStore(db)).toEqual({ checked: 1, devices: [] });
      // An import's reportedAt (P6) may lie beyond every instant it held: later than the newest point, not a difference.
      const { rows } = await sql<{
        at: number;
      }>`select date_part('epoch', last_reported_at) as at from device_states where device_id = ${device.id}`.execute(db);
      expect(Number(rows[0]!.at)).toBe(NOW);
    });

    it('D36: a day row changed with SQL is named with its seconds; repair rebuilds it', async () => {
      const { db, device } = await seed();
      const day = (
        await sql<{ day_start: string; day_end: string; moving: string; idle: string }>`
        select day_start, day_end, moving_seconds as moving, idle_seconds as idle from engine_day_figures where device_id = ${device.id} order by day_start limit 1`.execute(
          db,
        )
      ).rows[0]!;
      await sql`update engine_day_figures set idle_seconds = idle_seconds + 600 where device_id = ${device.id} and day_start = ${day.day_start}`.execute(
        db,
      );
      const expected = {
        dayStart: Number(day.day_start),
        dayEnd: Number(day.day_end),
        movingSeconds: Number(day.moving),
        idleSeconds: Number(day.idle),
      };
      const found: StoreDifference[] = [
        {
          deviceId: device.id,
          kind: 'day',
          dayStart: expected.dayStart,
          expected,
          stored: { ...expected, idleSeconds: expected.idleSeconds + 600 },
        },
      ];
      expect((await verifyStore(db)).devices).toEqual([{ deviceId: device.id, differences: found, omitted: 0, repaired: false }]);
      await expectRepairedAndClean(db, device.id, found);
    });

    it('D36, P56: a running total changed with SQL is named with the rows before it; repair rebuilds it', async () => {
      const { db, device } = await seed();
      const rows = (
        await sql<{ day_start: string; moving: string; idle: string; moving_before: string; idle_before: string }>`
        select day_start, moving_seconds as moving, idle_seconds as idle, moving_before_seconds as moving_before, idle_before_seconds as idle_before
          from engine_day_figures where device_id = ${device.id} order by day_start`.execute(db)
      ).rows;
      expect(rows.length).toBeGreaterThanOrEqual(2);
      const second = rows[1]!;
      expect({ moving: Number(second.moving_before), idle: Number(second.idle_before) }).toEqual({
        moving: Number(rows[0]!.moving),
        idle: Number(rows[0]!.idle),
      });
      await sql`update engine_day_figures set moving_before_seconds = moving_before_seconds + 42 where device_id = ${device.id} and day_start = ${second.day_start}`.execute(
        db,
      );
      const expected = { movingSeconds: Number(second.moving_before), idleSeconds: Number(second.idle_before) };
      const found: StoreDifference[] = [
        {
          deviceId: device.id,
          kind: 'running_total',
          dayStart: Number(second.day_start),
          expected,
          stored: { ...expected, movingSeconds: expected.movingSeconds + 42 },
        },
      ];
      expect((await verifyStore(db)).devices).toEqual([{ deviceId: device.id, differences: found, omitted: 0, repaired: false }]);
      await expectRepairedAndClean(db, device.id, found);
    });

    it('D36: lifetime totals changed with SQL are named with their seconds; repair rebuilds them', async () => {
      const { db, device } = await seed();
      const totals = (
        await sql<{
          moving: string;
          idle: string;
        }>`select closed_moving_seconds as moving, closed_idle_seconds as idle from device_states where device_id = ${device.id}`.execute(
          db,
        )
      ).rows[0]!;
      await sql`update device_states set closed_moving_seconds = closed_moving_seconds - 90 where device_id = ${device.id}`.execute(db);
      const expected = { movingSeconds: Number(totals.moving), idleSeconds: Number(totals.idle) };
      const found: StoreDifference[] = [
        { deviceId: device.id, kind: 'totals', expected, stored: { ...expected, movingSeconds: expected.movingSeconds - 90 } },
      ];
      expect((await verifyStore(db, { deviceId: device.id })).devices[0]!.differences).toEqual(found);
      await expectRepairedAndClean(db, device.id, found);
    });

    it('D36: a telemetry segment deleted with SQL is named with its seconds (and the figures that no longer match); repair derives it again', async () => {
      const { db, device, written } = await seed();
      const victim = (await telemetrySegments(db, device.id))[5]!;
      await sql`delete from engine_segments where device_id = ${device.id} and started_at = to_timestamp(${victim.startedAt})`.execute(db);
      const seconds = victim.endedAt! - victim.startedAt;
      const held = victim.state === 'moving' ? { movingSeconds: seconds, idleSeconds: 0 } : { movingSeconds: 0, idleSeconds: seconds };
      const { devices } = await verifyStore(db);
      const differences = devices[0]!.differences;
      expect(differences[0]).toEqual({
        deviceId: device.id,
        kind: 'telemetry_segments',
        start: victim.startedAt,
        end: victim.endedAt,
        expected: held,
        stored: { movingSeconds: 0, idleSeconds: 0 },
      });
      // The figures still count it: its day (or days) and the totals differ from the segments by its seconds.
      const days = differences.filter((difference) => difference.kind === 'day');
      expect(days.length).toBeGreaterThanOrEqual(1);
      expect(differences.map((difference) => difference.kind)).toEqual(['telemetry_segments', ...days.map(() => 'day'), 'totals']);
      const totals = differences.at(-1) as Extract<StoreDifference, { kind: 'totals' }>;
      expect(totals.stored.movingSeconds - totals.expected.movingSeconds).toBe(held.movingSeconds);
      expect(totals.stored.idleSeconds - totals.expected.idleSeconds).toBe(held.idleSeconds);

      // Repair puts the segment back: the figures then match again without being rebuilt.
      const repaired = await verifyStore(db, { repair: true });
      expect(repaired.devices[0]!.differences).toEqual([differences[0]]);
      expect(await telemetrySegments(db, device.id)).toEqual(telemetryToSegments(written));
      expect(await verifyStore(db)).toEqual({ checked: 1, devices: [] });
    });

    it('D36: a telemetry segment shortened with SQL is named by the seconds it lost; one added where no point is, by the seconds it holds', async () => {
      const { db, device, written } = await seed();
      const victim = (await telemetrySegments(db, device.id))[3]!;
      await sql`update engine_segments set ended_at = ended_at - interval '60 seconds' where device_id = ${device.id} and started_at = to_timestamp(${victim.startedAt})`.execute(
        db,
      );
      const stray = T0 + 5 * DAY;
      await sql`insert into engine_segments (device_id, started_at, ended_at, state, source)
                values (${device.id}, to_timestamp(${stray}), to_timestamp(${stray + 1200}), 'moving', 'telemetry')`.execute(db);
      const seconds = victim.endedAt! - victim.startedAt;
      const side = (held: number) =>
        victim.state === 'moving' ? { movingSeconds: held, idleSeconds: 0 } : { movingSeconds: 0, idleSeconds: held };
      const segmentDifferences = (await verifyStore(db)).devices[0]!.differences.filter(
        (difference) => difference.kind === 'telemetry_segments',
      );
      expect(segmentDifferences).toEqual([
        {
          deviceId: device.id,
          kind: 'telemetry_segments',
          start: victim.startedAt,
          end: victim.endedAt,
          expected: side(seconds),
          stored: side(seconds - 60),
        },
        {
          deviceId: device.id,
          kind: 'telemetry_segments',
          start: stray,
          end: stray + 1200,
          expected: { movingSeconds: 0, idleSeconds: 0 },
          stored: { movingSeconds: 1200, idleSeconds: 0 },
        },
      ]);
      await verifyStore(db, { repair: true });
      expect(await telemetrySegments(db, device.id)).toEqual(telemetryToSegments(written));
      expect(await verifyStore(db)).toEqual({ checked: 1, devices: [] });
    });

    it('D36: last_reported_at moved with SQL is named against the newest point; repair sets it', async () => {
      const { db, device, written } = await seed();
      const newest = Math.max(...written.map((point) => point.time));
      await sql`update device_states set last_reported_at = last_reported_at - interval '1 hour' where device_id = ${device.id}`.execute(
        db,
      );
      const found: StoreDifference[] = [{ deviceId: device.id, kind: 'last_reported_at', expected: newest, stored: newest - 3600 }];
      expect((await verifyStore(db)).devices[0]!.differences).toEqual(found);
      await expectRepairedAndClean(db, device.id, found);
      // Later than the newest point is wrong too, for a device without imports.
      await sql`update device_states set last_reported_at = last_reported_at + interval '5 minutes' where device_id = ${device.id}`.execute(
        db,
      );
      expect((await verifyStore(db)).devices[0]!.differences).toEqual([
        { deviceId: device.id, kind: 'last_reported_at', expected: newest, stored: newest + 300 },
      ]);
    });

    it('D36: longest_segment_seconds shorter than a closed segment is named; repair raises it', async () => {
      const { db, device, written } = await seed();
      const longest = Math.max(...telemetryToSegments(written).map((segment) => segment.endedAt! - segment.startedAt));
      await sql`update device_states set longest_segment_seconds = 10 where device_id = ${device.id}`.execute(db);
      const found: StoreDifference[] = [{ deviceId: device.id, kind: 'longest_segment', expected: longest, stored: 10 }];
      expect((await verifyStore(db)).devices[0]!.differences).toEqual(found);
      await expectRepairedAndClean(db, device.id, found);
    });

    it('D36, P41: no statement reads more than chunkSize rows, and any chunk size gives the same answer (segments and days across chunk ends)', async () => {
      const { db, device, written } = await seed('America/New_York');
      const { rows } = await sql<{ count: string }>`select count(*) as count from engine_segments where device_id = ${device.id}`.execute(
        db,
      );
      const segmentCount = Number(rows[0]!.count);
      expect(segmentCount).toBeGreaterThan(40);
      for (const chunkSize of [1, 2, 3, 7, 25]) {
        const counted = countingRows(db);
        expect(await verifyStore(counted.db, { chunkSize })).toEqual({ checked: 1, devices: [] });
        expect(Math.max(...counted.sizes)).toBeLessThanOrEqual(chunkSize);
        // Every point and segment was read: a statement per chunk of each.
        expect(counted.sizes.length).toBeGreaterThanOrEqual(Math.ceil(written.length / chunkSize) + Math.ceil(segmentCount / chunkSize));
      }
      // Repair in small chunks too: every telemetry segment and day row gone, then derived and rebuilt again.
      await sql`delete from engine_segments where device_id = ${device.id}`.execute(db);
      await sql`delete from engine_day_figures where device_id = ${device.id}`.execute(db);
      const counted = countingRows(db);
      expect((await verifyStore(counted.db, { chunkSize: 4, repair: true, detailLimit: 3 })).devices[0]).toMatchObject({
        repaired: true,
        omitted: expect.any(Number),
      });
      expect(Math.max(...counted.sizes)).toBeLessThanOrEqual(4);
      expect(await telemetrySegments(db, device.id)).toEqual(telemetryToSegments(written));
      expect(await verifyStore(db, { chunkSize: 3 })).toEqual({ checked: 1, devices: [] });
    });

    it('D36: devices are taken one at a time by id; a missing device is not checked; onDevice sees each report', async () => {
      const { db, store, account } = await seed();
      const other = (await store.createDevice({
        accountId: account.id,
        name: 'Van',
        imei: '356307042441021',
        model: 'm',
        timeZone: 'UTC',
      }))!;
      await store.writeTelemetry({ accountId: account.id, points: points(other.id, 30), now: NOW });
      await sql`update device_states set closed_idle_seconds = closed_idle_seconds + 1 where device_id = ${other.id}`.execute(db);
      const seen: number[] = [];
      const result = await verifyStore(db, { chunkSize: 1, onDevice: (report) => void seen.push(report.deviceId) });
      expect(result.checked).toBe(2);
      expect(result.devices.map((report) => report.deviceId)).toEqual([other.id]);
      expect(seen).toEqual([other.id - 1, other.id]);
      expect(await verifyStore(db, { deviceId: other.id + 1000 })).toEqual({ checked: 0, devices: [] });
      await expect(verifyStore(db, { chunkSize: 0 })).rejects.toThrow(RangeError);
    });

    it('D36, P41: repair under the device lock while concurrent telemetry writes of the device go on ends in the serial state of all points', async () => {
      const { db, store, account, device, written } = await seed();
      // Corrupt the history the writes do not touch: a telemetry segment, a day row, the totals.
      const victim = (await telemetrySegments(db, device.id))[2]!;
      await sql`delete from engine_segments where device_id = ${device.id} and started_at = to_timestamp(${victim.startedAt})`.execute(db);
      await sql`update engine_day_figures set moving_seconds = moving_seconds + 5 where device_id = ${device.id}`.execute(db);
      // Later points, out of order, by four writers at once, while repairs run again and again.
      const later = points(device.id, 600, T0 + 3 * DAY, 11);
      const writers = [0, 1, 2, 3].map(async (writer) => {
        const mine = later.filter((_, index) => index % 4 === writer);
        for (let offset = 0; offset < mine.length; offset += 15) {
          await store.writeTelemetry({ accountId: account.id, points: mine.slice(offset, offset + 15).reverse(), now: NOW });
        }
      });
      let writing = true;
      const repairs = (async () => {
        const reports: (readonly StoreDifference[])[] = [];
        while (writing || reports.length < 2) {
          // Each round takes the lock and rewrites the device's row while the writers plan and write.
          if (reports.length > 0)
            await sql`update device_states set closed_idle_seconds = closed_idle_seconds + 7 where device_id = ${device.id}`.execute(db);
          const result = await verifyStore(db, { repair: true, deviceId: device.id, chunkSize: 50 });
          reports.push(result.devices[0]?.differences ?? []);
        }
        return reports;
      })();
      await Promise.all(writers);
      writing = false;
      const [first, ...rounds] = await repairs;
      // The first repair fixed the corruption; each later one found only the 7 s added to the totals, never a write half seen.
      expect(first!.map((difference) => difference.kind)).toContain('telemetry_segments');
      for (const differences of rounds) {
        expect(differences).toHaveLength(1);
        const totals = differences[0] as Extract<StoreDifference, { kind: 'totals' }>;
        expect([
          totals.kind,
          totals.stored.idleSeconds - totals.expected.idleSeconds,
          totals.stored.movingSeconds - totals.expected.movingSeconds,
        ]).toEqual(['totals', 7, 0]);
      }
      expect(await telemetrySegments(db, device.id)).toEqual(telemetryToSegments([...written, ...later]));
      expect(await verifyStore(db)).toEqual({ checked: 1, devices: [] });
    }, 60_000);
  });
}

describeVerifyStore('PGlite', usePGlite());

describeWithPostgres('verifyStore() (D36) on PostgreSQL', () => {
  describeVerifyStore('PostgreSQL', usePostgresSchema(6).db);
});
