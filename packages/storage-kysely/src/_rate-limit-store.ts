import type { RateLimitStore } from '@fleet-hours/core';
import type { CredentialCounter } from '@fleet-hours/core/adapter';
import { sql, type Kysely } from 'kysely';
import { _toAccount, _toCredential, type _CredentialRow, type _CredentialTable } from './_credential-store.js';
import { _guard } from './_storage-error.js';
import type { FleetHoursDatabase } from './database-schema.js';

/** The rate-limit store on Kysely, with each credential's lookup and count in one statement. */
export type _RateLimitStore = RateLimitStore & {
  findApiKeyAndConsume: NonNullable<RateLimitStore['findApiKeyAndConsume']>;
  findIngestTokenAndConsume: NonNullable<RateLimitStore['findIngestTokenAndConsume']>;
};

/**
 * Rate-limit counters on Kysely: one table shared by every server instance on the database (D15).
 * Each store instance deletes ended windows as it sees new ones begin.
 */
export function _rateLimitStore(db: Kysely<FleetHoursDatabase>): _RateLimitStore {
  // The newest rate-limit window this instance has seen: when a later one begins, ended windows are deleted.
  let newestWindowStart = -Infinity;

  // A credential of `table` and its count in one statement (two round trips per API request
  // instead of four, one before an ingestion write instead of two). The counter is created or
  // raised only when a credential has this fingerprint, so guesses write nothing; the ended
  // windows are swept in the same statement when a window begins.
  const findAndConsume = (table: _CredentialTable, fingerprint: string, counter: CredentialCounter) =>
    _guard(async () => {
      const { keyPrefix, keySuffix, windowStart, windowSeconds, limit } = counter;
      const sweep = windowStart > newestWindowStart;
      if (sweep) newestWindowStart = windowStart;
      const swept = sweep
        ? sql`swept as (delete from rate_limit_counters where window_end <= to_timestamp(${windowStart - windowSeconds}::float8)),`
        : sql``;
      type Row = _CredentialRow & { account_name: string; account_plan: string; account_created_at: number; counted: number | null; stored: number | null };
      const { rows } = await sql<Row>`
        with ${swept}
        found as (
          select k.id, k.account_id, k.fingerprint, k.label,
                 date_part('epoch', k.created_at) as created_at, date_part('epoch', k.expires_at) as expires_at,
                 date_part('epoch', k.revoked_at) as revoked_at,
                 a.name as account_name, a.plan as account_plan, date_part('epoch', a.created_at) as account_created_at,
                 ${keyPrefix}::text || k.id::text || ${keySuffix}::text as counter_key
            from ${sql.table(table)} as k join accounts as a on a.id = k.account_id
           where k.fingerprint = ${fingerprint}::text
        ),
        counted as (
          insert into rate_limit_counters as counter (key, window_start, window_end, request_count)
          select found.counter_key, to_timestamp(${windowStart}::float8), to_timestamp(${windowStart + windowSeconds}::float8), 1
            from found where ${limit}::integer > 0
          on conflict (key, window_start) do update
             set request_count = counter.request_count + 1
           where counter.request_count < ${limit}::integer
          returning counter.request_count
        )
        select found.*,
               (select request_count from counted) as counted,
               (select request_count from rate_limit_counters
                 where key = found.counter_key and window_start = to_timestamp(${windowStart}::float8)) as stored
          from found`.execute(db);
      const row = rows[0];
      if (!row) return { found: null, count: null };
      const found = {
        credential: _toCredential(row),
        account: _toAccount({ id: row.account_id, name: row.account_name, plan: row.account_plan, created_at: row.account_created_at }),
      };
      // As in consume(): counted is the raised counter; refused, the snapshot's counter (which can
      // predate concurrent increments) is at least the limit; no row at all, a limit of 0.
      if (row.counted !== null) return { found, count: { count: Number(row.counted), allowed: true } };
      return { found, count: { count: row.stored === null ? Math.max(0, limit) : Math.max(limit, Number(row.stored)), allowed: false } };
    });

  return {
    findApiKeyAndConsume: async ({ fingerprint, counter }) => {
      const { found, count } = await findAndConsume('api_keys', fingerprint, counter);
      return { lookup: found && { apiKey: found.credential, account: found.account }, count };
    },

    findIngestTokenAndConsume: async ({ fingerprint, counter }) => {
      const { found, count } = await findAndConsume('ingest_tokens', fingerprint, counter);
      return { lookup: found && { ingestToken: found.credential, account: found.account }, count };
    },

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
