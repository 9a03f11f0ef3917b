import { sql, type Kysely, type Migration } from 'kysely';

/**
 * D58 (P112): work calendars, one row per place. `account_work_calendars` holds each account's
 * default, `device_work_calendars` each device's own (keyed by the device alone, so that the table
 * can be distributed by `device_id` beside the device's other rows; `account_id` is the device's,
 * kept with it: a device never changes account). `body` is the calendar's JSON as given (`json`,
 * not `jsonb`: kept as text, days and exceptions in their order, never queried into), `null` once
 * removed: the row stays, so that `version`, which counts every change of the place, never goes
 * back. A device's removal removes its row; an account's, its default.
 */
export const workCalendarsMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`
      create table account_work_calendars (
        account_id integer primary key references accounts (id) on delete cascade,
        body json,
        version integer not null constraint account_work_calendars_version_check check (version > 0)
      )`.execute(db);
    await sql`
      create table device_work_calendars (
        device_id integer primary key references devices (id) on delete cascade,
        account_id integer not null,
        body json,
        version integer not null constraint device_work_calendars_version_check check (version > 0)
      )`.execute(db);
  },

  async down(db: Kysely<unknown>) {
    await sql`drop table device_work_calendars`.execute(db);
    await sql`drop table account_work_calendars`.execute(db);
  },
};
