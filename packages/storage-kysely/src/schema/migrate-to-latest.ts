import { StorageUnavailableError } from '@fleet-hours/core';
import { Migrator, sql, type Kysely, type Migration } from 'kysely';
import { withoutDeadline } from '../dialect/deadline.js';
import { parseSearchPath } from '../dialect/search-path.js';
import { withBookkeepingIntrospection } from './bookkeeping-introspector.js';
import { errorCode, guard, isUnavailable } from '../stores/storage-error.js';
import type { FleetHoursDatabase } from './database-schema.js';
import { initialMigration } from './migrations/0001-initial.js';
import { rateLimitCountersMigration } from './migrations/0002-rate-limit-counters.js';
import { dailyFiguresMigration } from './migrations/0003-daily-figures.js';
import { telemetryMigration } from './migrations/0004-telemetry.js';
import { deviceRowsCheckedByLockMigration } from './migrations/0005-device-rows-checked-by-lock.js';
import { hourMeterAndServiceMigration } from './migrations/0006-hour-meter-and-service.js';
import { dayFigureRunningTotalsMigration } from './migrations/0007-day-figure-running-totals.js';
import { telemetryPartitionsMigration } from './migrations/0008-telemetry-partitions.js';
import { deviceStatesMigration } from './migrations/0009-device-states.js';
import { webhooksMigration } from './migrations/0010-webhooks.js';
import { eventChecksMigration } from './migrations/0011-event-checks.js';
import { serviceMemosMigration } from './migrations/0012-service-memos.js';
import { telemetryHorizonMigration } from './migrations/0013-telemetry-horizon.js';
import { webhookEndpointDueMigration } from './migrations/0014-webhook-endpoint-due.js';
import { rememberedStatusesMigration } from './migrations/0015-remembered-statuses.js';
import { keyScopesMigration } from './migrations/0016-key-scopes.js';
import { matchingMemoIndexesMigration } from './migrations/0017-matching-memo-indexes.js';
import { idempotencyKeysMigration } from './migrations/0018-idempotency-keys.js';
import { auditEntriesMigration } from './migrations/0019-audit-entries.js';
import { deviceTagsAndIdentityMigration } from './migrations/0020-device-tags-and-identity.js';
import { webhookEndpointDescriptionsMigration } from './migrations/0021-webhook-endpoint-descriptions.js';
import { workCalendarsMigration } from './migrations/0022-work-calendars.js';
import { readingSourcesMigration } from './migrations/0025-reading-sources.js';
import { devicePositionsMigration } from './migrations/0024-device-positions.js';
import { aempSourcesMigration } from './migrations/0026-aemp-sources.js';
import { aempPollerActorMigration } from './migrations/0027-aemp-poller-actor.js';
import { readingIdleMigration } from './migrations/0028-reading-idle.js';

/** The schema's migrations by name, in the order they run. */
export const FLEET_HOURS_MIGRATIONS: Readonly<Record<string, Migration>> = Object.freeze({
  '0001_initial': initialMigration,
  '0002_rate_limit_counters': rateLimitCountersMigration,
  '0003_daily_figures': dailyFiguresMigration,
  '0004_telemetry': telemetryMigration,
  '0005_device_rows_checked_by_lock': deviceRowsCheckedByLockMigration,
  '0006_hour_meter_and_service': hourMeterAndServiceMigration,
  '0007_day_figure_running_totals': dayFigureRunningTotalsMigration,
  '0008_telemetry_partitions': telemetryPartitionsMigration,
  '0009_device_states': deviceStatesMigration,
  '0010_webhooks': webhooksMigration,
  '0011_event_checks': eventChecksMigration,
  '0012_service_memos': serviceMemosMigration,
  '0013_telemetry_horizon': telemetryHorizonMigration,
  '0014_webhook_endpoint_due': webhookEndpointDueMigration,
  '0015_remembered_statuses': rememberedStatusesMigration,
  '0016_key_scopes': keyScopesMigration,
  '0017_matching_memo_indexes': matchingMemoIndexesMigration,
  '0018_idempotency_keys': idempotencyKeysMigration,
  '0019_audit_entries': auditEntriesMigration,
  '0020_device_tags_and_identity': deviceTagsAndIdentityMigration,
  '0021_webhook_endpoint_descriptions': webhookEndpointDescriptionsMigration,
  '0022_work_calendars': workCalendarsMigration,
  '0024_device_positions': devicePositionsMigration,
  '0025_reading_sources': readingSourcesMigration,
  '0026_aemp_sources': aempSourcesMigration,
  '0027_aemp_poller_actor': aempPollerActorMigration,
  '0028_reading_idle': readingIdleMigration,
});

/**
 * A Kysely `Migrator` over the Fleet Hours migrations, for operators who want more than
 * {@link migrateToLatest}: `getMigrations()` for the status, `migrateDown()`, `migrateTo(name)`.
 * Its bookkeeping tables are `fleet_hours_migration` and `fleet_hours_migration_lock`, so they
 * never collide with an application's own Kysely migrations in the same schema. They live in the
 * schema the tables are created in: the first schema of the connection's `search_path`, which is
 * created when it does not exist yet.
 *
 * @param db The database.
 * @returns The migrator.
 * @throws {Error} When the connection has no usable schema (`search_path` names none).
 * @example
 * ```ts
 * // not executed: needs a PostgreSQL server
 * import { createFleetHoursMigrator, createPostgresDatabase } from '@fleet-hours/storage-kysely';
 * const db = createPostgresDatabase({ connectionString: process.env.DATABASE_URL });
 * const migrator = await createFleetHoursMigrator(db);
 * for (const migration of await migrator.getMigrations()) console.log(migration.name, migration.executedAt);
 * ```
 */
export async function createFleetHoursMigrator(db: Kysely<FleetHoursDatabase>): Promise<Migrator> {
  const schema = await _targetSchema(db);
  return new Migrator({
    db: withBookkeepingIntrospection(db, schema, [MIGRATION_TABLE, MIGRATION_LOCK_TABLE]),
    provider: { getMigrations: async () => ({ ...FLEET_HOURS_MIGRATIONS }) },
    migrationTableName: MIGRATION_TABLE,
    migrationLockTableName: MIGRATION_LOCK_TABLE,
    // Named explicitly: without it Kysely looks for its tables in every schema of the database
    // and would take another schema's bookkeeping for ours.
    migrationTableSchema: schema,
  });
}

/**
 * Whether the schema is current: every migration this version knows has run in the schema the
 * tables live in (the connection's `current_schema()`), and no other. One query, so a process can
 * ask on every start; {@link migrateToLatest} asks it first. A missing bookkeeping table (an empty
 * database, a `search_path` naming no existing schema) is simply `false`.
 *
 * @param db The database.
 * @returns `true` when there is nothing to migrate.
 * @throws {StorageUnavailableError} When the database cannot be reached.
 * @example
 * ```ts
 * import { createPGliteDatabase, migrateToLatest, schemaIsCurrent } from '@fleet-hours/storage-kysely';
 * const db = await createPGliteDatabase();
 * await schemaIsCurrent(db); // false: an empty database
 * await migrateToLatest(db);
 * await schemaIsCurrent(db); // true
 * await db.destroy();
 * ```
 */
export function schemaIsCurrent(db: Kysely<FleetHoursDatabase>): Promise<boolean> {
  return guard(() => _isCurrent(db));
}

/**
 * Brings the schema up to date: creates it on an empty database, runs only the missing migrations
 * on an older one, and does nothing when it is current (idempotent; one query, see
 * {@link schemaIsCurrent}). Migrations run in one transaction under Kysely's migration lock, so
 * several server instances may start at once.
 *
 * @param db The database, e.g. from `createPostgresDatabase` or `createPGliteDatabase`.
 * @returns Once the schema is current.
 * @throws {StorageUnavailableError} When the database cannot be reached.
 * @throws {Error} When a migration fails (naming it), or the database holds migrations this version does not know.
 * @example
 * ```ts
 * import { createPGliteDatabase, migrateToLatest } from '@fleet-hours/storage-kysely';
 * const db = await createPGliteDatabase();
 * await migrateToLatest(db);
 * ```
 */
export async function migrateToLatest(db: Kysely<FleetHoursDatabase>): Promise<void> {
  try {
    if (await _isCurrent(db)) return;
    const migrator = await createFleetHoursMigrator(db);
    // Without the deadline of requests (D28): creating an index or filling a new table may take longer.
    const { error, results } = await withoutDeadline(db, () => migrator.migrateToLatest());
    if (error === undefined) return;
    const failed = results?.find((result) => result.status === 'Error');
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`Fleet Hours migration ${failed ? `"${failed.migrationName}" ` : ''}failed: ${reason}`, { cause: error });
  } catch (error) {
    if (error instanceof StorageUnavailableError || !isUnavailable(error)) throw error;
    const code = errorCode(error);
    throw new StorageUnavailableError(`Cannot migrate: the database is unavailable${code ? ` (${code})` : ''}`, { cause: error });
  }
}

const MIGRATION_TABLE = 'fleet_hours_migration';
const MIGRATION_LOCK_TABLE = 'fleet_hours_migration_lock';

/**
 * The schema unqualified names resolve to: `current_schema()`, or, when no schema of the
 * `search_path` exists yet (a fresh `?options=-c search_path=x`), the first one named, created here.
 */
async function _targetSchema(db: Kysely<FleetHoursDatabase>): Promise<string> {
  const { rows } = await sql<{ schema: string | null; search_path: string }>`
    select current_schema() as schema, current_setting('search_path') as search_path`.execute(db);
  const current = rows[0]?.schema;
  if (current) return current;
  const first = parseSearchPath(rows[0]?.search_path ?? '')[0];
  if (first === undefined || first === '$user') {
    throw new Error(`Cannot migrate: no schema of search_path "${rows[0]?.search_path ?? ''}" exists; create one or set search_path`);
  }
  await sql`create schema if not exists ${sql.id(first)}`.execute(db);
  return first;
}

/** {@link schemaIsCurrent}, with a connection failure left as it is for the caller to map. */
async function _isCurrent(db: Kysely<FleetHoursDatabase>): Promise<boolean> {
  const known = Object.keys(FLEET_HOURS_MIGRATIONS);
  let applied: Set<string>;
  try {
    // The bookkeeping table the name resolves to must be the one in current_schema(): the schema
    // the migrator uses, never another schema's further along the search_path.
    const { rows } = await sql<{ name: string }>`
      select name from fleet_hours_migration
       where 'fleet_hours_migration'::regclass = to_regclass(format('%I.fleet_hours_migration', current_schema()))`.execute(db);
    applied = new Set(rows.map((row) => row.name));
  } catch (error) {
    if (isUnavailable(error)) throw error;
    return false; // No bookkeeping table here (yet): the migrator decides.
  }
  return applied.size === known.length && known.every((name) => applied.has(name));
}
