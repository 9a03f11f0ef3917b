import type { StoredWorkCalendar, WorkCalendar, WorkCalendarStore } from '@fleet-hours/core';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { FleetHoursDatabase } from '../schema/database-schema.js';
import { isId } from '../sql/sql-values.js';
import { guard } from './storage-error.js';

interface _Row {
  readonly body: string | null;
  readonly version: number;
}

/**
 * Work calendars on Kysely (D58, P112): one row per place (an account's default, a device's own),
 * its body the calendar's JSON text, `null` once removed, its version counting every change. Each
 * write is one statement: a first calendar is an insert that does nothing when the place has a row
 * already, a later one an update of the row with the version expected.
 */
export function calendarStore(db: Kysely<FleetHoursDatabase>): WorkCalendarStore {
  /** The place's table, the row's filter, and the place's owner (the account, or its device: another account's is a miss). */
  const placeOf = (
    accountId: number,
    deviceId: number | null,
  ): { table: RawBuilder<unknown>; where: RawBuilder<unknown>; owner: RawBuilder<unknown>; key: RawBuilder<unknown> } =>
    deviceId === null
      ? {
          table: sql`account_work_calendars`,
          where: sql`account_id = ${accountId}::int`,
          owner: sql`select id as account_id from accounts where id = ${accountId}::int`,
          key: sql`(account_id)`,
        }
      : {
          table: sql`device_work_calendars`,
          where: sql`device_id = ${deviceId}::int and account_id = ${accountId}::int`,
          owner: sql`select id as device_id, account_id from devices where id = ${deviceId}::int and account_id = ${accountId}::int`,
          key: sql`(device_id)`,
        };
  const valid = (accountId: number, deviceId: number | null) => isId(accountId) && (deviceId === null || isId(deviceId));
  return {
    findWorkCalendar: ({ accountId, deviceId }) =>
      guard(async () => {
        if (!valid(accountId, deviceId)) return { calendar: null, version: 0 };
        const { table, where } = placeOf(accountId, deviceId);
        const { rows } = await sql<_Row>`select body::text as body, version from ${table} where ${where}`.execute(db);
        return rows[0] ? _stored(rows[0]) : { calendar: null, version: 0 };
      }),

    // The calendars of a page of devices and the account's default in one statement (D49, D59, P129).
    findWorkCalendarsMany: ({ accountId, deviceIds }) =>
      guard(async () => {
        const devices = deviceIds.map(() => null as WorkCalendar | null);
        if (!isId(accountId)) return { accountDefault: null, devices };
        const ids = deviceIds.filter(isId);
        const { rows } = await sql<{ readonly device_id: number | null; readonly body: string }>`
          select null::int as device_id, body::text as body from account_work_calendars where account_id = ${accountId}::int and body is not null
          union all
          select device_id, body::text from device_work_calendars
           where device_id = any(${ids}::int[]) and account_id = ${accountId}::int and body is not null`.execute(db);
        const own = new Map(
          rows.map((row) => [row.device_id === null ? null : Number(row.device_id), JSON.parse(row.body) as WorkCalendar]),
        );
        return { accountDefault: own.get(null) ?? null, devices: deviceIds.map((deviceId) => own.get(deviceId) ?? null) };
      }),

    putWorkCalendar: ({ accountId, deviceId, calendar, expectedVersion }) =>
      guard(async () => {
        if (!valid(accountId, deviceId)) return null;
        const { table, where, owner, key } = placeOf(accountId, deviceId);
        const body = calendar === null ? null : JSON.stringify(calendar);
        const columns = deviceId === null ? sql`(account_id, body, version)` : sql`(device_id, account_id, body, version)`;
        const { rows } =
          expectedVersion !== undefined && expectedVersion > 0
            ? await sql<_Row>`
                update ${table} set body = ${body}::text::json, version = version + 1
                where ${where} and version = ${expectedVersion}::int
                returning body::text as body, version`.execute(db)
            : await sql<_Row>`
                insert into ${table} ${columns}
                select owner.*, ${body}::text::json, 1 from (${owner}) as owner
                on conflict ${key}
                ${expectedVersion === 0 ? sql`do nothing` : sql`do update set body = excluded.body, version = ${table}.version + 1`}
                returning body::text as body, version`.execute(db);
        return rows[0] ? _stored(rows[0]) : null;
      }),
  };
}

function _stored(row: _Row): StoredWorkCalendar {
  return { calendar: row.body === null ? null : (JSON.parse(row.body) as WorkCalendar), version: Number(row.version) };
}
