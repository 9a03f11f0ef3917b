import { sql, type Kysely, type Migration } from 'kysely';

/**
 * P58: what service pages remember of a device, and the version that says whether it still holds,
 * in one row per device of `service_memos` (none: version 0, nothing remembered).
 *
 * - `version` rises with every change a remembered value depends on. Readings, schedules and a
 *   device's zone raise it through the triggers below, in the transaction of the change, whoever
 *   makes it (SQL outside Fleet Hours included). Telemetry writes and imports raise it in their own
 *   statement when `changesSettledHistory` says so (`sql/device-writes.ts`); a rebuild or repair of
 *   figures or segments raises it too (`raiseServiceMemoVersion`).
 * - `remembered_at_version`, `ok_until` and `engine_before` are what a page remembered, and count
 *   only while `remembered_at_version` is `version`: until when every schedule of the device stays
 *   ok (`null`: not known), and the engine seconds before its readings and last services
 *   (`[[instant, moving, idle], …]`). A page writes them only while the row's version is the one
 *   they were computed from, checked on the row itself.
 */
export const serviceMemosMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`
      create table service_memos (
        device_id integer primary key references devices (id) on delete cascade,
        version bigint not null default 0,
        remembered_at_version bigint,
        ok_until timestamptz,
        engine_before jsonb
      )`.execute(db);
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
        insert into service_memos as memo (device_id, version)
        select device, 1 where exists (select 1 from devices where id = device)
        on conflict (device_id) do update set version = memo.version + 1;
        if TG_OP = 'UPDATE' then
          if TG_TABLE_NAME <> 'devices' then
            -- A row moved to another device changes what both remember.
            if old.device_id <> new.device_id then
              insert into service_memos as memo (device_id, version)
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
    await sql`drop table service_memos`.execute(db);
  },
};
