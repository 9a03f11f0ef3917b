import type { FleetHoursStore } from '@fleet-hours/core';
import { assertEpochSeconds } from '@fleet-hours/core/adapter';
import type { Kysely } from 'kysely';
import { credentialQueries, toAccount } from './credential-store.js';
import { epochSeconds, instantOf, isId } from '../sql/sql-values.js';
import { guard } from './storage-error.js';
import type { FleetHoursDatabase } from '../schema/database-schema.js';

/** The methods of the storage port on accounts and API keys. */
export type AccountStore = Pick<
  FleetHoursStore,
  'findApiKey' | 'createAccount' | 'findAccount' | 'listAccounts' | 'setAccountPlan' | 'createApiKey' | 'listApiKeys' | 'revokeApiKey'
>;

/** An `accounts` row as {@link toAccount} reads it. */
const ACCOUNT_COLUMNS = ['id', 'name', 'plan', epochSeconds('created_at').as('created_at')] as const;

/**
 * Accounts and API keys on Kysely. Nothing is cached: a revoked or expired key fails on its next
 * lookup (D10), on every server instance.
 */
export function accountStore(db: Kysely<FleetHoursDatabase>): AccountStore {
  const apiKeys = credentialQueries(db, 'api_keys', 'apiKey');
  return {
    findApiKey: ({ fingerprint }) => apiKeys.find(fingerprint),

    createAccount: ({ name, plan, now }) =>
      guard(async () => {
        assertEpochSeconds('now', now);
        const row = await db
          .insertInto('accounts')
          .values({ name, plan, created_at: instantOf(now) })
          .returning(ACCOUNT_COLUMNS)
          .executeTakeFirstOrThrow();
        return toAccount(row);
      }),

    findAccount: ({ accountId }) =>
      guard(async () => {
        if (!isId(accountId)) return null;
        const row = await db.selectFrom('accounts').select(ACCOUNT_COLUMNS).where('id', '=', accountId).executeTakeFirst();
        return row ? toAccount(row) : null;
      }),

    listAccounts: () =>
      guard(async () => {
        const rows = await db.selectFrom('accounts').select(ACCOUNT_COLUMNS).orderBy('id').execute();
        return rows.map(toAccount);
      }),

    setAccountPlan: ({ accountId, plan }) =>
      guard(async () => {
        if (!isId(accountId)) return null;
        const row = await db
          .updateTable('accounts')
          .set({ plan })
          .where('id', '=', accountId)
          .returning(ACCOUNT_COLUMNS)
          .executeTakeFirst();
        return row ? toAccount(row) : null;
      }),

    createApiKey: (input) => apiKeys.create(input),
    listApiKeys: ({ accountId }) => apiKeys.list(accountId),
    revokeApiKey: ({ keyId, now }) => apiKeys.revoke(keyId, now),
  };
}
