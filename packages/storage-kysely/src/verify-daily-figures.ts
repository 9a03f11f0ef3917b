import type { BucketSeconds } from '@fleet-hours/core';
import type { DayFigure } from '@fleet-hours/core/adapter';
import { sql, type Kysely } from 'kysely';
import { _deviceIds, _expectedFigures, _storedFigures } from './_daily-figures.js';
import { _guard } from './_storage-error.js';
import type { FleetHoursDatabase } from './database-schema.js';

/** Where a device's stored figures (D27) differ from what its segments say. */
export type DailyFiguresMismatch =
  /** One local day: `null` on a side that has no row for it. */
  | { readonly deviceId: number; readonly kind: 'day'; readonly dayStart: number; readonly expected: DayFigure | null; readonly stored: DayFigure | null }
  /** The lifetime totals of closed segments that the meter reads. */
  | { readonly deviceId: number; readonly kind: 'totals'; readonly expected: BucketSeconds; readonly stored: BucketSeconds }
  /** The days were cut in another zone than the device's (`null`: never built, yet there are segments). */
  | { readonly deviceId: number; readonly kind: 'time_zone'; readonly expected: string; readonly stored: string | null }
  /** `longest_segment_seconds` is shorter than a closed segment: window scans could miss it. */
  | { readonly deviceId: number; readonly kind: 'longest_segment'; readonly expected: number; readonly stored: number };

/**
 * Checks the per-day figures and lifetime totals (D27) of one device, or of every device, against
 * their segments, each device in a transaction that holds its row (writes to it wait, so a write
 * in flight is never reported). Nothing is changed: fix what it reports with
 * {@link rebuildDailyFigures}.
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
export function verifyDailyFigures(
  db: Kysely<FleetHoursDatabase>,
  options: { readonly deviceId?: number } = {},
): Promise<{ readonly deviceIds: readonly number[]; readonly mismatches: readonly DailyFiguresMismatch[] }> {
  return _guard(async () => {
    const deviceIds = await _deviceIds(db, options.deviceId);
    const checked: number[] = [];
    const mismatches: DailyFiguresMismatch[] = [];
    for (const deviceId of deviceIds) {
      const found = await db.transaction().execute(async (trx) => {
        const held = await sql`select id from devices where id = ${deviceId} for share`.execute(trx);
        if (held.rows.length === 0) return null;
        const expected = (await _expectedFigures(trx, deviceId))!;
        const stored = (await _storedFigures(trx, deviceId))!;
        return _compare(deviceId, expected, stored);
      });
      if (found === null) continue;
      checked.push(deviceId);
      mismatches.push(...found);
    }
    return { deviceIds: checked, mismatches };
  });
}

function _compare(
  deviceId: number,
  expected: NonNullable<Awaited<ReturnType<typeof _expectedFigures>>>,
  stored: NonNullable<Awaited<ReturnType<typeof _storedFigures>>>,
): DailyFiguresMismatch[] {
  const mismatches: DailyFiguresMismatch[] = [];
  const hasFigures = expected.days.length > 0;
  if (stored.timeZone !== expected.timeZone && (stored.timeZone !== '' || hasFigures)) {
    mismatches.push({ deviceId, kind: 'time_zone', expected: expected.timeZone, stored: stored.timeZone === '' ? null : stored.timeZone });
  }
  const storedDays = new Map(stored.days.map((day) => [day.dayStart, day]));
  const expectedDays = new Map(expected.days.map((day) => [day.dayStart, day]));
  for (const dayStart of [...new Set([...expectedDays.keys(), ...storedDays.keys()])].sort((a, b) => a - b)) {
    const want = expectedDays.get(dayStart) ?? null;
    const have = storedDays.get(dayStart) ?? null;
    const same =
      want !== null && have !== null && want.dayEnd === have.dayEnd && want.movingSeconds === have.movingSeconds && want.idleSeconds === have.idleSeconds;
    if (!same) mismatches.push({ deviceId, kind: 'day', dayStart, expected: want, stored: have });
  }
  if (expected.movingSeconds !== stored.movingSeconds || expected.idleSeconds !== stored.idleSeconds) {
    mismatches.push({
      deviceId,
      kind: 'totals',
      expected: { movingSeconds: expected.movingSeconds, idleSeconds: expected.idleSeconds },
      stored: { movingSeconds: stored.movingSeconds, idleSeconds: stored.idleSeconds },
    });
  }
  if (stored.longestSegmentSeconds < expected.longestSegmentSeconds) {
    mismatches.push({ deviceId, kind: 'longest_segment', expected: expected.longestSegmentSeconds, stored: stored.longestSegmentSeconds });
  }
  return mismatches;
}
