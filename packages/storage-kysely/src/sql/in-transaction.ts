import type { Kysely } from 'kysely';
import type { FleetHoursDatabase } from '../schema/database-schema.js';

/**
 * Runs `run` in a transaction: `db` itself when it is one already (a unit of `atomically`, P102,
 * or a caller's transaction), else a new one. Kysely refuses a transaction begun inside another,
 * so every store operation of several statements opens its transaction here.
 *
 * @param db The database, or a transaction on it.
 * @param run The statements.
 * @returns What `run` returns, once its transaction is committed (or, inside another, once it ran).
 */
export function inTransaction<T>(db: Kysely<FleetHoursDatabase>, run: (trx: Kysely<FleetHoursDatabase>) => Promise<T>): Promise<T> {
  return db.isTransaction ? run(db) : db.transaction().execute(run);
}
