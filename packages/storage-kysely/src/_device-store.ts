import type { BucketSeconds, Device, FleetHoursStore } from '@fleet-hours/core';
import { assertEpochSeconds } from '@fleet-hours/core/adapter';
import { sql, type Kysely } from 'kysely';
import { _refusingImeiConflict } from './_imei-conflict.js';
import { _rebuildDeviceFigures } from './_daily-figures.js';
import { _summarize, _sumByBucket } from './_segment-queries.js';
import { _epoch, _isId, _seconds } from './_sql-values.js';
import { _guard } from './_storage-error.js';
import type { FleetHoursDatabase } from './database-schema.js';

/** The methods of the storage port on devices. */
export type _DeviceStore = Pick<FleetHoursStore, 'listDevices' | 'findDevice' | 'findDeviceByImei' | 'createDevice' | 'updateDevice'> & {
  findDeviceWithSums: NonNullable<FleetHoursStore['findDeviceWithSums']>;
  findDeviceWithSummary: NonNullable<FleetHoursStore['findDeviceWithSummary']>;
};

/** A `devices` row read by raw SQL, with what was read along with it. */
type _DeviceRow = Parameters<typeof _toDevice>[0];

/** The largest `integer` id. */
const MAX_ID = 2_147_483_647;

/** A `devices` row as {@link _toDevice} reads it. */
const DEVICE_COLUMNS = ['id', 'account_id', 'name', 'imei', 'registration', 'model', 'status', 'time_zone', _epoch('last_reported_at').as('last_reported_at')] as const;

/** {@link DEVICE_COLUMNS} of the row `d`, in raw SQL. */
const DEVICE_SQL = sql`d.id, d.account_id, d.name, d.imei, d.registration, d.model, d.status, d.time_zone, date_part('epoch', d.last_reported_at) as last_reported_at`;

/** Devices on Kysely. `lastReportedAt` is written by imports only (see `_segmentStore`). */
export function _deviceStore(db: Kysely<FleetHoursDatabase>): _DeviceStore {
  const devices = () => db.selectFrom('devices').select(DEVICE_COLUMNS);
  return {
    listDevices: ({ accountId, afterId, limit }) =>
      _guard(async () => {
        if (afterId !== undefined && !Number.isSafeInteger(afterId)) throw new RangeError(`afterId must be a safe integer, got "${afterId}"`);
        if (limit !== undefined && !(Number.isSafeInteger(limit) && limit >= 1)) throw new RangeError(`limit must be a positive safe integer, got "${limit}"`);
        // An id column is `integer`: past its range there is nothing (and no value to compare with).
        if (!_isId(accountId) || (afterId !== undefined && afterId >= MAX_ID)) return [];
        let query = devices().where('account_id', '=', accountId);
        // A keyset page of the fleet endpoints (D32): by the primary key, after the last id seen.
        if (afterId !== undefined && afterId >= 1) query = query.where('id', '>', afterId);
        if (limit !== undefined) query = query.limit(limit);
        const rows = await query.orderBy('id').execute();
        return rows.map(_toDevice);
      }),

    findDevice: ({ accountId, deviceId }) =>
      _guard(async () => {
        if (!_isId(accountId) || !_isId(deviceId)) return null;
        const row = await devices().where('id', '=', deviceId).where('account_id', '=', accountId).executeTakeFirst();
        return row ? _toDevice(row) : null;
      }),

    // The device and its figures in one statement: the figures are the very query of
    // sumSegmentSeconds (see `_segment-queries.ts`), run as a subquery only for the device of this
    // account and only when its zone is the one the boundaries were cut in.
    findDeviceWithSums: ({ accountId, deviceId, timeZone, boundaries, now }) =>
      _guard(async () => {
        boundaries.forEach((boundary, index) => assertEpochSeconds(`boundaries[${index}]`, boundary));
        assertEpochSeconds('now', now);
        if (!_isId(accountId) || !_isId(deviceId)) return null;
        const bucketCount = Math.max(0, boundaries.length - 1);
        const figures = bucketCount === 0 ? sql`'[]'::json` : sql`(select coalesce(json_agg(json_build_array(s.bucket, s.moving_seconds, s.idle_seconds)), '[]'::json) from (${_sumByBucket(deviceId, boundaries, now)}) as s)`;
        const { rows } = await sql<_DeviceRow & { buckets: [number, number | string, number | string][] | null }>`
          select ${DEVICE_SQL}, case when d.time_zone = ${timeZone}::text then ${figures} end as buckets
            from devices as d where d.id = ${deviceId}::int and d.account_id = ${accountId}::int`.execute(db);
        const row = rows[0];
        if (!row) return null;
        const device = _toDevice(row);
        if (row.buckets === null || device.timeZone !== timeZone) return { device, buckets: null };
        const buckets: BucketSeconds[] = Array.from({ length: bucketCount }, () => ({ movingSeconds: 0, idleSeconds: 0 }));
        for (const [bucket, moving, idle] of row.buckets) buckets[Number(bucket) - 1] = { movingSeconds: Number(moving), idleSeconds: Number(idle) };
        return { device, buckets };
      }),

    // The device and its meter figures (`_summarize`, as summarizeDeviceSegments) in one statement.
    findDeviceWithSummary: ({ accountId, deviceId, now }) =>
      _guard(async () => {
        assertEpochSeconds('now', now);
        if (!_isId(accountId) || !_isId(deviceId)) return null;
        const { rows } = await sql<_DeviceRow & { first_started_at: number | null; moving_seconds: number | string; idle_seconds: number | string }>`
          select ${DEVICE_SQL}, summary.first_started_at, summary.moving_seconds, summary.idle_seconds
            from devices as d cross join lateral (${_summarize(deviceId, now)}) as summary
           where d.id = ${deviceId}::int and d.account_id = ${accountId}::int`.execute(db);
        const row = rows[0];
        if (!row) return null;
        return {
          device: _toDevice(row),
          summary: { firstStartedAt: _seconds(row.first_started_at), movingSeconds: Number(row.moving_seconds), idleSeconds: Number(row.idle_seconds) },
        };
      }),

    findDeviceByImei: ({ accountId, imei }) =>
      _guard(async () => {
        if (!_isId(accountId)) return null;
        // D25: at most one active device of the account has this IMEI (a partial unique index).
        const row = await devices().where('account_id', '=', accountId).where('imei', '=', imei).where('status', '=', 'active').executeTakeFirst();
        return row ? _toDevice(row) : null;
      }),

    createDevice: (input) =>
      // D25: one active device per account and IMEI, enforced by a partial unique index.
      _guard(_refusingImeiConflict(async () => {
        if (!_isId(input.accountId)) return null;
        // One statement: the device is written only if the account exists.
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
          .returning(DEVICE_COLUMNS)
          .executeTakeFirst();
        return row ? _toDevice(row) : null;
      })),

    updateDevice: ({ deviceId, changes }) =>
      _guard(_refusingImeiConflict(async () => {
        if (!_isId(deviceId)) return null;
        const set = {
          ...(changes.name !== undefined && { name: changes.name }),
          ...(changes.registration !== undefined && { registration: changes.registration }),
          ...(changes.model !== undefined && { model: changes.model }),
          ...(changes.status !== undefined && { status: changes.status }),
          ...(changes.timeZone !== undefined && { time_zone: changes.timeZone }),
        };
        if (Object.keys(set).length === 0) {
          const row = await devices().where('id', '=', deviceId).executeTakeFirst();
          return row ? _toDevice(row) : null;
        }
        // D27: a new zone cuts the days elsewhere, so the device's per-day figures are rebuilt in
        // the same transaction (the update holds the row lock every segment write waits for).
        return db.transaction().execute(async (trx) => {
          const row = await trx.updateTable('devices').set(set).where('id', '=', deviceId).returning([...DEVICE_COLUMNS, 'figures_time_zone']).executeTakeFirst();
          if (!row) return null;
          if (row.figures_time_zone !== null && row.figures_time_zone !== row.time_zone) await _rebuildDeviceFigures(trx, deviceId);
          return _toDevice(row);
        });
      })),
  };
}

export function _toDevice(row: {
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
    lastReportedAt: _seconds(row.last_reported_at),
  };
}
