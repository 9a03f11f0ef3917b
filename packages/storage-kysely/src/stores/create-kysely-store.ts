import { eventCheckStore, type EventCheckStore } from './event-check-store.js';
import type { FleetHoursStore, RateLimitStore } from '@fleet-hours/core';
import { sql, type Kysely } from 'kysely';
import { accountStore } from './account-store.js';
import { deviceStore } from './device-store.js';
import { ingestTokenStore } from './ingest-token-store.js';
import { maintenanceStore } from './maintenance-store.js';
import { serviceMemoStore, type ServiceMemoStore } from './service-memo-store.js';
import { webhookStore } from './webhook-store.js';
import { idempotencyStore } from './idempotency-store.js';
import { auditStore } from './audit-store.js';
import { calendarStore } from './calendar-store.js';
import { aempSourceStore } from './aemp-source-store.js';
import { rateLimitStore } from './rate-limit-store.js';
import { segmentStore, type SegmentStore } from './segment-store.js';
import { telemetryStore } from './telemetry-store.js';
import { guard } from './storage-error.js';
import type { FleetHoursDatabase } from '../schema/database-schema.js';

/**
 * A Fleet Hours store and rate-limit store on Kysely, with the database it runs on. Every
 * aggregation capability of the port is present, the batch ones of the fleet pages (D32) included.
 */
export type KyselyFleetHoursStore = FleetHoursStore &
  RateLimitStore &
  SegmentStore &
  ServiceMemoStore &
  EventCheckStore & {
    readonly db: Kysely<FleetHoursDatabase>;
    ping: NonNullable<FleetHoursStore['ping']>;
    /** P102, P103: one transaction, with the store over it. */
    atomically: NonNullable<FleetHoursStore['atomically']>;
  };

/**
 * The Fleet Hours storage port on Kysely, for PostgreSQL (server or PGlite), with the two
 * aggregation capabilities answered in the database and the rate-limit counters of every server
 * instance in one table (D15). Run {@link migrateToLatest} first. The store holds no cache: a
 * revoked or expired key fails on its next request (D10). When the database cannot be reached,
 * every method rejects with `StorageUnavailableError` (D18) and works again once it is back.
 * Instants are epoch seconds: a method given milliseconds rejects with a RangeError and writes
 * nothing (see `assertEpochSeconds` in `@fleet-hours/core`).
 *
 * @param db A `Kysely<FleetHoursDatabase>`: from `createPostgresDatabase`, `createPGliteDatabase`, or built by you with any PostgreSQL dialect.
 * @returns The store; `store.db` is `db`.
 * @example
 * ```ts
 * // not executed: needs a PostgreSQL server
 * import { createFleetHours } from '@fleet-hours/core';
 * import { createKyselyStore, createPostgresDatabase, migrateToLatest } from '@fleet-hours/storage-kysely';
 * const db = createPostgresDatabase({ connectionString: process.env.DATABASE_URL });
 * await migrateToLatest(db);
 * const store = createKyselyStore(db);
 * const fleetHours = createFleetHours({ store, now: Date.now });
 * ```
 */
export function createKyselyStore(db: Kysely<FleetHoursDatabase>): KyselyFleetHoursStore {
  const store: KyselyFleetHoursStore = {
    db,
    ...accountStore(db),
    ...deviceStore(db),
    ...segmentStore(db),
    ...telemetryStore(db),
    ...ingestTokenStore(db),
    ...maintenanceStore(db),
    ...serviceMemoStore(db),
    ...webhookStore(db),
    ...eventCheckStore(db),
    ...auditStore(db),
    // D58 (P112)
    ...calendarStore(db),
    // D65 (P132, P134)
    ...aempSourceStore(db),
    ...rateLimitStore(db),
    ...idempotencyStore(db),
    // The readiness probe (D30): one round trip, no data.
    ping: () =>
      guard(async () => {
        await sql`select 1`.execute(db);
      }),
    // P102: one transaction, the store over it given to the work; inside one (a unit, a caller's
    // transaction) the work joins it. A lost race (D35) runs the whole unit again: it wrote nothing.
    atomically: (work) => (db.isTransaction ? work(store) : guard(() => db.transaction().execute((trx) => work(createKyselyStore(trx))))),
  };
  return store;
}
