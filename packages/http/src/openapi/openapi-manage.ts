import {
  DEVICE_STATUSES,
  DEVICE_TAG_MAX,
  DEVICE_TAGS_MAX,
  DEVICE_TEXT_MAX,
  INGEST_TOKEN_FINGERPRINT_PREFIX_LENGTH,
  INGEST_TOKEN_LABEL_MAX,
  WEBHOOK_DESCRIPTION_MAX,
  SUBSCRIBABLE_EVENT_TYPES,
  WEBHOOK_DELIVERIES_PAGE,
  MAX_HOUR_METER_SECONDS,
  MAX_SERVICE_INTERVAL_DAYS,
  MAX_SERVICE_INTERVAL_SECONDS,
  READING_PAGE_SIZES,
  type RateLimits,
} from '@fleet-hours/core';
import { allowedMethods, type ManageEndpoint } from '@fleet-hours/core/adapter';
import { MANAGE_API_ENDPOINTS, type ManageOpenApiOperation } from '../routes/manage-endpoints.js';
import { MAX_WRITE_BODY_BYTES } from '../routes/device-writes.js';
import { answerContent, type Json, notAcceptable, RATE_LIMIT_HEADERS, ref } from './openapi-refs.js';

/**
 * The write routes' part of the OpenAPI document (D51, D52): one operation per row of core's
 * `MANAGE_ENDPOINTS`, merged into the path items of the read API (`POST /api/v1/devices` beside
 * its GET), and the schemas of their bodies. The refusals are the document's `components.responses`.
 */

/** The values of `Allow` on a path that has write routes: `GET, HEAD, POST`, `PATCH`. */
export const MANAGE_ALLOW_VALUES: readonly string[] = [
  ...new Set(MANAGE_API_ENDPOINTS.map(({ endpoint }) => allowedMethods(endpoint.template.replace('{id}', '1')).join(', '))),
];

/**
 * The operations of the write routes by path template and method, to merge into the document's
 * paths: a path the read API does not have gets its own item, with the device parameter and its 405.
 */
export function managePaths(limits: RateLimits): Readonly<Record<string, Json>> {
  const paths: Record<string, Json> = {};
  for (const { endpoint, openApi } of MANAGE_API_ENDPOINTS) {
    // Webhook endpoints, ingest tokens and work calendars (P80, P113): their own shapes, GETs included.
    if (openApi.tag === 'Webhooks' || openApi.tag === 'Ingest tokens' || openApi.tag === 'Calendars' || openApi.tag === 'AEMP sources') {
      _hooksOperation(endpoint, openApi, limits, paths);
      continue;
    }
    if (endpoint.method === 'GET') {
      paths[endpoint.template] = { ...paths[endpoint.template], ..._manageRead(endpoint, openApi, limits) };
      continue;
    }
    const withDevice = endpoint.template.includes('{id}');
    // A device's own write takes If-Match; the rows of other resources list their parameters (P76).
    const parameters = openApi.parameters ?? (withDevice && openApi.tag === 'Devices' ? ['IfMatch'] : []);
    const single = openApi.status !== 204;
    const success: Json = {
      description: openApi.answer ?? (openApi.status === 201 ? 'Created: the device, its URL in `Location`' : 'OK: the device'),
      headers: {
        ...RATE_LIMIT_HEADERS,
        ...(single ? { ETag: ref('headers', 'ETag') } : {}),
        ...(openApi.status === 201 ? { Location: ref('headers', 'Location') } : {}),
      },
      ...(openApi.schema === undefined ? {} : { content: { 'application/json': { schema: ref('schemas', openApi.schema) } } }),
    };
    const conflict = openApi.conflict ?? (openApi.tag === 'Devices' ? 'DeviceConflict' : undefined);
    const body = openApi.requestSchema !== undefined;
    paths[endpoint.template] = {
      ...paths[endpoint.template],
      [endpoint.method.toLowerCase()]: {
        operationId: openApi.operationId,
        summary: openApi.summary,
        description: `${openApi.description}\n\nNeeds an API key with the \`manage\` scope (a \`read\` key is 403 \`insufficient_scope\`). Rate limit: ${limits.writes} requests per minute per key over all the write routes.`,
        tags: [openApi.tag],
        ...(withDevice ? { parameters: [ref('parameters', 'DeviceId'), ...parameters.map((name) => ref('parameters', name))] } : {}),
        ...(body
          ? {
              requestBody: {
                required: openApi.optionalBody !== true,
                content: { 'application/json': { schema: ref('schemas', openApi.requestSchema!) } },
              },
            }
          : {}),
        responses: {
          [String(openApi.status)]: success,
          ...(body ? { '400': ref('responses', 'InvalidWrite') } : {}),
          '401': ref('responses', 'Unauthorized'),
          '403': ref('responses', 'ForbiddenWrite'),
          ...(withDevice ? { '404': ref('responses', 'DeviceNotFound') } : {}),
          ...notAcceptable(endpoint.name),
          ...(conflict === undefined ? {} : { '409': ref('responses', conflict) }),
          ...(parameters.includes('IfMatch') ? { '412': ref('responses', 'PreconditionFailed') } : {}),
          ...(body ? { '413': ref('responses', 'WriteTooLarge'), '415': ref('responses', 'UnsupportedMediaType') } : {}),
          '429': ref('responses', 'TooManyRequests'),
          '500': ref('responses', 'InternalError'),
          '503': ref('responses', 'ServiceUnavailable'),
        },
      },
    };
  }
  return withIdempotencyKeys(paths);
}

/**
 * The write routes' operations with every POST as it takes an `Idempotency-Key` (D53): every POST
 * of the write routes does, so a row added to the table is described with it — the header
 * parameter, `Idempotent-Replayed` on the success, `invalid_header` among the 400s,
 * `idempotency_key_in_use` among the 409s and the 422 `idempotency_key_reused`.
 */
function withIdempotencyKeys(paths: Record<string, Json>): Record<string, Json> {
  return Object.fromEntries(
    Object.entries(paths).map(([template, item]) => [template, item.post ? { ...item, post: _idempotent(item.post as Json) } : item]),
  );
}

function _idempotent(operation: Json): Json {
  const responses = operation.responses as Record<string, Json>;
  const [successStatus, success] = Object.entries(responses)[0]!;
  return {
    ...operation,
    description: `${operation.description as string} Send an \`Idempotency-Key\` to make it safe to send again: the same request with the same key answers its first answer again.`,
    parameters: [...((operation.parameters as Json[] | undefined) ?? []), ref('parameters', 'IdempotencyKey')],
    responses: Object.fromEntries(
      Object.entries({
        ...responses,
        [successStatus]: {
          ...success,
          headers: { ...(success.headers as Json), 'Idempotent-Replayed': ref('headers', 'Idempotent-Replayed') },
        },
        '400': ref('responses', 'InvalidIdempotentWrite'),
        '409': ref('responses', 'WriteConflict'),
        '422': ref('responses', 'IdempotencyKeyReused'),
      }).sort(([a], [b]) => Number(a) - Number(b)),
    ),
  };
}

/**
 * The GET and HEAD operations of a manage read (the change log, D55): a manage key, the key's
 * budget of manage reads (P88), and for a paged list its `limit` and `cursor` (P87).
 */
function _manageRead(endpoint: ManageEndpoint, openApi: ManageOpenApiOperation, limits: RateLimits): Json {
  const note = `Needs an API key with the \`manage\` scope (a \`read\` key is 403 \`insufficient_scope\`). Rate limit: ${limits.manageReads} requests per minute per key over all the manage reads.`;
  const withDevice = endpoint.template.includes('{id}');
  const listed = [
    ...(withDevice ? [ref('parameters', 'DeviceId')] : []),
    ...(openApi.parameters ?? []).map((name) => ref('parameters', name)),
  ];
  const paged = endpoint.paging
    ? [
        {
          name: 'limit',
          in: 'query',
          required: false,
          description: `Entries per page: a whole number from 1 to ${endpoint.paging.maxLimit}, default ${endpoint.paging.defaultLimit}. Anything else, or a repeated limit: 400.`,
          schema: { type: 'integer', minimum: 1, maximum: endpoint.paging.maxLimit, default: endpoint.paging.defaultLimit },
        },
        ref('parameters', 'Cursor'),
      ]
    : [];
  const parameters = [...listed, ...paged];
  const responses = (withBody: boolean): Json => ({
    '200': {
      description: 'OK',
      headers: RATE_LIMIT_HEADERS,
      ...(withBody ? { content: answerContent(endpoint.name, openApi.schema ?? '') } : {}),
    },
    ...(endpoint.paging || openApi.parameters ? { '400': ref('responses', 'BadRequest') } : {}),
    '401': ref('responses', 'Unauthorized'),
    '403': ref('responses', 'ForbiddenWrite'),
    ...(withDevice ? { '404': ref('responses', 'DeviceNotFound') } : {}),
    ...notAcceptable(endpoint.name),
    '429': ref('responses', 'TooManyRequests'),
    '500': ref('responses', 'InternalError'),
    '503': ref('responses', 'ServiceUnavailable'),
  });
  const common = { tags: [openApi.tag], ...(parameters.length > 0 ? { parameters } : {}) };
  return {
    get: {
      operationId: openApi.operationId,
      summary: openApi.summary,
      description: `${openApi.description}\n\n${note}`,
      ...common,
      responses: responses(true),
    },
    head: {
      operationId: `${openApi.operationId}Head`,
      summary: `${openApi.summary} (headers only)`,
      description: `The same as GET without the body. ${note}`,
      ...common,
      responses: responses(false),
    },
  };
}

const _text = (description: string): Json => ({ type: 'string', minLength: 1, maxLength: DEVICE_TEXT_MAX, description });

/** An optional text of the machine's identity (D63). */
const _optional = (what: string): Json => ({
  type: ['string', 'null'],
  maxLength: DEVICE_TEXT_MAX,
  description: `${what}; trimmed, without control characters; null or "" for none.`,
});

/** The fields of a device in a write's body. */
const _DEVICE_FIELDS: Json = {
  name: _text('Display name of the vehicle; trimmed, without control characters.'),
  imei: _text('Identifier of the tracker box; an active device of the account has its own.'),
  model: _text('Tracker model.'),
  timezone: { type: 'string', description: 'IANA zone name (not an offset); every day and window of the device is cut in it.' },
  registration: { type: ['string', 'null'], maxLength: DEVICE_TEXT_MAX, description: 'Registration plate; null or "" for none.' },
  status: { type: 'string', enum: [...DEVICE_STATUSES], description: '`inactive` frees the IMEI for another device.' },
  tags: {
    type: 'array',
    maxItems: DEVICE_TAGS_MAX,
    uniqueItems: true,
    items: { type: 'string', minLength: 1, maxLength: DEVICE_TAG_MAX },
    description: `Up to ${DEVICE_TAGS_MAX} tags, each 1–${DEVICE_TAG_MAX} characters after trimming, without control characters, none twice; case-sensitive. A change replaces the whole list; [] removes every tag.`,
  },
  oem_name: _optional("The machine's manufacturer"),
  equipment_model: _optional("The machine's model"),
  serial_number: _optional("The machine's serial number"),
  pin: _optional("The machine's product identification number (PIN)"),
};

const _instant = (description: string): Json => ({ type: 'string', format: 'date-time', description });
const _seconds = (description: string, maximum: number, nullable = false): Json => ({
  type: nullable ? ['integer', 'null'] : 'integer',
  minimum: 0,
  maximum,
  description,
});

/** A reading as the API shows it (D38, D54). */
const _READING_PROPERTIES: Json = {
  id: { type: 'integer' },
  device_id: { type: 'integer' },
  read_at: _instant("When the hour meter showed the value, in the device's offset."),
  reading_seconds: _seconds('What the hour meter showed, in whole seconds.', MAX_HOUR_METER_SECONDS),
  source: {
    type: 'string',
    description: '`manual`: recorded by a person, over the API or the CLI; `aemp:{id}`: stored by a poll of that AEMP source.',
  },
  recorded_at: _instant('When the reading was recorded.'),
  version: { type: 'string', description: 'The version of the reading: its `ETag`, without the quotes.' },
};
const _READING_REQUIRED = ['id', 'device_id', 'read_at', 'reading_seconds', 'source', 'recorded_at', 'version'];

/** The fields of a schedule in a write's body (D39). */
const _SCHEDULE_FIELDS: Json = {
  name: { type: 'string', minLength: 1, maxLength: 200, description: 'Trimmed, without control characters; one per device.' },
  interval_seconds: {
    type: 'integer',
    minimum: 1,
    maximum: MAX_SERVICE_INTERVAL_SECONDS,
    description: 'Hour-meter seconds between services.',
  },
  interval_days: {
    type: ['integer', 'null'],
    minimum: 1,
    maximum: MAX_SERVICE_INTERVAL_DAYS,
    description: 'Calendar days between services, whichever comes first; null for none.',
  },
  due_soon_seconds: _seconds('Due-soon margin of engine time; null: a tenth of the interval.', MAX_SERVICE_INTERVAL_SECONDS, true),
  due_soon_days: _seconds(
    'Due-soon margin in days (needs `interval_days`); null: a tenth of it, at least 1.',
    MAX_SERVICE_INTERVAL_DAYS,
    true,
  ),
  last_done_at: _instant('The last service; default now. Not in the future.'),
  last_done_hour_meter_seconds: _seconds(
    'The hour meter at the last service; null: computed from the readings and the engine time.',
    MAX_HOUR_METER_SECONDS,
    true,
  ),
};

/** The schemas of the routes of readings and schedules. */
const MAINTENANCE_SCHEMAS: Readonly<Record<string, Json>> = {
  HourMeterReading: { type: 'object', required: _READING_REQUIRED, properties: _READING_PROPERTIES },
  HourMeterReadingPage: {
    type: 'object',
    required: ['data', 'next_cursor'],
    properties: {
      data: { type: 'array', items: ref('schemas', 'HourMeterReading'), maxItems: READING_PAGE_SIZES.max },
      next_cursor: { type: ['string', 'null'], description: 'Where the next page starts; null on the last page.' },
    },
  },
  HourMeterReadingRecorded: {
    type: 'object',
    required: [..._READING_REQUIRED, 'hour_meter_seconds', 'hour_meter_read_at'],
    properties: {
      ..._READING_PROPERTIES,
      hour_meter_seconds: { type: 'integer', description: 'The hour meter now, with this reading.' },
      hour_meter_read_at: { type: ['string', 'null'], format: 'date-time', description: 'The reading the hour meter now counts from.' },
    },
  },
  HourMeterReadingCreate: {
    type: 'object',
    description: `A reading. Unknown fields are refused (400 naming them); the body is at most ${MAX_WRITE_BODY_BYTES / 1024} KiB.`,
    required: ['reading_seconds'],
    additionalProperties: false,
    properties: {
      read_at: _instant('When the hour meter showed the value; default now. Not in the future.'),
      reading_seconds: _READING_PROPERTIES.reading_seconds as Json,
      source: { type: 'string', enum: ['manual'], description: 'Only `manual`.' },
    },
    examples: [{ read_at: '2026-11-20T07:00:00-05:00', reading_seconds: 45_000_000 }],
  },
  ServiceScheduleWritten: {
    allOf: [
      ref('schemas', 'ServiceSchedule'),
      {
        type: 'object',
        required: ['version'],
        properties: { version: { type: 'string', description: 'The version of the schedule: its `ETag`, without the quotes.' } },
      },
    ],
  },
  ServiceScheduleCreate: {
    type: 'object',
    description: `A new schedule. Unknown fields are refused (400 naming them); the body is at most ${MAX_WRITE_BODY_BYTES / 1024} KiB.`,
    required: ['name', 'interval_seconds'],
    additionalProperties: false,
    properties: _SCHEDULE_FIELDS,
    examples: [{ name: 'Engine oil', interval_seconds: 900_000, interval_days: 180 }],
  },
  ServiceScheduleChange: {
    type: 'object',
    description: 'The fields to change, at least one; the others stay. Unknown fields are refused (400 naming them).',
    minProperties: 1,
    additionalProperties: false,
    properties: _SCHEDULE_FIELDS,
    examples: [{ interval_days: null }],
  },
  ServiceDone: {
    type: 'object',
    description: 'A service done; the body may be left out (a service now).',
    additionalProperties: false,
    properties: {
      done_at: _instant('When the service was done; default now. Not in the future.'),
      hour_meter_seconds: _seconds('The hour meter then, recorded as a reading at `done_at` too.', MAX_HOUR_METER_SECONDS),
    },
    examples: [{ done_at: '2026-11-20T07:00:00-05:00', hour_meter_seconds: 45_000_000 }],
  },
};

/** The parameters of the routes of readings and schedules (P76). */
export const MAINTENANCE_PARAMETERS: Readonly<Record<string, Json>> = {
  ReadingId: {
    name: 'reading_id',
    in: 'path',
    required: true,
    description: "The reading id. Another device's, another account's or anything else answers the same 404 as a missing device.",
    schema: { type: 'integer', minimum: 1 },
  },
  ScheduleId: {
    name: 'schedule_id',
    in: 'path',
    required: true,
    description: "The schedule id. Another device's, another account's or anything else answers the same 404 as a missing device.",
    schema: { type: 'integer', minimum: 1 },
  },
  ReadingLimit: {
    name: 'limit',
    in: 'query',
    required: false,
    description: `Readings per page: a whole number from 1 to ${READING_PAGE_SIZES.max}, default ${READING_PAGE_SIZES.default}. Anything else: 400.`,
    schema: { type: 'integer', minimum: 1, maximum: READING_PAGE_SIZES.max, default: READING_PAGE_SIZES.default },
  },
  ReadingCursor: {
    name: 'cursor',
    in: 'query',
    required: false,
    description: 'Where the page starts: the `next_cursor` of the previous page (opaque). Any other text: 400.',
    schema: { type: 'string', pattern: '^[A-Za-z0-9_-]+$' },
  },
};

/** The schemas of the write routes' bodies. */
export const MANAGE_SCHEMAS: Readonly<Record<string, Json>> = {
  DeviceCreate: {
    type: 'object',
    description: `A new device. Unknown fields are refused (400 naming them); the body is at most ${MAX_WRITE_BODY_BYTES / 1024} KiB.`,
    required: ['name', 'imei', 'model', 'timezone'],
    additionalProperties: false,
    properties: _DEVICE_FIELDS,
    examples: [
      {
        name: 'Excavator 4',
        imei: '490154203237518',
        model: 'FMC130',
        timezone: 'Europe/Berlin',
        registration: 'B-EX 4',
        tags: ['north-yard'],
        oem_name: 'CAT',
        equipment_model: '320',
      },
    ],
  },
  DeviceChange: {
    type: 'object',
    description: `The fields to change, at least one; the others stay. Unknown fields are refused (400 naming them); the body is at most ${MAX_WRITE_BODY_BYTES / 1024} KiB.`,
    minProperties: 1,
    additionalProperties: false,
    properties: _DEVICE_FIELDS,
    examples: [{ status: 'inactive' }],
  },
  AuditEntry: {
    type: 'object',
    description: 'A change to the account: when, who, under which request, what, and each field changed.',
    required: ['id', 'at', 'actor', 'request_id', 'action', 'resource', 'changes'],
    properties: {
      id: { type: 'integer', minimum: 1, description: 'Larger for every later change.' },
      at: { type: 'string', format: 'date-time', description: 'When the change was made, in UTC.' },
      actor: {
        type: 'object',
        required: ['kind', 'label', 'fingerprint_prefix'],
        properties: {
          kind: {
            type: 'string',
            enum: ['api_key', 'cli', 'aemp_poller'],
            description: 'An API key, the operator CLI, or the server polling an AEMP source.',
          },
          label: { type: ['string', 'null'], description: "The key's label, or the AEMP source as `aemp:{id}`; null for the CLI." },
          fingerprint_prefix: {
            type: ['string', 'null'],
            description: "The first 8 hex characters of the key's SHA-256 fingerprint; null for the CLI.",
          },
        },
      },
      request_id: { type: ['string', 'null'], description: 'The `X-Request-Id` of the request that made it; null for the CLI.' },
      action: { type: 'string', description: 'The resource type and the verb, e.g. `device.create`, `device.update`.' },
      resource: {
        type: 'object',
        required: ['type', 'id'],
        properties: { type: { type: 'string', examples: ['device'] }, id: { type: 'string', examples: ['7'] } },
      },
      changes: {
        type: 'object',
        description:
          'Each field whose value changed, as `[before, after]` (null for a field that was not there). Secrets are `"[redacted]"`.',
        additionalProperties: { type: 'array', minItems: 2, maxItems: 2 },
      },
    },
  },
  AuditPage: {
    type: 'object',
    required: ['data', 'next_cursor'],
    properties: {
      data: { type: 'array', items: ref('schemas', 'AuditEntry'), description: 'The changes, newest first.' },
      next_cursor: {
        type: ['string', 'null'],
        pattern: '^[A-Za-z0-9_-]+$',
        description: 'Pass it as `cursor` to get the next page; null on the last page.',
      },
    },
    examples: [
      {
        data: [
          {
            id: 12,
            at: '2026-11-23T10:15:42+00:00',
            actor: { kind: 'api_key', label: 'dispatch', fingerprint_prefix: '3f9a0c1e' },
            request_id: '9b2d6f0e-1c4a-4e8b-a7d2-5f3c8e1b9a60',
            action: 'device.update',
            resource: { type: 'device', id: '7' },
            changes: { name: ['Van 7', 'Van 7 (north)'] },
          },
        ],
        next_cursor: null,
      },
    ],
  },
  // Hour-meter readings, service schedules and services done (D38, D39, D52, P76).
  ...MAINTENANCE_SCHEMAS,
};

/**
 * The operation of a webhook or ingest token route (P80–P83): its resource's path parameter and
 * 404, `If-Match` where it takes one, its query, and the budget of manage reads for a GET.
 */
function _hooksOperation(endpoint: ManageEndpoint, openApi: ManageOpenApiOperation, limits: RateLimits, paths: Record<string, Json>): void {
  {
    // The device routes (D52) name a device; the others name their resource in `resource` (P80).
    const onDevice = openApi.resource === undefined && endpoint.template.includes('{id}');
    const resource = openApi.resource ?? (onDevice ? { parameter: 'DeviceId', notFound: 'DeviceNotFound' } : undefined);
    const ifMatch = openApi.ifMatch ?? onDevice;
    // One endpoint answered: its version (D54, P81).
    const onWebhook = openApi.schema === 'Webhook' || openApi.schema === 'WebhookWithSecret';
    // A token made: its version, as its revocation compares it (D54, P100).
    const etag =
      openApi.tag === 'Devices'
        ? 'ETag'
        : onWebhook
          ? 'WebhookETag'
          : openApi.schema === 'IngestTokenWithToken'
            ? 'IngestTokenETag'
            : openApi.tag === 'Calendars'
              ? 'CalendarETag'
              : openApi.schema === 'AempSource'
                ? 'AempSourceETag'
                : null;
    const success: Json =
      openApi.schema === undefined
        ? { description: 'Done: no body', headers: { ...RATE_LIMIT_HEADERS } }
        : {
            description:
              openApi.tag === 'Devices'
                ? openApi.status === 201
                  ? 'Created: the device, its URL in `Location`'
                  : 'OK: the device'
                : openApi.status === 201
                  ? 'Created, its URL in `Location`'
                  : openApi.status === 202
                    ? 'Accepted: the servers do the rest'
                    : 'OK',
            headers: {
              ...RATE_LIMIT_HEADERS,
              ...(etag === null ? {} : { ETag: ref('headers', etag) }),
              ...(openApi.status === 201 ? { Location: ref('headers', 'Location') } : {}),
            },
            content:
              endpoint.method === 'GET'
                ? answerContent(endpoint.name, openApi.schema)
                : { 'application/json': { schema: ref('schemas', openApi.schema) } },
          };
    const parameters = [
      ...(resource ? [ref('parameters', resource.parameter)] : []),
      ...(ifMatch ? [ref('parameters', _IF_MATCH[openApi.tag] ?? 'WebhookIfMatch')] : []),
      ...(openApi.query ?? []).map((name) => ref('parameters', name)),
    ];
    const withBody = openApi.requestSchema !== undefined;
    paths[endpoint.template] = {
      ...paths[endpoint.template],
      [endpoint.method.toLowerCase()]: {
        operationId: openApi.operationId,
        summary: openApi.summary,
        description:
          endpoint.method === 'GET'
            ? `${openApi.description}\n\nNeeds an API key with the \`manage\` scope (a \`read\` key is 403 \`insufficient_scope\`). Rate limit: ${limits.manageReads} requests per minute per key over all the manage reads.`
            : `${openApi.description}\n\nNeeds an API key with the \`manage\` scope (a \`read\` key is 403 \`insufficient_scope\`). Rate limit: ${limits.writes} requests per minute per key over all the write routes.`,
        tags: [openApi.tag],
        ...(parameters.length > 0 ? { parameters } : {}),
        ...(withBody
          ? { requestBody: { required: true, content: { 'application/json': { schema: ref('schemas', openApi.requestSchema!) } } } }
          : {}),
        responses: {
          [String(openApi.status)]: success,
          ...(withBody ? { '400': ref('responses', 'InvalidWrite') } : openApi.query ? { '400': ref('responses', 'BadRequest') } : {}),
          '401': ref('responses', 'Unauthorized'),
          '403': ref('responses', 'ForbiddenWrite'),
          ...(resource ? { '404': ref('responses', resource.notFound) } : {}),
          ...notAcceptable(endpoint.name),
          ...(openApi.tag === 'Devices' ? { '409': ref('responses', 'DeviceConflict') } : {}),
          ...Object.fromEntries(Object.entries(openApi.refusals ?? {}).map(([status, name]) => [status, ref('responses', name)])),
          ...(ifMatch ? { '412': ref('responses', 'PreconditionFailed') } : {}),
          ...(withBody ? { '413': ref('responses', 'WriteTooLarge'), '415': ref('responses', 'UnsupportedMediaType') } : {}),
          '429': ref('responses', 'TooManyRequests'),
          '500': ref('responses', 'InternalError'),
          '503': ref('responses', 'ServiceUnavailable'),
        },
      },
    };
  }
}

/** The `If-Match` parameter of a resource's writes, by tag (D54): the webhooks' when none. */
const _IF_MATCH: Readonly<Record<string, string>> = {
  Devices: 'IfMatch',
  'Ingest tokens': 'IngestTokenIfMatch',
  Calendars: 'CalendarIfMatch',
  'AEMP sources': 'AempSourceIfMatch',
};

// ── Webhook endpoints and ingest tokens (P80–P83) ───────────────────────────────────────────────

const _nullableInstant = (description: string): Json => ({ type: ['string', 'null'], format: 'date-time', description });

const _WEBHOOK_PROPERTIES: Json = {
  id: { type: 'integer', minimum: 1 },
  url: { type: 'string', format: 'uri', description: 'Where events are POSTed: https (http only for a loopback host).' },
  event_types: { type: 'array', items: { type: 'string', enum: [...SUBSCRIBABLE_EVENT_TYPES] }, description: 'The events it wants.' },
  enabled: { type: 'boolean', description: 'Whether events are sent to it.' },
  description: { type: ['string', 'null'], maxLength: WEBHOOK_DESCRIPTION_MAX, description: 'What it is for, for people; null: none.' },
  disabled_reason: {
    type: ['string', 'null'],
    enum: ['operator', 'gone', 'failing', null],
    description: 'Why it is disabled: by a change (`operator`), after a 410 (`gone`), after five days of failures (`failing`).',
  },
  disabled_at: _nullableInstant('When it was disabled.'),
  failing_since: _nullableInstant('Since when every attempt has failed; null after a success.'),
  previous_secret_expires_at: _nullableInstant('During the 24 hours after a rotation: when the previous secret stops signing.'),
  created_at: { type: 'string', format: 'date-time' },
  version: { type: 'string', pattern: '^w-[0-9a-f]{16}$', description: 'The version of the endpoint: its `ETag`, without the quotes.' },
};
const _WEBHOOK_REQUIRED = Object.keys(_WEBHOOK_PROPERTIES as Record<string, Json>);

const _INGEST_TOKEN_PROPERTIES: Json = {
  id: { type: 'integer', minimum: 1 },
  label: { type: ['string', 'null'] },
  fingerprint_prefix: {
    type: 'string',
    pattern: `^[0-9a-f]{${INGEST_TOKEN_FINGERPRINT_PREFIX_LENGTH}}$`,
    description: 'The first characters of the SHA-256 fingerprint of the token: the token itself is never shown again.',
  },
  state: { type: 'string', enum: ['active', 'expired', 'revoked'] },
  created_at: { type: 'string', format: 'date-time' },
  expires_at: _nullableInstant('When it stops being accepted; null: never.'),
  revoked_at: _nullableInstant('When it was revoked.'),
  version: { type: 'string', pattern: '^t-[0-9a-f]{16}$', description: 'The version of the token: its `ETag`, without the quotes.' },
};
const _INGEST_TOKEN_REQUIRED = Object.keys(_INGEST_TOKEN_PROPERTIES as Record<string, Json>);

const _WEBHOOK_DESCRIPTION: Json = {
  type: ['string', 'null'],
  maxLength: WEBHOOK_DESCRIPTION_MAX,
  description: 'What it is for, for people: trimmed, without control characters; null or empty: none.',
};

const _list = (item: string): Json => ({
  type: 'object',
  required: ['data'],
  additionalProperties: false,
  properties: { data: { type: 'array', items: ref('schemas', item) } },
});

/** The schemas of the webhook and ingest token routes. */
export const WEBHOOK_SCHEMAS: Readonly<Record<string, Json>> = {
  Webhook: { type: 'object', required: _WEBHOOK_REQUIRED, additionalProperties: false, properties: _WEBHOOK_PROPERTIES },
  WebhookWithSecret: {
    type: 'object',
    description: 'The endpoint and its secret: shown in this answer only.',
    required: [..._WEBHOOK_REQUIRED, 'secret'],
    additionalProperties: false,
    properties: {
      ...(_WEBHOOK_PROPERTIES as Record<string, Json>),
      secret: {
        type: ['string', 'null'],
        pattern: '^whsec_[A-Za-z0-9+/]+={0,2}$',
        description:
          'Signs every request (Standard Webhooks). Store it now: it is never shown again — an answer given again for an `Idempotency-Key` (`Idempotent-Replayed: true`) has `null` here.',
      },
    },
  },
  WebhookList: _list('Webhook'),
  WebhookCreate: {
    type: 'object',
    description: `A new endpoint, enabled. Unknown fields are refused (400 naming them); the body is at most ${MAX_WRITE_BODY_BYTES / 1024} KiB.`,
    required: ['url'],
    additionalProperties: false,
    properties: {
      url: { type: 'string', maxLength: 2000, description: 'https, or http for a loopback host; no user or password.' },
      event_types: {
        type: 'array',
        items: { type: 'string', enum: [...SUBSCRIBABLE_EVENT_TYPES] },
        description: 'The events it wants; absent or empty: every type.',
      },
      description: _WEBHOOK_DESCRIPTION,
    },
    examples: [
      { url: 'https://ops.example.com/fleet-hooks', event_types: ['service.overdue', 'device.silent'], description: 'Dispatch board' },
    ],
  },
  WebhookChange: {
    type: 'object',
    description: `The fields to change, at least one. Unknown fields are refused (400 naming them); the body is at most ${MAX_WRITE_BODY_BYTES / 1024} KiB.`,
    minProperties: 1,
    additionalProperties: false,
    properties: {
      url: { type: 'string', maxLength: 2000 },
      event_types: { type: 'array', items: { type: 'string', enum: [...SUBSCRIBABLE_EVENT_TYPES] } },
      enabled: { type: 'boolean', description: '`true` enables it and clears why it was disabled.' },
      description: _WEBHOOK_DESCRIPTION,
    },
    examples: [{ enabled: true }],
  },
  WebhookTest: {
    type: 'object',
    required: ['event_id', 'endpoint_id', 'sent', 'status', 'duration_ms', 'error', 'delivered'],
    additionalProperties: false,
    properties: {
      event_id: { type: 'string', description: 'The `webhook.test` event sent.' },
      endpoint_id: { type: 'integer', minimum: 1 },
      sent: {
        type: 'boolean',
        description: 'false: it could not be sent now; the servers send it, and the attempt shows in the deliveries.',
      },
      status: { type: ['integer', 'null'], description: 'The status the endpoint answered; null: no answer.' },
      duration_ms: { type: ['integer', 'null'], minimum: 0 },
      error: { type: ['string', 'null'], description: 'Why the attempt failed.' },
      delivered: { type: 'boolean', description: 'Whether the endpoint answered 2xx.' },
    },
  },
  WebhookAttemptPage: {
    type: 'object',
    required: ['data', 'next_cursor'],
    additionalProperties: false,
    properties: {
      data: {
        type: 'array',
        items: {
          type: 'object',
          required: ['id', 'event_id', 'event_type', 'attempted_at', 'status', 'duration_ms', 'error'],
          additionalProperties: false,
          properties: {
            id: { type: 'integer', minimum: 1 },
            event_id: { type: 'string' },
            event_type: { type: 'string' },
            attempted_at: { type: 'string', format: 'date-time' },
            status: { type: ['integer', 'null'] },
            duration_ms: { type: 'integer', minimum: 0 },
            error: { type: ['string', 'null'] },
          },
        },
      },
      next_cursor: { type: ['string', 'null'], description: 'The `cursor` of the next page; null on the last.' },
    },
  },
  EventReplay: {
    type: 'object',
    required: ['event_id', 'deliveries'],
    additionalProperties: false,
    properties: {
      event_id: { type: 'string' },
      deliveries: {
        type: 'array',
        items: {
          type: 'object',
          required: ['id', 'endpoint_id', 'state'],
          additionalProperties: false,
          properties: { id: { type: 'integer' }, endpoint_id: { type: 'integer' }, state: { type: 'string', enum: ['pending'] } },
        },
      },
    },
  },
  IngestToken: { type: 'object', required: _INGEST_TOKEN_REQUIRED, additionalProperties: false, properties: _INGEST_TOKEN_PROPERTIES },
  IngestTokenWithToken: {
    type: 'object',
    description: 'The token and the token itself: shown in this answer only.',
    required: [..._INGEST_TOKEN_REQUIRED, 'token'],
    additionalProperties: false,
    properties: {
      ...(_INGEST_TOKEN_PROPERTIES as Record<string, Json>),
      token: {
        type: ['string', 'null'],
        pattern: '^fhi_[A-Za-z0-9]{43}$',
        description:
          'Store it now: only its fingerprint is kept. An answer given again for an `Idempotency-Key` (`Idempotent-Replayed: true`) has `null` here.',
      },
    },
  },
  IngestTokenList: _list('IngestToken'),
  IngestTokenCreate: {
    type: 'object',
    description: `A new ingest token; every field optional. Unknown fields are refused (400 naming them); the body is at most ${MAX_WRITE_BODY_BYTES / 1024} KiB.`,
    additionalProperties: false,
    properties: {
      label: { type: ['string', 'null'], maxLength: INGEST_TOKEN_LABEL_MAX, description: 'What it is for; without control characters.' },
      expires_at: { type: ['string', 'null'], format: 'date-time', description: 'When it stops being accepted; null or absent: never.' },
    },
    examples: [{ label: 'Yard gateway', expires_at: '2027-01-01T00:00:00Z' }],
  },
};

/** The parameters of the webhook and ingest token routes. */
export const WEBHOOK_PARAMETERS: Readonly<Record<string, Json>> = {
  WebhookId: {
    name: 'id',
    in: 'path',
    required: true,
    description:
      'The webhook endpoint id. An endpoint of another account, or any text that is no id, answers the same 404 as a missing one.',
    schema: { type: 'integer', minimum: 1 },
  },
  IngestTokenId: {
    name: 'id',
    in: 'path',
    required: true,
    description: 'The ingest token id. A token of another account answers the same 404 as a missing one.',
    schema: { type: 'integer', minimum: 1 },
  },
  EventId: {
    name: 'event_id',
    in: 'path',
    required: true,
    description: 'The event id, as in the `webhook-id` header of its requests: `evt_…`.',
    schema: { type: 'string', pattern: '^evt_[A-Za-z0-9_.]{1,200}$' },
  },
  IngestTokenIfMatch: {
    name: 'If-Match',
    in: 'header',
    required: false,
    description: 'The `ETag` of the token as last read (or `*`): it is revoked only if it is still that one, else 412.',
    schema: { type: 'string' },
  },
  WebhookIfMatch: {
    name: 'If-Match',
    in: 'header',
    required: false,
    description: 'The `ETag` of the endpoint as last read (or `*`): the write applies only if it is still that one, else 412.',
    schema: { type: 'string' },
  },
  DeliveriesLimit: {
    name: 'limit',
    in: 'query',
    required: false,
    description: `Attempts in a page: 1 to ${WEBHOOK_DELIVERIES_PAGE.max}, default ${WEBHOOK_DELIVERIES_PAGE.default}.`,
    schema: { type: 'integer', minimum: 1, maximum: WEBHOOK_DELIVERIES_PAGE.max, default: WEBHOOK_DELIVERIES_PAGE.default },
  },
  FailedOnly: {
    name: 'failed',
    in: 'query',
    required: false,
    description: '`true`: only the attempts of deliveries that failed for good.',
    schema: { type: 'string', enum: ['true', 'false'] },
  },
};
