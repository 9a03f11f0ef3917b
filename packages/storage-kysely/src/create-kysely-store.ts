import {
  planSegmentImport,
  segmentSpan,
  type Account,
  type ApiKeyRecord,
  type BucketSeconds,
  type Device,
  type FleetHoursStore,
  type RateLimitStore,
  type SegmentInput,
} from '@fleet-hours/core';
import { sql, type Kysely } from 'kysely';
import { _guard } from './_storage-error.js';
import { _listOverlapping, _summarize, _sumByBucket } from './_segment-queries.js';
import type { FleetHoursDatabase } from './database-schema.js';

/**
 * A Fleet Hours store and rate-limit store on Kysely, with the database it runs on. Both
 * aggregation capabilities of the port are present.
 */
export type KyselyFleetHoursStore = FleetHoursStore &
  RateLimitStore & {
    readonly db: Kysely<FleetHoursDatabase>;
    sumSegmentSeconds: NonNullable<FleetHoursStore['sumSegmentSeconds']>;
    summarizeDeviceSegments: NonNullable<FleetHoursStore['summarizeDeviceSegments']>;
  };

/** Rows written per statement by an import: three array parameters each, far from any limit. */
const IMPORT_CHUNK = 50_000;
/** `integer` ids: anything else cannot name a row, so it is a miss, not a query error. */
const MAX_ID = 2_147_483_647;
/** Instants `timestamptz` stores exactly and every client can print: years 0001 to 9999. */
const EARLIEST = -62_135_596_800;
const LATEST = 253_402_300_799;

const epoch = (column: string) => sql<number>`date_part('epoch', ${sql.ref(column)})`;
const instant = (seconds: number | null) => sql<Date>`to_timestamp(${seconds}::float8)`;
/** An `api_keys` row as `_toApiKey` reads it, for the writes that return one. */
const API_KEY_RETURNING = [
  'id',
  'account_id',
  'fingerprint',
  'label',
  epoch('created_at').as('created_at'),
  epoch('expires_at').as('expires_at'),
  epoch('revoked_at').as('revoked_at'),
] as const;

/**
 * The Fleet Hours storage port on Kysely, for PostgreSQL (server or PGlite), with the two
 * aggregation capabilities answered in the database and the rate-limit counters of every server
 * instance in one table (D15). Run {@link migrateToLatest} first. The store holds no cache: a
 * revoked or expired key fails on its next request (D10). When the database cannot be reached,
 * every method rejects with `StorageUnavailableError` (D18) and works again once it is back.
 *
 * @param db A `Kysely<FleetHoursDatabase>`: from `createPostgresDatabase`, `createPGliteDatabase`, or built by you with any PostgreSQL dialect.
 * @returns The store; `store.db` is `db`.
 * @example
 * ```ts
 * import { createFleetHours } from '@fleet-hours/core';
 * import { createKyselyStore, createPostgresDatabase, migrateToLatest } from '@fleet-hours/storage-kysely';
 * const db = createPostgresDatabase({ connectionString: process.env.DATABASE_URL });
 * await migrateToLatest(db);
 * const store = createKyselyStore(db);
 * const fleetHours = createFleetHours({ store, now: Date.now });
 * ```
 */
export function createKyselyStore(db: Kysely<FleetHoursDatabase>): KyselyFleetHoursStore {
  // The newest rate-limit window this instance has seen: when a later one begins, ended windows are deleted.
  let newestWindowStart = -Infinity;

  const accounts = (executor: Kysely<FleetHoursDatabase>) =>
    executor.selectFrom('accounts').select(['accounts.id', 'accounts.name', 'accounts.plan', epoch('accounts.created_at').as('created_at')]);
  const apiKeys = (executor: Kysely<FleetHoursDatabase>) =>
    executor
      .selectFrom('api_keys')
      .select([
        'api_keys.id',
        'api_keys.account_id',
        'api_keys.fingerprint',
        'api_keys.label',
        epoch('api_keys.created_at').as('created_at'),
        epoch('api_keys.expires_at').as('expires_at'),
        epoch('api_keys.revoked_at').as('revoked_at'),
      ]);
  const devices = (executor: Kysely<FleetHoursDatabase>) =>
    executor
      .selectFrom('devices')
      .select([
        'devices.id',
        'devices.account_id',
        'devices.name',
        'devices.imei',
        'devices.registration',
        'devices.model',
        'devices.status',
        'devices.time_zone',
        epoch('devices.last_reported_at').as('last_reported_at'),
      ]);

  return {
    db,

    findApiKey: ({ fingerprint }) =>
      _guard(async () => {
        const row = await apiKeys(db)
          .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
          .select(['accounts.name as account_name', 'accounts.plan as account_plan', epoch('accounts.created_at').as('account_created_at')])
          .where('api_keys.fingerprint', '=', fingerprint)
          .executeTakeFirst();
        if (!row) return null;
        const account: Account = { id: row.account_id, name: row.account_name, plan: row.account_plan, createdAt: Number(row.account_created_at) };
        return { apiKey: _toApiKey(row), account };
      }),

    listDevices: ({ accountId }) =>
      _guard(async () => {
        if (!_isId(accountId)) return [];
        const rows = await devices(db).where('devices.account_id', '=', accountId).orderBy('devices.id').execute();
        return rows.map(_toDevice);
      }),

    findDevice: ({ accountId, deviceId }) =>
      _guard(async () => {
        if (!_isId(accountId) || !_isId(deviceId)) return null;
        const row = await devices(db).where('devices.id', '=', deviceId).where('devices.account_id', '=', accountId).executeTakeFirst();
        return row ? _toDevice(row) : null;
      }),

    listSegments: ({ deviceId, start, end }) =>
      _guard(async () => {
        if (!_isId(deviceId)) return [];
        const segments = await _listOverlapping(db, deviceId, start, end);
        return segments.map((segment) => ({ deviceId, ...segment }));
      }),

    sumSegmentSeconds: ({ deviceId, boundaries, now }) =>
      _guard(async () => {
        const buckets: BucketSeconds[] = Array.from({ length: Math.max(0, boundaries.length - 1) }, () => ({ movingSeconds: 0, idleSeconds: 0 }));
        if (buckets.length === 0 || !_isId(deviceId)) return buckets;
        const { rows } = await _sumByBucket(deviceId, boundaries, now).execute(db);
        for (const row of rows) {
          buckets[Number(row.bucket) - 1] = { movingSeconds: Number(row.moving_seconds), idleSeconds: Number(row.idle_seconds) };
        }
        return buckets;
      }),

    summarizeDeviceSegments: ({ deviceId, now }) =>
      _guard(async () => {
        if (!_isId(deviceId)) return { firstStartedAt: null, movingSeconds: 0, idleSeconds: 0 };
        const { rows } = await _summarize(deviceId, now).execute(db);
        const row = rows[0];
        return {
          firstStartedAt: row?.first_started_at == null ? null : Number(row.first_started_at),
          movingSeconds: Number(row?.moving_seconds ?? 0),
          idleSeconds: Number(row?.idle_seconds ?? 0),
        };
      }),

    createAccount: ({ name, plan, now }) =>
      _guard(async () => {
        const row = await db
          .insertInto('accounts')
          .values({ name, plan, created_at: instant(now) })
          .returning(['id', 'name', 'plan', epoch('created_at').as('created_at')])
          .executeTakeFirstOrThrow();
        return _toAccount(row);
      }),

    findAccount: ({ accountId }) =>
      _guard(async () => {
        if (!_isId(accountId)) return null;
        const row = await accounts(db).where('accounts.id', '=', accountId).executeTakeFirst();
        return row ? _toAccount(row) : null;
      }),

    listAccounts: () =>
      _guard(async () => {
        const rows = await accounts(db).orderBy('accounts.id').execute();
        return rows.map(_toAccount);
      }),

    setAccountPlan: ({ accountId, plan }) =>
      _guard(async () => {
        if (!_isId(accountId)) return null;
        const row = await db
          .updateTable('accounts')
          .set({ plan })
          .where('id', '=', accountId)
          .returning(['id', 'name', 'plan', epoch('created_at').as('created_at')])
          .executeTakeFirst();
        return row ? _toAccount(row) : null;
      }),

    createApiKey: ({ accountId, fingerprint, label, expiresAt, now }) =>
      _guard(async () => {
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
                instant(now).as('created_at'),
                instant(expiresAt).as('expires_at'),
              ])
              .where('accounts.id', '=', accountId),
          )
          .returning(API_KEY_RETURNING)
          .executeTakeFirst();
        return row ? _toApiKey(row) : null;
      }),

    listApiKeys: ({ accountId }) =>
      _guard(async () => {
        if (!_isId(accountId)) return [];
        const rows = await apiKeys(db).where('api_keys.account_id', '=', accountId).orderBy('api_keys.id').execute();
        return rows.map(_toApiKey);
      }),

    revokeApiKey: ({ keyId, now }) =>
      _guard(async () => {
        if (!_isId(keyId)) return null;
        // Keeps the first revocation instant; the next findApiKey() sees it (D10): nothing is cached.
        const row = await db
          .updateTable('api_keys')
          .set({ revoked_at: sql<Date>`coalesce(revoked_at, ${instant(now)})` })
          .where('id', '=', keyId)
          .returning(API_KEY_RETURNING)
          .executeTakeFirst();
        return row ? _toApiKey(row) : null;
      }),

    createDevice: (input) =>
      _guard(async () => {
        if (!_isId(input.accountId)) return null;
        const row = await db
          .insertInto('devices')
          .columns(['account_id', 'name', 'imei', 'registration', 'model', 'status', 'time_zone'])
          .expression((eb) =>
            eb
              .selectFrom('accounts')
              .select([
                'accounts.id',
                sql<string>`${input.name}::text`.as('name'),
                sql<string>`${input.imei}::text`.as('imei'),
                sql<string | null>`${input.registration ?? null}::text`.as('registration'),
                sql<string>`${input.model}::text`.as('model'),
                sql<string>`${input.status ?? 'active'}::text`.as('status'),
                sql<string>`${input.timeZone}::text`.as('time_zone'),
              ])
              .where('accounts.id', '=', input.accountId),
          )
          .returning(['id', 'account_id', 'name', 'imei', 'registration', 'model', 'status', 'time_zone', epoch('last_reported_at').as('last_reported_at')])
          .executeTakeFirst();
        return row ? _toDevice(row) : null;
      }),

    updateDevice: ({ deviceId, changes }) =>
      _guard(async () => {
        if (!_isId(deviceId)) return null;
        const set = {
          ...(changes.name !== undefined && { name: changes.name }),
          ...(changes.registration !== undefined && { registration: changes.registration }),
          ...(changes.model !== undefined && { model: changes.model }),
          ...(changes.status !== undefined && { status: changes.status }),
          ...(changes.timeZone !== undefined && { time_zone: changes.timeZone }),
        };
        if (Object.keys(set).length === 0) {
          const row = await devices(db).where('devices.id', '=', deviceId).executeTakeFirst();
          return row ? _toDevice(row) : null;
        }
        const row = await db
          .updateTable('devices')
          .set(set)
          .where('id', '=', deviceId)
          .returning(['id', 'account_id', 'name', 'imei', 'registration', 'model', 'status', 'time_zone', epoch('last_reported_at').as('last_reported_at')])
          .executeTakeFirst();
        return row ? _toDevice(row) : null;
      }),

    importSegments: ({ deviceId, segments, reportedAt }) =>
      _guard(async () => {
        if (!_isId(deviceId)) return null;
        // One transaction per batch (D1): a refusal or any failure rolls everything back.
        return db.transaction().execute(async (trx) => {
          // The device row lock makes concurrent imports of one device take turns, so the stored
          // segments read below cannot change before this batch commits.
          const { rows: locked } = await sql`select id from devices where id = ${deviceId} for update`.execute(trx);
          if (locked.length === 0) return null;

          _assertStorable(segments, reportedAt);
          const span = segmentSpan(segments);
          const stored = span ? await _listOverlapping(trx, deviceId, span.start, span.end ?? undefined) : [];
          const plan = planSegmentImport({ incoming: segments, stored });

          let longest = 0;
          for (let offset = 0; offset < plan.insert.length; offset += IMPORT_CHUNK) {
            const chunk = plan.insert.slice(offset, offset + IMPORT_CHUNK);
            for (const segment of chunk) if (segment.endedAt !== null) longest = Math.max(longest, segment.endedAt - segment.startedAt);
            await sql`
              insert into engine_segments (device_id, started_at, ended_at, state)
              select ${deviceId}, to_timestamp(batch.started_at), to_timestamp(batch.ended_at), batch.state
                from unnest(${chunk.map((segment) => segment.startedAt)}::float8[],
                            ${chunk.map((segment) => segment.endedAt)}::float8[],
                            ${chunk.map((segment) => segment.state)}::text[]) as batch(started_at, ended_at, state)`.execute(trx);
          }
          for (let offset = 0; offset < plan.close.length; offset += IMPORT_CHUNK) {
            const chunk = plan.close.slice(offset, offset + IMPORT_CHUNK);
            for (const close of chunk) longest = Math.max(longest, close.endedAt - close.startedAt);
            await sql`
              update engine_segments as segment
                 set ended_at = to_timestamp(closing.ended_at)
                from unnest(${chunk.map((close) => close.startedAt)}::float8[], ${chunk.map((close) => close.endedAt)}::float8[]) as closing(started_at, ended_at)
               where segment.device_id = ${deviceId} and segment.started_at = to_timestamp(closing.started_at) and segment.ended_at is null`.execute(trx);
          }

          let latest: number | null = reportedAt ?? null;
          if (reportedAt === undefined) {
            for (const segment of segments) latest = Math.max(latest ?? -Infinity, segment.endedAt ?? segment.startedAt);
          }
          // greatest() ignores nulls: a first report sets last_reported_at, a later one only raises it.
          await sql`
            update devices
               set last_reported_at = greatest(last_reported_at, ${instant(latest)}),
                   longest_segment_seconds = greatest(longest_segment_seconds, ${longest}::bigint)
             where id = ${deviceId}`.execute(trx);
          return { inserted: plan.insert.length, closed: plan.close.length, skipped: plan.skipped };
        });
      }),

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

function _isId(value: number): boolean {
  return Number.isInteger(value) && value >= 1 && value <= MAX_ID;
}

/**
 * Refuses instants `timestamptz` cannot hold as a RangeError naming the row, before anything is
 * written. Other malformed values are left to `planSegmentImport`, which names them.
 */
function _assertStorable(segments: readonly SegmentInput[], reportedAt: number | undefined): void {
  const outside = (value: number | null) => value !== null && Number.isSafeInteger(value) && (value < EARLIEST || value > LATEST);
  segments.forEach((segment, index) => {
    if (outside(segment.startedAt) || outside(segment.endedAt)) {
      throw new RangeError(`Row ${index + 1}: instants must lie between the years 0001 and 9999`);
    }
  });
  if (reportedAt !== undefined && (!Number.isSafeInteger(reportedAt) || outside(reportedAt))) {
    throw new RangeError(`reportedAt must be whole epoch seconds between the years 0001 and 9999, got ${String(reportedAt)}`);
  }
}

function _toAccount(row: { id: number; name: string; plan: string; created_at: number }): Account {
  return { id: row.id, name: row.name, plan: row.plan, createdAt: Number(row.created_at) };
}

function _toApiKey(row: {
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
    expiresAt: row.expires_at === null ? null : Number(row.expires_at),
    revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
  };
}

function _toDevice(row: {
  id: number;
  account_id: number;
  name: string;
  imei: string;
  registration: string | null;
  model: string;
  status: string;
  time_zone: string;
  last_reported_at: number | null;
}): Device {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    imei: row.imei,
    registration: row.registration,
    model: row.model,
    status: row.status,
    timeZone: row.time_zone,
    lastReportedAt: row.last_reported_at === null ? null : Number(row.last_reported_at),
  };
}
