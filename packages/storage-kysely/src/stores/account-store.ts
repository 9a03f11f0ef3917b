import type { FleetHoursStore } from '@fleet-hours/core';
import { assertEpochSeconds } from '@fleet-hours/core/adapter';
import type { Kysely } from 'kysely';
import { _credentialQueries, _toAccount } from './_credential-store.js';
import { _epoch, _instant, _isId } from './_sql-values.js';
import { _guard } from './_storage-error.js';
import type { FleetHoursDatabase } from './database-schema.js';

/** The methods of the storage port on accounts and API keys. */
export type _AccountStore = Pick<
  FleetHoursStore,
  'findApiKey' | 'createAccount' | 'findAccount' | 'listAccounts' | 'setAccountPlan' | 'createApiKey' | 'listApiKeys' | 'revokeApiKey'
>;

/** An `accounts` row as {@link _toAccount} reads it. */
const ACCOUNT_COLUMNS = ['id', 'name', 'plan', _epoch('created_at').as('created_at')] as const;

/**
 * Accounts and API keys on Kysely. Nothing is cached: a revoked or expired key fails on its next
 * lookup (D10), on every server instance.
 */
export function _accountStore(db: Kysely<FleetHoursDatabase>): _AccountStore {
  const apiKeys = _credentialQueries(db, 'api_keys', 'apiKey');
  return {
    findApiKey: ({ fingerprint }) => apiKeys.find(fingerprint),

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

    createApiKey: (input) => apiKeys.create(input),
    listApiKeys: ({ accountId }) => apiKeys.list(accountId),
    revokeApiKey: ({ keyId, now }) => apiKeys.revoke(keyId, now),
  };
}
