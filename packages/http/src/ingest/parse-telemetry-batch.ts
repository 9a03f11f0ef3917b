import { FleetHoursError, InvalidTelemetryPointError, type DeviceTelemetryPoint, type TelemetryPoint } from '@fleet-hours/core';
import { parseTelemetryPoint } from '@fleet-hours/core/adapter';
import { unstorableText } from './storable-text.js';
import { describeValue } from './describe-value.js';

/** The two bodies of `POST /ingest/v1/telemetry`. */
export type TelemetryBatchFormat = 'ndjson' | 'json';

/** A parsed native batch: its points in body order, and where each came from. */
export interface TelemetryBatch {
  readonly points: readonly DeviceTelemetryPoint[];
  /** Names the point at a 0-based batch position as the client wrote it: `line 17` (NDJSON, 1-based) or `index 16` (array). */
  readonly positionOf: (index: number) => string;
}

/** The largest device id there can be (P9). */
const _MAX_DEVICE_ID = 2 ** 31 - 1;

/**
 * The format of a native batch from its `Content-Type`: `application/x-ndjson` (also
 * `application/jsonl`) or `application/json`, parameters ignored.
 *
 * @param contentType The header value.
 * @returns The format.
 * @throws {FleetHoursError} 400 `invalid_body` for any other or no content type.
 */
export function telemetryBatchFormat(contentType: string | null | undefined): TelemetryBatchFormat {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/x-ndjson' || type === 'application/jsonl' || type === 'application/x-jsonlines') return 'ndjson';
  if (type === 'application/json') return 'json';
  throw new FleetHoursError('invalid_body', {
    message: `Content-Type must be "application/x-ndjson" or "application/json", got ${type === '' ? 'none' : `"${type}"`}`,
  });
}

/**
 * Reads a native telemetry batch (`docs/ingestion.md`, "Native batches"): one JSON object per line (NDJSON, blank
 * lines ignored) or a JSON array of them. Each point names its device by `device_id` (a positive
 * integer) or `imei` (a non-empty string), not both; `time`, `ignition` and `speed_kmh` are checked
 * by core's `parseTelemetryPoint` (D26: not more than 300 s ahead of `now`). Unknown fields are
 * ignored. The first fault refuses the batch, naming its line (1-based) or index (from 0) and
 * the field: `line 17: speed_kmh must be a number ≥ 0, got -3`.
 *
 * @param input The body text, its format, the server clock (epoch seconds) and the most points a batch may hold.
 * @returns The points and how to name each.
 * @throws {FleetHoursError} 400 `invalid_body`, or 413 `payload_too_large` past `maxPoints`.
 */
export function parseTelemetryBatch(input: {
  readonly text: string;
  readonly format: TelemetryBatchFormat;
  readonly now: number;
  readonly maxPoints: number;
}): TelemetryBatch {
  const { text, now, maxPoints } = input;
  const points: DeviceTelemetryPoint[] = [];
  const tooMany = () =>
    new FleetHoursError('payload_too_large', {
      message: `The batch holds more than ${maxPoints} points: send at most ${maxPoints} per request`,
    });

  if (input.format === 'json') {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (error) {
      throw _invalid(`The body is not valid JSON: ${_jsonProblem(error)}`);
    }
    if (!Array.isArray(body)) throw _invalid(`The body must be a JSON array of points, got ${describeValue(body)}`);
    if (body.length > maxPoints) throw tooMany();
    body.forEach((raw, index) => points.push(_point(raw, `index ${index}`, now)));
    return { points, positionOf: (index) => `index ${index}` };
  }

  const lines: number[] = [];
  let start = 0;
  let lineNumber = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    lineNumber += 1;
    const line = text.slice(start, end);
    start = end + 1;
    if (line.trim() === '') continue;
    if (points.length === maxPoints) throw tooMany();
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch (error) {
      throw _invalid(`line ${lineNumber}: not valid JSON: ${_jsonProblem(error)}`);
    }
    points.push(_point(raw, `line ${lineNumber}`, now));
    lines.push(lineNumber);
  }
  return { points, positionOf: (index) => `line ${lines[index] ?? index + 1}` };
}

function _point(raw: unknown, where: string, now: number): DeviceTelemetryPoint {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw _invalid(`${where}: a point must be a JSON object, got ${describeValue(raw)}`);
  const fields = raw as Record<string, unknown>;
  const deviceId = fields['device_id'] ?? undefined;
  const imei = fields['imei'] ?? undefined;
  if (deviceId !== undefined && imei !== undefined) throw _invalid(`${where}: give device_id or imei, not both`);
  if (deviceId === undefined && imei === undefined) throw _invalid(`${where}: device_id is missing: name the device by device_id or imei`);

  let point: TelemetryPoint;
  try {
    point = parseTelemetryPoint(fields, { now });
  } catch (error) {
    if (error instanceof InvalidTelemetryPointError) throw _invalid(`${where}: ${error.message}`);
    throw error;
  }
  if (imei !== undefined) {
    if (typeof imei !== 'string' || imei.trim() === '')
      throw _invalid(`${where}: imei must be a non-empty string, got ${describeValue(imei)}`);
    const unstorable = unstorableText('imei', imei);
    if (unstorable !== null) throw _invalid(`${where}: ${unstorable}`);
    return { imei, ...point };
  }
  if (typeof deviceId !== 'number' || !Number.isSafeInteger(deviceId) || deviceId < 1 || deviceId > _MAX_DEVICE_ID) {
    throw _invalid(`${where}: device_id must be a positive integer, got ${describeValue(deviceId)}`);
  }
  return { deviceId, ...point };
}

function _invalid(message: string): FleetHoursError {
  return new FleetHoursError('invalid_body', { message });
}

function _jsonProblem(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  // V8 quotes the whole input in some messages: keep only what names the problem.
  return message.replace(/, "[\s\S]*" is not valid JSON$/, ' is not valid JSON').slice(0, 120);
}
