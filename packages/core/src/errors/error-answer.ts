import { ERROR_TABLE, type ErrorCode } from './error-codes.js';
import { isFleetHoursError } from './errors.js';

/** What a front end answers for a thrown value: the status, code and message of the error body (D16), and extra headers. */
export interface ErrorAnswer {
  readonly status: number;
  readonly code: ErrorCode;
  readonly message: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Fields of the error body besides status, code and message (never on a 5xx). */
  readonly details: Readonly<Record<string, string>>;
  /** `true` for a 5xx: the failure is the operator's to log, and nothing of it reached the message. */
  readonly internal: boolean;
}

/**
 * Turns anything thrown into the answer a client gets (D16), by class and code, never by message
 * text:
 *
 * - a `FleetHoursError` (its subclasses `InvalidParameterError`, `StorageUnavailableError`, …)
 *   answers its code with the status of `ERROR_TABLE`; a 4xx keeps its message (it tells the
 *   client what to fix), a 5xx gets the table's message (its own may hold internal detail);
 * - anything else is 500 `internal_error` with the table's message: no stack, SQL or path.
 *
 * @param error A caught value.
 * @returns The answer.
 * @example
 * ```ts
 * import { InvalidParameterError } from '@fleet-hours/core';
 * import { errorAnswer } from '@fleet-hours/core/adapter';
 * errorAnswer(new InvalidParameterError('from', 'Cannot parse from "x": expected a date as YYYY-MM-DD')).status; // 400
 * errorAnswer(new Error('select * from api_keys failed')).message; // 'Internal error: it has been logged'
 * ```
 */
export function errorAnswer(error: unknown): ErrorAnswer {
  if (!isFleetHoursError(error)) return _answer('internal_error', ERROR_TABLE.internal_error.message, {}, {});
  const { status, message } = ERROR_TABLE[error.code];
  const internal = status >= 500;
  return _answer(error.code, internal ? message : error.message, error.headers ?? {}, internal ? {} : (error.details ?? {}));
}

function _answer(
  code: ErrorCode,
  message: string,
  headers: Readonly<Record<string, string>>,
  details: Readonly<Record<string, string>>,
): ErrorAnswer {
  const { status } = ERROR_TABLE[code];
  return { status, code, message, headers, details, internal: status >= 500 };
}
