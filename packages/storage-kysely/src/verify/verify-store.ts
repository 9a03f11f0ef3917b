import type { Kysely } from 'kysely';
import { deviceIdPages, READ_CHUNK } from '../sql/daily-figures.js';
import { checkDevice, type CheckOptions, type DeviceCheck, type StoreDifference } from './device-check.js';
import { lockDeviceState } from '../sql/segment-queries.js';
import { guard } from '../stores/storage-error.js';
import type { FleetHoursDatabase } from '../schema/database-schema.js';

export type { StoreDifference } from './device-check.js';

/** Options of {@link verifyStore}. */
export interface VerifyStoreOptions {
  /** Only this device (default: every device, one at a time, by id). */
  readonly deviceId?: number;
  /**
   * Rebuild what differs from its source, each device in a transaction of its own under its row
   * lock (writes to it wait meanwhile; default `false`: change nothing).
   */
  readonly repair?: boolean;
  /** Rows read per statement at most: points, segments, day rows, device ids (default 10,000). */
  readonly chunkSize?: number;
  /** Differences listed per kind and device at most; the rest are counted in `omitted` (default 20). */
  readonly detailLimit?: number;
  /** Called with each device's report as soon as it is checked (repaired), before the next device. */
  readonly onDevice?: (report: DeviceVerification) => void | Promise<void>;
}

/** What {@link verifyStore} found of one device. */
export interface DeviceVerification {
  readonly deviceId: number;
  /** What differs from its source (empty: the device is consistent), at most `detailLimit` of a kind. */
  readonly differences: readonly StoreDifference[];
  /** Differences found beyond `detailLimit` of their kind, not listed. */
  readonly omitted: number;
  /** Whether `differences` were rebuilt from their sources (`repair`). */
  readonly repaired: boolean;
}

/** The result of {@link verifyStore}. */
export interface VerifyStoreResult {
  /** Devices checked. */
  readonly checked: number;
  /** The devices with differences, by id (with `repair`: the differences that were repaired). */
  readonly devices: readonly DeviceVerification[];
}

/**
 * Checks every derived datum of every device (or one) against its source (D36): telemetry segments
 * against the derivation of the stored points (D2, D21, D22), per-day figures against the closed
 * segments in the device's zone, lifetime totals and `longest_segment_seconds` against the same
 * segments (D27), and `last_reported_at` against the newest stored point or imported segment
 * instant (D26). Imported segments have no source to check against.
 *
 * Memory stays flat whatever the size of the database: devices are taken one at a time, and each
 * statement reads at most `chunkSize` rows (keyset on the primary keys, in time order), the
 * segments derived and the days summed as the rows go by.
 *
 * A device is read in a `repeatable read`, read-only transaction: one snapshot, consistent because
 * every write of a device commits its points, segments, figures and row together, and no lock, so
 * the servers' writes of even a huge device never wait for the check. With `repair`, a device that
 * differs is checked again and fixed in a transaction that first takes its row lock (`for update`,
 * in a statement of its own, so that every later statement reads what the writes before it
 * committed) and always updates its row, so that a telemetry write planned before the repair plans
 * again (P37): differing telemetry segments are replaced by the derived ones, then the figures and
 * totals are rebuilt from the segments and `last_reported_at` is set.
 *
 * @param db A migrated database.
 * @param options The device, `repair`, chunk size, listing limit and a callback per device.
 * @returns How many devices were checked and the devices with differences.
 * @throws {RangeError} (rejects) When `chunkSize` or `detailLimit` is not a whole number ≥ 1 (`detailLimit` may be `Infinity`).
 * @throws {StorageUnavailableError} When the database cannot be reached.
 * @example
 * ```ts
 * import { createKyselyStore, createPGliteDatabase, migrateToLatest, verifyStore } from '@fleet-hours/storage-kysely';
 * const db = await createPGliteDatabase();
 * await migrateToLatest(db);
 * const store = createKyselyStore(db);
 * const account = await store.createAccount({ name: 'Acme', plan: 'business', now: 1_767_225_600 });
 * const device = await store.createDevice({ accountId: account.id, name: 'Truck', imei: '356307042441013', model: 'FMB920', timeZone: 'UTC' });
 * await store.writeTelemetry({ accountId: account.id, points: [{ deviceId: device!.id, time: 1_767_225_600, ignition: true, speedKmh: 0 }], now: 1_767_225_600 });
 * await verifyStore(db); // { checked: 1, devices: [] }
 * await db.destroy();
 * ```
 */
export function verifyStore(db: Kysely<FleetHoursDatabase>, options: VerifyStoreOptions = {}): Promise<VerifyStoreResult> {
  const chunkSize = options.chunkSize ?? READ_CHUNK;
  const detailLimit = options.detailLimit ?? 20;
  return guard(async () => {
    if (!Number.isSafeInteger(chunkSize) || chunkSize < 1)
      throw new RangeError(`Option chunkSize must be a whole number ≥ 1, got ${chunkSize}`);
    if (detailLimit !== Infinity && (!Number.isSafeInteger(detailLimit) || detailLimit < 1)) {
      throw new RangeError(`Option detailLimit must be a whole number ≥ 1, got ${detailLimit}`);
    }
    let checked = 0;
    const devices: DeviceVerification[] = [];
    for await (const deviceId of deviceIdPages(db, options.deviceId, chunkSize)) {
      const check: CheckOptions = { repair: false, chunkSize, detailLimit };
      let found = await db
        .transaction()
        .setIsolationLevel('repeatable read')
        .setAccessMode('read only')
        .execute((trx) => checkDevice(trx, deviceId, check));
      if (found === null) continue; // deleted since its id was read
      let repaired = false;
      if (options.repair && found.differences.length > 0) {
        const fixed = await _repairDevice(db, deviceId, { ...check, repair: true });
        if (fixed !== null) [found, repaired] = [fixed, fixed.differences.length > 0];
      }
      checked += 1;
      const report: DeviceVerification = { deviceId, differences: found.differences, omitted: found.omitted, repaired };
      await options.onDevice?.(report);
      if (report.differences.length > 0) devices.push(report);
    }
    return { checked, devices };
  });
}

/**
 * Checks and fixes one device under the lock of its state row (D44); `null` when it was deleted meanwhile. The lock
 * is a statement of its own: under read committed, a statement that waited for a lock reads the
 * snapshot from before the wait, so the points and segments are read by later statements.
 */
function _repairDevice(db: Kysely<FleetHoursDatabase>, deviceId: number, options: CheckOptions): Promise<DeviceCheck | null> {
  return db.transaction().execute(async (trx) => {
    if (!(await lockDeviceState(trx, deviceId))) return null;
    return checkDevice(trx, deviceId, options);
  });
}
