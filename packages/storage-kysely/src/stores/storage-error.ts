import { StorageUnavailableError } from '@fleet-hours/core';

// Error codes that mean "the database cannot be reached right now" (D18): Node socket errors,
// postgres.js connection errors, and our PGlite dialect's closed instance.
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
  'PGLITE_CLOSED',
  // D28: a call that missed its client-side deadline (dialect/deadline.ts).
  'DEADLINE_EXCEEDED',
]);

// SQLSTATEs of a server that is going away or refusing sessions: class 08 (connection exception),
// 57P01 admin_shutdown (also pg_terminate_backend), 57P02 crash_shutdown, 57P03 cannot_connect_now,
// 53300 too_many_connections; and 57014 query_canceled, which `statement_timeout` raises when a
// statement passes the deadline (D28): a call that cannot be answered in time.
const UNAVAILABLE_SQLSTATE = /^(08[0-9A-Z]{3}|57P0[123]|53300|57014)$/;

// Drivers that report an outage only in words: Kysely after destroy(), PGlite, node-postgres.
const UNAVAILABLE_MESSAGE =
  /driver has already been destroyed|PGlite is closed|connection terminated|not queryable|timeout exceeded when trying to connect/i;

/** Whether an error (or its cause, or one of an AggregateError's errors) says the database is unreachable. */
export function isUnavailable(error: unknown, depth = 0): boolean {
  if (depth > 4 || typeof error !== 'object' || error === null) return false;
  if (error instanceof StorageUnavailableError) return true;
  const { code, message, cause, errors } = error as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code))) return true;
  if (typeof message === 'string' && UNAVAILABLE_MESSAGE.test(message)) return true;
  if (Array.isArray(errors) && errors.some((inner) => isUnavailable(inner, depth + 1))) return true;
  return cause !== undefined && isUnavailable(cause, depth + 1);
}

/** The first error code along an error's causes, e.g. `ECONNREFUSED`, for a message. */
export function errorCode(error: unknown, depth = 0): string | undefined {
  if (depth > 4 || typeof error !== 'object' || error === null) return undefined;
  const { code, cause, errors } = error as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string') return code;
  if (Array.isArray(errors)) for (const inner of errors) if (errorCode(inner, depth + 1)) return errorCode(inner, depth + 1);
  return errorCode(cause, depth + 1);
}

/**
 * Maps a connection failure to `StorageUnavailableError` (→ 503, D18), keeping the original as
 * `cause`; every other error (SegmentOverlapError, RangeError, a SQL error) passes through unchanged.
 */
export function toStorageError(error: unknown): unknown {
  if (error instanceof StorageUnavailableError || !isUnavailable(error)) return error;
  const code = errorCode(error);
  return new StorageUnavailableError(`Storage is unavailable${code ? ` (${code})` : ''}`, { cause: error });
}

// SQLSTATEs of a lost race (D35): 40001 serialization_failure (a row changed by a concurrent
// transaction, under a server whose default isolation is REPEATABLE READ or SERIALIZABLE) and
// 40P01 deadlock_detected. The statement or transaction that raised it wrote nothing.
const LOST_RACE_SQLSTATE = /^(40001|40P01)$/;

/** Whether an error (or its cause) is a lost race: the operation wrote nothing and may run again. */
export function isLostRace(error: unknown, depth = 0): boolean {
  if (depth > 4 || typeof error !== 'object' || error === null) return false;
  const { code, cause } = error as { code?: unknown; cause?: unknown };
  if (typeof code === 'string' && LOST_RACE_SQLSTATE.test(code)) return true;
  return cause !== undefined && isLostRace(cause, depth + 1);
}

/**
 * How long an operation that keeps losing races runs again before it answers as unavailable (503,
 * D35): the default deadline of a database call (D28).
 */
const LOST_RACE_BUDGET_MS = 5_000;

/**
 * Runs a store operation, mapping connection failures to `StorageUnavailableError`. An operation
 * that lost a race (D35) runs again after a short random pause, for up to the default deadline of a
 * call, and then answers `StorageUnavailableError` (503 with `Retry-After`), never an internal error: every store
 * operation is one statement or one transaction, so the failed run wrote nothing.
 */
export async function guard<T>(operation: () => Promise<T>): Promise<T> {
  const started = Date.now();
  let lostRace: unknown = null;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await operation();
    } catch (error) {
      // P102: inside a transaction (a unit), the statement that lost cannot run again (25P02: the
      // transaction is aborted): the lost race goes up, and the unit's own guard runs it again.
      if (lostRace !== null && _isAbortedTransaction(error)) throw lostRace;
      if (isLostRace(error)) {
        lostRace = error;
        if (Date.now() - started < LOST_RACE_BUDGET_MS) {
          // Random pauses that grow a little: writers of one device that lost together spread out.
          await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(100, 5 * attempt)));
          continue;
        }
        throw new StorageUnavailableError(`Storage is busy with concurrent writes of the same device (${errorCode(error)})`, {
          cause: error,
        });
      }
      throw toStorageError(error);
    }
  }
}

/** Whether an error is 25P02 `in_failed_sql_transaction`: a statement sent after one that failed in the same transaction. */
function _isAbortedTransaction(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '25P02';
}
