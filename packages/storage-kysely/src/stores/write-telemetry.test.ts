/**
 * P37 (D20): a telemetry write reads and plans without a lock, then writes in one statement only if no
 * write of its devices came between; else it reads and plans again, and after three tries (or when
 * the write takes more than one statement, or a rebuild of the figures) it writes under the
 * devices' row locks, in a transaction (`stores/telemetry-store.ts`, `sql/device-writes.ts`). These tests
 * make another write come between, deterministically: a Kysely plugin runs it when an unlocked
 * read's result arrives, before the write is planned. Whatever the path, the stored segments are
 * those of all points at once and each point is counted once. P38: those two statements keep
 * their generic plans after five executions on a connection (`pg_prepared_statements`). P39: a
 * write reads a small fleet's table whole at most twice. P40: it checks each device once,
 * by its row lock, not once for every row it writes. P68: the read's plan scans the points' table
 * once for each neighbour and once for the points between, not once for each use of a neighbour.
 */
import { telemetryToSegments } from '@fleet-hours/core';
import { CompiledQuery, sql, type Kysely, type KyselyPlugin, type OperationNode, type RootOperationNode } from 'kysely';
import { describe, expect, it } from 'vitest';
import { describeWithPostgres, resetTables } from '../../../../test/support/postgres.js';
import { pointsFrom, usePGlite, usePostgresSchema } from '../testing/fixture.js';
import { createKyselyStore } from './create-kysely-store.js';
import type { FleetHoursDatabase } from '../schema/database-schema.js';
import { verifyDailyFigures } from '../verify/verify-daily-figures.js';

const T0 = 1_767_225_600; // 2026-01-01T00:00:00Z
const LATER = T0 + 30 * 86_400;

/** The text of a raw statement, fragments embedded in it included (the store writes its statements with Kysely's `sql`). */
const textOf = (node: OperationNode): string => {
  if (!('sqlFragments' in node)) return '';
  const { sqlFragments, parameters } = node as unknown as { sqlFragments: readonly string[]; parameters: readonly OperationNode[] };
  return sqlFragments.map((fragment, index) => fragment + (parameters[index] ? textOf(parameters[index]) : '')).join('');
};

/**
 * Watches the reads of telemetry writes (`unlocked`, or `locked` when the devices' locks were
 * taken just before it (D35), in order) and runs `between` after each of the first `times`
 * unlocked ones, before the write that read goes on. A read that follows a read with no write
 * between is the same read going on past the months near now for some devices (P57): counted in
 * `further`, not in `reads`.
 */
function interloper(): KyselyPlugin & {
  reads: ('unlocked' | 'locked')[];
  further: number;
  times: number;
  between: () => Promise<unknown>;
} {
  const kinds = new WeakMap<object, 'lock' | 'read' | 'write'>();
  let afterLock = false;
  let afterRead = false;
  const plugin = {
    reads: [] as ('unlocked' | 'locked')[],
    further: 0,
    times: 0,
    between: async (): Promise<unknown> => undefined,
    transformQuery(args: Parameters<KyselyPlugin['transformQuery']>[0]) {
      const text = textOf(args.node);
      if (text.includes('as asked(id, imei, earliest, latest)')) kinds.set(args.queryId, 'read');
      else if (/^\s*select device_id as id from device_states\b[\s\S]*\bfor update\s*$/.test(text)) kinds.set(args.queryId, 'lock');
      else if (/^\s*with locked as \(/.test(text)) kinds.set(args.queryId, 'write');
      return args.node;
    },
    async transformResult(args: Parameters<KyselyPlugin['transformResult']>[0]) {
      const found = kinds.get(args.queryId);
      if (found === 'lock') [afterLock, afterRead] = [true, false];
      else if (found === 'write') afterRead = false;
      else if (found === 'read' && afterRead) plugin.further += 1;
      else if (found === 'read') {
        const kind = afterLock ? 'locked' : 'unlocked';
        afterLock = false;
        afterRead = true;
        plugin.reads.push(kind);
        if (kind === 'unlocked' && plugin.times > 0) {
          plugin.times -= 1;
          await plugin.between();
        }
      }
      return args.result;
    },
  };
  return plugin;
}

/**
 * `between`: whether another write can come between a write's read and its write. On PGlite it
 * cannot: its one connection runs one statement at a time, and the plugin runs while the read still
 * holds it.
 */
function describeWriteTelemetry(name: string, database: () => Kysely<FleetHoursDatabase>, between: boolean): void {
  describe(`P37 (D20): writeTelemetry() when another write comes between its read and its write, on ${name}`, () => {
    const seed = async () => {
      const db = database();
      await resetTables(db);
      const watch = interloper();
      const store = createKyselyStore(db.withPlugin(watch));
      // The write that comes between goes through a store the plugin does not watch.
      const other = createKyselyStore(db);
      const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
      const device = (await store.createDevice({
        accountId: account.id,
        name: 'Truck',
        imei: '356307042441013',
        model: 'm',
        timeZone: 'Europe/Berlin',
      }))!;
      const second = (await store.createDevice({
        accountId: account.id,
        name: 'Van',
        imei: '356307042441014',
        model: 'm',
        timeZone: 'Asia/Kathmandu',
      }))!;
      return { db, watch, store, other, account, device, second };
    };

    it.runIf(between)('one write between: the write reads and plans again, unlocked, and counts its own points', async () => {
      const { db, watch, store, other, account, device, second } = await seed();
      // Interleaved with the batch's points, so that its plan changes the segments the other one wrote.
      const all = pointsFrom(T0, 120, 0);
      const mine = all.filter((_, index) => index % 3 !== 1);
      const theirs = all.filter((_, index) => index % 3 === 1);
      watch.times = 1;
      watch.between = () =>
        other.writeTelemetry({ accountId: account.id, points: theirs.map((point) => ({ imei: device.imei, ...point })), now: LATER });
      const result = await store.writeTelemetry({
        accountId: account.id,
        points: [
          ...mine.map((point) => ({ deviceId: device.id, ...point })),
          ...pointsFrom(T0, 10, 4).map((point) => ({ deviceId: second.id, ...point })),
        ],
        now: LATER,
      });
      expect(watch.reads).toEqual(['unlocked', 'unlocked']);
      // The second read found none of the device's points before the batch near now, yet some
      // stored: it read that device past those months (P57), after the other write, and planned from that.
      expect(watch.further).toBe(1);
      expect(result).toMatchObject({ accepted: mine.length + 10, duplicates: 0 });
      expect(
        (await store.listSegments({ deviceId: device.id })).map(({ startedAt, endedAt, state }) => ({ startedAt, endedAt, state })),
      ).toEqual(telemetryToSegments(all));
      expect(
        (await store.listSegments({ deviceId: second.id })).map(({ startedAt, endedAt, state }) => ({ startedAt, endedAt, state })),
      ).toEqual(telemetryToSegments(pointsFrom(T0, 10, 4)));
      expect(await store.listTelemetryPoints({ deviceId: device.id })).toHaveLength(all.length);
      expect((await verifyDailyFigures(db)).mismatches).toEqual([]);
    });

    it.runIf(between)('a write between each of three tries: the fourth is under the lock, in a transaction, and still exact', async () => {
      const { db, watch, store, other, account, device } = await seed();
      const all = pointsFrom(T0, 200, 1);
      // Three other batches, each interleaved with this one's points (one in four, from 0, 1 and 2;
      // this one's from 3, so that each of its reads finds the point before it near now, P57).
      const theirs = [0, 1, 2].map((offset) => all.filter((_, index) => index % 4 === offset));
      const mine = all.filter((_, index) => index % 4 === 3);
      watch.times = 3;
      let next = 0;
      watch.between = () =>
        other.writeTelemetry({
          accountId: account.id,
          points: theirs[next++]!.map((point) => ({ deviceId: device.id, ...point })),
          now: LATER,
        });
      const result = await store.writeTelemetry({
        accountId: account.id,
        points: mine.map((point) => ({ deviceId: device.id, ...point })),
        now: LATER,
      });
      expect(watch.reads).toEqual(['unlocked', 'unlocked', 'unlocked', 'locked']);
      expect(result).toMatchObject({ accepted: mine.length, duplicates: 0 });
      expect(
        (await store.listSegments({ deviceId: device.id })).map(({ startedAt, endedAt, state }) => ({ startedAt, endedAt, state })),
      ).toEqual(telemetryToSegments(all));
      expect((await verifyDailyFigures(db)).mismatches).toEqual([]);
      // A resend of the same batch in between counts as what it is at the write: duplicates.
      watch.reads.length = 0;
      watch.times = 1;
      watch.between = () =>
        other.writeTelemetry({
          accountId: account.id,
          points: mine.slice(0, 10).map((point) => ({ deviceId: device.id, ...point })),
          now: LATER,
        });
      const resent = pointsFrom(T0 + 200 * 30, 5, 2);
      expect(
        await store.writeTelemetry({
          accountId: account.id,
          points: [...mine.slice(0, 10), ...resent].map((point) => ({ deviceId: device.id, ...point })),
          now: LATER,
        }),
      ).toMatchObject({
        accepted: 5,
        duplicates: 10,
      });
    });

    it('figures cut in another zone (changed outside Fleet Hours) are rebuilt: the write goes under the lock at once', async () => {
      const { db, watch, store, account, device } = await seed();
      const first = pointsFrom(T0, 60, 0);
      await store.writeTelemetry({ accountId: account.id, points: first.map((point) => ({ deviceId: device.id, ...point })), now: LATER });
      await sql`update devices set time_zone = 'America/Sao_Paulo' where id = ${device.id}`.execute(db);
      watch.reads.length = 0;
      const more = pointsFrom(T0 + 60 * 30, 60, 3);
      await store.writeTelemetry({ accountId: account.id, points: more.map((point) => ({ deviceId: device.id, ...point })), now: LATER });
      expect(watch.reads).toEqual(['unlocked', 'locked']);
      expect(await verifyDailyFigures(db, { deviceId: device.id })).toEqual({ deviceIds: [device.id], mismatches: [] });
      const { rows } = await sql<{
        figures_time_zone: string;
      }>`select figures_time_zone from device_states where device_id = ${device.id}`.execute(db);
      expect(rows[0]!.figures_time_zone).toBe('America/Sao_Paulo');
    });
  });
}

const pglite = usePGlite();
describeWriteTelemetry('PGlite', pglite, false);

/**
 * P68: how many times the plan of each read of a telemetry write scans `telemetry_points` (its
 * scans of partitions ÷ the partitions in the plan: each reference of the partitioned table scans
 * every partition it may hold), from `explain` of the read as the store compiled it, with its
 * parameters. Nothing is timed: the count is what the read's planning and start-up cost follow.
 */
function readPlans(database: () => Kysely<FleetHoursDatabase>): KyselyPlugin & { explained: Promise<number>[] } {
  const plugin = {
    explained: [] as Promise<number>[],
    transformQuery(args: Parameters<KyselyPlugin['transformQuery']>[0]) {
      if (textOf(args.node).includes('as asked(id, imei, earliest, latest)'))
        plugin.explained.push(_pointScans(database(), args.node, args.queryId));
      return args.node;
    },
    transformResult: async (args: Parameters<KyselyPlugin['transformResult']>[0]) => args.result,
  };
  return plugin;
}

async function _pointScans(
  db: Kysely<FleetHoursDatabase>,
  node: RootOperationNode,
  queryId: Parameters<KyselyPlugin['transformQuery']>[0]['queryId'],
) {
  const compiled = db.getExecutor().compileQuery(node, queryId);
  const { rows } = await db.executeQuery<Record<string, unknown>>(
    CompiledQuery.raw(`explain (format json) ${compiled.sql}`, [...compiled.parameters]),
  );
  const cell = Object.values(rows[0]!)[0];
  const plan = typeof cell === 'string' ? JSON.parse(cell) : cell;
  const scanned: string[] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value !== null && typeof value === 'object') {
      const relation = (value as Record<string, unknown>)['Relation Name'];
      if (typeof relation === 'string' && relation.startsWith('telemetry_points')) scanned.push(relation);
      Object.values(value).forEach(walk);
    }
  };
  walk(plan);
  return scanned.length / new Set(scanned).size;
}

function describeReadPlan(name: string, database: () => Kysely<FleetHoursDatabase>): void {
  it(`P68: the read of a write scans the points' table three times near now, five over every month, on ${name}`, async () => {
    const db = database();
    await resetTables(db);
    const watch = readPlans(database);
    const store = createKyselyStore(db.withPlugin(watch));
    const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
    const devices = await Promise.all(
      ['356307042441013', '356307042441014'].map(
        async (imei) => (await store.createDevice({ accountId: account.id, name: imei, imei, model: 'm', timeZone: 'Europe/Berlin' }))!,
      ),
    );
    const write = (from: number, now: number) =>
      store.writeTelemetry({
        accountId: account.id,
        points: devices.flatMap((device, index) => pointsFrom(from, 20, index).map((point) => ({ imei: device.imei, ...point }))),
        now,
      });
    // Points stored on both sides of each batch: every neighbour is found. The first write creates
    // its month's partition (its first read's plan holds none).
    await write(T0, LATER);
    await Promise.all(watch.explained.splice(0));
    await write(T0 + 3_600, LATER);
    await write(T0 + 1_800, LATER);
    // Near now (P57): the previous point, the next one, the points between.
    expect(await Promise.all(watch.explained.splice(0))).toEqual([3, 3]);
    // Over every month (a batch older than the months near now): each neighbour in its own month, then beyond it.
    await write(T0 + 900, LATER + 200 * 86_400);
    expect(await Promise.all(watch.explained.splice(0))).toEqual([5]);
    expect(await verifyDailyFigures(db)).toEqual({ deviceIds: expect.any(Array), mismatches: [] });
  });
}

describe('P68 on PGlite', () => describeReadPlan('PGlite', pglite));

describeWithPostgres('write-telemetry on PostgreSQL', () => {
  const { db, server } = usePostgresSchema(4);
  /** This schema's counters: rows of `devices` read by whole-table scans, its scans of any kind, points inserted. */
  const counters = async () => {
    // D42: the points' inserts are counted on the month partitions of telemetry_points.
    const { rows } = await sql<{ relname: string; seq_tup_read: string; scans: string; n_tup_ins: string }>`
      select case when relname = 'devices' then 'devices' else 'telemetry_points' end as relname,
             sum(seq_tup_read)::text as seq_tup_read, sum(coalesce(seq_scan, 0) + coalesce(idx_scan, 0))::text as scans,
             sum(n_tup_ins)::text as n_tup_ins
        from pg_stat_user_tables
       where schemaname = current_schema()
         and (relname = 'devices' or relid in (select inhrelid from pg_inherits where inhparent = 'telemetry_points'::regclass))
       group by 1`.execute(db());
    const of = (name: string) => rows.find((row) => row.relname === name)!;
    return {
      devicesRead: Number(of('devices').seq_tup_read),
      devicesScanned: Number(of('devices').scans),
      pointsInserted: Number(of('telemetry_points').n_tup_ins),
    };
  };
  /** The counters once they show `points` points inserted since `before`: a backend reports them when idle, at most once a second. */
  const countersOnce = async (before: Awaited<ReturnType<typeof counters>>, points: number) => {
    let after = await counters();
    for (let waited = 0; after.pointsInserted < before.pointsInserted + points && waited < 20_000; waited += 250) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      after = await counters();
    }
    expect(after.pointsInserted).toBeGreaterThanOrEqual(before.pointsInserted + points);
    return after;
  };
  describeWriteTelemetry('PostgreSQL', db, true);
  describeReadPlan('PostgreSQL', db);

  it('P38: a connection plans the read and the write of a telemetry write five times, then keeps their generic plans', async () => {
    await resetTables(db());
    const setup = createKyselyStore(db());
    const account = await setup.createAccount({ name: 'Acme', plan: 'business', now: T0 });
    const devices = await Promise.all(
      ['356307042441013', '356307042441014', '356307042441015'].map(
        async (imei) => (await setup.createDevice({ accountId: account.id, name: imei, imei, model: 'm', timeZone: 'Europe/Berlin' }))!,
      ),
    );
    // One connection of its own: outside a transaction, the pool sends each statement to any of its
    // connections, and pg_prepared_statements shows only the one that reads it.
    const connection = server().connect({ max: 1 });
    try {
      const store = createKyselyStore(connection);
      // Batches of different sizes and devices: a custom plan would be sized for each.
      for (let round = 0; round < 9; round += 1) {
        const points = devices
          .slice(0, 1 + (round % 3))
          .flatMap((device, index) =>
            pointsFrom(T0 + round * 900, 2 + round * index, round).map((point) => ({ imei: device.imei, ...point })),
          );
        await store.writeTelemetry({ accountId: account.id, points, now: LATER });
      }
      // The read names the months near now (P57): for LATER, December 2025 through February 2026.
      const nearMonths = `%"time" >= '2025-12-01T00:00:00.000Z'::timestamptz and "time" < '2026-03-01T00:00:00.000Z'::timestamptz%`;
      const { rows } = await sql<{ read: boolean; near: boolean; generic_plans: number; custom_plans: number }>`
          select statement like '%as asked(id, imei, earliest, latest)%' as read, statement like ${nearMonths} as near,
                 generic_plans::integer, custom_plans::integer
            from pg_prepared_statements
           where ((statement like '%as asked(id, imei, earliest, latest)%' and statement not like '%for update%') or statement like '%inserted_points as (%')
             and statement not like 'explain %'`.execute(connection);
      // The counts are the connection's since it opened: never more than five custom plans, and the
      // rounds past the fifth on the generic one of the near months' read and of the write.
      expect(
        rows
          .filter(({ read, near }) => !read || near)
          .map(({ read }) => read)
          .sort(),
      ).toEqual([false, true]);
      for (const row of rows) {
        expect(row.custom_plans).toBeLessThanOrEqual(5);
        if (!row.read || row.near) expect(row.generic_plans).toBeGreaterThanOrEqual(4);
      }
    } finally {
      await connection.destroy();
    }
    for (const device of devices) expect((await setup.listTelemetryPoints({ deviceId: device.id })).length).toBeGreaterThan(0);
    expect((await verifyDailyFigures(db())).mismatches).toEqual([]);
  });

  it('P39: with a fleet of 200 devices analyzed, a write reads the fleet at most twice, not four times', async () => {
    await resetTables(db());
    const store = createKyselyStore(db());
    const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
    const fleet: number[] = [];
    for (let index = 0; index < 200; index += 1) {
      fleet.push(
        (await store.createDevice({
          accountId: account.id,
          name: `Truck ${index}`,
          imei: String(356_307_042_500_000 + index),
          model: 'm',
          timeZone: 'UTC',
        }))!.id,
      );
    }
    // As autovacuum leaves a fleet's table: each connection plans its statements again from it.
    await sql`analyze devices`.execute(db());
    const before = await counters();
    const points = pointsFrom(T0, 2_000, 4);
    for (const deviceId of fleet.slice(0, 4)) {
      await store.writeTelemetry({ accountId: account.id, points: points.map((point) => ({ deviceId, ...point })), now: LATER });
    }
    const after = await countersOnce(before, 8_000);
    // With PostgreSQL's default random_page_cost, the plans of a write read a fleet this small
    // whole four times (measured: 3,200 rows for the four writes); with P39 twice at most. (Before
    // P40, every point's key check read it whole: 1.27 M rows.)
    expect(after.devicesRead - before.devicesRead).toBeLessThanOrEqual(4 * 2 * 200);
  });

  it('P40: a write checks its device once, by its row lock, not once for every point, segment and day written', async () => {
    await resetTables(db());
    const store = createKyselyStore(db());
    const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
    const device = (await store.createDevice({
      accountId: account.id,
      name: 'Truck',
      imei: '356307042441099',
      model: 'm',
      timeZone: 'UTC',
    }))!;
    const before = await counters();
    // Four batches of 2,000 points, each a run of engine cycles: thousands of segments and rows.
    for (let batch = 0; batch < 4; batch += 1) {
      await store.writeTelemetry({
        accountId: account.id,
        points: pointsFrom(T0 + batch * 60_000, 2_000, 3).map((point) => ({ deviceId: device.id, ...point })),
        now: LATER,
      });
    }
    const after = await countersOnce(before, 8_000);
    expect((await store.listSegments({ deviceId: device.id })).length).toBeGreaterThan(500);
    // A foreign key would scan the devices' key once for each of the 8,000 points and the segments
    // and days; the writes read and lock their device a few times each (read, lock, record).
    expect(after.devicesScanned - before.devicesScanned).toBeLessThanOrEqual(4 * 5);
  });
});
