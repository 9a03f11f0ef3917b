import { sql, type Kysely, type Migration } from 'kysely';

/**
 * P66 (D49): what a service page remembers of a device's statuses, beside P58's memo in
 * `service_memos`, and counted like it only while `remembered_at_version` is `version`:
 *
 * - `statuses`: the statuses its schedules have, as bits (1 `ok`, 2 `due_soon`, 4 `overdue`; 0:
 *   no schedule); `null` when not known.
 * - `statuses_until`: until when (exclusive) they stay these whatever the device reports; `null`
 *   with known statuses: for good.
 *
 * And the device's `account_id`, with a row for every device from its creation (a trigger; the
 * existing devices get theirs here): a filtered page walks the account's rows of `service_memos`
 * by `(account_id, device_id)` and skips, on each row alone, the devices remembered to have none
 * of the statuses asked for until after now, before it reads anything else of them. A device never
 * changes account. `account_id` and `device_id` never change, so the raised versions and the
 * memos written stay updates within the row's page (HOT) as before.
 */
export const rememberedStatusesMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`
      alter table service_memos
        add column account_id integer,
        add column statuses smallint,
        add column statuses_until timestamptz`.execute(db);
    await sql`
      insert into service_memos as memo (device_id, account_id)
      select id, account_id from devices
      on conflict (device_id) do update set account_id = excluded.account_id`.execute(db);
    await sql`create index service_memos_account_device_idx on service_memos (account_id, device_id)`.execute(db);
    await sql`
      create function fleet_hours_create_service_memo() returns trigger
        language plpgsql set search_path from current as $$
      begin
        insert into service_memos (device_id, account_id) values (new.id, new.account_id)
        on conflict (device_id) do update set account_id = excluded.account_id;
        return null;
      end
      $$`.execute(db);
    await sql`
      create trigger devices_create_service_memo
        after insert on devices
        for each row execute function fleet_hours_create_service_memo()`.execute(db);
  },

  async down(db: Kysely<unknown>) {
    await sql`drop trigger devices_create_service_memo on devices`.execute(db);
    await sql`drop function fleet_hours_create_service_memo()`.execute(db);
    await sql`drop index service_memos_account_device_idx`.execute(db);
    await sql`alter table service_memos drop column account_id, drop column statuses, drop column statuses_until`.execute(db);
  },
};
