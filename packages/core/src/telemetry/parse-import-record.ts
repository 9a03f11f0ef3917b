import { showValue } from './telemetry-clock.js';
import { givenInstantRangeMessage, isGivenInstantInRange } from '../time/instant-floor.js';
import { parseInstant } from '../time/parse-instant.js';
import type { TelemetryPoint } from './telemetry-to-segments.js';
import type { SegmentInput } from '../types.js';

/** A record as read from an NDJSON line (typed values) or a CSV row (all strings). */
export type ImportRecord = Readonly<Record<string, unknown>>;

function _field(record: ImportRecord, name: string): unknown {
  if (record === null || typeof record !== 'object' || Array.isArray(record)) {
    throw new TypeError('Expected an object with named fields');
  }
  return record[name];
}

function _requiredText(record: ImportRecord, name: string): string {
  const value = _field(record, name);
  if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) {
    throw new TypeError(`Field ${name} is missing`);
  }
  // A present value of the wrong type is not "missing": say what it is (e.g. epoch numbers for an instant).
  if (typeof value !== 'string') throw new TypeError(`Field ${name} must be text, got ${JSON.stringify(value)}`);
  return value.trim();
}

// Plain decimal notation only: `Number()` alone would also read `0x10` as 16 and `0b1` as 1.
const DECIMAL = /^[+]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/**
 * Reads one engine segment from an import record: `{ started_at, ended_at, state }` with ISO 8601
 * instants carrying an offset; `ended_at` null, absent or empty for a segment still running (D1).
 *
 * @param record An NDJSON object or a CSV row.
 * @returns The segment.
 * @throws {TypeError | RangeError} With a message naming the field at fault.
 * @example
 * ```ts
 * import { parseSegmentRecord } from '@fleet-hours/core/adapter';
 * parseSegmentRecord({ started_at: '1970-01-01T00:00:00Z', ended_at: '', state: 'idle' }); // { startedAt: 0, endedAt: null, state: 'idle' }
 * ```
 */
export function parseSegmentRecord(record: ImportRecord): SegmentInput {
  const startedAt = _instant(record, 'started_at');
  const rawEnd = _field(record, 'ended_at');
  const endedAt =
    rawEnd === null || rawEnd === undefined || (typeof rawEnd === 'string' && rawEnd.trim() === '') ? null : _instant(record, 'ended_at');
  const state = _requiredText(record, 'state');
  if (state !== 'moving' && state !== 'idle') throw new RangeError(`Field state must be "moving" or "idle", got "${state}"`);
  if (endedAt !== null && endedAt <= startedAt) throw new RangeError('Field ended_at must be after started_at');
  return { startedAt, endedAt, state };
}

/**
 * Reads one telemetry point from an import record: `{ time, ignition, speed_kmh }` (D2).
 * `ignition` is a boolean, or `true`/`false`/`1`/`0` in CSV.
 *
 * @param record An NDJSON object or a CSV row.
 * @returns The point.
 * @throws {TypeError | RangeError} With a message naming the field at fault.
 * @example
 * ```ts
 * import { parseTelemetryRecord } from '@fleet-hours/core/adapter';
 * parseTelemetryRecord({ time: '1970-01-01T00:01:00Z', ignition: 'true', speed_kmh: '12.5' }); // { time: 60, ignition: true, speedKmh: 12.5 }
 * ```
 */
export function parseTelemetryRecord(record: ImportRecord): TelemetryPoint {
  const time = _instant(record, 'time');
  const rawIgnition = _field(record, 'ignition');
  let ignition: boolean;
  if (typeof rawIgnition === 'boolean') ignition = rawIgnition;
  else if (typeof rawIgnition === 'string' && /^(true|1)$/i.test(rawIgnition.trim())) ignition = true;
  else if (typeof rawIgnition === 'string' && /^(false|0)$/i.test(rawIgnition.trim())) ignition = false;
  else throw new TypeError(`Field ignition must be true or false, got ${JSON.stringify(rawIgnition)}`);
  const rawSpeed = _field(record, 'speed_kmh');
  const speedKmh =
    typeof rawSpeed === 'number' ? rawSpeed : typeof rawSpeed === 'string' && DECIMAL.test(rawSpeed.trim()) ? Number(rawSpeed) : NaN;
  if (!Number.isFinite(speedKmh) || speedKmh < 0) {
    throw new RangeError(`Field speed_kmh must be a number ≥ 0, got ${JSON.stringify(rawSpeed)}`);
  }
  return { time, ignition, speedKmh };
}

/**
 * An instant of a file, within the one range of every instant a person gives (D50, and D37 for a
 * point: the store refuses such a point too), refused naming the field.
 */
function _instant(record: ImportRecord, name: string): number {
  const text = _requiredText(record, name);
  let seconds: number;
  try {
    seconds = parseInstant(text);
  } catch {
    throw new RangeError(`Field ${name} ${JSON.stringify(text)} is not an ISO 8601 instant with an offset`);
  }
  if (!isGivenInstantInRange(seconds)) throw new RangeError(`Field ${givenInstantRangeMessage(name, showValue(_field(record, name)))}`);
  return seconds;
}
