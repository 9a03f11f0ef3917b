/**
 * The monthly partitions of `telemetry_points` (D42) and their retention (D43), the one place that
 * names, creates, lists and drops them.
 *
 * - A partition holds one calendar month in UTC, `[month start, next month start)`, and is named
 *   `telemetry_points_pYYYYMM`; a database migrated from an unpartitioned version also keeps its
 *   old table as `telemetry_points_before`, everything up to the first month after its newest point.
 * - {@link ensurePointPartitions} creates the months of a span that no partition covers: ahead of
 *   need by `migrate` and the servers' maintenance, and on demand by a write that found none
 *   (`writeTelemetry`). A partition is created as a table of its own and then attached: `attach
 *   partition` locks the parent in `share update exclusive` mode, which lets writes and reads of
 *   the other months run on (a `create table … partition of` would wait for every one of them and
 *   hold the next ones back). Creators take one advisory lock, so two of them never race.
 * - {@link dropPointPartitionsBefore} detaches and drops whole partitions older than the horizon,
 *   never row by row, and records the horizon in the data first (D45, `telemetry_horizon`), in a
 *   session of its own outside the request deadline, one run at a time (D46).
 */
import { sql, type Kysely } from 'kysely';
import type { FleetHoursDatabase } from '../schema/database-schema.js';
import { openMaintenanceSession, type MaintenanceSession } from '../dialect/maintenance-session.js';
import { guard } from '../stores/storage-error.js';
import { inTransaction } from './in-transaction.js';

/** Months created ahead of the current one by `migrate` and the maintenance loop. */
export const MONTHS_AHEAD = 2;

/** The advisory lock every creator and dropper of partitions takes (any constant will do: this is `fleet_hours_partitions` hashed once). */
const PARTITIONS_LOCK = 742_000_024;

/**
 * The session advisory lock of a run that drops partitions (D46), with the schema as the second
 * key: one run at a time per schema, across servers and cron. Held by the run's own session, so it
 * goes with the session when a run is cancelled or its process dies.
 */
const DROP_LOCK = 742_000_025;

/** How long a detach waits for the transactions that read the partitioned table before it leaves the rest to the next run (D46). */
export const DETACH_LOCK_TIMEOUT_SECONDS = 5;

/** One partition: its name and bounds in epoch seconds (`from` is `null` for `MINVALUE`). */
export interface PointPartition {
  readonly name: string;
  readonly from: number | null;
  readonly to: number;
  /** D46: `true` when detached `concurrently` by a run that did not finish (`detach … finalize` completes it); absent otherwise. */
  readonly pending?: boolean;
}

/** The start of the UTC month holding an instant, in epoch seconds. */
export function monthStart(epochSeconds: number): number {
  const date = new Date(epochSeconds * 1000);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1) / 1000;
}

/** The start of the UTC month after the one holding an instant. */
export function nextMonthStart(epochSeconds: number): number {
  const date = new Date(monthStart(epochSeconds) * 1000);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1) / 1000;
}

/** `telemetry_points_pYYYYMM` of the month starting at `start`. */
export function partitionName(start: number): string {
  const date = new Date(start * 1000);
  return `telemetry_points_p${date.getUTCFullYear()}${String(date.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** The partitions of `telemetry_points` with their bounds as epoch seconds (`from` null for `MINVALUE`), as a subquery. */
const PARTITION_BOUNDS_TEXT = String.raw`
  select c.relname as name,
         date_part('epoch', (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \(''([^'']+)''\)'))[1]::timestamptz) as "from",
         date_part('epoch', (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \(''([^'']+)''\)'))[1]::timestamptz) as "to",
         i.inhdetachpending as pending
    from pg_inherits as i join pg_class as c on c.oid = i.inhrelid
   where i.inhparent = 'telemetry_points'::regclass`;
const PARTITION_BOUNDS = sql.raw(PARTITION_BOUNDS_TEXT);

/** The partitions of `telemetry_points` in the connection's schema, oldest first. */
export async function listPointPartitions(db: Kysely<FleetHoursDatabase>): Promise<PointPartition[]> {
  // The bounds as PostgreSQL prints them (in the session's zone), read back by the same session.
  const { rows } = await sql<_PartitionRow>`${PARTITION_BOUNDS}`.execute(db);
  return _partitions(rows);
}

interface _PartitionRow {
  name: string;
  from: number | null;
  to: number;
  pending: boolean;
}

function _partitions(rows: readonly _PartitionRow[]): PointPartition[] {
  return rows
    .map((row) => ({
      name: row.name,
      from: row.from === null ? null : Number(row.from),
      to: Number(row.to),
      ...(row.pending ? { pending: true } : {}),
    }))
    .sort((a, b) => (a.from ?? -Infinity) - (b.from ?? -Infinity));
}

/** D45: the retention horizon recorded in the data (epoch seconds), or `null` when no point was ever dropped. */
export async function readTelemetryHorizon(db: Kysely<FleetHoursDatabase>): Promise<number | null> {
  const { rows } = await sql<{ horizon: number }>`select date_part('epoch', horizon) as horizon from telemetry_horizon`.execute(db);
  return rows[0] === undefined ? null : Number(rows[0].horizon);
}

/**
 * Creates a partition for every month from the one holding `from` through the one holding `to`
 * that no partition covers yet. A span already covered costs one catalog read and takes no lock;
 * otherwise the months still missing are created under the partitions' advisory lock, in a
 * transaction of its own (or the caller's, when `db` is one). A partition another process created
 * meanwhile is found by its name (`to_regclass` reads the catalog as it is now, also in a
 * `serializable` transaction whose snapshot is older), so two creators never clash.
 *
 * @returns The names of the partitions created.
 */
export async function ensurePointPartitions(
  db: Kysely<FleetHoursDatabase>,
  span: { readonly from: number; readonly to: number },
): Promise<string[]> {
  const missing = (partitions: readonly PointPartition[]) => {
    const months: number[] = [];
    for (let start = monthStart(span.from); start <= span.to; start = nextMonthStart(start)) {
      const end = nextMonthStart(start);
      if (!partitions.some((partition) => (partition.from ?? -Infinity) < end && partition.to > start)) months.push(start);
    }
    return months;
  };
  if (missing(await listPointPartitions(db)).length === 0) return [];
  const run = async (trx: Kysely<FleetHoursDatabase>) => {
    await sql`select pg_advisory_xact_lock(${PARTITIONS_LOCK}::bigint)`.execute(trx);
    const created: string[] = [];
    // D45: a month wholly before the recorded horizon was dropped and stays so (its points are refused).
    // (Migration 0008 creates partitions before 0013 made the table.)
    const { rows: made } = await sql<{ found: string | null }>`select to_regclass('telemetry_horizon')::text as found`.execute(trx);
    const horizon = (made[0]?.found ? await readTelemetryHorizon(trx) : null) ?? -Infinity;
    for (const start of missing(await listPointPartitions(trx))) {
      if (nextMonthStart(start) <= horizon) continue;
      const name = partitionName(start);
      const { rows } = await sql<{ found: string | null }>`select to_regclass(${sql.lit(name)})::text as found`.execute(trx);
      if (rows[0]?.found) continue;
      const table = sql.id(name);
      const from = new Date(start * 1000).toISOString();
      const to = new Date(nextMonthStart(start) * 1000).toISOString();
      await sql`create table ${table} (like telemetry_points including defaults including constraints)`.execute(trx);
      // The bounds as a constraint first: `attach` then needs no scan (and the table is empty anyway).
      await sql`alter table ${table} add constraint ${sql.id(`${name}_range`)} check ("time" >= ${sql.lit(from)}::timestamptz and "time" < ${sql.lit(to)}::timestamptz)`.execute(
        trx,
      );
      await sql`alter table telemetry_points attach partition ${table} for values from (${sql.lit(from)}) to (${sql.lit(to)})`.execute(trx);
      await sql`alter table ${table} drop constraint ${sql.id(`${name}_range`)}`.execute(trx);
      created.push(name);
    }
    return created;
  };
  return inTransaction(db, run);
}

/**
 * Detaches and drops every partition whose months all lie before `horizon` (epoch seconds): its
 * upper bound is at or before it; and finishes every detach an earlier run left pending (D46).
 *
 * In a session of its own (`openMaintenanceSession`: no request deadline), under a session
 * advisory lock per schema: a run that finds another one at work skips (it returns nothing and
 * `busy`), so concurrent runs never fail nor drop twice. Before any detach, the horizon — the
 * upper bound of the last partition it drops — is raised in `telemetry_horizon` (D45): from then
 * on every writer refuses a point before it, so a run cancelled anywhere after that leaves a state
 * that is already final and that the next run completes. Each partition is detached with `detach
 * partition … concurrently`, which waits for the transactions reading the table but never holds a
 * write or read of another month back, with `lock_timeout` so that it gives up, leaving the
 * partition pending detach, rather than wait without limit; the next run finishes it with `detach
 * … finalize`. Then it is dropped on its own: nothing uses it any more.
 *
 * @returns The partitions dropped and those left pending detach; `busy` when another run held the lock.
 */
export async function dropPointPartitionsBefore(
  db: Kysely<FleetHoursDatabase>,
  horizon: number,
  options: { readonly lockTimeoutSeconds?: number } = {},
): Promise<{ dropped: string[]; pending: string[]; busy: boolean }> {
  const due = (partitions: readonly PointPartition[]) => partitions.filter((partition) => partition.pending || partition.to <= horizon);
  // The hourly run with nothing to drop costs one catalog read and takes no lock.
  if (due(await listPointPartitions(db)).length === 0) return { dropped: [], pending: [], busy: false };
  return _oneRunAtATime(db, async () => {
    const session = await openMaintenanceSession(db);
    try {
      if (!(await _lockDrops(session))) return { dropped: [], pending: [], busy: true };
      try {
        return { ...(await _dropDue(session, due, options.lockTimeoutSeconds ?? DETACH_LOCK_TIMEOUT_SECONDS)), busy: false };
      } finally {
        if (session.own) await session.query(`select pg_advisory_unlock(${DROP_LOCK}, hashtext(current_schema()))`);
      }
    } finally {
      await session.close();
    }
  });
}

/** The runs of this process, by database: one at a time (PGlite has one session, where an advisory lock would be taken again by every run). */
const _running = new WeakMap<object, Promise<unknown>>();

async function _oneRunAtATime<T>(db: object, run: () => Promise<T>): Promise<T> {
  const before = _running.get(db) ?? Promise.resolve();
  const mine = before.then(run, run);
  _running.set(
    db,
    mine.catch(() => {}),
  );
  return mine;
}

/** Takes the drop lock of the schema for the session, without waiting: `false` when another run holds it. */
async function _lockDrops(session: MaintenanceSession): Promise<boolean> {
  if (!session.own) return true;
  await session.query('set statement_timeout = 0');
  const [row] = await session.query<{ locked: boolean }>(`select pg_try_advisory_lock(${DROP_LOCK}, hashtext(current_schema())) as locked`);
  return row?.locked === true;
}

/** Under the drop lock: records the horizon, then detaches (or finishes detaching) and drops each due partition. */
async function _dropDue(
  session: MaintenanceSession,
  due: (partitions: readonly PointPartition[]) => PointPartition[],
  lockTimeoutSeconds: number,
): Promise<{ dropped: string[]; pending: string[] }> {
  // Listed again under the lock: another run may have dropped some meanwhile.
  const partitions = due(_partitions(await session.query<_PartitionRow>(PARTITION_BOUNDS_TEXT)));
  if (partitions.length === 0) return { dropped: [], pending: [] };
  const recorded = Math.max(...partitions.map((partition) => partition.to));
  // D45: the horizon first, in a statement of its own (committed at once): raised, never lowered.
  await session.query(`
    insert into telemetry_horizon (only_row, horizon) values (true, to_timestamp(${recorded}::float8))
    on conflict (only_row) do update set horizon = greatest(telemetry_horizon.horizon, excluded.horizon)`);
  if (session.own) await session.query(`set lock_timeout = ${Math.max(1, Math.round(lockTimeoutSeconds * 1000))}`);
  const dropped: string[] = [];
  const pending: string[] = [];
  // A pending detach first: PostgreSQL allows one per table, and refuses any other detach until it is finished.
  const ordered = [...partitions.filter((partition) => partition.pending), ...partitions.filter((partition) => !partition.pending)];
  for (const [index, partition] of ordered.entries()) {
    const table = `"${partition.name.replace(/"/g, '""')}"`;
    try {
      await session.query(`alter table telemetry_points detach partition ${table} ${partition.pending ? 'finalize' : 'concurrently'}`);
    } catch (error) {
      // 55P03 lock_not_available: a transaction still reads the table. This partition (pending
      // detach) and the ones after it are left to the next run; all count as dropped already
      // (the horizon is recorded), and no other detach can start while one is pending.
      if (!_isLockTimeout(error)) throw _maintenanceError(partition.name, error);
      pending.push(...ordered.slice(index).map((each) => each.name));
      break;
    }
    await session.query(`drop table ${table}`);
    dropped.push(partition.name);
  }
  return { dropped, pending };
}

function _isLockTimeout(error: unknown): boolean {
  for (let cause: unknown = error, depth = 0; cause && depth < 5; depth += 1) {
    if ((cause as { code?: unknown }).code === '55P03') return true;
    cause = (cause as { cause?: unknown }).cause;
  }
  return false;
}

/** D46: an error of a detach that says what to do, the database's own message after it. */
function _maintenanceError(name: string, error: unknown): Error {
  const reason = error instanceof Error ? error.message : String(error);
  return new Error(
    `Could not detach the telemetry partition ${name}: ${reason}. Nothing was lost: points before the recorded horizon are refused; run \`fleet-hours maintenance\` again to finish it`,
    { cause: error },
  );
}

/** What one run of {@link maintainTelemetryPartitions} did. */
export interface TelemetryMaintenance {
  /** The partitions created ahead (D42), by name (`telemetry_points_pYYYYMM`). */
  readonly created: readonly string[];
  /** The partitions dropped (D43), by name. */
  readonly dropped: readonly string[];
  /**
   * D46: partitions this run left to the next one because transactions still read the table (the
   * first pending detach, the others not detached yet); counted as dropped already: their points
   * are refused and `verify` ignores them.
   */
  readonly pending: readonly string[];
  /** D46: another run held the drop lock, so this one dropped nothing. */
  readonly busy: boolean;
  /** Epoch seconds: points before it may be dropped and are refused; `null` when every point is kept. */
  readonly horizon: number | null;
}

/**
 * The telemetry upkeep that `migrate`, `maintenance` and every running server do (D42, D43):
 * creates the partitions of the current month and the {@link MONTHS_AHEAD} after it that do not
 * exist yet, and, with a retention of `retentionDays` > 0, drops the partitions whose months all lie
 * before the horizon (`now` − that many days), whole: never row by row. Segments, per-day figures
 * and lifetime totals are never touched, so no answer of the read API changes. Safe to run from
 * several processes at once (creators take one advisory lock; a partition already dropped is not
 * listed again).
 *
 * @param db The database.
 * @param options `now` in epoch seconds; `retentionDays` (0: keep every point).
 * @returns The partitions created and dropped, and the horizon.
 * @throws {RangeError} When `retentionDays` is not a whole number ≥ 0.
 * @example
 * ```ts
 * import { createPGliteDatabase, maintainTelemetryPartitions, migrateToLatest } from '@fleet-hours/storage-kysely';
 * const db = await createPGliteDatabase();
 * await migrateToLatest(db);
 * const done = await maintainTelemetryPartitions(db, { now: Date.now() / 1000, retentionDays: 90 });
 * done.dropped; // [] on a fresh database
 * await db.destroy();
 * ```
 */
export function maintainTelemetryPartitions(
  db: Kysely<FleetHoursDatabase>,
  options: { readonly now: number; readonly retentionDays: number; readonly lockTimeoutSeconds?: number },
): Promise<TelemetryMaintenance> {
  const { now, retentionDays } = options;
  if (!Number.isSafeInteger(retentionDays) || retentionDays < 0)
    throw new RangeError(`retentionDays must be a whole number ≥ 0, got ${String(retentionDays)}`);
  return guard(async () => {
    let ahead = now;
    for (let month = 0; month < MONTHS_AHEAD; month += 1) ahead = nextMonthStart(ahead);
    const created = await ensurePointPartitions(db, { from: now, to: ahead });
    const horizon = retentionDays > 0 ? now - retentionDays * 86_400 : null;
    // Without a retention a pending detach is still finished (-Infinity: no other partition is due).
    const drops = await dropPointPartitionsBefore(db, horizon ?? -Infinity, options);
    return { created, ...drops, horizon };
  });
}

/**
 * Where stored points begin (D43, D45, for `verify`): the later of the recorded horizon and the
 * lower bound of the oldest partition not pending detach; `null` when that is open below and no
 * horizon was recorded (no point was ever dropped), or `Infinity` when there is no partition at all.
 */
export async function pointsKeptFrom(db: Kysely<FleetHoursDatabase>): Promise<number | null> {
  // One row, whatever the number of partitions (D36: a check reads bounded rows per statement).
  const { rows } = await sql<{ partitions: number | string; open_below: boolean | null; oldest: number | null; horizon: number | null }>`
    select count(*) as partitions, bool_or(bounds."from" is null) as open_below, min(bounds."from") as oldest,
           (select date_part('epoch', horizon) from telemetry_horizon) as horizon
      from (${PARTITION_BOUNDS}) as bounds where not bounds.pending`.execute(db);
  const row = rows[0]!;
  if (Number(row.partitions) === 0) return Infinity;
  const oldest = row.open_below ? null : Number(row.oldest);
  const horizon = row.horizon === null ? null : Number(row.horizon);
  if (horizon === null) return oldest;
  return oldest === null ? horizon : Math.max(oldest, horizon);
}

/** Whether an error is PostgreSQL's "no partition of relation … found for row" (SQLSTATE 23514 from routing a row). */
export function isMissingPartition(error: unknown): boolean {
  for (let cause: unknown = error, depth = 0; cause && depth < 5; depth += 1) {
    const { code, message } = cause as { code?: unknown; message?: unknown };
    if (code === '23514' && typeof message === 'string' && /no partition of relation/.test(message)) return true;
    cause = (cause as { cause?: unknown }).cause;
  }
  return false;
}
