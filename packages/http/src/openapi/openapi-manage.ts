import { DEVICE_STATUSES, DEVICE_TAG_MAX, DEVICE_TAGS_MAX, DEVICE_TEXT_MAX, type RateLimits } from '@fleet-hours/core';
import { allowedMethods } from '@fleet-hours/core/adapter';
import { MANAGE_API_ENDPOINTS } from '../routes/manage-endpoints.js';
import { MAX_WRITE_BODY_BYTES } from '../routes/device-writes.js';
import { type Json, RATE_LIMIT_HEADERS, ref } from './openapi-refs.js';

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
    const withDevice = endpoint.template.includes('{id}');
    const success: Json = {
      description: openApi.status === 201 ? 'Created: the device, its URL in `Location`' : 'OK: the device',
      headers: {
        ...RATE_LIMIT_HEADERS,
        ETag: ref('headers', 'ETag'),
        ...(openApi.status === 201 ? { Location: ref('headers', 'Location') } : {}),
      },
      content: { 'application/json': { schema: ref('schemas', openApi.schema) } },
    };
    paths[endpoint.template] = {
      ...paths[endpoint.template],
      [endpoint.method.toLowerCase()]: {
        operationId: openApi.operationId,
        summary: openApi.summary,
        description: `${openApi.description}\n\nNeeds an API key with the \`manage\` scope (a \`read\` key is 403 \`insufficient_scope\`). Rate limit: ${limits.writes} requests per minute per key over all the write routes.`,
        tags: [openApi.tag],
        ...(withDevice ? { parameters: [ref('parameters', 'DeviceId'), ref('parameters', 'IfMatch')] } : {}),
        requestBody: { required: true, content: { 'application/json': { schema: ref('schemas', openApi.requestSchema) } } },
        responses: {
          [String(openApi.status)]: success,
          '400': ref('responses', 'InvalidWrite'),
          '401': ref('responses', 'Unauthorized'),
          '403': ref('responses', 'ForbiddenWrite'),
          ...(withDevice ? { '404': ref('responses', 'DeviceNotFound') } : {}),
          '409': ref('responses', 'DeviceConflict'),
          ...(withDevice ? { '412': ref('responses', 'PreconditionFailed') } : {}),
          '413': ref('responses', 'WriteTooLarge'),
          '415': ref('responses', 'UnsupportedMediaType'),
          '429': ref('responses', 'TooManyRequests'),
          '500': ref('responses', 'InternalError'),
          '503': ref('responses', 'ServiceUnavailable'),
        },
      },
    };
  }
  return paths;
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
};
