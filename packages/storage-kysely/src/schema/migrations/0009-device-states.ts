import { sql, type Kysely, type Migration } from 'kysely';

/**
 * D44: what every telemetry write and import changes of a device — the version D35's writes check
 * (the row's `xmin`), `last_reported_at`, the lifetime totals of closed segments, the longest
 * segment and the zone of the day figures — moves out of `devices` (a reference table in a
 * distributed layout: a copy on every node) into `device_states`, one row per device keyed by
 * `device_id` and distributed with the points, segments and figures. A device's row is then
 * written only when the device itself changes. Every existing device gets its row here; new ones
 * get theirs from a trigger on `devices`, in the statement that inserts them, so every way of
 * creating a device (the store, SQL by hand) has one; deleting or truncating devices takes their
 * rows along like their points (P40).
 */
export const deviceStatesMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`
      create table device_states (
        device_id integer not null constraint device_states_pkey primary key,
        last_reported_at timestamptz,
        longest_segment_seconds bigint not null default 0,
        closed_moving_seconds bigint not null default 0,
        closed_idle_seconds bigint not null default 0,
        figures_time_zone text
      )`.execute(db);
    await sql`
      comment on column device_states.longest_segment_seconds is
        'Longest closed engine segment of the device, in seconds. Window queries read segments starting from (window start - this), so keep it up to date when writing engine_segments outside Fleet Hours'
    `.execute(db);
    await sql`
      insert into device_states (device_id, last_reported_at, longest_segment_seconds, closed_moving_seconds, closed_idle_seconds, figures_time_zone)
      select id, last_reported_at, longest_segment_seconds, closed_moving_seconds, closed_idle_seconds, figures_time_zone from devices`.execute(
      db,
    );
    await sql`
      alter table devices
        drop column last_reported_at, drop column longest_segment_seconds, drop column closed_moving_seconds,
        drop column closed_idle_seconds, drop column figures_time_zone`.execute(db);
    await sql`
      create function fleet_hours_insert_device_states() returns trigger
        language plpgsql set search_path from current as $$
      begin
        insert into device_states (device_id) select id from inserted_devices;
        return null;
      end
      $$`.execute(db);
    await sql`
      create trigger devices_insert_states after insert on devices
        referencing new table as inserted_devices
        for each statement execute function fleet_hours_insert_device_states()`.execute(db);
    await _deleteFunctions(db, ['telemetry_points', 'engine_segments', 'engine_day_figures', 'device_states']);
  },

  async down(db: Kysely<unknown>) {
    await _deleteFunctions(db, ['telemetry_points', 'engine_segments', 'engine_day_figures']);
    await sql`drop trigger devices_insert_states on devices`.execute(db);
    await sql`drop function fleet_hours_insert_device_states()`.execute(db);
    await sql`
      alter table devices
        add column last_reported_at timestamptz, add column longest_segment_seconds bigint not null default 0,
        add column closed_moving_seconds bigint not null default 0, add column closed_idle_seconds bigint not null default 0,
        add column figures_time_zone text`.execute(db);
    await sql`
      update devices
         set last_reported_at = state.last_reported_at, longest_segment_seconds = state.longest_segment_seconds,
             closed_moving_seconds = state.closed_moving_seconds, closed_idle_seconds = state.closed_idle_seconds,
             figures_time_zone = state.figures_time_zone
        from device_states as state where state.device_id = devices.id`.execute(db);
    await sql`drop table device_states`.execute(db);
  },
};

/** The functions of the triggers `devices_delete_rows` and `devices_truncate_rows` (P40) over `tables`. */
async function _deleteFunctions(db: Kysely<unknown>, tables: readonly string[]): Promise<void> {
  const deletes = tables.map((table) => `delete from ${table} where device_id in (select id from deleted_devices);`).join('\n        ');
  const empties = tables.map((table) => `delete from ${table};`).join('\n        ');
  await sql`
    create or replace function fleet_hours_delete_device_rows() returns trigger
      language plpgsql set search_path from current as $$
    begin
      ${sql.raw(deletes)}
      return null;
    end
    $$`.execute(db);
  await sql`
    create or replace function fleet_hours_truncate_device_rows() returns trigger
      language plpgsql set search_path from current as $$
    begin
      ${sql.raw(empties)}
      return null;
    end
    $$`.execute(db);
}
