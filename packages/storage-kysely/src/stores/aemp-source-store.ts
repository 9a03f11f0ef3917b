import { assertEpochSeconds } from '@fleet-hours/core/adapter';
import {
  shownAempAuth,
  type AempPollRecord,
  type AempSource,
  type AempSourceAuth,
  type AempSourceAuthShown,
  type AempSourceStore,
  type ClaimedAempSource,
  type StoredAempPoll,
} from '@fleet-hours/core';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { FleetHoursDatabase } from '../schema/database-schema.js';
import { inTransaction } from '../sql/in-transaction.js';
import { instantOf, isId } from '../sql/sql-values.js';
import { guard } from './storage-error.js';

interface _Row {
  readonly id: number;
  readonly account_id: number;
  readonly name: string;
  readonly url: string;
  readonly auth: string;
  readonly poll_every_seconds: number;
  readonly min_interval_per_url_seconds: number;
  readonly enabled: boolean;
  readonly version: number;
  readonly created_at: number;
  readonly updated_at: number;
  readonly next_poll_at: number;
  readonly auth_secret?: string;
}

/** The columns a read returns: never `auth_secret` (P132). */
const _COLUMNS = sql`id, account_id, name, url, auth::text as auth, poll_every_seconds, min_interval_per_url_seconds, enabled, version,
  date_part('epoch', created_at) as created_at, date_part('epoch', updated_at) as updated_at, date_part('epoch', next_poll_at) as next_poll_at`;

/**
 * AEMP sources on Kysely (D65, D66, P132, P134, P135). A source's secret has a column of its own
 * that only a claim reads. A change is one statement, with the version expected in its `where`
 * (D54). A claim is one statement: the row picked by a subquery `for update skip locked` among the
 * sources no unexpired claim holds (rows another claim is taking are skipped; a row that another
 * claim took meanwhile is checked again under its lock and passed over), so two claims, on any
 * number of servers, never take one source. A poll's end stores its record and releases the claim
 * in one transaction.
 */
export function aempSourceStore(db: Kysely<FleetHoursDatabase>): AempSourceStore {
  const one = async (where: RawBuilder<unknown>) => {
    const { rows } = await sql<_Row>`select ${_COLUMNS} from aemp_sources where ${where} order by id`.execute(db);
    return rows.map(_source);
  };
  return {
    createAempSource: ({ accountId, fields, now }) =>
      guard(async () => {
        assertEpochSeconds('now', now);
        if (!isId(accountId)) return null;
        const { auth, secret } = _split(fields.auth);
        const { rows } = await sql<_Row>`
          insert into aemp_sources (account_id, name, url, auth, auth_secret, poll_every_seconds, min_interval_per_url_seconds,
                                    enabled, version, created_at, updated_at, next_poll_at)
          select id, ${fields.name}, ${fields.url}, ${auth}::text::json, ${secret}, ${fields.pollEverySeconds}::int,
                 ${fields.minIntervalPerUrlSeconds}::int, ${fields.enabled}, 1, ${instantOf(now)}, ${instantOf(now)}, ${instantOf(now)}
            from accounts where id = ${accountId}::int
          returning ${_COLUMNS}`.execute(db);
        return rows[0] ? _source(rows[0]) : null;
      }),

    findAempSource: ({ accountId, sourceId }) =>
      guard(async () => {
        if (!isId(accountId) || !isId(sourceId)) return null;
        return (await one(sql`id = ${sourceId}::int and account_id = ${accountId}::int`))[0] ?? null;
      }),

    listAempSources: ({ accountId }) => guard(async () => (isId(accountId) ? one(sql`account_id = ${accountId}::int`) : [])),

    updateAempSource: ({ accountId, sourceId, changes, now, expectedVersion }) =>
      guard(async () => {
        assertEpochSeconds('now', now);
        if (!isId(accountId) || !isId(sourceId)) return null;
        const sets: RawBuilder<unknown>[] = [sql`version = version + 1`, sql`updated_at = ${instantOf(now)}`];
        if (changes.name !== undefined) sets.push(sql`name = ${changes.name}`);
        if (changes.url !== undefined) sets.push(sql`url = ${changes.url}`);
        if (changes.auth !== undefined) {
          const { auth, secret } = _split(changes.auth);
          sets.push(sql`auth = ${auth}::text::json`, sql`auth_secret = ${secret}`);
        }
        if (changes.pollEverySeconds !== undefined) sets.push(sql`poll_every_seconds = ${changes.pollEverySeconds}::int`);
        if (changes.minIntervalPerUrlSeconds !== undefined)
          sets.push(sql`min_interval_per_url_seconds = ${changes.minIntervalPerUrlSeconds}::int`);
        if (changes.enabled !== undefined) sets.push(sql`enabled = ${changes.enabled}`);
        const expected = expectedVersion === undefined ? sql`` : sql`and version = ${expectedVersion}::int`;
        const { rows } = await sql<_Row>`
          update aemp_sources set ${sql.join(sets)}
           where id = ${sourceId}::int and account_id = ${accountId}::int ${expected}
          returning ${_COLUMNS}`.execute(db);
        return rows[0] ? _source(rows[0]) : null;
      }),

    removeAempSource: ({ accountId, sourceId, expectedVersion }) =>
      guard(async () => {
        if (!isId(accountId) || !isId(sourceId)) return null;
        const expected = expectedVersion === undefined ? sql`` : sql`and version = ${expectedVersion}::int`;
        const { rows } = await sql<_Row>`
          delete from aemp_sources where id = ${sourceId}::int and account_id = ${accountId}::int ${expected}
          returning ${_COLUMNS}`.execute(db);
        return rows[0] ? _source(rows[0]) : null;
      }),

    claimAempSource: ({ claimant, now, leaseSeconds, sourceId, accountId }) =>
      guard(async () => {
        assertEpochSeconds('now', now);
        if ((sourceId !== undefined && !isId(sourceId)) || (accountId !== undefined && !isId(accountId))) return null;
        const which =
          sourceId === undefined
            ? sql`enabled and next_poll_at <= ${instantOf(now)} order by next_poll_at, id`
            : sql`id = ${sourceId}::int ${accountId === undefined ? sql`` : sql`and account_id = ${accountId}::int`}`;
        const { rows } = await sql<_Row>`
          update aemp_sources set claimed_by = ${claimant}, claimed_until = ${instantOf(now + leaseSeconds)}
           where id = (select id from aemp_sources
                        where (claimed_until is null or claimed_until <= ${instantOf(now)}) and ${which}
                        limit 1 for update skip locked)
          returning ${_COLUMNS}, auth_secret`.execute(db);
        return rows[0] ? _claimed(rows[0]) : null;
      }),

    finishAempPoll: ({ sourceId, claimant, record, nextPollAt }) =>
      guard(async () => {
        assertEpochSeconds('nextPollAt', nextPollAt);
        assertEpochSeconds('startedAt', record.startedAt);
        assertEpochSeconds('finishedAt', record.finishedAt);
        if (!isId(sourceId)) return null;
        return inTransaction(db, async (trx) => {
          await sql`
            update aemp_sources set claimed_by = null, claimed_until = null, next_poll_at = ${instantOf(nextPollAt)}
             where id = ${sourceId}::int and claimed_by = ${claimant}`.execute(trx);
          const { rows } = await sql<{ readonly id: string }>`
            insert into aemp_polls (source_id, started_at, finished_at, record)
            select id, ${instantOf(record.startedAt)}, ${instantOf(record.finishedAt)}, ${JSON.stringify(record)}::text::json
              from aemp_sources where id = ${sourceId}::int
            returning id`.execute(trx);
          return rows[0] ? { ...structuredClone(record), id: Number(rows[0].id), sourceId } : null;
        });
      }),

    listAempPolls: ({ accountId, sourceId, limit, beforeId }) =>
      guard(async () => {
        if (!isId(accountId) || !isId(sourceId)) return [];
        const before = beforeId === undefined ? sql`` : sql`and p.id < ${beforeId}::bigint`;
        const { rows } = await sql<{ readonly id: string; readonly record: string }>`
          select p.id, p.record::text as record from aemp_polls p join aemp_sources s on s.id = p.source_id
           where p.source_id = ${sourceId}::int and s.account_id = ${accountId}::int ${before}
           order by p.id desc limit ${limit}::int`.execute(db);
        return rows.map((row): StoredAempPoll => ({ ...(JSON.parse(row.record) as AempPollRecord), id: Number(row.id), sourceId }));
      }),
  };
}

/** A sign-in as stored: the shown part as JSON text, the secret apart. */
function _split(auth: AempSourceAuth): { readonly auth: string; readonly secret: string } {
  const secret = auth.kind === 'basic' ? auth.password : auth.kind === 'bearer' ? auth.token : auth.clientSecret;
  return { auth: JSON.stringify(shownAempAuth(auth)), secret };
}

function _source(row: _Row): AempSource {
  return {
    id: Number(row.id),
    accountId: Number(row.account_id),
    name: row.name,
    url: row.url,
    auth: JSON.parse(row.auth) as AempSourceAuthShown,
    pollEverySeconds: Number(row.poll_every_seconds),
    minIntervalPerUrlSeconds: Number(row.min_interval_per_url_seconds),
    enabled: row.enabled,
    version: Number(row.version),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    nextPollAt: Number(row.next_poll_at),
  };
}

function _claimed(row: _Row): ClaimedAempSource {
  const { auth, ...source } = _source(row);
  const secret = row.auth_secret!;
  const full: AempSourceAuth =
    auth.kind === 'basic'
      ? { ...auth, password: secret }
      : auth.kind === 'bearer'
        ? { ...auth, token: secret }
        : { ...auth, clientSecret: secret };
  return { ...source, auth: full };
}
