import {
  aheadMessage,
  EARLIEST_POINT_TIME,
  LATEST_POINT_TIME,
  MAX_AHEAD_SECONDS,
  outOfRangeMessage,
  secondsAhead,
  showValue,
} from './telemetry-clock.js';
import { parseInstant } from '../time/parse-instant.js';

/**
 * One telemetry report of a device (D2, D20): what the engine did from `time` on.
 * Stores keep at most one per device and second (D21).
 */
export interface TelemetryPoint {
  /** Epoch seconds, a whole number (a fraction is floored on the way in, P3). */
  readonly time: number;
  /** Engine on. */
  readonly ignition: boolean;
  /** Speed in km/h, ≥ 0. */
  readonly speedKmh: number;
  /** Issue 34: where the device was, degrees north (−90…90); given with `longitude` or not at all. */
  readonly latitude?: number;
  /** Degrees east (−180…180); given with `latitude` or not at all. */
  readonly longitude?: number;
}

/** A point as it arrives on the wire, with the native field names of `POST /ingest/v1/telemetry`. */
export interface RawTelemetryPoint {
  /** An ISO 8601 instant with `Z` or an offset, or epoch seconds (a fraction is floored). */
  readonly time?: unknown;
  /** `true` or `false`. */
  readonly ignition?: unknown;
  /** A number ≥ 0. */
  readonly speed_kmh?: unknown;
  /** Optional: a number −90…90, given with `longitude`. */
  readonly latitude?: unknown;
  /** Optional: a number −180…180, given with `latitude`. */
  readonly longitude?: unknown;
}

/** The field of a raw point that is at fault, as named on the wire. */
export type TelemetryPointField = 'time' | 'ignition' | 'speed_kmh' | 'latitude' | 'longitude';

/** What {@link parseTelemetryPoint} needs to know besides the point. */
export interface ParseTelemetryPointOptions {
  /** The server's clock, epoch seconds (floored). A point later than this by more than `maxAheadSeconds` is refused (D26). */
  readonly now: number;
  /** How far ahead of `now` a point may be. Default 300 s (D26). */
  readonly maxAheadSeconds?: number;
}

/**
 * A telemetry point that cannot be stored (D26, `docs/ingestion.md`). `field` names the field at
 * fault and the message starts with it, so the HTTP layer can answer 400 `invalid_body` with
 * `line 17: ${error.message}`.
 */
export class InvalidTelemetryPointError extends Error {
  override readonly name = 'InvalidTelemetryPointError';
  /** The wire name of the field at fault. */
  readonly field: TelemetryPointField;
  /** The point's 0-based position in its batch, when a store refused it (`assertTelemetryPoints`). */
  readonly index: number | undefined;

  constructor(field: TelemetryPointField, message: string, index?: number) {
    super(message);
    this.field = field;
    this.index = index;
  }
}

/** A NUL, or a UTF-16 surrogate without its pair: text PostgreSQL cannot store (D37). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the NUL is what this pattern is for (D37).
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * D37: whether a text can be stored as it is — it holds no NUL (PostgreSQL refuses one in text)
 * and no UTF-16 surrogate without its pair (not Unicode text). Where a request or a store takes an
 * identifier, it refuses one that is not, naming the field, before the database sees it.
 *
 * @example
 * ```ts
 * import { isStorableText } from '@fleet-hours/core/adapter';
 * isStorableText('356307042441013'); // true
 * isStorableText('35\u0000'); // false
 * ```
 */
export function isStorableText(text: string): boolean {
  return !UNSTORABLE.test(text);
}

/**
 * Reads and checks one point of a native telemetry batch: `{ time, ignition, speed_kmh }`. Other
 * fields (`device_id`, `imei`) are the caller's. Protocol adapters (Traccar, OsmAnd) convert their
 * fields to these (knots to km/h, milliseconds to seconds) and call this too, so every point is
 * checked by the same rules.
 *
 * @param raw The decoded JSON object.
 * @param options `now` (the server clock, D26) and the tolerance ahead of it.
 * @returns The point, its time in whole seconds (floored, P3).
 * @throws {InvalidTelemetryPointError} Naming the field: a missing field, a time that is not an ISO
 *   8601 instant with an offset or finite epoch seconds, a time before 0001-01-02T00:00:00Z (the
 *   first date the read API serves, D37) or after the year 9999, or more than `maxAheadSeconds`
 *   ahead of `now` (D26), an ignition that is not a boolean, a speed that is not a finite number ≥ 0
 *   (NaN and ±Infinity included, D37).
 * @throws {RangeError} When `now` is not a finite number or `maxAheadSeconds` not a whole number ≥ 0.
 * @example
 * ```ts
 * import { parseTelemetryPoint } from '@fleet-hours/core/adapter';
 * parseTelemetryPoint({ time: '2026-11-23T15:15:42.900Z', ignition: true, speed_kmh: 12.5 }, { now: 1_795_447_000 });
 * // { time: 1795446942, ignition: true, speedKmh: 12.5 }
 * parseTelemetryPoint({ time: 60, ignition: true, speed_kmh: -3 }, { now: 100 });
 * // throws InvalidTelemetryPointError: speed_kmh must be a number ≥ 0, got -3
 * ```
 */
export function parseTelemetryPoint(raw: RawTelemetryPoint, options: ParseTelemetryPointOptions): TelemetryPoint {
  const maxAheadSeconds = options.maxAheadSeconds ?? MAX_AHEAD_SECONDS;
  if (typeof options.now !== 'number' || !Number.isFinite(options.now)) {
    throw new RangeError(`Option now must be epoch seconds, got ${showValue(options.now)}`);
  }
  if (!Number.isSafeInteger(maxAheadSeconds) || maxAheadSeconds < 0) {
    throw new RangeError(`Option maxAheadSeconds must be a whole number of seconds ≥ 0, got ${showValue(maxAheadSeconds)}`);
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    // The body's shape is the HTTP layer's to report; here a non-object has no fields at all.
    throw new InvalidTelemetryPointError('time', 'time is missing');
  }

  const time = _time(raw.time);
  // D37: nothing before the first date the read API serves (0001-01-02, P26).
  if (time < EARLIEST_POINT_TIME || time > LATEST_POINT_TIME) throw new InvalidTelemetryPointError('time', outOfRangeMessage(raw.time));
  const ahead = secondsAhead(time, options.now, maxAheadSeconds);
  if (ahead !== null) throw new InvalidTelemetryPointError('time', aheadMessage(raw.time, ahead, maxAheadSeconds));

  if (raw.ignition === undefined || raw.ignition === null) throw new InvalidTelemetryPointError('ignition', 'ignition is missing');
  if (typeof raw.ignition !== 'boolean') {
    throw new InvalidTelemetryPointError('ignition', `ignition must be true or false, got ${showValue(raw.ignition)}`);
  }

  const speed = raw.speed_kmh;
  if (speed === undefined || speed === null) throw new InvalidTelemetryPointError('speed_kmh', 'speed_kmh is missing');
  if (typeof speed !== 'number' || !Number.isFinite(speed) || speed < 0) {
    throw new InvalidTelemetryPointError('speed_kmh', `speed_kmh must be a number ≥ 0, got ${showValue(speed)}`);
  }
  // `+ 0` turns -0 into 0, so equal speeds compare and store alike (D21 duplicates).
  const point = { time, ignition: raw.ignition, speedKmh: speed + 0 };
  const position = _position(raw.latitude, raw.longitude);
  return position === null ? point : { ...point, ...position };
}

/** Issue 34: both coordinates or neither; each a finite number in its range. */
function _position(latitude: unknown, longitude: unknown): { latitude: number; longitude: number } | null {
  const absent = (value: unknown) => value === undefined || value === null;
  if (absent(latitude) && absent(longitude)) return null;
  if (absent(latitude)) throw new InvalidTelemetryPointError('latitude', 'latitude is missing: give latitude and longitude together');
  if (absent(longitude)) throw new InvalidTelemetryPointError('longitude', 'longitude is missing: give latitude and longitude together');
  return { latitude: _degrees('latitude', latitude, 90), longitude: _degrees('longitude', longitude, 180) };
}

function _degrees(field: 'latitude' | 'longitude', value: unknown, limit: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < -limit || value > limit) {
    throw new InvalidTelemetryPointError(field, `${field} must be a number from -${limit} to ${limit}, got ${showValue(value)}`);
  }
  return value + 0;
}

function _time(value: unknown): number {
  if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) {
    throw new InvalidTelemetryPointError('time', 'time is missing');
  }
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) {
      throw new InvalidTelemetryPointError(
        'time',
        `time must be an ISO 8601 instant with an offset or epoch seconds, got ${showValue(value)}`,
      );
    }
    return Math.floor(value) + 0;
  }
  if (typeof value === 'string') {
    try {
      return parseInstant(value);
    } catch {
      // Temporal also reads years beyond 9999 (`+010000-…`): those parse, and the range check names them.
    }
  }
  throw new InvalidTelemetryPointError('time', `time must be an ISO 8601 instant with an offset or epoch seconds, got ${showValue(value)}`);
}
