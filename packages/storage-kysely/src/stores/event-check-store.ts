import type { EventCheck, FleetHoursStore } from '@fleet-hours/core';
import { sql, type Kysely } from 'kysely';
import type { FleetHoursDatabase } from '../schema/database-schema.js';
import { guard } from './storage-error.js';

/** The requests to check devices' events that writes leave (D40, P53). */
export interface EventCheckStore {
  listEventChecks: NonNullable<FleetHoursStore['listEventChecks']>;
  clearEventChecks: NonNullable<FleetHoursStore['clearEventChecks']>;
}

/**
 * `event_checks` on Kysely: the write statement leaves a row per device it wrote (`sql/device-writes.ts`);
 * a check lists them with their accounts and clears each at the version it read, in one statement each.
 */
export function eventCheckStore(db: Kysely<FleetHoursDatabase>): EventCheckStore {
  return {
    listEventChecks: ({ afterDeviceId = 0, limit }) =>
      guard(async () => {
        if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`limit must be a positive safe integer, got ${String(limit)}`);
        if (!Number.isSafeInteger(afterDeviceId))
          throw new RangeError(`afterDeviceId must be a safe integer, got ${String(afterDeviceId)}`);
        const { rows } = await sql<{ device_id: number; account_id: number | null; version: string | number }>`
          select pending.device_id, devices.account_id, pending.version
            from event_checks as pending left join devices on devices.id = pending.device_id
           where pending.device_id > ${Math.max(0, Math.min(afterDeviceId, 2_147_483_647))}
           order by pending.device_id limit ${limit}`.execute(db);
        return rows.map(
          (row): EventCheck => ({
            deviceId: Number(row.device_id),
            accountId: row.account_id === null ? null : Number(row.account_id),
            version: Number(row.version),
          }),
        );
      }),

    clearEventChecks: ({ checks }) =>
      guard(async () => {
        if (checks.length === 0) return;
        await sql`
          delete from event_checks as pending
           using unnest(${checks.map((check) => check.deviceId)}::int[], ${checks.map((check) => check.version)}::bigint[]) as done(device_id, version)
           where pending.device_id = done.device_id and pending.version = done.version`.execute(db);
      }),
  };
}
