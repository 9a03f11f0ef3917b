import type { AuditEntry, AuditLogStore } from '@fleet-hours/core';
import { assertEpochSeconds } from '@fleet-hours/core/adapter';
import { sql, type Kysely } from 'kysely';
import type { FleetHoursDatabase } from '../schema/database-schema.js';
import { epochSeconds, instantOf, isId } from '../sql/sql-values.js';
import { guard } from './storage-error.js';

/** The columns of an entry read and written as they are: who, which request, what and on what. */
const _PLAIN_COLUMNS = [
  'actor_kind',
  'actor_label',
  'actor_fingerprint_prefix',
  'request_id',
  'action',
  'resource_type',
  'resource_id',
] as const;

/** The columns of an entry as read: instants as epoch seconds, `changes` as its JSON text. */
const _COLUMNS = [
  sql<string>`id::text`.as('id'),
  'account_id',
  epochSeconds('at').as('at'),
  ..._PLAIN_COLUMNS,
  sql<string>`changes::text`.as('changes'),
] as const;

interface _Row {
  readonly id: string;
  readonly account_id: number;
  readonly at: number;
  readonly actor_kind: 'api_key' | 'cli' | 'aemp_poller';
  readonly actor_label: string | null;
  readonly actor_fingerprint_prefix: string | null;
  readonly request_id: string | null;
  readonly action: string;
  readonly resource_type: string;
  readonly resource_id: string;
  readonly changes: string;
}

/**
 * The change log on Kysely (D55, P87): one row per entry, appended in its own statement; the
 * identity column orders the log, so an account's page newest first is a walk of the index on
 * `(account_id, id)` from the cursor down.
 */
export function auditStore(db: Kysely<FleetHoursDatabase>): AuditLogStore {
  return {
    appendAuditEntry: (input) =>
      guard(async () => {
        assertEpochSeconds('at', input.at);
        if (!isId(input.accountId)) return null;
        const { actor } = input;
        const row = await db
          .insertInto('audit_entries')
          .columns(['account_id', 'at', ..._PLAIN_COLUMNS, 'changes'])
          .expression((eb) =>
            eb
              .selectFrom('accounts')
              .select([
                'accounts.id',
                instantOf(input.at).as('at'),
                sql<string>`${actor.kind}`.as('actor_kind'),
                sql<string | null>`${actor.kind === 'cli' ? null : actor.label}::text`.as('actor_label'),
                sql<string | null>`${actor.kind === 'api_key' ? actor.fingerprintPrefix : null}::text`.as('actor_fingerprint_prefix'),
                sql<string | null>`${input.requestId}::text`.as('request_id'),
                sql<string>`${input.action}`.as('action'),
                sql<string>`${input.resource.type}`.as('resource_type'),
                sql<string>`${input.resource.id}`.as('resource_id'),
                sql<string>`${JSON.stringify(input.changes)}::text::json`.as('changes'),
              ])
              .where('accounts.id', '=', input.accountId),
          )
          .returning(_COLUMNS)
          .executeTakeFirst();
        return row ? _entry(row as _Row) : null;
      }),

    listAuditEntries: ({ accountId, beforeId, limit }) =>
      guard(async () => {
        if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`limit must be a positive safe integer, got ${String(limit)}`);
        if (beforeId !== undefined && !Number.isSafeInteger(beforeId))
          throw new RangeError(`beforeId must be a safe integer, got ${String(beforeId)}`);
        if (!isId(accountId) || (beforeId !== undefined && beforeId <= 1)) return [];
        let query = db.selectFrom('audit_entries').select(_COLUMNS).where('account_id', '=', accountId);
        if (beforeId !== undefined) query = query.where(sql<boolean>`audit_entries.id < ${beforeId}`);
        const rows = await query.orderBy('audit_entries.id', 'desc').limit(limit).execute();
        return rows.map((row) => _entry(row as _Row));
      }),

    removeAuditEntriesBefore: ({ before }) =>
      guard(async () => {
        assertEpochSeconds('before', before);
        const result = await db.deleteFrom('audit_entries').where('at', '<', instantOf(before)).executeTakeFirst();
        return Number(result.numDeletedRows);
      }),
  };
}

function _entry(row: _Row): AuditEntry {
  return {
    id: Number(row.id),
    accountId: row.account_id,
    at: Number(row.at),
    actor:
      row.actor_kind === 'api_key'
        ? { kind: 'api_key', label: row.actor_label ?? '', fingerprintPrefix: row.actor_fingerprint_prefix ?? '' }
        : row.actor_kind === 'aemp_poller'
          ? { kind: 'aemp_poller', label: row.actor_label ?? '' }
          : { kind: 'cli' },
    requestId: row.request_id,
    action: row.action,
    resource: { type: row.resource_type, id: row.resource_id },
    changes: JSON.parse(row.changes) as AuditEntry['changes'],
  };
}
