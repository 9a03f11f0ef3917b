import type { FleetHoursStore, IdempotencyClaim, IdempotentResponse } from '@fleet-hours/core';
import { assertEpochSeconds } from '@fleet-hours/core/adapter';
import { sql, type Kysely } from 'kysely';
import { isId } from '../sql/sql-values.js';
import { guard } from './storage-error.js';
import type { FleetHoursDatabase } from '../schema/database-schema.js';

/** The methods of the storage port on the keys of idempotent POSTs (D53). */
export type IdempotencyStore = Pick<
  FleetHoursStore,
  'claimIdempotencyKey' | 'completeIdempotencyKey' | 'releaseIdempotencyKey' | 'findIdempotencyKey' | 'removeExpiredIdempotencyKeys'
>;

/** A claim's second look finds the row gone (released or removed in between) at most this often before it gives up. */
const _CLAIM_ATTEMPTS = 5;

/** A row of `idempotency_keys` as read. */
interface _Row {
  readonly account_id: number;
  readonly key: string;
  readonly fingerprint: string;
  readonly claim_id: string;
  readonly created_at: number | string;
  readonly response_status: number | null;
  readonly response_headers: Readonly<Record<string, string>> | string | null;
  readonly response_body: string | null;
}

/**
 * The keys of idempotent POSTs on Kysely (D53).
 *
 * What protects a key (P85): the primary key `(account_id, key)` of `idempotency_keys`. A claim is
 * one `insert … on conflict do update … where`: with no row, one insert wins and every concurrent
 * one waits on its index entry, then finds the row; the `where` lets the update take the row only
 * when it is expired or abandoned (P84), and PostgreSQL evaluates it on the row's newest version
 * under its row lock, so two claims cannot both take an old row. Completing and releasing are
 * single statements conditioned on the claim's id and on no answer yet: a claim overtaken after
 * its lease changes nothing.
 */
export function idempotencyStore(db: Kysely<FleetHoursDatabase>): IdempotencyStore {
  const find = async (accountId: number, key: string): Promise<_Row | null> => {
    const { rows } = await sql<_Row>`
      select account_id, key, fingerprint, claim_id, date_part('epoch', created_at) as created_at,
             response_status, response_headers, response_body
        from idempotency_keys where account_id = ${accountId}::integer and key = ${key}::text`.execute(db);
    return rows[0] ?? null;
  };
  return {
    claimIdempotencyKey: ({ accountId, key, fingerprint, claimId, now, expiredBefore, abandonedBefore }) =>
      guard(async (): Promise<IdempotencyClaim> => {
        assertEpochSeconds('now', now);
        assertEpochSeconds('expiredBefore', expiredBefore);
        assertEpochSeconds('abandonedBefore', abandonedBefore);
        for (let attempt = 1; ; attempt += 1) {
          const { rows } = await sql<{ claimed: number }>`
            insert into idempotency_keys as k (account_id, key, fingerprint, claim_id, created_at)
            values (${accountId}::integer, ${key}::text, ${fingerprint}::text, ${claimId}::text, to_timestamp(${now}::float8))
            on conflict (account_id, key) do update
               set fingerprint = excluded.fingerprint, claim_id = excluded.claim_id, created_at = excluded.created_at,
                   response_status = null, response_headers = null, response_body = null
             where k.created_at < to_timestamp(${expiredBefore}::float8)
                or (k.response_status is null and k.created_at < to_timestamp(${abandonedBefore}::float8))
            returning 1 as claimed`.execute(db);
          if (rows.length > 0) return { state: 'claimed' };
          // The row the insert met is committed: this statement's snapshot is newer. Gone again
          // (released after a 5xx, or removed), the key is free: claim it again.
          const row = await find(accountId, key);
          if (row) {
            const response = _response(row);
            return response === null
              ? { state: 'running', fingerprint: row.fingerprint }
              : { state: 'completed', fingerprint: row.fingerprint, response };
          }
          if (attempt >= _CLAIM_ATTEMPTS) throw new Error(`The idempotency key could not be claimed in ${_CLAIM_ATTEMPTS} attempts`);
        }
      }),

    completeIdempotencyKey: ({ accountId, key, claimId, response }) =>
      guard(async () => {
        const { numAffectedRows } = await sql`
          update idempotency_keys
             set response_status = ${response.status}::integer, response_headers = ${JSON.stringify(response.headers)}::jsonb,
                 response_body = ${response.body}::text
           where account_id = ${accountId}::integer and key = ${key}::text and claim_id = ${claimId}::text
             and response_status is null`.execute(db);
        return Number(numAffectedRows ?? 0) > 0;
      }),

    releaseIdempotencyKey: ({ accountId, key, claimId }) =>
      guard(async () => {
        await sql`
          delete from idempotency_keys
           where account_id = ${accountId}::integer and key = ${key}::text and claim_id = ${claimId}::text
             and response_status is null`.execute(db);
      }),

    findIdempotencyKey: ({ accountId, key }) =>
      guard(async () => {
        if (!isId(accountId)) return null;
        const row = await find(accountId, key);
        if (!row) return null;
        return {
          accountId: Number(row.account_id),
          key: row.key,
          fingerprint: row.fingerprint,
          claimId: row.claim_id,
          createdAt: Number(row.created_at),
          response: _response(row),
        };
      }),

    removeExpiredIdempotencyKeys: ({ before }) =>
      guard(async () => {
        assertEpochSeconds('before', before);
        const { numAffectedRows } = await sql`delete from idempotency_keys where created_at < to_timestamp(${before}::float8)`.execute(db);
        return Number(numAffectedRows ?? 0);
      }),
  };
}

/** The answer of a row; `null` while its request runs. */
function _response(row: _Row): IdempotentResponse | null {
  if (row.response_status === null || row.response_body === null || row.response_headers === null) return null;
  const headers =
    typeof row.response_headers === 'string' ? (JSON.parse(row.response_headers) as Record<string, string>) : row.response_headers;
  return { status: Number(row.response_status), headers: { ...headers }, body: row.response_body };
}
