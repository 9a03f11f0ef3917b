import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Rate-limit counters shared by every server instance on the database (D13, D15).
 *
 * `unlogged`: a counter lives for a minute, so it is not worth a WAL record. After a crash the
 * table comes back empty, which at worst grants one extra minute of budget.
 */
export const rateLimitCountersMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`
      create unlogged table rate_limit_counters (
        key text not null,
        window_start timestamptz not null,
        window_end timestamptz not null,
        request_count integer not null check (request_count > 0),
        constraint rate_limit_counters_pkey primary key (key, window_start)
      )`.execute(db);
    await sql`create index rate_limit_counters_window_end_idx on rate_limit_counters (window_end)`.execute(db);
  },

  async down(db: Kysely<unknown>) {
    await sql`drop table rate_limit_counters`.execute(db);
  },
};
