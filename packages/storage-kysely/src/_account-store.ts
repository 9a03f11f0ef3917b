import { type Account, type ApiKeyRecord, type FleetHoursStore } from '@fleet-hours/core';
import { assertEpochSeconds } from '@fleet-hours/core/adapter';
import { sql, type Kysely } from 'kysely';
import { _epoch, _instant, _isId, _seconds } from './_sql-values.js';
import { _guard } from './_storage-error.js';
import type { FleetHoursDatabase } from './database-schema.js';

/** The methods of the storage port on accounts and API keys. */
export type _AccountStore = Pick<
  FleetHoursStore,
  'findApiKey' | 'createAccount' | 'findAccount' | 'listAccounts' | 'setAccountPlan' | 'createApiKey' | 'listApiKeys' | 'revokeApiKey'
>;

/** An `accounts` row as {@link _toAccount} reads it. */
const ACCOUNT_COLUMNS = ['id', 'name', 'plan', _epoch('created_at').as('created_at')] as const;
/** An `api_keys` row as {@link _toApiKey} reads it. */
const API_KEY_COLUMNS = [
  'id',
  'account_id',
  'fingerprint',
  'label',
  _epoch('created_at').as('created_at'),
  _epoch('expires_at').as('expires_at'),
  _epoch('revoked_at').as('revoked_at'),
] as const;

/**
 * Accounts and API keys on Kysely. Nothing is cached: a revoked or expired key fails on its next
 * lookup (D10), on every server instance.
 */
export function _accountStore(db: Kysely<FleetHoursDatabase>): _AccountStore {
  return {
    findApiKey: ({ fingerprint }) =>
      _guard(async () => {
        const row = await db
          .selectFrom('api_keys')
          .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
          .select([
            'api_keys.id',
            'api_keys.account_id',
            'api_keys.fingerprint',
            'api_keys.label',
            _epoch('api_keys.created_at').as('created_at'),
            _epoch('api_keys.expires_at').as('expires_at'),
            _epoch('api_keys.revoked_at').as('revoked_at'),
            'accounts.name as account_name',
            'accounts.plan as account_plan',
            _epoch('accounts.created_at').as('account_created_at'),
          ])
          .where('api_keys.fingerprint', '=', fingerprint)
          .executeTakeFirst();
        if (!row) return null;
        const account = _toAccount({ id: row.account_id, name: row.account_name, plan: row.account_plan, created_at: row.account_created_at });
        return { apiKey: _toApiKey(row), account };
      }),

    createAccount: ({ name, plan, now }) =>
      _guard(async () => {
        assertEpochSeconds('now', now);
        const row = await db.insertInto('accounts').values({ name, plan, created_at: _instant(now) }).returning(ACCOUNT_COLUMNS).executeTakeFirstOrThrow();
        return _toAccount(row);
      }),

    findAccount: ({ accountId }) =>
      _guard(async () => {
        if (!_isId(accountId)) return null;
        const row = await db.selectFrom('accounts').select(ACCOUNT_COLUMNS).where('id', '=', accountId).executeTakeFirst();
        return row ? _toAccount(row) : null;
      }),

    listAccounts: () =>
      _guard(async () => {
        const rows = await db.selectFrom('accounts').select(ACCOUNT_COLUMNS).orderBy('id').execute();
        return rows.map(_toAccount);
      }),

    setAccountPlan: ({ accountId, plan }) =>
      _guard(async () => {
        if (!_isId(accountId)) return null;
        const row = await db.updateTable('accounts').set({ plan }).where('id', '=', accountId).returning(ACCOUNT_COLUMNS).executeTakeFirst();
        return row ? _toAccount(row) : null;
      }),

    createApiKey: ({ accountId, fingerprint, label, expiresAt, now }) =>
      _guard(async () => {
        if (expiresAt !== null) assertEpochSeconds('expiresAt', expiresAt);
        assertEpochSeconds('now', now);
        if (!_isId(accountId)) return null;
        // One statement: the key is written only if the account exists.
        const row = await db
          .insertInto('api_keys')
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
          .returning(API_KEY_COLUMNS)
          .executeTakeFirst();
        return row ? _toApiKey(row) : null;
      }),

    listApiKeys: ({ accountId }) =>
      _guard(async () => {
        if (!_isId(accountId)) return [];
        const rows = await db.selectFrom('api_keys').select(API_KEY_COLUMNS).where('account_id', '=', accountId).orderBy('id').execute();
        return rows.map(_toApiKey);
      }),

    revokeApiKey: ({ keyId, now }) =>
      _guard(async () => {
        assertEpochSeconds('now', now);
        if (!_isId(keyId)) return null;
        // Keeps the first revocation instant; the next findApiKey() sees it (D10): nothing is cached.
        const row = await db
          .updateTable('api_keys')
          .set({ revoked_at: sql<Date>`coalesce(revoked_at, ${_instant(now)})` })
          .where('id', '=', keyId)
          .returning(API_KEY_COLUMNS)
          .executeTakeFirst();
        return row ? _toApiKey(row) : null;
      }),
  };
}

export function _toAccount(row: { id: number; name: string; plan: string; created_at: number }): Account {
  return { id: row.id, name: row.name, plan: row.plan, createdAt: Number(row.created_at) };
}

export function _toApiKey(row: {
  id: number;
  account_id: number;
  fingerprint: string;
  label: string | null;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
}): ApiKeyRecord {
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
