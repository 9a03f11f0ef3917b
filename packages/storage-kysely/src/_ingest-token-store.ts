import type { Account, FleetHoursStore, IngestTokenRecord } from '@fleet-hours/core';
import { assertEpochSeconds } from '@fleet-hours/core/adapter';
import { sql, type Kysely } from 'kysely';
import { _epoch, _instant, _isId, _seconds } from './_sql-values.js';
import { _guard } from './_storage-error.js';
import type { FleetHoursDatabase } from './database-schema.js';

/** The methods of the storage port on ingest tokens (D24). */
export type _IngestTokenStore = Pick<FleetHoursStore, 'findIngestToken' | 'createIngestToken' | 'listIngestTokens' | 'revokeIngestToken'>;

/** An `ingest_tokens` row as {@link _toIngestToken} reads it. */
const INGEST_TOKEN_COLUMNS = [
  'id',
  'account_id',
  'fingerprint',
  'label',
  _epoch('created_at').as('created_at'),
  _epoch('expires_at').as('expires_at'),
  _epoch('revoked_at').as('revoked_at'),
] as const;

/**
 * Ingest tokens on Kysely (D24), kept like API keys: by SHA-256 fingerprint only, nothing cached, so
 * a revoked or expired token fails on its next lookup on every server instance.
 */
export function _ingestTokenStore(db: Kysely<FleetHoursDatabase>): _IngestTokenStore {
  return {
    findIngestToken: ({ fingerprint }) =>
      _guard(async () => {
        const row = await db
          .selectFrom('ingest_tokens')
          .innerJoin('accounts', 'accounts.id', 'ingest_tokens.account_id')
          .select([
            'ingest_tokens.id',
            'ingest_tokens.account_id',
            'ingest_tokens.fingerprint',
            'ingest_tokens.label',
            _epoch('ingest_tokens.created_at').as('created_at'),
            _epoch('ingest_tokens.expires_at').as('expires_at'),
            _epoch('ingest_tokens.revoked_at').as('revoked_at'),
            'accounts.name as account_name',
            'accounts.plan as account_plan',
            _epoch('accounts.created_at').as('account_created_at'),
          ])
          .where('ingest_tokens.fingerprint', '=', fingerprint)
          .executeTakeFirst();
        if (!row) return null;
        const account: Account = { id: row.account_id, name: row.account_name, plan: row.account_plan, createdAt: Number(row.account_created_at) };
        return { ingestToken: _toIngestToken(row), account };
      }),

    createIngestToken: ({ accountId, fingerprint, label, expiresAt, now }) =>
      _guard(async () => {
        if (expiresAt !== null) assertEpochSeconds('expiresAt', expiresAt);
        assertEpochSeconds('now', now);
        if (!_isId(accountId)) return null;
        // One statement: the token is written only if the account exists.
        const row = await db
          .insertInto('ingest_tokens')
          .columns(['account_id', 'fingerprint', 'label', 'created_at', 'expires_at'])
          .expression((eb) =>
            eb
              .selectFrom('accounts')
              .select([
                'accounts.id',
                sql<string>`${fingerprint}::text`.as('fingerprint'),
                sql<string | null>`${label}::text`.as('label'),
                _instant(now).as('created_at'),
                _instant(expiresAt).as('expires_at'),
              ])
              .where('accounts.id', '=', accountId),
          )
          .returning(INGEST_TOKEN_COLUMNS)
          .executeTakeFirst();
        return row ? _toIngestToken(row) : null;
      }),

    listIngestTokens: ({ accountId }) =>
      _guard(async () => {
        if (!_isId(accountId)) return [];
        const rows = await db.selectFrom('ingest_tokens').select(INGEST_TOKEN_COLUMNS).where('account_id', '=', accountId).orderBy('id').execute();
        return rows.map(_toIngestToken);
      }),

    revokeIngestToken: ({ tokenId, now }) =>
      _guard(async () => {
        assertEpochSeconds('now', now);
        if (!_isId(tokenId)) return null;
        // Keeps the first revocation instant; the next findIngestToken() sees it (D24).
        const row = await db
          .updateTable('ingest_tokens')
          .set({ revoked_at: sql<Date>`coalesce(revoked_at, ${_instant(now)})` })
          .where('id', '=', tokenId)
          .returning(INGEST_TOKEN_COLUMNS)
          .executeTakeFirst();
        return row ? _toIngestToken(row) : null;
      }),
  };
}

function _toIngestToken(row: {
  id: number;
  account_id: number;
  fingerprint: string;
  label: string | null;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
}): IngestTokenRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    fingerprint: row.fingerprint,
    label: row.label,
    createdAt: Number(row.created_at),
    expiresAt: _seconds(row.expires_at),
    revokedAt: _seconds(row.revoked_at),
  };
}
