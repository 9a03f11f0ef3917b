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
function readPlans<T = number>(
  database: () => Kysely<FleetHoursDatabase>,
  measure: (plan: unknown) => T = _pointScans as (plan: unknown) => T,
  analyze = false,
): KyselyPlugin & { explained: Promise<T>[] } {
  const plugin = {
    explained: [] as Promise<T>[],
    transformQuery(args: Parameters<KyselyPlugin['transformQuery']>[0]) {
      if (textOf(args.node).includes('as asked(id, imei, earliest, latest)'))
        plugin.explained.push(_explain(database(), args.node, args.queryId, analyze).then(measure));
      return args.node;
    },
    transformResult: async (args: Parameters<KyselyPlugin['transformResult']>[0]) => args.result,
  };
  return plugin;
}

/** The plan of a statement as the store compiled it, with its parameters (`explain (format json)`, or with `analyze`: run). */
async function _explain(
  db: Kysely<FleetHoursDatabase>,
  node: RootOperationNode,
  queryId: Parameters<KyselyPlugin['transformQuery']>[0]['queryId'],
  analyze = false,
): Promise<unknown> {
  const compiled = db.getExecutor().compileQuery(node, queryId);
  const { rows } = await db.executeQuery<Record<string, unknown>>(
    CompiledQuery.raw(`explain (${analyze ? 'analyze, ' : ''}format json) ${compiled.sql}`, [...compiled.parameters]),
  );
  const cell = Object.values(rows[0]!)[0];
  return typeof cell === 'string' ? JSON.parse(cell) : cell;
}

/** The partitions of `telemetry_points` a plan (or part of one) scans, once per scan. */
function _pointRelations(plan: unknown): string[] {
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
  return scanned;
}

function _pointScans(plan: unknown): number {
  const scanned = _pointRelations(plan);
  return scanned.length / new Set(scanned).size;
}

/**
 * P69: the plan nodes that scan `telemetry_points` for a single row, as the neighbour lookups do
 * (a `Limit` over the scans), and the ones that aggregate what they scan (`Aggregate`), each
 * counted when the scans are its own: below it, not in a plan of its own (an init plan or a
 * subplan), and with no other `Limit` or `Aggregate` between.
 */
function _pointLookups(plan: unknown): { limited: number; aggregated: number } {
  const found = { limited: 0, aggregated: 0 };
  const visit = (node: _PlanNode): void => {
    const kind = node['Node Type'];
    if ((kind === 'Limit' || kind === 'Aggregate') && _scansOwnPoints(node)) found[kind === 'Limit' ? 'limited' : 'aggregated'] += 1;
    for (const child of node.Plans ?? []) visit(child);
  };
  for (const root of plan as { Plan: _PlanNode }[]) visit(root.Plan);
  return found;
}

/** P69: the rows the scans of `telemetry_points` in an analyzed plan returned, over all their loops. */
function _pointRowsRead(plan: unknown): number {
  let read = 0;
  const visit = (node: _PlanNode & { 'Actual Rows'?: number; 'Actual Loops'?: number }): void => {
    if (node['Relation Name']?.startsWith('telemetry_points')) read += (node['Actual Rows'] ?? 0) * (node['Actual Loops'] ?? 0);
    for (const child of node.Plans ?? []) visit(child);
  };
  for (const root of plan as { Plan: _PlanNode }[]) visit(root.Plan);
  return read;
}

interface _PlanNode {
  readonly 'Node Type': string;
  readonly 'Parent Relationship'?: string;
  readonly 'Relation Name'?: string;
  readonly Plans?: readonly _PlanNode[];
}

/** Whether `node`'s own rows come from a scan of `telemetry_points` with no `Limit` or `Aggregate` between. */
function _scansOwnPoints(node: _PlanNode): boolean {
  return (node.Plans ?? []).some(function own(child: _PlanNode): boolean {
    if (child['Parent Relationship'] === 'InitPlan' || child['Parent Relationship'] === 'SubPlan') return false;
    if (child['Node Type'] === 'Limit' || child['Node Type'] === 'Aggregate') return false;
    if (child['Relation Name']?.startsWith('telemetry_points')) return true;
    return (child.Plans ?? []).some(own);
  });
}

function describeReadPlan(name: string, database: () => Kysely<FleetHoursDatabase>): void {
  it(`P68: the read of a write scans the points' table four times near now, six over every month, on ${name}`, async () => {
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
    // Near now (P57): the probe of the point at the last report (P69), the previous point, the next
    // one, the points between.
    expect(await Promise.all(watch.explained.splice(0))).toEqual([4, 4]);
    // Over every month (a batch older than the months near now): the probe, each neighbour in its
    // own month, then beyond it.
    await write(T0 + 900, LATER + 200 * 86_400);
    expect(await Promise.all(watch.explained.splice(0))).toEqual([6]);
    expect(await verifyDailyFigures(db)).toEqual({ deviceIds: expect.any(Array), mismatches: [] });
  });

  it(`P69: the read of a write finds each neighbour as one row of an ordered scan, never by aggregating the device's points, on ${name}`, async () => {
    const db = database();
    await resetTables(db);
    const watch = readPlans(database, _pointLookups);
    const store = createKyselyStore(db.withPlugin(watch));
    const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
    const device = (await store.createDevice({
      accountId: account.id,
      name: 'Truck',
      imei: '356307042441015',
      model: 'm',
      timeZone: 'Europe/Berlin',
    }))!;
    const write = (from: number, count: number, now: number) =>
      store.writeTelemetry({
        accountId: account.id,
        points: pointsFrom(from, count, 0).map((point) => ({ imei: device.imei, ...point })),
        now,
      });
    await write(T0, 200, LATER);
    // Another device's point in the next month: the months near now then span two partitions, and
    // an aggregate over both (no order to keep) looks cheaper to the planner than ordered scans.
    const other = (await store.createDevice({
      accountId: account.id,
      name: 'Van',
      imei: '356307042441016',
      model: 'm',
      timeZone: 'Europe/Berlin',
    }))!;
    await store.writeTelemetry({
      accountId: account.id,
      points: [{ imei: other.imei, time: LATER + 86_400, ignition: true, speedKmh: 5 }],
      now: LATER + 86_400,
    });
    await sql`analyze`.execute(db);
    await Promise.all(watch.explained.splice(0));
    // A live write after the device's stored points (near now), and one in the middle of them, a
    // batch older than the months near now (over every month: each neighbour looked for in its own
    // month first, then beyond).
    await write(T0 + 20_000, 1, LATER);
    await write(T0 + 1_230, 1, LATER + 200 * 86_400);
    const lookups = await Promise.all(watch.explained.splice(0));
    expect(lookups).toEqual([
      { limited: 2, aggregated: 1 },
      { limited: 4, aggregated: 1 },
    ]);
  });

  it(`P74: the read of a live write names only its own month's partition, on ${name}`, async () => {
    const db = database();
    await resetTables(db);
    const watch = readPlans(database, (plan) => [...new Set(_pointRelations(plan))].sort());
    const store = createKyselyStore(db.withPlugin(watch));
    const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
    const [truck, van] = await Promise.all(
      ['356307042441018', '356307042441019'].map(
        async (imei) => (await store.createDevice({ accountId: account.id, name: imei, imei, model: 'm', timeZone: 'Europe/Berlin' }))!,
      ),
    );
    // Partitions for December, January and February: the months near LATER (January 31st).
    for (const time of [T0 - 86_400, T0 + 40 * 86_400])
      await store.writeTelemetry({ accountId: account.id, points: [{ imei: van!.imei, time, ignition: true, speedKmh: 5 }], now: time });
    await store.writeTelemetry({
      accountId: account.id,
      points: pointsFrom(T0, 20, 0).map((point) => ({ imei: truck!.imei, ...point })),
      now: LATER,
    });
    await Promise.all(watch.explained.splice(0));
    // A live write of January: January's partition alone (the three months before P74).
    await store.writeTelemetry({
      accountId: account.id,
      points: pointsFrom(T0 + 3_600, 5, 0).map((point) => ({ imei: truck!.imei, ...point })),
      now: LATER,
    });
    expect(await Promise.all(watch.explained.splice(0))).toEqual([['telemetry_points_p202601']]);
    // The van's first report of January follows its December point: read again over every month, once.
    await store.writeTelemetry({
      accountId: account.id,
      points: [{ imei: van!.imei, time: T0 + 7_200, ignition: true, speedKmh: 5 }],
      now: LATER,
    });
    const reads = await Promise.all(watch.explained.splice(0));
    expect(reads).toHaveLength(2);
    expect(reads[0]).toEqual(['telemetry_points_p202601']);
    expect(reads[1]).toEqual(expect.arrayContaining(['telemetry_points_p202512', 'telemetry_points_p202601', 'telemetry_points_p202602']));
    expect(await verifyDailyFigures(db)).toEqual({ deviceIds: expect.any(Array), mismatches: [] });
  });

  it(`P69: a live write reads one stored point of its device however many it has, on ${name}`, async () => {
    const db = database();
    await resetTables(db);
    const watch = readPlans(database, _pointRowsRead, true);
    const store = createKyselyStore(db.withPlugin(watch));
    const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
    const device = (await store.createDevice({
      accountId: account.id,
      name: 'Truck',
      imei: '356307042441017',
      model: 'm',
      timeZone: 'Europe/Berlin',
    }))!;
    const write = (from: number, count: number) =>
      store.writeTelemetry({
        accountId: account.id,
        points: pointsFrom(from, count, 0).map((point) => ({ imei: device.imei, ...point })),
        now: LATER,
      });
    // Statistics taken while the device had few points, as a plan is often made while a fleet
    // starts to report: they make the planner think aggregating its points is cheap.
    await write(T0, 5);
    await sql`analyze`.execute(db);
    await write(T0 + 150, 1_995);
    await Promise.all(watch.explained.splice(0));
    // After the last stored point (T0 + 59,970): the point before it, found by one probe of the key,
    // and then read as the range of stored points the write re-derives from: one row each.
    await write(T0 + 60_000, 5);
    expect(await Promise.all(watch.explained.splice(0))).toEqual([2]);
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
      // The read names the batch's own months when they are near now (P57, P74): January 2026.
      const nearMonths = `%"time" >= '2026-01-01T00:00:00.000Z'::timestamptz and "time" < '2026-02-01T00:00:00.000Z'::timestamptz%`;
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
