import type { RateLimitStore } from '@fleet-hours/core';
import { sql, type Kysely } from 'kysely';
import { _guard } from './_storage-error.js';
import type { FleetHoursDatabase } from './database-schema.js';

/**
 * Rate-limit counters on Kysely: one table shared by every server instance on the database (D15).
 * Each store instance deletes ended windows as it sees new ones begin.
 */
export function _rateLimitStore(db: Kysely<FleetHoursDatabase>): RateLimitStore {
  // The newest rate-limit window this instance has seen: when a later one begins, ended windows are deleted.
  let newestWindowStart = -Infinity;
  return {
    consume: ({ key, windowStart, windowSeconds, limit }) =>
      _guard(async () => {
        if (windowStart > newestWindowStart) {
          newestWindowStart = windowStart;
          // Cheap (indexed) and once per window per instance. A window is kept one window past its
          // end, so an instance whose clock runs a little behind still finds its counter.
          await sql`delete from rate_limit_counters where window_end <= to_timestamp(${windowStart - windowSeconds}::float8)`.execute(db);
        }
        // Atomic (D13, D15): the row is created at 1 or raised by one only while below the limit,
        // in one statement, so concurrent requests on every instance are counted exactly once and
        // a refused request changes nothing. When refused, the second branch reads the counter.
        const { rows } = await sql<{ request_count: number; allowed: boolean }>`
          with counted as (
            insert into rate_limit_counters as counter (key, window_start, window_end, request_count)
            select ${key}::text, to_timestamp(${windowStart}::float8), to_timestamp(${windowStart + windowSeconds}::float8), 1
             where ${limit}::integer > 0
            on conflict (key, window_start) do update
               set request_count = counter.request_count + 1
             where counter.request_count < ${limit}::integer
            returning counter.request_count
          )
          select request_count, true as allowed from counted
          union all
          select request_count, false from rate_limit_counters
           where key = ${key}::text and window_start = to_timestamp(${windowStart}::float8) and not exists (select from counted)`.execute(db);
        const row = rows[0];
        // No row at all: a limit of 0, or a counter created by a concurrent request after this
        // statement's snapshot, which then stood at the limit.
        if (!row) return { count: Math.max(0, limit), allowed: false };
        if (row.allowed) return { count: Number(row.request_count), allowed: true };
        // Refused: the upsert saw the newest version of the row at or above the limit, but the
        // second branch reads the statement's snapshot, which can predate concurrent increments
        // (READ COMMITTED). The counter never goes down within a window, so it is at least `limit`.
        return { count: Math.max(limit, Number(row.request_count)), allowed: false };
      }),
  };
}
