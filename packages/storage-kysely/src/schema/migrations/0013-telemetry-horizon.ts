import { sql, type Kysely, type Migration } from 'kysely';

/**
 * D45: the retention horizon belongs to the data. `telemetry_horizon` holds at most one row: the
 * first instant from which every telemetry point is still stored. Maintenance raises it (never
 * lowers it) before it detaches a partition, in a statement of its own, so every writer — whatever
 * its own retention setting — refuses a point before it from then on (P59).
 */
export const telemetryHorizonMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`
      create table telemetry_horizon (
        only_row boolean primary key default true check (only_row),
        horizon timestamptz not null
      )`.execute(db);
  },

  async down(db: Kysely<unknown>) {
    await sql`drop table telemetry_horizon`.execute(db);
  },
};
