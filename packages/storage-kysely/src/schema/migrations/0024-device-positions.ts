import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Issue 34 (P119): the newest position each device's points carried, one row per device, keyed by
 * `device_id` and co-located with the points (D44). A telemetry write upserts it once per device
 * of the batch that has a positioned point, only when that point is newer (by time, then latitude,
 * then longitude): points themselves keep no position, so a write's cost per point stays the same.
 */
export const devicePositionsMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`
      create table device_positions (
        device_id integer primary key references devices (id) on delete cascade,
        "time" timestamptz not null,
        latitude float8 not null constraint device_positions_latitude_check check (latitude between -90 and 90),
        longitude float8 not null constraint device_positions_longitude_check check (longitude between -180 and 180)
      )`.execute(db);
  },

  async down(db: Kysely<unknown>) {
    await sql`drop table device_positions`.execute(db);
  },
};
