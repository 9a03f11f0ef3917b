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
  // D28: a call that missed its client-side deadline (_deadline.ts).
  'DEADLINE_EXCEEDED',
]);

// SQLSTATEs of a server that is going away or refusing sessions: class 08 (connection exception),
// 57P01 admin_shutdown (also pg_terminate_backend), 57P02 crash_shutdown, 57P03 cannot_connect_now,
// 53300 too_many_connections; and 57014 query_canceled, which `statement_timeout` raises when a
// statement passes the deadline (D28): a call that cannot be answered in time.
const UNAVAILABLE_SQLSTATE = /^(08[0-9A-Z]{3}|57P0[123]|53300|57014)$/;

// Drivers that report an outage only in words: Kysely after destroy(), PGlite, node-postgres.
const UNAVAILABLE_MESSAGE = /driver has already been destroyed|PGlite is closed|connection terminated|not queryable|timeout exceeded when trying to connect/i;

/** Whether an error (or its cause, or one of an AggregateError's errors) says the database is unreachable. */
export function _isUnavailable(error: unknown, depth = 0): boolean {
  if (depth > 4 || typeof error !== 'object' || error === null) return false;
  if (error instanceof StorageUnavailableError) return true;
  const { code, message, cause, errors } = error as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code))) return true;
  if (typeof message === 'string' && UNAVAILABLE_MESSAGE.test(message)) return true;
  if (Array.isArray(errors) && errors.some((inner) => _isUnavailable(inner, depth + 1))) return true;
  return cause !== undefined && _isUnavailable(cause, depth + 1);
}

/** The first error code along an error's causes, e.g. `ECONNREFUSED`, for a message. */
export function _errorCode(error: unknown, depth = 0): string | undefined {
  if (depth > 4 || typeof error !== 'object' || error === null) return undefined;
  const { code, cause, errors } = error as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string') return code;
  if (Array.isArray(errors)) for (const inner of errors) if (_errorCode(inner, depth + 1)) return _errorCode(inner, depth + 1);
  return _errorCode(cause, depth + 1);
}

/**
 * Maps a connection failure to `StorageUnavailableError` (→ 503, D18), keeping the original as
 * `cause`; every other error (SegmentOverlapError, RangeError, a SQL error) passes through unchanged.
 */
export function _toStorageError(error: unknown): unknown {
  if (error instanceof StorageUnavailableError || !_isUnavailable(error)) return error;
  const code = _errorCode(error);
  return new StorageUnavailableError(`Storage is unavailable${code ? ` (${code})` : ''}`, { cause: error });
}

/** Runs a store operation, mapping connection failures to `StorageUnavailableError`. */
export async function _guard<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw _toStorageError(error);
  }
}
