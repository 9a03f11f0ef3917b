import { ERROR_TABLE, isErrorCode, type ErrorCode } from './error-codes.js';

/** Marks every FleetHoursError, also one made by a second copy of this package in node_modules. */
const FLEET_HOURS_ERROR = Symbol.for('@fleet-hours/core/FleetHoursError');

/** Options of {@link FleetHoursError}. */
export interface FleetHoursErrorOptions {
  /** What went wrong, for people; default: the code's message in `ERROR_TABLE`. Never sent for a 5xx (D16). */
  readonly message?: string;
  /** Headers the response must carry besides the common ones, e.g. `Allow` on a 405 or `Retry-After` on a 429. */
  readonly headers?: Readonly<Record<string, string>>;
  readonly cause?: unknown;
}

/**
 * A refusal with a known error code (D16): every layer throws it by code, and each front end reads
 * the status and default message of the code from `ERROR_TABLE` (the HTTP API turns it into the
 * JSON error body in one place).
 *
 * @example
 * ```ts
 * import { FleetHoursError } from '@fleet-hours/core';
 * const error = new FleetHoursError('device_not_found');
 * [error.status, error.message]; // [404, 'No such device on this account']
 * ```
 */
export class FleetHoursError extends Error {
  override readonly name: string = 'FleetHoursError';
  readonly code: ErrorCode;
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: ErrorCode, options: FleetHoursErrorOptions = {}) {
    super(options.message ?? ERROR_TABLE[code].message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.headers = options.headers ?? {};
  }

  /** The HTTP status of the code, from `ERROR_TABLE`. */
  get status(): number {
    return ERROR_TABLE[this.code].status;
  }
}
Object.defineProperty(FleetHoursError.prototype, FLEET_HOURS_ERROR, { value: true });

/**
 * Whether a thrown value is a {@link FleetHoursError} (or a subclass), by class — also when it comes
 * from a second copy of `@fleet-hours/core`, whose class is another object. Never by message text.
 *
 * @param error A caught value.
 * @returns `true` when it carries an error code of the table.
 * @example
 * ```ts
 * import { FleetHoursError, isFleetHoursError } from '@fleet-hours/core';
 * isFleetHoursError(new FleetHoursError('not_found')); // true
 * isFleetHoursError(new Error('not_found')); // false
 * ```
 */
export function isFleetHoursError(error: unknown): error is FleetHoursError {
  if (error instanceof FleetHoursError) return true;
  return error instanceof Error && (error as unknown as Record<symbol, unknown>)[FLEET_HOURS_ERROR] === true && isErrorCode((error as { code?: unknown }).code);
}

/**
 * A request parameter that cannot be used (D7): 400 `invalid_parameter`. `parameter` names it and
 * the message says what is wrong with it.
 */
export class InvalidParameterError extends FleetHoursError {
  override readonly name: string = 'InvalidParameterError';
  /** The query parameter at fault, e.g. `from`. */
  readonly parameter: string;

  constructor(parameter: string, message: string) {
    super('invalid_parameter', { message });
    this.parameter = parameter;
  }
}

/** One overlap found while planning an import (D1). Rows are 1-based positions in the batch. */
export interface SegmentConflict {
  readonly row: number;
  /** The other row of the batch it overlaps, or `null` when it overlaps a stored segment. */
  readonly otherRow: number | null;
  /** The stored segment it overlaps, when `otherRow` is `null`. */
  readonly stored: { readonly startedAt: number; readonly endedAt: number | null; readonly state: string } | null;
}

/** An import batch refused whole because segments overlap (D1): `conflict`. Nothing of the batch is written. */
export class SegmentOverlapError extends FleetHoursError {
  override readonly name: string = 'SegmentOverlapError';
  readonly conflicts: readonly SegmentConflict[];

  constructor(conflicts: readonly SegmentConflict[]) {
    const shown = conflicts.slice(0, 5).map((conflict) =>
      conflict.otherRow === null
        ? `row ${conflict.row} overlaps a stored segment`
        : `row ${conflict.row} overlaps row ${conflict.otherRow}`,
    );
    const more = conflicts.length > 5 ? ` and ${conflicts.length - 5} more` : '';
    super('conflict', { message: `Import refused, nothing written: ${shown.join('; ')}${more}` });
    this.conflicts = conflicts;
  }
}

/**
 * The store cannot be reached (D18): 503 `service_unavailable`. Its message is for the operator's
 * log; clients get the table's message (D16).
 */
export class StorageUnavailableError extends FleetHoursError {
  override readonly name: string = 'StorageUnavailableError';

  constructor(message = 'Storage is unavailable', options?: { cause?: unknown }) {
    super('service_unavailable', { message, ...(options && 'cause' in options ? { cause: options.cause } : {}) });
  }
}
