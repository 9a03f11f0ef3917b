import { sql, type Kysely, type Migration } from 'kysely';
import { rebuildDeviceFigures } from '../../sql/daily-figures.js';
import type { FleetHoursDatabase } from '../database-schema.js';

/**
 * Per-device, per-local-day figures and lifetime totals of closed segments (D27), so that a window
 * costs its days and the meter a constant, whatever the history. Kept by every write in its own
 * transaction; see `sql/daily-figures.ts`. The figures of existing devices are built here from their
 * segments, in each device's zone.
 */
export const dailyFiguresMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`
      alter table devices
        add column closed_moving_seconds bigint not null default 0,
        add column closed_idle_seconds bigint not null default 0,
        add column figures_time_zone text`.execute(db);
    await sql`
      comment on column devices.figures_time_zone is
        'Zone engine_day_figures of the device were cut in (null: none built yet). After writing engine_segments outside Fleet Hours, run: fleet-hours figures rebuild'
    `.execute(db);

    // Instants are epoch seconds here (bigint): rows are found by the day's start, and reads compare
    // them with the boundaries of a window, which are epoch seconds too.
    await sql`
      create table engine_day_figures (
        device_id integer not null references devices (id) on delete cascade,
        day_start bigint not null,
        day_end bigint not null,
        moving_seconds bigint not null,
        idle_seconds bigint not null,
        constraint engine_day_figures_day_check check (day_end > day_start),
        constraint engine_day_figures_pkey primary key (device_id, day_start) include (day_end, moving_seconds, idle_seconds)
      )`.execute(db);

    const typed = db as unknown as Kysely<FleetHoursDatabase>;
    const { rows } = await sql<{ id: number }>`select id from devices order by id`.execute(typed);
    // In the schema of this migration: totals in `devices` (0009 moves them), no running totals (0007 fills them).
    for (const { id } of rows) await rebuildDeviceFigures(typed, id, undefined, true);
  },

  async down(db: Kysely<unknown>) {
    await sql`drop table engine_day_figures`.execute(db);
    await sql`alter table devices drop column closed_moving_seconds, drop column closed_idle_seconds, drop column figures_time_zone`.execute(
      db,
    );
  },
};
