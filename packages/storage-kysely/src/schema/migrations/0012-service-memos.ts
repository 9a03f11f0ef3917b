import { sql, type Kysely, type Migration } from 'kysely';

/**
 * P58: what a service read remembers between reads, and the version that says whether it still
 * holds.
 *
 * - `service_memo_versions`: one row per device (none: version 0), raised by every change a
 *   remembered value depends on. Readings, schedules and a device's zone raise it through the
 *   triggers below, in the transaction of the change, whoever makes it. Telemetry writes and
 *   imports raise it in their own statement when `changesSettledHistory` says so
 *   (`sql/device-writes.ts`); `rebuildDailyFigures` raises every device's.
 * - On `hour_meter_readings` and `service_schedules`: the engine seconds before the reading's
 *   `read_at` (the schedule's `last_done_at`), and for a schedule until when it stays `ok`, each
 *   with the version it was remembered at. Writing them changes none of the columns the triggers
 *   watch.
 */
export const serviceMemosMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`
      create table service_memo_versions (
        device_id integer primary key references devices (id) on delete cascade,
        version bigint not null
      )`.execute(db);
    await sql`
      alter table hour_meter_readings
        add column engine_memo_version bigint, add column moving_before_seconds bigint, add column idle_before_seconds bigint`.execute(db);
    await sql`
      alter table service_schedules
        add column engine_memo_version bigint, add column moving_before_seconds bigint, add column idle_before_seconds bigint,
        add column ok_memo_version bigint, add column ok_until timestamptz`.execute(db);
    // A device deleted with its readings (the cascade runs after the device is gone) raises nothing.
    await sql`
      create function fleet_hours_raise_service_memo_version() returns trigger
        language plpgsql set search_path from current as $$
      declare
        device integer;
      begin
        if TG_TABLE_NAME = 'devices' then
          device := new.id;
        elsif TG_OP = 'DELETE' then
          device := old.device_id;
        else
          device := new.device_id;
        end if;
        insert into service_memo_versions as memo (device_id, version)
        select device, 1 where exists (select 1 from devices where id = device)
        on conflict (device_id) do update set version = memo.version + 1;
        if TG_OP = 'UPDATE' then
          if TG_TABLE_NAME <> 'devices' then
            -- A row moved to another device changes what both remember.
            if old.device_id <> new.device_id then
              insert into service_memo_versions as memo (device_id, version)
              select old.device_id, 1 where exists (select 1 from devices where id = old.device_id)
              on conflict (device_id) do update set version = memo.version + 1;
            end if;
          end if;
        end if;
        return null;
      end
      $$`.execute(db);
    await sql`
      create trigger hour_meter_readings_raise_memo_version
        after insert or delete or update of device_id, read_at, reading_seconds on hour_meter_readings
        for each row execute function fleet_hours_raise_service_memo_version()`.execute(db);
    await sql`
      create trigger service_schedules_raise_memo_version
        after insert or delete or update of device_id, interval_seconds, interval_days, due_soon_seconds, due_soon_days,
          last_done_at, last_done_hour_meter_seconds on service_schedules
        for each row execute function fleet_hours_raise_service_memo_version()`.execute(db);
    await sql`
      create trigger devices_raise_memo_version
        after update of time_zone on devices
        for each row when (old.time_zone is distinct from new.time_zone)
        execute function fleet_hours_raise_service_memo_version()`.execute(db);
  },

  async down(db: Kysely<unknown>) {
    await sql`drop trigger devices_raise_memo_version on devices`.execute(db);
    await sql`drop trigger service_schedules_raise_memo_version on service_schedules`.execute(db);
    await sql`drop trigger hour_meter_readings_raise_memo_version on hour_meter_readings`.execute(db);
    await sql`drop function fleet_hours_raise_service_memo_version()`.execute(db);
    await sql`
      alter table service_schedules
        drop column engine_memo_version, drop column moving_before_seconds, drop column idle_before_seconds,
        drop column ok_memo_version, drop column ok_until`.execute(db);
    await sql`
      alter table hour_meter_readings
        drop column engine_memo_version, drop column moving_before_seconds, drop column idle_before_seconds`.execute(db);
    await sql`drop table service_memo_versions`.execute(db);
  },
};
