import { sql, type Kysely, type Migration } from 'kysely';

/**
 * D64, D65 (P156): the idle an AEMP source gave with a reading. `hour_meter_readings.idle_seconds`:
 * the source's `CumulativeIdleHours` at the reading's instant, whole seconds; `null` for a person's
 * reading and for a source's that gave none. Existing readings gave none.
 */
export const readingIdleMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`alter table hour_meter_readings add column idle_seconds bigint check (idle_seconds >= 0)`.execute(db);
  },

  async down(db: Kysely<unknown>) {
    await sql`alter table hour_meter_readings drop column idle_seconds`.execute(db);
  },
};
