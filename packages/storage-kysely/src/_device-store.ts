import type { Device, FleetHoursStore } from '@fleet-hours/core';
import { sql, type Kysely } from 'kysely';
import { _epoch, _isId, _seconds } from './_sql-values.js';
import { _guard } from './_storage-error.js';
import type { FleetHoursDatabase } from './database-schema.js';

/** The methods of the storage port on devices. */
export type _DeviceStore = Pick<FleetHoursStore, 'listDevices' | 'findDevice' | 'createDevice' | 'updateDevice'>;

/** A `devices` row as {@link _toDevice} reads it. */
const DEVICE_COLUMNS = ['id', 'account_id', 'name', 'imei', 'registration', 'model', 'status', 'time_zone', _epoch('last_reported_at').as('last_reported_at')] as const;

/** Devices on Kysely. `lastReportedAt` is written by imports only (see `_segmentStore`). */
export function _deviceStore(db: Kysely<FleetHoursDatabase>): _DeviceStore {
  const devices = () => db.selectFrom('devices').select(DEVICE_COLUMNS);
  return {
    listDevices: ({ accountId }) =>
      _guard(async () => {
        if (!_isId(accountId)) return [];
        const rows = await devices().where('account_id', '=', accountId).orderBy('id').execute();
        return rows.map(_toDevice);
      }),

    findDevice: ({ accountId, deviceId }) =>
      _guard(async () => {
        if (!_isId(accountId) || !_isId(deviceId)) return null;
        const row = await devices().where('id', '=', deviceId).where('account_id', '=', accountId).executeTakeFirst();
        return row ? _toDevice(row) : null;
      }),

    createDevice: (input) =>
      _guard(async () => {
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
        const row =
          Object.keys(set).length === 0
            ? await devices().where('id', '=', deviceId).executeTakeFirst()
            : await db.updateTable('devices').set(set).where('id', '=', deviceId).returning(DEVICE_COLUMNS).executeTakeFirst();
        return row ? _toDevice(row) : null;
      }),
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
    lastReportedAt: _seconds(row.last_reported_at),
  };
}
