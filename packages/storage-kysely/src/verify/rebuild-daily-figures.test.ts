import { createFleetHours, dayBuckets, resolveWindow, type SegmentInput } from '@fleet-hours/core';
import { summarizeSegments, sumSegmentsByBucket } from '@fleet-hours/core/adapter';
import { sql, type Kysely } from 'kysely';
import { Temporal } from 'temporal-polyfill';
import { describe, expect, it } from 'vitest';
import { describeWithPostgres, resetTables } from '../../../../test/support/postgres.js';
import { explainAnalyze, rowsReadFrom, usePGlite, usePostgresSchema } from '../testing/fixture.js';
import { summarize, sumByBucket } from '../sql/segment-queries.js';
import { createKyselyStore } from '../stores/create-kysely-store.js';
import type { FleetHoursDatabase } from '../schema/database-schema.js';
import { createFleetHoursMigrator, migrateToLatest } from '../schema/migrate-to-latest.js';
import { rebuildDailyFigures } from './rebuild-daily-figures.js';
import { verifyDailyFigures } from './verify-daily-figures.js';

const T0 = 1_767_225_600; // 2026-01-01T00:00:00Z
const HOUR = 3600;
const DAY = 86_400;

/** A year of 40-minute segments every 90 minutes, alternating states, one of them across each local midnight. */
const yearOfSegments = (): SegmentInput[] =>
  Array.from({ length: Math.floor((365 * DAY) / 5400) }, (_, index) => ({
    startedAt: T0 + index * 5400,
    endedAt: T0 + index * 5400 + 2400,
    state: index % 2 === 0 ? 'moving' : 'idle',
  }));

function describeDailyFigures(name: string, database: () => Kysely<FleetHoursDatabase>): void {
  describe(`daily figures (D27) on ${name}`, () => {
    const seed = async (timeZone = 'Europe/Berlin') => {
      const db = database();
      await resetTables(db);
      const store = createKyselyStore(db);
      const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
      const device = (await store.createDevice({ accountId: account.id, name: 'Truck', imei: '356307042441013', model: 'm', timeZone }))!;
      return { db, store, account, device };
    };

    it('imports, a close and a zone change keep the figures equal to the segments: verifyDailyFigures() finds nothing', async () => {
      const { db, store, device } = await seed('America/Sao_Paulo');
      await store.importSegments({ deviceId: device.id, segments: [{ startedAt: 1_541_296_000, endedAt: 1_541_304_000, state: 'idle' }] });
      await store.importSegments({ deviceId: device.id, segments: [{ startedAt: 1_541_310_000, endedAt: null, state: 'moving' }] });
      await store.importSegments({
        deviceId: device.id,
        segments: [{ startedAt: 1_541_310_000, endedAt: 1_541_400_000, state: 'moving' }],
      });
      expect(await verifyDailyFigures(db)).toEqual({ deviceIds: [device.id], mismatches: [] });
      await store.updateDevice({ deviceId: device.id, changes: { timeZone: 'Asia/Beirut' } });
      expect(await verifyDailyFigures(db, { deviceId: device.id })).toEqual({ deviceIds: [device.id], mismatches: [] });
      const { rows } = await sql<{
        figures_time_zone: string;
      }>`select figures_time_zone from device_states where device_id = ${device.id}`.execute(db);
      expect(rows[0]!.figures_time_zone).toBe('Asia/Beirut');
    });

    it('telemetry written out of order in several batches (re-derivation through writeDevices) keeps the figures equal to the segments', async () => {
      const { db, store, account, device } = await seed('America/New_York');
      const midnight = 1_772_946_000; // 2026-03-08T00:00:00-05:00, a 23-hour day
      const points = Array.from({ length: 120 }, (_, index) => ({
        deviceId: device.id,
        time: midnight - 2 * HOUR + index * 97,
        ignition: index % 17 !== 0,
        speedKmh: (index * 7) % 40,
      }));
      const now = midnight + 10 * HOUR;
      // Late points fall between earlier ones: segments around them are removed and added again.
      for (const batch of [
        points.filter((_, index) => index % 3 === 0),
        points.filter((_, index) => index % 3 === 2),
        points.filter((_, index) => index % 3 === 1),
      ]) {
        await store.writeTelemetry({ accountId: account.id, points: batch, now });
      }
      expect((await verifyDailyFigures(db)).mismatches).toEqual([]);
      const segments = await store.listSegments({ deviceId: device.id });
      expect(segments.length).toBeGreaterThan(3);
      const boundaries = [midnight - DAY, midnight, midnight + 23 * HOUR];
      expect(await store.sumSegmentSeconds({ deviceId: device.id, boundaries, now })).toEqual(
        sumSegmentsByBucket(segments, boundaries, now),
      );
      expect(await store.summarizeDeviceSegments({ deviceId: device.id, now })).toEqual(summarizeSegments(segments, now));
    });

    it('segments written by SQL outside Fleet Hours are reported, and rebuildDailyFigures() makes reads match them again', async () => {
      const { db, store, account, device } = await seed();
      await store.importSegments({ deviceId: device.id, segments: [{ startedAt: T0, endedAt: T0 + HOUR, state: 'idle' }] });
      // A day-long segment behind Fleet Hours' back: no figures, and longer than the longest known.
      await sql`insert into engine_segments (device_id, started_at, ended_at, state)
                values (${device.id}, to_timestamp(${T0 + 2 * DAY}), to_timestamp(${T0 + 3 * DAY + HOUR}), 'moving')`.execute(db);
      const { mismatches } = await verifyDailyFigures(db);
      expect(mismatches.map((mismatch) => mismatch.kind).sort()).toEqual(['day', 'day', 'longest_segment', 'totals']);
      expect(mismatches.find((mismatch) => mismatch.kind === 'totals')).toEqual({
        deviceId: device.id,
        kind: 'totals',
        expected: { movingSeconds: DAY + HOUR, idleSeconds: HOUR },
        stored: { movingSeconds: 0, idleSeconds: HOUR },
      });
      const now = T0 + 10 * DAY;
      const meter = () => createFleetHours({ store, now: () => now * 1000 }).meter({ accountId: account.id, deviceId: device.id });
      expect((await meter())?.movingSeconds).toBe(0); // the figures do not know the segment yet

      expect(await rebuildDailyFigures(db, { deviceId: device.id })).toEqual({ deviceIds: [device.id] });
      expect((await verifyDailyFigures(db)).mismatches).toEqual([]);
      expect((await meter())?.movingSeconds).toBe(DAY + HOUR);
      const segments = await store.listSegments({ deviceId: device.id });
      const boundaries = [T0 - DAY, T0 + 2 * DAY + 30, T0 + 3 * DAY, T0 + 5 * DAY];
      expect(await store.sumSegmentSeconds({ deviceId: device.id, boundaries, now })).toEqual(
        sumSegmentsByBucket(segments, boundaries, now),
      );
      expect(await rebuildDailyFigures(db, { deviceId: device.id + 1000 })).toEqual({ deviceIds: [] });
    });

    it('a zone changed by SQL is reported, and the next write rebuilds the figures in the new zone', async () => {
      const { db, store, device } = await seed('UTC');
      await store.importSegments({
        deviceId: device.id,
        segments: [{ startedAt: T0 + 23 * HOUR, endedAt: T0 + 25 * HOUR, state: 'idle' }],
      });
      await sql`update devices set time_zone = 'Asia/Kathmandu' where id = ${device.id}`.execute(db);
      expect((await verifyDailyFigures(db)).mismatches.map((mismatch) => mismatch.kind)).toContain('time_zone');
      await store.importSegments({
        deviceId: device.id,
        segments: [{ startedAt: T0 + 30 * HOUR, endedAt: T0 + 31 * HOUR, state: 'moving' }],
      });
      expect((await verifyDailyFigures(db)).mismatches).toEqual([]);
    });

    it('a past 365-day daily series reads one figure row per day and no segment; the meter reads no segment (cost by window, not history)', async () => {
      const { db, store, account, device } = await seed();
      await store.importSegments({ deviceId: device.id, segments: yearOfSegments() });
      const now = T0 + 400 * DAY;
      const fleetHours = createFleetHours({ store, now: () => now * 1000 });
      const from = Temporal.PlainDate.from('2026-01-02');
      const to = Temporal.PlainDate.from('2026-12-30');
      const daily = (await fleetHours.daily({ accountId: account.id, deviceId: device.id, from, to }))!;
      const segments = await store.listSegments({ deviceId: device.id });
      expect(daily.days.reduce((sum, day) => sum + day.engineSeconds, 0)).toBe(
        (await fleetHours.hours({ accountId: account.id, deviceId: device.id, from, to }))!.engineSeconds,
      );

      const { boundaries } = dayBuckets(resolveWindow({ from, to, now, timeZone: 'Europe/Berlin' }));
      expect(daily.days.map(({ movingSeconds, idleSeconds }) => ({ movingSeconds, idleSeconds }))).toEqual(
        sumSegmentsByBucket(segments, boundaries, now),
      );
      const plan = await explainAnalyze(db, sumByBucket(device.id, boundaries, now).compile(db));
      expect(rowsReadFrom(plan, 'engine_segments')).toBe(0);
      expect(rowsReadFrom(plan, 'engine_day_figures')).toBeLessThanOrEqual(boundaries.length + 1);

      const meterPlan = await explainAnalyze(db, summarize(device.id, now).compile(db));
      expect(rowsReadFrom(meterPlan, 'engine_segments')).toBeLessThanOrEqual(1); // min(started_at): one index probe
      expect(await store.summarizeDeviceSegments({ deviceId: device.id, now })).toEqual(summarizeSegments(segments, now));
    }, 60_000);

    it('migration 0003 builds the figures of devices that already have segments', async () => {
      // Back to 0002 and forward again: the backfill runs over the segments already there.
      const { store, device } = await seed('Pacific/Apia');
      await store.importSegments({
        deviceId: device.id,
        segments: [{ startedAt: 1_325_239_200 - 2 * HOUR, endedAt: 1_325_239_200 + 2 * HOUR, state: 'moving' }],
      });
      const db = database();
      const migrator = await createFleetHoursMigrator(db);
      expect((await migrator.migrateTo('0002_rate_limit_counters')).error).toBeUndefined();
      await migrateToLatest(db);
      expect(await verifyDailyFigures(db)).toEqual({ deviceIds: [device.id], mismatches: [] });
      const { rows } = await sql<{ count: number | string }>`select count(*) as count from engine_day_figures`.execute(db);
      expect(Number(rows[0]!.count)).toBe(2);
    });
  });
}

describeDailyFigures('PGlite', usePGlite());

describeWithPostgres('daily figures on PostgreSQL', () => {
  describeDailyFigures('PostgreSQL', usePostgresSchema(4).db);
});
