import { sql, type RawBuilder, type Selectable } from 'kysely';

/** `integer` ids: anything else cannot name a row, so it is a miss, not a query error. */
const MAX_ID = 2_147_483_647;

/** Whether a value can be the id of a row; the stores answer a miss for anything else. */
export function isId(value: number): boolean {
  return Number.isInteger(value) && value >= 1 && value <= MAX_ID;
}

/** A `timestamptz` column read as epoch seconds (float8: exact for whole seconds). */
export function epochSeconds(column: string): RawBuilder<number> {
  return sql<number>`date_part('epoch', ${sql.ref(column)})`;
}

/**
 * A row of `Table` as a select reads it when every `timestamptz` column is read with
 * {@link epochSeconds}: the other columns as the table has them, each instant as epoch seconds
 * (a number, or the text some drivers give), `null` where the column may be null.
 */
export type EpochSecondsRow<Table> = {
  [Column in keyof Selectable<Table>]: Selectable<Table>[Column] extends Date
    ? number | string
    : Date extends Selectable<Table>[Column]
      ? number | string | null
      : Selectable<Table>[Column];
};

/** Epoch seconds (checked by `assertEpochSeconds` beforehand) as a `timestamptz`; `null` stays null. */
export function instantOf(seconds: number | null): RawBuilder<Date> {
  return sql<Date>`to_timestamp(${seconds}::float8)`;
}

/** A nullable epoch-seconds column value as a number. */
export function secondsOrNull(value: number | string | null): number | null {
  return value === null ? null : Number(value);
}

/**
 * A parameter read through a scalar subquery, `(select $n::type)::type`, for statements run at
 * high rates whose plan does not depend on their values (every row is reached by its key). In a
 * custom plan PostgreSQL sees a parameter's value: it sizes `unnest($n)` and `= any($n)` by the
 * array's length, and `account_id = $n` by the column's statistics, and finds them cheaper than in
 * the generic plan, so with the default `plan_cache_mode` it plans such a statement again at every
 * execution. Read through a subquery, a value has the same estimate in both plans, and after five
 * executions on a connection the statement keeps its generic plan (P38).
 *
 * @param value The value.
 * @param type Its SQL type, e.g. `integer[]`.
 */
export function planFree(value: unknown, type: string): RawBuilder<unknown> {
  const cast = sql.raw(type);
  return sql`(select ${value}::${cast})::${cast}`;
}
