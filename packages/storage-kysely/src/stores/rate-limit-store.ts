import type { RateLimitCount, RateLimitStore } from '@fleet-hours/core';
import type { CredentialCounter } from '@fleet-hours/core/adapter';
import { sql, type Kysely } from 'kysely';
import { toAccount, toCredential, type CredentialRow, type CredentialTable } from './credential-store.js';
import { coalescedByKey } from './coalesced-by-key.js';
import { guard } from './storage-error.js';
import type { FleetHoursDatabase } from '../schema/database-schema.js';

/** One call of `findApiKeyAndConsume` or `findIngestTokenAndConsume`, and its answer. */
interface _FindAndConsumeInput {
  readonly table: CredentialTable;
  readonly fingerprint: string;
  readonly counter: CredentialCounter;
}
interface _FindAndConsumeResult {
  readonly found: { readonly credential: ReturnType<typeof toCredential>; readonly account: ReturnType<typeof toAccount> } | null;
  readonly count: RateLimitCount | null;
}

/** The rate-limit store on Kysely, with each credential's lookup and count in one statement. */
export type KyselyRateLimitStore = RateLimitStore & {
  findApiKeyAndConsume: NonNullable<RateLimitStore['findApiKeyAndConsume']>;
  findIngestTokenAndConsume: NonNullable<RateLimitStore['findIngestTokenAndConsume']>;
};

/**
 * Rate-limit counters on Kysely: one table shared by every server instance on the database (D15).
 * Each store instance deletes ended windows as it sees new ones begin.
 */
export function rateLimitStore(db: Kysely<FleetHoursDatabase>): KyselyRateLimitStore {
  // The newest rate-limit window this instance has seen: when a later one begins, ended windows are deleted.
  let newestWindowStart = -Infinity;

  // A credential of `table` and its count in one statement (two round trips per API request
  // instead of four, one before an ingestion write instead of two). The counter is created or
  // raised only when a credential has this fingerprint, so guesses write nothing; the ended
  // windows are swept in the same statement when a window begins. `requests`: how many requests
  // the statement counts at once (see `findAndConsume` below); it raises the counter by all of
  // them or by none, so that it never passes the limit (D13).
  const lookupAndCount = ({ table, fingerprint, counter }: _FindAndConsumeInput, requests: number) =>
    guard(async () => {
      const { keyPrefix, keySuffix, windowStart, windowSeconds, limit } = counter;
      const sweep = windowStart > newestWindowStart;
      if (sweep) newestWindowStart = windowStart;
      const swept = sweep
        ? sql`swept as (delete from rate_limit_counters where window_end <= to_timestamp(${windowStart - windowSeconds}::float8)),`
        : sql``;
      type Row = CredentialRow & {
        account_name: string;
        account_plan: string;
        account_created_at: number;
        counted: number | null;
        stored: number | null;
      };
      const { rows } = await sql<Row>`
        with ${swept}
        found as (
          select k.id, k.account_id, k.fingerprint, k.label, ${table === 'api_keys' ? sql`k.scope` : sql`null::text`} as scope,
                 date_part('epoch', k.created_at) as created_at, date_part('epoch', k.expires_at) as expires_at,
                 date_part('epoch', k.revoked_at) as revoked_at,
                 a.name as account_name, a.plan as account_plan, date_part('epoch', a.created_at) as account_created_at,
                 ${keyPrefix}::text || k.id::text || ${keySuffix}::text as counter_key
            from ${sql.table(table)} as k join accounts as a on a.id = k.account_id
           where k.fingerprint = ${fingerprint}::text
        ),
        counted as (
          insert into rate_limit_counters as counter (key, window_start, window_end, request_count)
          select found.counter_key, to_timestamp(${windowStart}::float8), to_timestamp(${windowStart + windowSeconds}::float8), ${requests}::integer
            from found where ${requests}::integer <= ${limit}::integer
          on conflict (key, window_start) do update
             set request_count = counter.request_count + ${requests}::integer
           where counter.request_count + ${requests}::integer <= ${limit}::integer
          returning counter.request_count
        )
        select found.*,
               (select request_count from counted) as counted,
               (select request_count from rate_limit_counters
                 where key = found.counter_key and window_start = to_timestamp(${windowStart}::float8)) as stored
          from found`.execute(db);
      const row = rows[0];
      if (!row) return null;
      const found = {
        credential: toCredential(row),
        account: toAccount({ id: row.account_id, name: row.account_name, plan: row.account_plan, created_at: row.account_created_at }),
      };
      return { found, counted: row.counted === null ? null : Number(row.counted), stored: row.stored === null ? null : Number(row.stored) };
    });

  // P35: concurrent calls for one credential and counter do not each make a round trip (D13, D15): while
  // two statements for them run, the calls that arrive wait, and then go together in one statement
  // that counts them all. Its answer is what calls one after another would get: the counter
  // before it, plus one for each call in turn. When the group would pass the limit (it holds the
  // request that reaches it), its calls are counted one by one, as they would have been alone.
  const countGroup = async (input: _FindAndConsumeInput, requests: number): Promise<readonly _FindAndConsumeResult[]> => {
    const { limit } = input.counter;
    const result = await lookupAndCount(input, requests);
    if (result === null) return Array.from({ length: requests }, () => ({ found: null, count: null }));
    const { found, counted, stored } = result;
    if (counted !== null)
      return Array.from({ length: requests }, (_, index) => ({ found, count: { count: counted - requests + index + 1, allowed: true } }));
    // Refused: the upsert saw the newest version of the row at or above the limit (or would have
    // passed it), but `stored` is the statement's snapshot, which can predate concurrent
    // increments (READ COMMITTED). The counter never goes down within a window. No row at all: a
    // limit of 0, or a counter created by a concurrent request after the snapshot.
    if (requests === 1 || limit <= 0 || (stored !== null && stored >= limit)) {
      const count = { count: stored === null ? Math.max(0, limit) : Math.max(limit, stored), allowed: false };
      return Array.from({ length: requests }, () => ({ found, count }));
    }
    const each: _FindAndConsumeResult[] = [];
    for (let index = 0; index < requests; index += 1) each.push((await countGroup(input, 1))[0]!);
    return each;
  };
  const findAndConsume = coalescedByKey(
    ({ table, fingerprint, counter }: _FindAndConsumeInput) =>
      [table, fingerprint, counter.keyPrefix, counter.keySuffix, counter.windowStart, counter.windowSeconds, counter.limit].join('\u0000'),
    (inputs) => countGroup(inputs[0]!, inputs.length),
    2,
  );

  return {
    findApiKeyAndConsume: async ({ fingerprint, counter }) => {
      const { found, count } = await findAndConsume({ table: 'api_keys', fingerprint, counter });
      return { lookup: found && { apiKey: found.credential, account: found.account }, count };
    },

    findIngestTokenAndConsume: async ({ fingerprint, counter }) => {
      const { found, count } = await findAndConsume({ table: 'ingest_tokens', fingerprint, counter });
      return { lookup: found && { ingestToken: found.credential, account: found.account }, count };
    },

    consume: ({ key, windowStart, windowSeconds, limit }) =>
      guard(async () => {
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
           where key = ${key}::text and window_start = to_timestamp(${windowStart}::float8) and not exists (select from counted)`.execute(
          db,
        );
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
