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
 *   never row by row.
 */
import { sql, type Kysely } from 'kysely';
import type { FleetHoursDatabase } from '../schema/database-schema.js';
import { guard } from '../stores/storage-error.js';

/** Months created ahead of the current one by `migrate` and the maintenance loop. */
export const MONTHS_AHEAD = 2;

/** The advisory lock every creator and dropper of partitions takes (any constant will do: this is `fleet_hours_partitions` hashed once). */
const PARTITIONS_LOCK = 742_000_024;

/** One partition: its name and bounds in epoch seconds (`from` is `null` for `MINVALUE`). */
export interface PointPartition {
  readonly name: string;
  readonly from: number | null;
  readonly to: number;
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
const PARTITION_BOUNDS = sql`
  select c.relname as name,
         date_part('epoch', (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \\(''([^'']+)''\\)'))[1]::timestamptz) as "from",
         date_part('epoch', (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \\(''([^'']+)''\\)'))[1]::timestamptz) as "to"
    from pg_inherits as i join pg_class as c on c.oid = i.inhrelid
   where i.inhparent = 'telemetry_points'::regclass`;

/** The partitions of `telemetry_points` in the connection's schema, oldest first. */
export async function listPointPartitions(db: Kysely<FleetHoursDatabase>): Promise<PointPartition[]> {
  // The bounds as PostgreSQL prints them (in the session's zone), read back by the same session.
  const { rows } = await sql<{ name: string; from: number | null; to: number }>`${PARTITION_BOUNDS}`.execute(db);
  return rows
    .map((row) => ({ name: row.name, from: row.from === null ? null : Number(row.from), to: Number(row.to) }))
    .sort((a, b) => (a.from ?? -Infinity) - (b.from ?? -Infinity));
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
    for (const start of missing(await listPointPartitions(trx))) {
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
  return db.isTransaction ? run(db) : db.transaction().execute(run);
}

/**
 * Detaches and drops every partition whose months all lie before `horizon` (epoch seconds): its
 * upper bound is at or before it. Each is detached first with `detach partition … concurrently`,
 * which waits for the statements using it but never holds a write of another month back (a
 * `drop` of an attached partition would lock the whole table), then dropped on its own: nothing
 * uses it any more. Each is a statement of its own, outside any transaction (as `concurrently`
 * requires).
 *
 * @returns The names of the partitions dropped.
 */
export async function dropPointPartitionsBefore(db: Kysely<FleetHoursDatabase>, horizon: number): Promise<string[]> {
  const dropped: string[] = [];
  for (const partition of await listPointPartitions(db)) {
    if (partition.to > horizon) continue;
    const table = sql.id(partition.name);
    await sql`alter table telemetry_points detach partition ${table} concurrently`.execute(db);
    await sql`drop table ${table}`.execute(db);
    dropped.push(partition.name);
  }
  return dropped;
}

/** What one run of {@link maintainTelemetryPartitions} did. */
export interface TelemetryMaintenance {
  /** The partitions created ahead (D42), by name (`telemetry_points_pYYYYMM`). */
  readonly created: readonly string[];
  /** The partitions dropped (D43), by name. */
  readonly dropped: readonly string[];
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
  options: { readonly now: number; readonly retentionDays: number },
): Promise<TelemetryMaintenance> {
  const { now, retentionDays } = options;
  if (!Number.isSafeInteger(retentionDays) || retentionDays < 0)
    throw new RangeError(`retentionDays must be a whole number ≥ 0, got ${String(retentionDays)}`);
  return guard(async () => {
    let ahead = now;
    for (let month = 0; month < MONTHS_AHEAD; month += 1) ahead = nextMonthStart(ahead);
    const created = await ensurePointPartitions(db, { from: now, to: ahead });
    const horizon = retentionDays > 0 ? now - retentionDays * 86_400 : null;
    const dropped = horizon === null ? [] : await dropPointPartitionsBefore(db, horizon);
    return { created, dropped, horizon };
  });
}

/**
 * Where stored points begin (D43, for `verify`): the lower bound of the oldest partition, `null`
 * when it is open below (no point was ever dropped), or `Infinity` when there is no partition at all.
 */
export async function pointsKeptFrom(db: Kysely<FleetHoursDatabase>): Promise<number | null> {
  // One row, whatever the number of partitions (D36: a check reads bounded rows per statement).
  const { rows } = await sql<{ partitions: number | string; open_below: boolean | null; oldest: number | null }>`
    select count(*) as partitions, bool_or(bounds."from" is null) as open_below, min(bounds."from") as oldest
      from (${PARTITION_BOUNDS}) as bounds`.execute(db);
  const row = rows[0]!;
  if (Number(row.partitions) === 0) return Infinity;
  return row.open_below ? null : Number(row.oldest);
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
