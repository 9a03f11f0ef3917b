import type { RateLimits } from '@fleet-hours/core';
import { DEFAULT_INGEST_LIMITS } from '../ingest/ingest-limits.js';
import { INGEST_ROUTES } from '../ingest/ingest-routes.js';
import { type Json, RATE_LIMIT_HEADERS, ref } from './openapi-refs.js';

/**
 * The ingestion part of the OpenAPI document (`docs/ingestion.md`): its three paths, their schemas
 * and its security schemes, built here so that the document's read-API part stays as it is. The
 * refusals are the `components.responses` of the document (their names are passed in).
 */

/** The refusals every ingestion operation can give (D24, D16, D18, D28, `docs/ingestion.md`). */
const INGEST_REFUSALS: Json = {
  '400': ref('responses', 'InvalidBody'),
  '401': ref('responses', 'IngestUnauthorized'),
  '408': ref('responses', 'RequestTimeout'),
  '409': ref('responses', 'Conflict'),
  '413': ref('responses', 'PayloadTooLarge'),
  '422': ref('responses', 'UnknownDevice'),
  '429': ref('responses', 'TooManyRequests'),
  '500': ref('responses', 'InternalError'),
  '503': ref('responses', 'ServiceUnavailable'),
};

/** The refusals of a request without a body. */
const WITHOUT_BODY_REFUSALS: Json = Object.fromEntries(
  Object.entries(INGEST_REFUSALS).filter(([status]) => status !== '408' && status !== '413'),
);

const INGEST_OTHER_METHODS = (allow: string): Json => ({
  description: `Only ${allow} is served: other methods answer 405 with an Allow header, once the ingest token is accepted.`,
  'x-method-not-allowed': ref('responses', 'MethodNotAllowed'),
});

const ok = (schema: Json): Json => ({
  description: 'Stored (or already stored): durable once this answer is sent',
  headers: RATE_LIMIT_HEADERS,
  content: { 'application/json': { schema } },
});

/** The Allow values of the ingestion paths, for the `Allow` header's schema. */
export const INGEST_ALLOW_VALUES: readonly string[] = ['POST', 'GET, POST'];

/** The ingestion paths of the document. */
export function ingestPaths(limits: RateLimits): Json {
  const limitNote = `Rate limit: ${limits.ingest} requests per minute per ingest token, over every ingestion endpoint together. Not gated by plan.`;
  const osmandParameters = [
    {
      name: 'token',
      in: 'path',
      required: true,
      description:
        'The ingest token (`fhi_…`): OsmAnd clients cannot set headers, so the token is the last path segment. It is never written to a log.',
      schema: { type: 'string', pattern: '^fhi_[A-Za-z0-9]+$' },
    },
    {
      name: 'id',
      in: 'query',
      required: false,
      description: 'The tracker id: the `imei` of the device. Give this or `deviceid`.',
      schema: { type: 'string' },
      example: '356307042441013',
    },
    {
      name: 'deviceid',
      in: 'query',
      required: false,
      description: 'The tracker id, as some clients name it; read when `id` is absent.',
      schema: { type: 'string' },
    },
    {
      name: 'timestamp',
      in: 'query',
      required: false,
      description:
        "Epoch seconds, epoch milliseconds (a value ≥ 10¹⁰) or ISO 8601 with an offset; a fraction of a second is floored. Absent: the server's now.",
      schema: { type: 'string' },
      example: '1795446942',
    },
    {
      name: 'speed',
      in: 'query',
      required: false,
      description: 'Speed in knots (km/h = knots × 1.852), ≥ 0. Required when `ignition` is given.',
      schema: { type: 'number', minimum: 0 },
      example: 12.3,
    },
    {
      name: 'ignition',
      in: 'query',
      required: false,
      description: 'Engine on. Absent: the position is answered 200 `ignored` and not stored.',
      schema: { type: 'boolean' },
    },
  ];
  const osmandOperation = (method: 'get' | 'post'): Json => ({
    operationId: method === 'get' ? 'ingestOsmand' : 'ingestOsmandPost',
    summary: method === 'get' ? 'Store one OsmAnd position (query string)' : 'Store one OsmAnd position (query string or form body)',
    description: [
      'One position of the OsmAnd protocol, as Traccar Client and many simple HTTP trackers send it: query parameters (on POST also a form body). `lat` and `lon` (degrees, both or neither) are kept as the position of the device; other parameters (`hdop`, `altitude`, `batt`, …) are accepted and ignored.',
      '',
      limitNote,
    ].join('\n'),
    tags: ['Ingestion'],
    security: [],
    parameters: osmandParameters.slice(1),
    ...(method === 'post'
      ? {
          requestBody: {
            required: false,
            description:
              'The same parameters as a form, instead of (or besides) the query string; Traccar Client sends them in the query string with an empty body.',
            content: { 'application/x-www-form-urlencoded': { schema: ref('schemas', 'OsmandForm') } },
          },
        }
      : {}),
    // A GET has no body: it cannot be too large or too slow.
    responses: {
      '200': ok({ oneOf: [ref('schemas', 'IngestResult'), ref('schemas', 'IgnoredPosition')] }),
      ...(method === 'get' ? WITHOUT_BODY_REFUSALS : INGEST_REFUSALS),
    },
  });

  return {
    [INGEST_ROUTES.telemetry.policy.template]: {
      ...INGEST_OTHER_METHODS('POST'),
      post: {
        operationId: 'ingestTelemetry',
        summary: 'Store a batch of telemetry points',
        description: [
          `A batch of points of the token's account, as NDJSON (one object per line, blank lines ignored) or a JSON array. Atomic: every point is stored or none. At most ${DEFAULT_INGEST_LIMITS.maxPoints.toLocaleString('en-US')} points and 5 MiB per request by default (configurable): beyond that 413.`,
          '',
          '- A malformed body, a point with a missing or invalid field, or a point more than 300 s in the future: 400 `invalid_body`, naming the line (NDJSON, from 1) or index (array, from 0) and the field.',
          "- A point whose device is not an active device of the token's account: 422 `unknown_device`, the same for a missing and another account's device.",
          '- A point that would overlap imported segments: 409 `conflict`, naming the device and the first conflicting instant.',
          '- A point older than the retention horizon, when the server keeps telemetry for a limited time: 409 `beyond_retention`, naming the point and the horizon.',
          '- Points equal to stored ones are `duplicates`: sending a batch again changes nothing.',
          '',
          limitNote,
        ].join('\n'),
        tags: ['Ingestion'],
        security: [{ ingestToken: [] }],
        requestBody: {
          required: true,
          content: {
            'application/x-ndjson': {
              schema: { type: 'string', description: 'One `TelemetryPoint` as JSON per line.' },
              example:
                '{"device_id": 3, "time": "2026-11-23T15:15:42Z", "ignition": true, "speed_kmh": 12.5}\n{"imei": "356307042441013", "time": 1795446960, "ignition": false, "speed_kmh": 0}\n',
            },
            'application/json': {
              schema: { type: 'array', items: ref('schemas', 'TelemetryPoint'), maxItems: DEFAULT_INGEST_LIMITS.maxPoints },
            },
          },
        },
        responses: { '200': ok(ref('schemas', 'IngestResult')), ...INGEST_REFUSALS },
      },
    },
    [INGEST_ROUTES.traccar.policy.template]: {
      ...INGEST_OTHER_METHODS('POST'),
      post: {
        operationId: 'ingestTraccarPosition',
        summary: 'Store one position forwarded by a Traccar server',
        description: [
          "The body of Traccar's JSON position forwarding (`forward.type` json), one position per request. The device is the account's active device whose `imei` is `device.uniqueId`; the time is `position.deviceTime`, else `position.fixTime`; `position.speed` is in knots; the ignition is `position.attributes.ignition`. A position without ignition is answered 200 `ignored` and not stored, so that the forwarder does not retry it. Every other field is ignored.",
          '',
          "Traccar's configuration: `forward.enable` true, `forward.type` json, `forward.url` this URL, `forward.header` `Authorization: Bearer fhi_…`.",
          '',
          limitNote,
        ].join('\n'),
        tags: ['Ingestion'],
        security: [{ ingestToken: [] }],
        requestBody: { required: true, content: { 'application/json': { schema: ref('schemas', 'TraccarForward') } } },
        responses: { '200': ok({ oneOf: [ref('schemas', 'IngestResult'), ref('schemas', 'IgnoredPosition')] }), ...INGEST_REFUSALS },
      },
    },
    [INGEST_ROUTES.osmand.policy.template]: {
      ...INGEST_OTHER_METHODS('GET and POST'),
      parameters: [osmandParameters[0]],
      get: osmandOperation('get'),
      post: osmandOperation('post'),
    },
  };
}

/** The schemas of the ingestion paths. */
export function ingestSchemas(timestampOrNull: Json): Json {
  return {
    TelemetryPoint: {
      type: 'object',
      required: ['time', 'ignition', 'speed_kmh'],
      properties: {
        device_id: { type: 'integer', minimum: 1, maximum: 2 ** 31 - 1, description: 'The device; give this or `imei`, not both.' },
        imei: { type: 'string', minLength: 1, description: 'The device by its tracker id; give this or `device_id`, not both.' },
        time: {
          oneOf: [
            { type: 'string', description: 'ISO 8601 with `Z` or an offset.' },
            { type: 'number', description: 'Epoch seconds.' },
          ],
          description: 'When the point was taken; a fraction of a second is floored. At most 300 s ahead of the server clock.',
        },
        ignition: { type: 'boolean', description: 'Engine on.' },
        speed_kmh: { type: 'number', minimum: 0, description: 'Speed in km/h.' },
        latitude: { type: 'number', minimum: -90, maximum: 90, description: 'Optional, with `longitude`: where the device was, degrees.' },
        longitude: { type: 'number', minimum: -180, maximum: 180, description: 'Optional, with `latitude`: degrees.' },
      },
      oneOf: [
        { required: ['device_id'], not: { required: ['imei'] } },
        { required: ['imei'], not: { required: ['device_id'] } },
      ],
      description: 'One telemetry point. Other fields are ignored.',
      examples: [{ device_id: 3, time: '2026-11-23T15:15:42Z', ignition: true, speed_kmh: 12.5 }],
    },
    IngestResult: {
      type: 'object',
      required: ['accepted', 'duplicates', 'devices'],
      properties: {
        accepted: { type: 'integer', minimum: 0, description: 'Points that were new or changed a stored point.' },
        duplicates: { type: 'integer', minimum: 0, description: 'Points equal to a stored point: nothing changed.' },
        devices: {
          type: 'array',
          description: 'Every device the request named, by id.',
          items: {
            type: 'object',
            required: ['device_id', 'last_reported_at'],
            properties: {
              device_id: { type: 'integer', minimum: 1 },
              last_reported_at: timestampOrNull,
            },
          },
        },
      },
      examples: [{ accepted: 9998, duplicates: 2, devices: [{ device_id: 3, last_reported_at: '2026-11-23T10:15:42-05:00' }] }],
    },
    IgnoredPosition: {
      type: 'object',
      required: ['accepted', 'ignored', 'reason'],
      properties: {
        accepted: { type: 'integer', const: 0 },
        ignored: { type: 'integer', const: 1 },
        reason: { type: 'string', description: 'Why the position was not stored: it carries no ignition.' },
      },
      examples: [{ accepted: 0, ignored: 1, reason: 'The position has no position.attributes.ignition: it was not stored' }],
    },
    TraccarForward: {
      type: 'object',
      required: ['position', 'device'],
      description: "Traccar's JSON position forwarding. Only the fields listed are read; Traccar sends many more, which are ignored.",
      properties: {
        position: {
          type: 'object',
          properties: {
            deviceTime: {
              type: ['string', 'null'],
              description: 'The report time, e.g. `2026-11-23T15:15:42.000+00:00`; used when present.',
            },
            fixTime: { type: 'string', description: 'The time of the last GPS fix; used when there is no `deviceTime`.' },
            speed: { type: 'number', minimum: 0, description: 'Knots.' },
            latitude: { type: 'number', minimum: -90, maximum: 90, description: 'Degrees; kept, with `longitude`, as the position.' },
            longitude: { type: 'number', minimum: -180, maximum: 180, description: 'Degrees.' },
            attributes: {
              type: 'object',
              properties: { ignition: { type: 'boolean', description: 'Engine on; without it the position is ignored.' } },
            },
          },
        },
        device: {
          type: 'object',
          required: ['uniqueId'],
          properties: { uniqueId: { type: 'string', description: 'The tracker id: the `imei` of the device.' } },
        },
      },
      examples: [
        {
          position: {
            deviceTime: '2026-11-23T15:15:42.000+00:00',
            fixTime: '2026-11-23T15:15:40.000+00:00',
            speed: 12.3,
            attributes: { ignition: true, motion: true },
          },
          device: { uniqueId: '356307042441013', name: 'Truck 14' },
        },
      ],
    },
    OsmandForm: {
      type: 'object',
      properties: {
        id: { type: 'string' },
        deviceid: { type: 'string' },
        timestamp: { type: 'string' },
        speed: { type: 'number', minimum: 0 },
        ignition: { type: 'boolean' },
        lat: { type: 'number', minimum: -90, maximum: 90 },
        lon: { type: 'number', minimum: -180, maximum: 180 },
      },
      description: 'The OsmAnd parameters as a form; others are ignored.',
    },
  };
}

/** The security scheme of the ingest token (D24). */
export const INGEST_SECURITY_SCHEME: Json = {
  type: 'http',
  scheme: 'bearer',
  bearerFormat: 'fhi_ ingest token',
  description:
    'An account-scoped ingest token (`fhi_…`), created with `fleet-hours ingest-tokens create` and shown once; only its SHA-256 fingerprint is stored. It writes telemetry and reads nothing; an API key is refused here with 401 `unknown_ingest_token`. OsmAnd clients carry it as the last path segment instead.',
};
