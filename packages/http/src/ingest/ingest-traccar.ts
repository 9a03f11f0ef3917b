import { FleetHoursError, InvalidTelemetryPointError, type TelemetryPoint } from '@fleet-hours/core';
import { parseTelemetryPoint } from '@fleet-hours/core/adapter';
import type { Handler } from 'hono';
import type { FleetHoursEnv } from '../app-env.js';
import { jsonResponse } from '../respond/json-response.js';
import { describeValue } from './describe-value.js';
import { unstorableText } from './storable-text.js';
import { readIngestBody, reportIngest, answerPosition, type IgnoredAnswer, type IngestRouteOptions } from './ingest-write.js';

/** km/h per knot: Traccar keeps speeds in knots. */
export const KMH_PER_KNOT = 1.852;

/**
 * `POST /ingest/traccar`: one position of Traccar's JSON position forwarding (`docs/ingestion.md`
 * §2), `{ position, device }`. The device is the account's active device whose `imei` is
 * `device.uniqueId` (D25); the time is `position.deviceTime`, else `position.fixTime` (Traccar
 * keeps the last fix time on reports without a fix, also on `outdated` ones); the speed is
 * `position.speed` in knots; the ignition `position.attributes.ignition`. A position without
 * ignition is answered 200 `{ accepted: 0, ignored: 1, reason }` and not stored, so that the
 * forwarder does not send it again. Every other field is ignored.
 */
export function ingestTraccarRoute(options: IngestRouteOptions): Handler<FleetHoursEnv> {
  const { limits } = options;
  return async function ingestTraccar(c) {
    const type = (c.req.header('Content-Type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== '' && type !== 'application/json') {
      throw _invalid(`Content-Type must be "application/json" (Traccar's forward.type json), got ${type === '' ? 'none' : `"${type}"`}`);
    }
    const text = await readIngestBody(c, limits);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw _invalid('The body is not valid JSON: send Traccar\'s JSON position forwarding, { "position": …, "device": … }');
    }
    const position = _object(_field(body, 'position', 'body'), 'position');
    const device = _object(_field(body, 'device', 'body'), 'device');
    const uniqueId = device['uniqueId'];
    if (uniqueId === undefined || uniqueId === null) throw _invalid('device.uniqueId is missing');
    if (typeof uniqueId !== 'string' || uniqueId.trim() === '')
      throw _invalid(`device.uniqueId must be a non-empty string, got ${describeValue(uniqueId)}`);
    const unstorable = unstorableText('device.uniqueId', uniqueId);
    if (unstorable !== null) throw _invalid(unstorable);

    const attributes = position['attributes'] ?? {};
    if (typeof attributes !== 'object' || Array.isArray(attributes))
      throw _invalid(`position.attributes must be a JSON object, got ${describeValue(attributes)}`);
    const ignition = (attributes as Record<string, unknown>)['ignition'];
    if (ignition === undefined || ignition === null) {
      const ignored: IgnoredAnswer = {
        accepted: 0,
        ignored: 1,
        reason: 'The position has no position.attributes.ignition: it was not stored',
      };
      reportIngest(options.onIngest, { accepted: 0, duplicates: 0, ignored: 1 });
      return jsonResponse(c, ignored);
    }
    if (typeof ignition !== 'boolean') throw _invalid(`position.attributes.ignition must be true or false, got ${describeValue(ignition)}`);

    const knots = position['speed'];
    if (knots === undefined || knots === null) throw _invalid('position.speed is missing');
    if (typeof knots !== 'number' || !Number.isFinite(knots * KMH_PER_KNOT) || knots < 0) {
      throw _invalid(`position.speed must be a number of knots ≥ 0, got ${describeValue(knots)}`);
    }
    const timeField = position['deviceTime'] !== undefined && position['deviceTime'] !== null ? 'deviceTime' : 'fixTime';
    const now = Math.floor(options.now() / 1000);
    let point: TelemetryPoint;
    try {
      const { latitude, longitude } = position;
      point = parseTelemetryPoint({ time: position[timeField], ignition, speed_kmh: knots * KMH_PER_KNOT, latitude, longitude }, { now });
    } catch (error) {
      if (error instanceof InvalidTelemetryPointError) {
        // Issue 34: the position's own fields are named as Traccar names them.
        const wire = error.field === 'time' ? timeField : error.field;
        const message = wire === 'speed_kmh' ? error.message : error.message.replace(/^\w+/, `position.${wire}`);
        throw _invalid(message);
      }
      throw error;
    }
    return answerPosition(c, options, { imei: uniqueId, point, now, deviceField: 'device.uniqueId' });
  };
}

function _field(value: unknown, name: string, of: string): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw _invalid(`The ${of} must be a JSON object with position and device, got ${describeValue(value)}`);
  const field = (value as Record<string, unknown>)[name];
  if (field === undefined || field === null) throw _invalid(`${name} is missing`);
  return field;
}

function _object(value: unknown, name: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw _invalid(`${name} must be a JSON object, got ${describeValue(value)}`);
  return value as Record<string, unknown>;
}

function _invalid(message: string): FleetHoursError {
  return new FleetHoursError('invalid_body', { message });
}
