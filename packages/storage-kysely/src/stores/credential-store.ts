import type { Account, ApiKeyRecord, ApiKeyScope, FleetHoursStore, IngestTokenRecord } from '@fleet-hours/core';
import { assertEpochSeconds } from '@fleet-hours/core/adapter';
import { sql, type Kysely } from 'kysely';
import { epochSeconds, instantOf, isId, secondsOrNull } from '../sql/sql-values.js';
import { guard } from './storage-error.js';
import type { FleetHoursDatabase } from '../schema/database-schema.js';

/** The tables of credentials: API keys (D10) and ingest tokens (D24), kept the same way. */
export type CredentialTable = 'api_keys' | 'ingest_tokens';

/** A stored credential: API keys and ingest tokens have the same record. */
export type Credential = ApiKeyRecord & IngestTokenRecord;

/** A credential row as {@link toCredential} reads it. */
export interface CredentialRow {
  id: number;
  account_id: number;
  fingerprint: string;
  label: string | null;
  /** An API key's scope (D51); `null` for an ingest token, which has none. */
  scope: string | null;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
}

/**
 * The columns of a credential row as {@link toCredential} reads them; qualified by `table` where
 * a join with `accounts` (which has columns of the same names) needs it.
 */
function _credentialColumns(credentialTable: CredentialTable, table?: string) {
  const name = (column: string) => (table === undefined ? column : `${table}.${column}`);
  return [
    sql<number>`${sql.ref(name('id'))}`.as('id'),
    sql<number>`${sql.ref(name('account_id'))}`.as('account_id'),
    sql<string>`${sql.ref(name('fingerprint'))}`.as('fingerprint'),
    sql<string | null>`${sql.ref(name('label'))}`.as('label'),
    // Only API keys have a scope (D51, migration 0016).
    (credentialTable === 'api_keys' ? sql<string | null>`${sql.ref(name('scope'))}` : sql<string | null>`null::text`).as('scope'),
    epochSeconds(name('created_at')).as('created_at'),
    epochSeconds(name('expires_at')).as('expires_at'),
    epochSeconds(name('revoked_at')).as('revoked_at'),
  ] as const;
}

/** A credential found by fingerprint, under its name in the storage port (`apiKey`, `ingestToken`), with its account. */
export type CredentialLookup<Name extends string> = { readonly [K in Name]: Credential } & { readonly account: Account };

/** The lifecycle shared by API keys and ingest tokens, over one of their tables. */
export interface CredentialQueries<Name extends string> {
  /** The credential with this fingerprint and its account, or `null`. */
  find(fingerprint: string): Promise<CredentialLookup<Name> | null>;
  /** A new credential of the account (an API key's `scope`, D51, default `read`; none for an ingest token), or `null` when the account does not exist. */
  create(input: Parameters<FleetHoursStore['createApiKey']>[0]): Promise<Credential | null>;
  /** The credentials of the account, oldest first. */
  list(accountId: number): Promise<Credential[]>;
  /** Revokes the credential, keeping the first revocation instant; `null` when it does not exist. */
  revoke(id: number, now: number): Promise<Credential | null>;
}

/**
 * API keys (D10) and ingest tokens (D24) on Kysely: by SHA-256 fingerprint only, nothing cached,
 * so a revoked or expired credential fails on its next lookup on every server instance.
 */
export function credentialQueries<Name extends string>(
  db: Kysely<FleetHoursDatabase>,
  table: CredentialTable,
  name: Name,
): CredentialQueries<Name> {
  const CREDENTIAL_COLUMNS = _credentialColumns(table);
  return {
    find: (fingerprint) =>
      guard(async () => {
        const row = await db
          // Both tables have the same columns (database-schema.ts), so the alias is typed as `api_keys`.
          .selectFrom(`${table} as credential` as 'api_keys as credential')
          .innerJoin('accounts', 'accounts.id', 'credential.account_id')
          .select([
            ..._credentialColumns(table, 'credential'),
            'accounts.name as account_name',
            'accounts.plan as account_plan',
            epochSeconds('accounts.created_at').as('account_created_at'),
          ])
          .where('credential.fingerprint', '=', fingerprint)
          .executeTakeFirst();
        if (!row) return null;
        const account = toAccount({
          id: row.account_id,
          name: row.account_name,
          plan: row.account_plan,
          created_at: row.account_created_at,
        });
        return { [name]: toCredential(row), account } as CredentialLookup<Name>;
      }),

    create: ({ accountId, fingerprint, label, expiresAt, now, scope = 'read' }) =>
      guard(async () => {
        if (expiresAt !== null) assertEpochSeconds('expiresAt', expiresAt);
        assertEpochSeconds('now', now);
        if (!isId(accountId)) return null;
        if (table !== 'api_keys' && scope !== 'read') throw new RangeError('Only an API key has a scope');
        // One statement: the credential is written only if the account exists.
        const row = await db
          // Both tables have the same columns (database-schema.ts) but `scope`, which only `api_keys` has (D51).
          .insertInto(table as 'api_keys')
          .columns([
            'account_id',
            'fingerprint',
            'label',
            'created_at',
            'expires_at',
            ...(table === 'api_keys' ? (['scope'] as const) : []),
          ])
          .expression((eb) =>
            eb
              .selectFrom('accounts')
              .select([
                'accounts.id',
                sql<string>`${fingerprint}::text`.as('fingerprint'),
                sql<string | null>`${label}::text`.as('label'),
                instantOf(now).as('created_at'),
                instantOf(expiresAt).as('expires_at'),
                ...(table === 'api_keys' ? [sql<string>`${scope}::text`.as('scope')] : []),
              ])
              .where('accounts.id', '=', accountId),
          )
          .returning(CREDENTIAL_COLUMNS)
          .executeTakeFirst();
        return row ? toCredential(row) : null;
      }),

    list: (accountId) =>
      guard(async () => {
        if (!isId(accountId)) return [];
        const rows = await db.selectFrom(table).select(CREDENTIAL_COLUMNS).where('account_id', '=', accountId).orderBy('id').execute();
        return rows.map(toCredential);
      }),

    revoke: (id, now) =>
      guard(async () => {
        assertEpochSeconds('now', now);
        if (!isId(id)) return null;
        // Keeps the first revocation instant; the next find() sees it (D10, D24): nothing is cached.
        const row = await db
          .updateTable(table)
          .set({ revoked_at: sql<Date>`coalesce(revoked_at, ${instantOf(now)})` })
          .where('id', '=', id)
          .returning(CREDENTIAL_COLUMNS)
          .executeTakeFirst();
        return row ? toCredential(row) : null;
      }),
  };
}

export function toAccount(row: { id: number; name: string; plan: string; created_at: number }): Account {
  return { id: row.id, name: row.name, plan: row.plan, createdAt: Number(row.created_at) };
}

export function toCredential(row: CredentialRow): Credential {
  return {
    id: row.id,
    accountId: row.account_id,
    fingerprint: row.fingerprint,
    label: row.label,
    ...(row.scope === null ? {} : { scope: row.scope as ApiKeyScope }),
    createdAt: Number(row.created_at),
    expiresAt: secondsOrNull(row.expires_at),
    revokedAt: secondsOrNull(row.revoked_at),
    // An ingest token has no scope: its record is an `IngestTokenRecord`.
  } as Credential;
}
