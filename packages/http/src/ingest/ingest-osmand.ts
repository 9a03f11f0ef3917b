import { FleetHoursError, InvalidTelemetryPointError, type TelemetryPoint } from '@fleet-hours/core';
import { parseTelemetryPoint } from '@fleet-hours/core/adapter';
import type { Handler } from 'hono';
import type { FleetHoursEnv } from '../app-env.js';
import { jsonResponse } from '../respond/json-response.js';
import { describeValue } from './describe-value.js';
import { unstorableText } from './storable-text.js';
import { readIngestBody, reportIngest, answerPosition, type IgnoredAnswer, type IngestRouteOptions } from './ingest-write.js';
import { KMH_PER_KNOT } from './ingest-traccar.js';

/** An epoch `timestamp` at or above this is milliseconds (`docs/ingestion.md`, "OsmAnd"): 10¹⁰ s is the year 2286. */
const _MILLISECONDS_FROM = 1e10;

/**
 * `GET` or `POST /ingest/osmand/{token}`: one position of the OsmAnd protocol (Traccar Client and
 * simple HTTP trackers, `docs/ingestion.md`, "OsmAnd"), as query parameters or, on POST, a form body (both
 * are read; the first value of a repeated parameter counts). `id` or `deviceid` is the device's
 * `imei` (D25); `timestamp` is epoch seconds, epoch milliseconds (≥ 10¹⁰) or ISO 8601, the
 * server's now when absent; `speed` is in knots; `ignition` is `true` or `false`, and a position
 * without it is answered 200 `{ accepted: 0, ignored: 1, reason }` and not stored. Other
 * parameters are ignored. The token is in the path and the access middleware reads it there; no
 * message ever quotes the path.
 */
export function ingestOsmandRoute(options: IngestRouteOptions): Handler<FleetHoursEnv> {
  const { limits } = options;
  return async function ingestOsmand(c) {
    const parameters = new URLSearchParams(new URL(c.req.url).search);
    if (c.req.method === 'POST') {
      const type = (c.req.header('Content-Type') ?? '').split(';')[0]!.trim().toLowerCase();
      const text = await readIngestBody(c, limits);
      if (text.trim() !== '') {
        if (type !== 'application/x-www-form-urlencoded' && type !== '') {
          throw _invalid(`A POST body must be a form, "application/x-www-form-urlencoded", got "${type}"`);
        }
        for (const [name, value] of new URLSearchParams(text)) parameters.append(name, value);
      }
    }

    const idName = _parameter(parameters, 'id') !== undefined ? 'id' : 'deviceid';
    const imei = _parameter(parameters, idName);
    if (imei === undefined || imei.trim() === '') throw _invalid('id is missing: give the tracker id as id or deviceid');
    const unstorable = unstorableText(idName, imei);
    if (unstorable !== null) throw _invalid(unstorable);

    const ignitionText = _parameter(parameters, 'ignition');
    if (ignitionText === undefined || ignitionText === '') {
      const ignored: IgnoredAnswer = { accepted: 0, ignored: 1, reason: 'The position has no ignition parameter: it was not stored' };
      reportIngest(options.onIngest, { accepted: 0, duplicates: 0, ignored: 1 });
      return jsonResponse(c, ignored);
    }
    const ignition = ignitionText.toLowerCase() === 'true' ? true : ignitionText.toLowerCase() === 'false' ? false : null;
    if (ignition === null) throw _invalid(`ignition must be true or false, got ${describeValue(ignitionText)}`);

    const speedText = _parameter(parameters, 'speed');
    if (speedText === undefined || speedText.trim() === '') throw _invalid('speed is missing: give the speed in knots');
    const knots = _number(speedText);
    if (!Number.isFinite(knots * KMH_PER_KNOT) || knots < 0)
      throw _invalid(`speed must be a number of knots ≥ 0, got ${describeValue(speedText)}`);

    const now = Math.floor(options.now() / 1000);
    const timestampText = _parameter(parameters, 'timestamp');
    let time: unknown = now;
    if (timestampText !== undefined && timestampText.trim() !== '') {
      if (/^\s*\d+(\.\d+)?\s*$/.test(timestampText)) {
        const value = Number(timestampText);
        time = value >= _MILLISECONDS_FROM ? value / 1000 : value;
      } else time = timestampText.trim();
    }
    let point: TelemetryPoint;
    try {
      // Issue 34: `lat` and `lon`, as text; anything but a number is refused by the core's range check.
      const [latitude, longitude] = (['lat', 'lon'] as const).map((name) => _degrees(_parameter(parameters, name)));
      point = parseTelemetryPoint({ time, ignition, speed_kmh: knots * KMH_PER_KNOT, latitude, longitude }, { now });
    } catch (error) {
      if (error instanceof InvalidTelemetryPointError) {
        const wire = { time: 'timestamp', latitude: 'lat', longitude: 'lon' }[error.field as string];
        throw _invalid(wire === undefined ? error.message : error.message.replace(/^\w+/, wire));
      }
      throw error;
    }
    return answerPosition(c, options, { imei, point, now, deviceField: 'id' });
  };
}

function _parameter(parameters: URLSearchParams, name: string): string | undefined {
  return parameters.get(name) ?? undefined;
}

function _invalid(message: string): FleetHoursError {
  return new FleetHoursError('invalid_body', { message });
}

const _NUMBER = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/;

/** A decimal number as OsmAnd sends it, else NaN. */
function _number(text: string): number {
  return _NUMBER.test(text) ? Number(text) : Number.NaN;
}

/** A coordinate parameter: absent (or empty) stays absent; other text that is not a number is kept, for the core to refuse by name. */
function _degrees(text: string | undefined): unknown {
  if (text === undefined || text.trim() === '') return undefined;
  return _NUMBER.test(text) ? Number(text) : text;
}
