import { sql, type Kysely, type Migration } from 'kysely';
import type { FleetHoursDatabase } from '../database-schema.js';
import { ensurePointPartitions, MONTHS_AHEAD, nextMonthStart } from '../../sql/point-partitions.js';

/**
 * D42: `telemetry_points` becomes a table range-partitioned by `time`, one partition a month
 * (`sql/point-partitions.ts`), its primary key still `(device_id, "time")`. No point is moved: the
 * old table, when it holds points, is renamed `telemetry_points_before` and attached whole as the
 * partition of everything before the first month boundary after its newest point (after a check
 * constraint that proves its rows fit, so `attach` reads nothing more); an empty one is dropped.
 * Monthly partitions follow from there, through {@link MONTHS_AHEAD} months after the current one.
 * Moving the rows instead would write the whole table again (and its WAL) inside the migration.
 */
export const telemetryPartitionsMigration: Migration = {
  async up(untyped: Kysely<unknown>) {
    const db = untyped as Kysely<FleetHoursDatabase>;
    const newest = (
      await sql<{ newest: number | null }>`select date_part('epoch', max("time")) as newest from telemetry_points`.execute(db)
    ).rows[0]!.newest;
    await sql`alter table telemetry_points rename to telemetry_points_before`.execute(db);
    await sql`alter index telemetry_points_pkey rename to telemetry_points_before_pkey`.execute(db);
    await sql`
      create table telemetry_points (
        device_id integer not null,
        "time" timestamptz not null,
        ignition boolean not null,
        speed_kmh float8 not null constraint telemetry_points_speed_check check (speed_kmh >= 0),
        constraint telemetry_points_pkey primary key (device_id, "time")
      ) partition by range ("time")`.execute(db);
    const now = Date.now() / 1000;
    let from = now;
    if (newest === null) await sql`drop table telemetry_points_before`.execute(db);
    else {
      const boundary = new Date(nextMonthStart(Number(newest)) * 1000).toISOString();
      await sql`alter table telemetry_points_before add constraint telemetry_points_before_range check ("time" < ${sql.lit(boundary)}::timestamptz)`.execute(
        db,
      );
      await sql`alter table telemetry_points attach partition telemetry_points_before for values from (minvalue) to (${sql.lit(boundary)})`.execute(
        db,
      );
      await sql`alter table telemetry_points_before drop constraint telemetry_points_before_range`.execute(db);
      from = Math.max(now, nextMonthStart(Number(newest)));
    }
    await ensurePointPartitions(db, { from, to: _monthsAfter(now, MONTHS_AHEAD) });
  },

  async down(untyped: Kysely<unknown>) {
    const db = untyped as Kysely<FleetHoursDatabase>;
    await sql`alter table telemetry_points rename to telemetry_points_partitioned`.execute(db);
    await sql`alter index telemetry_points_pkey rename to telemetry_points_partitioned_pkey`.execute(db);
    await sql`
      create table telemetry_points (
        device_id integer not null,
        "time" timestamptz not null,
        ignition boolean not null,
        speed_kmh float8 not null constraint telemetry_points_speed_check check (speed_kmh >= 0),
        constraint telemetry_points_pkey primary key (device_id, "time")
      )`.execute(db);
    await sql`insert into telemetry_points select device_id, "time", ignition, speed_kmh from telemetry_points_partitioned`.execute(db);
    await sql`drop table telemetry_points_partitioned`.execute(db);
  },
};

/** An instant `months` months after `epochSeconds` (the start of that month). */
function _monthsAfter(epochSeconds: number, months: number): number {
  let start = epochSeconds;
  for (let month = 0; month < months; month += 1) start = nextMonthStart(start);
  return start;
}
