import { sql, type Kysely, type Migration } from 'kysely';

/**
 * D61, D63 (P93–P95): a device's tags and its machine's identity.
 *
 * - `devices.tags`: the tags as given (`text[]`, empty by default), read with the device's row, so
 *   that every read of a device shows them without another join.
 * - `devices.oem_name`, `equipment_model`, `serial_number`, `pin`: optional text.
 * - `device_tags`: one row per device and tag, keyed `(account_id, tag, device_id)`, kept from
 *   `devices.tags` by a trigger in the write's own statement. A page with `tag=` (D49) reads the
 *   devices having the tag from this key in device order, `limit` rows after the cursor: it never
 *   passes a device without the tag, however many the account has. (A GIN index on the array
 *   finds the devices having a tag too, but not in device order: a page of one would read every
 *   device having the tag, then sort them.) A device never changes account.
 */
export const deviceTagsAndIdentityMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`
      alter table devices
        add column tags text[] not null default '{}',
        add column oem_name text,
        add column equipment_model text,
        add column serial_number text,
        add column pin text`.execute(db);
    await sql`
      create table device_tags (
        account_id integer not null,
        tag text not null,
        device_id integer not null references devices (id) on delete cascade,
        primary key (account_id, tag, device_id)
      )`.execute(db);
    // The foreign key's lookups (a device removed) and the trigger's deletes read by device.
    await sql`create index device_tags_device_idx on device_tags (device_id)`.execute(db);
    await sql`
      create function fleet_hours_keep_device_tags() returns trigger
        language plpgsql set search_path from current as $$
      begin
        delete from device_tags where device_id = new.id and not (tag = any (new.tags));
        insert into device_tags (account_id, tag, device_id)
        select new.account_id, tag, new.id from unnest(new.tags) as tag
        on conflict do nothing;
        return null;
      end
      $$`.execute(db);
    await sql`
      create trigger devices_keep_device_tags
        after insert or update of tags on devices
        for each row execute function fleet_hours_keep_device_tags()`.execute(db);
  },

  async down(db: Kysely<unknown>) {
    await sql`drop trigger devices_keep_device_tags on devices`.execute(db);
    await sql`drop function fleet_hours_keep_device_tags()`.execute(db);
    await sql`drop table device_tags`.execute(db);
    await sql`
      alter table devices
        drop column tags, drop column oem_name, drop column equipment_model, drop column serial_number, drop column pin`.execute(db);
  },
};
