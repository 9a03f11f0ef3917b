import { sql, type RawBuilder } from 'kysely';

/** `integer` ids: anything else cannot name a row, so it is a miss, not a query error. */
const MAX_ID = 2_147_483_647;

/** Whether a value can be the id of a row; the stores answer a miss for anything else. */
export function _isId(value: number): boolean {
  return Number.isInteger(value) && value >= 1 && value <= MAX_ID;
}

/** A `timestamptz` column read as epoch seconds (float8: exact for whole seconds). */
export function _epoch(column: string): RawBuilder<number> {
  return sql<number>`date_part('epoch', ${sql.ref(column)})`;
}

/** Epoch seconds (checked by `assertEpochSeconds` beforehand) as a `timestamptz`; `null` stays null. */
export function _instant(seconds: number | null): RawBuilder<Date> {
  return sql<Date>`to_timestamp(${seconds}::float8)`;
}

/** A nullable epoch-seconds column value as a number. */
export function _seconds(value: number | string | null): number | null {
  return value === null ? null : Number(value);
}
