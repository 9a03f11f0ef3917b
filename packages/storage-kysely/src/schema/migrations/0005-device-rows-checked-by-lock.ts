import { sql, type Kysely, type Migration } from 'kysely';

/** The per-device tables whose rows only `writeDevices` writes, under their device's row lock (P40). */
const PER_DEVICE_TABLES = ['telemetry_points', 'engine_segments', 'engine_day_figures'] as const;

/**
 * P40: the points, segments and day figures of a device no longer check its key row by row (a
 * foreign key costs a probe of `devices` for every row written: half the time of an import).
 * Every write of them holds its devices' row locks (`writeDevices`), so the device exists until
 * the write commits; deleting devices (directly, or by deleting their account) still takes their
 * rows with them, through a trigger that runs once per statement instead of once per row, and
 * `truncate devices` empties them.
 */
export const deviceRowsCheckedByLockMigration: Migration = {
  async up(db: Kysely<unknown>) {
    for (const table of PER_DEVICE_TABLES) {
      await sql`alter table ${sql.table(table)} drop constraint ${sql.id(`${table}_device_id_fkey`)}`.execute(db);
    }
    // `set search_path from current`: the function finds the tables of the schema it was migrated
    // in, whatever the search_path of the session that deletes a device.
    await sql`
      create function fleet_hours_delete_device_rows() returns trigger
        language plpgsql set search_path from current as $$
      begin
        delete from telemetry_points where device_id in (select id from deleted_devices);
        delete from engine_segments where device_id in (select id from deleted_devices);
        delete from engine_day_figures where device_id in (select id from deleted_devices);
        return null;
      end
      $$`.execute(db);
    await sql`
      create trigger devices_delete_rows after delete on devices
        referencing old table as deleted_devices
        for each statement execute function fleet_hours_delete_device_rows()`.execute(db);
    // `truncate devices` (which took them along with `cascade` before) empties them too: with
    // `delete`, as a `truncate` here would refuse a table the statement that fired it truncates.
    await sql`
      create function fleet_hours_truncate_device_rows() returns trigger
        language plpgsql set search_path from current as $$
      begin
        delete from telemetry_points;
        delete from engine_segments;
        delete from engine_day_figures;
        return null;
      end
      $$`.execute(db);
    await sql`
      create trigger devices_truncate_rows after truncate on devices
        for each statement execute function fleet_hours_truncate_device_rows()`.execute(db);
  },

  async down(db: Kysely<unknown>) {
    await sql`drop trigger devices_truncate_rows on devices`.execute(db);
    await sql`drop function fleet_hours_truncate_device_rows()`.execute(db);
    await sql`drop trigger devices_delete_rows on devices`.execute(db);
    await sql`drop function fleet_hours_delete_device_rows()`.execute(db);
    for (const table of PER_DEVICE_TABLES) {
      await sql`
        alter table ${sql.table(table)}
          add constraint ${sql.id(`${table}_device_id_fkey`)} foreign key (device_id) references devices (id) on delete cascade`.execute(
        db,
      );
    }
  },
};
