import type { Kysely } from 'kysely';
import { deviceIdPages, READ_CHUNK, rebuildDeviceFigures } from '../sql/daily-figures.js';
import { lockDeviceState } from '../sql/segment-queries.js';
import { guard } from '../stores/storage-error.js';
import type { FleetHoursDatabase } from '../schema/database-schema.js';

/**
 * Rebuilds the per-day figures and lifetime totals (D27) of one device, or of every device, from
 * their segments, each device in its own transaction under its row lock (writes to it wait).
 * Fleet Hours keeps the figures itself on every write; this is for segments written outside it
 * (SQL, another tool), after which reads would otherwise not match the segments. It also raises
 * `device_states.longest_segment_seconds` to the longest closed segment, which the window scans rely on.
 * The segments are read in chunks (D36); {@link verifyStore} with `repair` also brings telemetry
 * segments back to their points and rebuilds only what differs.
 *
 * @param db A migrated database.
 * @param options `deviceId`: only that device (default every device).
 * @returns The ids of the devices rebuilt (empty when `deviceId` names no device).
 * @throws {StorageUnavailableError} When the database cannot be reached.
 * @example
 * ```ts
 * import { createPGliteDatabase, migrateToLatest, rebuildDailyFigures } from '@fleet-hours/storage-kysely';
 * const db = await createPGliteDatabase();
 * await migrateToLatest(db);
 * await rebuildDailyFigures(db); // { deviceIds: [] }: no devices yet
 * await db.destroy();
 * ```
 */
export function rebuildDailyFigures(
  db: Kysely<FleetHoursDatabase>,
  options: { readonly deviceId?: number } = {},
): Promise<{ readonly deviceIds: readonly number[] }> {
  return guard(async () => {
    const rebuilt: number[] = [];
    for await (const deviceId of deviceIdPages(db, options.deviceId, READ_CHUNK)) {
      const done = await db.transaction().execute(async (trx) => {
        // The lock in a statement of its own: the reads after it see every write committed before it (D36).
        return (await lockDeviceState(trx, deviceId)) && (await rebuildDeviceFigures(trx, deviceId));
      });
      if (done) rebuilt.push(deviceId);
    }
    return { deviceIds: rebuilt };
  });
}
