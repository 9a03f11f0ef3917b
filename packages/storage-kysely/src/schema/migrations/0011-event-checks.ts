import { sql, type Kysely, type Migration } from 'kysely';

/**
 * P53: the devices whose events a write asked to check (D40), one row per device, written by the
 * write's own statement (`sql/device-writes.ts`): a committed write always leaves its check behind,
 * whatever happens to the server after the commit. `version` counts the writes since the row was
 * made; a check clears the row only at the version it read, so a write that came during the check
 * leaves it for the next one. No foreign key (P40): the checks of a deleted device are cleared by
 * the next check, which finds no device.
 */
export const eventChecksMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`
      create table event_checks (
        device_id integer primary key,
        version bigint not null default 1
      )`.execute(db);
  },

  async down(db: Kysely<unknown>) {
    await sql`drop table event_checks`.execute(db);
  },
};
