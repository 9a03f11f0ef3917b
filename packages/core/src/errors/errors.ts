import { ERROR_TABLE, isErrorCode, type ErrorCode } from './error-codes.js';

/** Marks every FleetHoursError, also one made by a second copy of this package in node_modules. */
const FLEET_HOURS_ERROR = Symbol.for('@fleet-hours/core/FleetHoursError');

/** Options of {@link FleetHoursError}. */
export interface FleetHoursErrorOptions {
  /** What went wrong, for people; default: the code's message in `ERROR_TABLE`. Never sent for a 5xx (D16). */
  readonly message?: string;
  /** Headers the response must carry besides the common ones, e.g. `Allow` on a 405 or `Retry-After` on a 429. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Fields the error body carries besides status, code and message, e.g. `{ scope: 'manage' }` (D51). */
  readonly details?: Readonly<Record<string, string>>;
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
  /** Fields the error body carries besides status, code and message. */
  readonly details: Readonly<Record<string, string>>;

  constructor(code: ErrorCode, options: FleetHoursErrorOptions = {}) {
    super(options.message ?? ERROR_TABLE[code].message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.headers = options.headers ?? {};
    this.details = options.details ?? {};
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
  return (
    error instanceof Error &&
    (error as unknown as Record<symbol, unknown>)[FLEET_HOURS_ERROR] === true &&
    isErrorCode((error as { code?: unknown }).code)
  );
}

/**
 * A field of a write's input that cannot be used (D52): 400 `invalid_field`, the body naming it in
 * `field`; the CLI names it as its option (`--timezone`).
 */
export class InvalidFieldError extends FleetHoursError {
  override readonly name: string = 'InvalidFieldError';
  /** The field, as the API's body names it (`timezone`). */
  readonly field: string;

  constructor(field: string, message: string) {
    super('invalid_field', { message, details: { field } });
    this.field = field;
  }
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
    const shown = conflicts
      .slice(0, 5)
      .map((conflict) =>
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

/**
 * A segment of an import batch that no store can hold (D1): an instant outside the years
 * 0001–9999 or not whole seconds, an end not after its start, or an unknown state. A `RangeError`
 * by meaning; `row` (1-based position in the batch) lets a caller point at the line of its file.
 */
export class InvalidSegmentError extends RangeError {
  override readonly name = 'InvalidSegmentError';
  /** 1-based position of the segment in its batch. */
  readonly row: number;
  /** What is wrong, without the row, e.g. `ended_at must be after started_at`. */
  readonly reason: string;

  constructor(row: number, reason: string) {
    super(`Row ${row}: ${reason}`);
    this.row = row;
    this.reason = reason;
  }
}

/**
 * A telemetry point whose device is not an active device of the writing account (D25): 422
 * `unknown_device`, the same answer whether the device is missing, inactive or another account's.
 * The whole batch is refused and nothing of it is written. `index` is the point's 0-based position
 * in the batch, so a front end can name its line (NDJSON) or index (JSON array).
 */
export class UnknownDeviceError extends FleetHoursError {
  override readonly name: string = 'UnknownDeviceError';
  /** 0-based position of the first such point in the batch. */
  readonly index: number;

  /**
   * @param index 0-based position of the point in its batch.
   * @param device How the point named its device.
   */
  constructor(index: number, device: { readonly deviceId?: number | undefined; readonly imei?: string | undefined }) {
    const named = device.imei !== undefined ? `imei "${device.imei}"` : `device_id "${String(device.deviceId)}"`;
    super('unknown_device', { message: `${named} is not an active device of this account` });
    this.index = index;
  }
}

/**
 * D45: a telemetry point before the retention horizon the database recorded when it dropped points
 * (409 `beyond_retention`). Every writer refuses it, whatever its own retention setting, and
 * writes nothing of the batch: before the horizon, segments, figures and meters are final.
 * `index` is the point's 0-based position in the batch, so a front end can name its line.
 * D43: the core's writes (`createTelemetryWrites`) throw it too for a point older than the
 * writer's own retention setting, with `keptDays` set.
 */
export class BeyondRetentionError extends FleetHoursError {
  override readonly name: string = 'BeyondRetentionError';
  /** 0-based position of the first such point in the batch. */
  readonly index: number;
  /** Epoch seconds: the point's time. */
  readonly time: number;
  /** Epoch seconds: the first instant from which every point is still stored. */
  readonly horizon: number;
  /**
   * D43: the days of telemetry the writer's own setting keeps, when that setting drew the horizon
   * (`now − days`); `undefined` when the horizon is the one the data recorded (D45).
   */
  readonly keptDays: number | undefined;

  constructor(input: { readonly index: number; readonly time: number; readonly horizon: number; readonly keptDays?: number }) {
    const why = input.keptDays === undefined ? 'points before it were dropped' : `telemetry is kept ${input.keptDays} days`;
    super('beyond_retention', {
      message: `time ${_utc(input.time)} is older than the retention horizon ${_utc(input.horizon)} (${why}): nothing was written`,
    });
    ({ index: this.index, time: this.time, horizon: this.horizon, keptDays: this.keptDays } = input);
  }
}

/**
 * Telemetry and imported segments of a device would overlap (D23): `conflict`. A telemetry write
 * and an import are each refused whole, naming the device and the first conflicting instant, and
 * nothing of them is written.
 */
export class TelemetryOverlapError extends FleetHoursError {
  override readonly name: string = 'TelemetryOverlapError';
  readonly deviceId: number;
  /** Epoch seconds: the first instant both would cover. */
  readonly instant: number;
  /** The write that was refused: telemetry (over imported segments) or an import (over telemetry). */
  readonly written: 'telemetry' | 'import';

  constructor(input: { readonly deviceId: number; readonly instant: number; readonly written: 'telemetry' | 'import' }) {
    const what =
      input.written === 'telemetry'
        ? 'the telemetry would overlap imported segments'
        : 'the import would overlap segments derived from telemetry';
    super('conflict', { message: `Device ${input.deviceId}: ${what} at "${_utc(input.instant)}": nothing was written` });
    ({ deviceId: this.deviceId, instant: this.instant, written: this.written } = input);
  }
}

/** Creating or updating a device would give two active devices of one account the same IMEI (D25): `conflict`. */
export class ImeiInUseError extends FleetHoursError {
  override readonly name: string = 'ImeiInUseError';
  readonly imei: string;

  constructor(imei: string) {
    super('conflict', { message: `IMEI "${imei}" already names an active device of this account` });
    this.imei = imei;
  }
}

/** Epoch seconds as an ISO 8601 instant in UTC, whole seconds: how the messages above name a time. */
function _utc(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');
}
