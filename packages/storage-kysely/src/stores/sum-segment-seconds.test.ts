/**
 * The database's aggregation against two independent references, on random segments in zones
 * with every kind of DST rule:
 *
 * 1. the core's in-memory `sumSegmentsByBucket` over the core's own day boundaries
 *    (`dayBuckets(resolveWindow(…))`), second for second, and the whole `/hours` and `/hours/daily`
 *    path against the same path on the memory store;
 * 2. PostgreSQL's own time-zone rules: minutes of engine time grouped by
 *    `(minute AT TIME ZONE zone)::date` in SQL, which shares no code with the core's bucketing.
 */
import {
  createFleetHours,
  createMemoryStore,
  dayBuckets,
  localDateAt,
  parseWindowQuery,
  resolveWindow,
  type FleetHoursStore,
  type SegmentInput,
} from '@fleet-hours/core';
import { sumSegmentsByBucket } from '@fleet-hours/core/adapter';
import fc from 'fast-check';
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestSchema, describeWithPostgres, resetTables, type TestPostgres } from '../../../../test/support/postgres.js';
import { createKyselyStore, type KyselyFleetHoursStore } from './create-kysely-store.js';
import { createPGliteDatabase } from '../dialect/create-pglite-database.js';
import type { FleetHoursDatabase } from '../schema/database-schema.js';
import { migrateToLatest } from '../schema/migrate-to-latest.js';

const ZONES = [
  'UTC',
  'America/New_York', // 23- and 25-hour days
  'Europe/London',
  'America/Sao_Paulo', // until 2019 some days began at 01:00 (DST started at midnight)
  'Australia/Lord_Howe', // a 30-minute DST shift
  'Asia/Kathmandu', // +05:45
  'Pacific/Chatham', // +12:45 / +13:45
  'Pacific/Apia', // 2011-12-30 does not exist
  'America/St_Johns', // -03:30 with DST
] as const;
const FROM_2011 = 1_293_840_000; // 2011-01-01T00:00:00Z
const TO_2027 = 1_798_761_600; // 2027-01-01T00:00:00Z
const MINUTE = 60;
const DAY = 86_400;

/** A device's segments and a request for them, on a grid of `unit` seconds (1, or 60 for the minute oracle). */
const scenario = (unit: number) =>
  fc
    .record({
      timeZone: fc.constantFrom(...ZONES),
      anchor: fc.integer({ min: FROM_2011 / MINUTE, max: TO_2027 / MINUTE }).map((minute) => minute * MINUTE),
      pieces: fc.array(
        fc.record({
          gap: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: (12 * 3600) / unit })),
          length: fc.oneof(fc.integer({ min: 1, max: 7200 / unit }), fc.integer({ min: 1, max: (3 * DAY) / unit })),
          moving: fc.boolean(),
        }),
        { maxLength: 14 },
      ),
      openLast: fc.boolean(),
      fromDays: fc.integer({ min: -2, max: 8 }),
      spanDays: fc.integer({ min: 0, max: 10 }),
      toGiven: fc.boolean(),
      nowAfter: fc.integer({ min: 0, max: (20 * DAY) / unit }),
    })
    .map(({ timeZone, anchor, pieces, openLast, fromDays, spanDays, toGiven, nowAfter }) => {
      let cursor = anchor;
      const segments = pieces.map(({ gap, length, moving }, index): SegmentInput => {
        const startedAt = cursor + gap * unit;
        cursor = startedAt + length * unit;
        return { startedAt, endedAt: openLast && index === pieces.length - 1 ? null : cursor, state: moving ? 'moving' : 'idle' };
      });
      const now = anchor + nowAfter * unit;
      const from = localDateAt(anchor, timeZone).add({ days: fromDays });
      const query = parseWindowQuery(
        toGiven
          ? { from: from.toString(), to: from.add({ days: spanDays }).toString() }
          : { from: localDateAt(now, timeZone).subtract({ days: spanDays }).toString() },
      );
      return { timeZone, segments, now, query };
    });

type Scenario = ReturnType<ReturnType<typeof scenario>['generate']>['value'];

function describeAggregation(
  name: string,
  openDatabase: () => Promise<{ db: Kysely<FleetHoursDatabase>; close: () => Promise<void> }>,
): void {
  describe(`database aggregation: ${name}`, () => {
    let db: Kysely<FleetHoursDatabase>;
    let close: () => Promise<void>;
    let store: KyselyFleetHoursStore;
    let accountId: number;
    beforeAll(async () => {
      ({ db, close } = await openDatabase());
      await migrateToLatest(db);
      await resetTables(db);
      store = createKyselyStore(db);
      accountId = (await store.createAccount({ name: 'Acme', plan: 'business', now: FROM_2011 })).id;
    });
    afterAll(async () => {
      await close?.();
    });

    /** A new device holding the scenario's segments (each run gets its own device: no truncation between runs). */
    const seed = async (target: FleetHoursStore, account: number, { timeZone, segments }: Scenario) => {
      const device = (await target.createDevice({
        accountId: account,
        name: 'Truck',
        imei: globalThis.crypto.randomUUID(),
        model: 'm',
        timeZone,
      }))!;
      await target.importSegments({ deviceId: device.id, segments });
      return device.id;
    };

    it("sumSegmentSeconds() equals sumSegmentsByBucket() over the core's day boundaries, second for second", async () => {
      await fc.assert(
        fc.asyncProperty(scenario(1), async (run) => {
          const deviceId = await seed(store, accountId, run);
          const { boundaries } = dayBuckets(resolveWindow({ ...run.query, now: run.now, timeZone: run.timeZone }));
          const expected = sumSegmentsByBucket(run.segments, boundaries, run.now);
          expect(await store.sumSegmentSeconds({ deviceId, boundaries, now: run.now })).toEqual(expected);
        }),
        { numRuns: 60 },
      );
    });

    it('sumSegmentSeconds() equals sumSegmentsByBucket() for boundaries at, just before and just after segment ends', async () => {
      // Day boundaries rarely fall a second from a segment's end; these do, which is where an
      // off-by-one in the scan's bounds (longest segment, open segment) would show.
      const edgy = scenario(1).chain((run) => {
        const instants = run.segments.flatMap((segment) => [segment.startedAt, segment.endedAt ?? run.now]);
        const near =
          instants.length === 0
            ? fc.constant(run.now)
            : fc.constantFrom(...instants).chain((at) => fc.integer({ min: -2, max: 2 }).map((delta) => at + delta));
        return fc.tuple(fc.constant(run), fc.array(near, { minLength: 1, maxLength: 6 }));
      });
      await fc.assert(
        fc.asyncProperty(edgy, async ([run, instants]) => {
          const deviceId = await seed(store, accountId, run);
          const boundaries = [...instants].sort((a, b) => a - b);
          expect(await store.sumSegmentSeconds({ deviceId, boundaries, now: run.now })).toEqual(
            sumSegmentsByBucket(run.segments, boundaries, run.now),
          );
        }),
        { numRuns: 60 },
      );
    });

    it('/hours, /hours/daily and /meter on this store answer exactly what they answer on the memory store', async () => {
      await fc.assert(
        fc.asyncProperty(scenario(1), async (run) => {
          const memory = createMemoryStore();
          const memoryAccount = await memory.createAccount({ name: 'Acme', plan: 'business', now: FROM_2011 });
          const ids = { kysely: await seed(store, accountId, run), memory: await seed(memory, memoryAccount.id, run) };
          const clock = () => run.now * 1000 + 999; // a fraction of a second, floored by the core (D5)
          const here = createFleetHours({ store, now: clock });
          const there = createFleetHours({ store: memory, now: clock });
          const strip = <T extends { deviceId: number } | null>(value: T) => value && { ...value, deviceId: 0 };
          const ask = (service: typeof here, deviceId: number, account: number) =>
            Promise.all([
              service.hours({ accountId: account, deviceId, ...run.query }).then(strip),
              service.daily({ accountId: account, deviceId, ...run.query }).then(strip),
              service.meter({ accountId: account, deviceId }).then(strip),
            ]);
          expect(await ask(here, ids.kysely, accountId)).toEqual(await ask(there, ids.memory, memoryAccount.id));
        }),
        { numRuns: 40 },
      );
    });

    it("daily sums equal PostgreSQL's own AT TIME ZONE dates for every minute of engine time", async () => {
      await fc.assert(
        fc.asyncProperty(scenario(MINUTE), async (run) => {
          const deviceId = await seed(store, accountId, run);
          const window = resolveWindow({ ...run.query, now: run.now, timeZone: run.timeZone });
          const daily = await createFleetHours({ store, now: () => run.now * 1000 }).daily({ accountId, deviceId, ...run.query });
          const { rows } = await sql<{ date: string; moving_seconds: number | string; idle_seconds: number | string }>`
            select (minute at time zone ${run.timeZone})::date::text as date,
                   60 * count(*) filter (where segment.state = 'moving') as moving_seconds,
                   60 * count(*) filter (where segment.state = 'idle') as idle_seconds
              from engine_segments as segment
             cross join lateral generate_series(
                     segment.started_at,
                     coalesce(segment.ended_at, to_timestamp(${run.now}::float8)) - interval '1 minute',
                     interval '1 minute') as minute
             where segment.device_id = ${deviceId}
               and minute >= to_timestamp(${window.start}::float8)
               and minute < to_timestamp(${Math.min(window.end, run.now)}::float8) -- no engine time after now counts
             group by 1`.execute(db);
          const oracle = new Map(
            rows.map((row) => [row.date, { movingSeconds: Number(row.moving_seconds), idleSeconds: Number(row.idle_seconds) }]),
          );
          for (const day of daily!.days) {
            const expected = oracle.get(day.date) ?? { movingSeconds: 0, idleSeconds: 0 };
            expect({ date: day.date, movingSeconds: day.movingSeconds, idleSeconds: day.idleSeconds }).toEqual({
              date: day.date,
              ...expected,
            });
            oracle.delete(day.date);
          }
          expect([...oracle.keys()]).toEqual([]); // no engine minute falls on a date outside the series
        }),
        { numRuns: 40 },
      );
    });

    it.each([
      { timeZone: 'America/New_York', date: '2026-03-08', seconds: 23 * 3600, from: '2026-03-08T00:00:00-05:00', why: 'a 23-hour day' },
      { timeZone: 'America/New_York', date: '2026-11-01', seconds: 25 * 3600, from: '2026-11-01T00:00:00-04:00', why: 'a 25-hour day' },
      {
        timeZone: 'America/Sao_Paulo',
        date: '2018-11-04',
        seconds: 23 * 3600,
        from: '2018-11-04T01:00:00-02:00',
        why: 'a day that starts at 01:00',
      },
      {
        timeZone: 'Australia/Lord_Howe',
        date: '2026-04-05',
        seconds: 24.5 * 3600,
        from: '2026-04-05T00:00:00+11:00',
        why: 'a 30-minute DST shift',
      },
      { timeZone: 'Asia/Kathmandu', date: '2026-06-15', seconds: 24 * 3600, from: '2026-06-15T00:00:00+05:45', why: 'a +05:45 zone' },
      { timeZone: 'Pacific/Apia', date: '2011-12-30', seconds: 0, from: '2011-12-31T00:00:00+14:00', why: 'a day that does not exist' },
    ])('a device running all day gets the real length of $why ($timeZone $date)', async ({ timeZone, date, seconds, from }) => {
      const device = (await store.createDevice({ accountId, name: 'Truck', imei: globalThis.crypto.randomUUID(), model: 'm', timeZone }))!;
      const dates = parseWindowQuery({ from: date, to: date });
      const window = resolveWindow({ ...dates, now: TO_2027, timeZone });
      await store.importSegments({
        deviceId: device.id,
        segments: [{ startedAt: window.start - 2 * DAY, endedAt: window.end + 2 * DAY, state: 'moving' }],
      });
      const daily = await createFleetHours({ store, now: () => TO_2027 * 1000 }).daily({ accountId, deviceId: device.id, ...dates });
      expect(daily!.from).toBe(from);
      // D59: the day's true length is its `day_seconds` too; no calendar, so all of it is outside a schedule.
      expect(daily!.days).toHaveLength(1);
      expect(daily!.days[0]).toMatchObject({
        date,
        engineSeconds: seconds,
        movingSeconds: seconds,
        idleSeconds: 0,
        daySeconds: seconds,
        scheduledSeconds: 0,
        engineOutsideScheduleSeconds: seconds,
      });
    });
  });
}

describeAggregation('PGlite', async () => {
  const db = await createPGliteDatabase();
  return { db, close: () => db.destroy() };
});

describeWithPostgres('PostgreSQL server', () => {
  let server: TestPostgres;
  describeAggregation('PostgreSQL server', async () => {
    server = await createTestSchema();
    return { db: server.connect(), close: () => server.drop() };
  });
});
