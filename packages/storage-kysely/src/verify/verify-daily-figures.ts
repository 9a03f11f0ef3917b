import type { Kysely } from 'kysely';
import type { DailyFiguresMismatch } from './device-check.js';
import type { FleetHoursDatabase } from '../schema/database-schema.js';
import { verifyStore } from './verify-store.js';

export type { DailyFiguresMismatch } from './device-check.js';

/**
 * Checks the per-day figures and lifetime totals (D27) of one device, or of every device, against
 * their segments, each device in a snapshot of its own (writes to it go on; what it reads is
 * consistent). Nothing is changed: fix what it reports with {@link rebuildDailyFigures}.
 * {@link verifyStore} checks more (segments against points, `last_reported_at`) and can repair:
 * this is its figure part, every difference listed.
 *
 * @param db A migrated database.
 * @param options `deviceId`: only that device (default every device).
 * @returns The devices checked and every mismatch found (none: the figures are right).
 * @throws {StorageUnavailableError} When the database cannot be reached.
 * @example
 * ```ts
 * import { createPGliteDatabase, migrateToLatest, verifyDailyFigures } from '@fleet-hours/storage-kysely';
 * const db = await createPGliteDatabase();
 * await migrateToLatest(db);
 * const { mismatches } = await verifyDailyFigures(db);
 * mismatches.length; // 0
 * await db.destroy();
 * ```
 */
export async function verifyDailyFigures(
  db: Kysely<FleetHoursDatabase>,
  options: { readonly deviceId?: number } = {},
): Promise<{ readonly deviceIds: readonly number[]; readonly mismatches: readonly DailyFiguresMismatch[] }> {
  const deviceIds: number[] = [];
  const mismatches: DailyFiguresMismatch[] = [];
  await verifyStore(db, {
    ...(options.deviceId === undefined ? {} : { deviceId: options.deviceId }),
    detailLimit: Infinity,
    onDevice: (report) => {
      deviceIds.push(report.deviceId);
      for (const difference of report.differences) {
        if (difference.kind !== 'telemetry_segments' && difference.kind !== 'last_reported_at') mismatches.push(difference);
      }
    },
  });
  return { deviceIds, mismatches };
}
