import { sql, type Kysely, type Migration } from 'kysely';

/**
 * P56: every day row of `engine_day_figures` also holds the engine time of the device before that
 * day (`moving_before_seconds`, `idle_before_seconds`: the sums of every earlier row of the device),
 * so that the engine seconds up to any instant are one row and the segments of one day (D38: the
 * hour meter at the instants a service read needs, at a cost that follows neither the history nor
 * the time since a reading). Every write keeps them in its statement (`sql/device-writes.ts`), a
 * rebuild recomputes them (`sql/daily-figures.ts`), and `verify` checks them (D36). Existing rows
 * are filled here, one window pass over the table.
 */
export const dayFigureRunningTotalsMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`
      alter table engine_day_figures
        add column moving_before_seconds bigint not null default 0,
        add column idle_before_seconds bigint not null default 0`.execute(db);
    await sql`
      update engine_day_figures as figure
         set moving_before_seconds = running.moving_before, idle_before_seconds = running.idle_before
        from (
               select device_id, day_start,
                      coalesce(sum(moving_seconds) over earlier, 0) as moving_before,
                      coalesce(sum(idle_seconds) over earlier, 0) as idle_before
                 from engine_day_figures
               window earlier as (partition by device_id order by day_start rows between unbounded preceding and 1 preceding)
             ) as running
       where figure.device_id = running.device_id and figure.day_start = running.day_start
         and (running.moving_before <> 0 or running.idle_before <> 0)`.execute(db);
  },

  async down(db: Kysely<unknown>) {
    await sql`alter table engine_day_figures drop column moving_before_seconds, drop column idle_before_seconds`.execute(db);
  },
};
