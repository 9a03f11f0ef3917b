import { sql, type Kysely, type Migration } from 'kysely';

/**
 * D65: who gave an hour-meter reading. `hour_meter_readings.source`: `null` for a person's (the API,
 * the CLI: `manual`), `aemp:{id}` for a reading an AEMP source's poll stored. Existing readings are
 * a person's. A poll reads the source's readings of the devices of a page with the readings of those
 * devices (the `(device_id, read_at)` index), so the column needs no index of its own.
 */
export const readingSourcesMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`alter table hour_meter_readings add column source text`.execute(db);
  },

  async down(db: Kysely<unknown>) {
    await sql`alter table hour_meter_readings drop column source`.execute(db);
  },
};
