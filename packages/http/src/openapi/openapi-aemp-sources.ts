import { AEMP_MIN_INTERVAL, AEMP_POLL_EVERY, AEMP_POLLS_PAGE, AEMP_TEXT_MAX } from '@fleet-hours/core';
import { MAX_WRITE_BODY_BYTES } from '../routes/device-writes.js';
import { type Json, ref } from './openapi-refs.js';

/**
 * The AEMP sources' part of the OpenAPI document (D65, D66, P133, P135): a source as the routes
 * answer it (never a secret), the bodies of its writes, its polls' records, its `ETag` and
 * `If-Match`, and its path parameter.
 */

const _instant = (description: string): Json => ({ type: 'string', format: 'date-time', description });
const _text: Json = { type: 'string', minLength: 1, maxLength: AEMP_TEXT_MAX };
const _secret = (what: string): Json => ({
  type: 'string',
  minLength: 1,
  maxLength: 4096,
  writeOnly: true,
  description: `${what}: stored to sign in, never shown again.`,
});
const _url = (what: string): Json => ({ type: 'string', maxLength: 2000, description: `${what}: https (http only for a loopback host).` });

const _AUTH_IN: Json = {
  description: 'How the server signs in to the feed; given whole, with its secret, each time.',
  oneOf: [
    {
      type: 'object',
      title: 'basic',
      required: ['kind', 'username', 'password'],
      additionalProperties: false,
      properties: { kind: { const: 'basic' }, username: _text, password: _secret('The password') },
    },
    {
      type: 'object',
      title: 'bearer',
      required: ['kind', 'token'],
      additionalProperties: false,
      properties: { kind: { const: 'bearer' }, token: _secret('The token') },
    },
    {
      type: 'object',
      title: 'oauth2_client_credentials',
      required: ['kind', 'token_url', 'client_id', 'client_secret'],
      additionalProperties: false,
      properties: {
        kind: { const: 'oauth2_client_credentials' },
        token_url: _url('Where tokens are asked for'),
        client_id: _text,
        client_secret: _secret('The client secret'),
        scope: { type: ['string', 'null'], maxLength: AEMP_TEXT_MAX },
      },
    },
  ],
};

const _AUTH_OUT: Json = {
  type: 'object',
  description: 'The sign-in without its secret: `has_secret` says one is stored.',
  required: ['kind', 'has_secret'],
  additionalProperties: false,
  properties: {
    kind: { type: 'string', enum: ['basic', 'bearer', 'oauth2_client_credentials'] },
    username: { type: 'string', description: 'basic only.' },
    token_url: { type: 'string', description: 'oauth2_client_credentials only.' },
    client_id: { type: 'string', description: 'oauth2_client_credentials only.' },
    scope: { type: ['string', 'null'], description: 'oauth2_client_credentials only.' },
    has_secret: { const: true },
  },
};

const _POLL_EVERY: Json = {
  type: 'integer',
  minimum: AEMP_POLL_EVERY.min,
  maximum: AEMP_POLL_EVERY.max,
  description: `Seconds between two polls; default ${AEMP_POLL_EVERY.default}.`,
};
const _MIN_INTERVAL: Json = {
  type: 'integer',
  minimum: AEMP_MIN_INTERVAL.min,
  maximum: AEMP_MIN_INTERVAL.max,
  description: `The least seconds between two requests of one URL, as the OEM asks; default ${AEMP_MIN_INTERVAL.default}.`,
};

const _SOURCE_PROPERTIES: Record<string, Json> = {
  id: { type: 'integer', minimum: 1 },
  name: _text,
  url: { type: 'string', description: 'The feed’s first page (`…/Fleet/1`, or `…/Fleet/0` where the feed starts there).' },
  auth: _AUTH_OUT,
  poll_every_seconds: _POLL_EVERY,
  min_interval_per_url_seconds: _MIN_INTERVAL,
  enabled: { type: 'boolean', description: 'Whether the server polls it.' },
  next_poll_at: _instant('When the server polls it next (while enabled).'),
  created_at: _instant('When it was added.'),
  updated_at: _instant('When its fields last changed.'),
  version: { type: 'integer', minimum: 1, description: 'Counts its changes; the `ETag` is it after `a`, in double quotes.' },
};

const _POLL_PROPERTIES: Record<string, Json> = {
  id: { type: 'integer', minimum: 1 },
  source_id: { type: 'integer', minimum: 1 },
  started_at: _instant('When the poll began.'),
  finished_at: _instant('When it ended.'),
  pages: { type: 'integer', minimum: 0 },
  equipment_seen: { type: 'integer', minimum: 0 },
  matched: { type: 'integer', minimum: 0, description: 'Equipment matched to a device by PIN, else make and serial number.' },
  unmatched: {
    type: 'array',
    description: 'Equipment no device matched, as the feed names it.',
    items: {
      type: 'object',
      required: ['pin', 'oem_name', 'serial_number'],
      additionalProperties: false,
      properties: {
        pin: { type: ['string', 'null'] },
        oem_name: { type: ['string', 'null'] },
        serial_number: { type: ['string', 'null'] },
      },
    },
  },
  readings_stored: { type: 'integer', minimum: 0 },
  readings_refused: {
    type: 'array',
    description: 'Values kept out, with why (lower than the source’s newest, in the future, …).',
    items: {
      type: 'object',
      required: ['device_id', 'read_at', 'reason'],
      additionalProperties: false,
      properties: { device_id: { type: 'integer' }, read_at: { type: 'string', format: 'date-time' }, reason: { type: 'string' } },
    },
  },
  error: {
    type: ['object', 'null'],
    description: 'What ended the poll early; null when it read the feed to its end.',
    required: ['status', 'message'],
    additionalProperties: false,
    properties: { status: { type: ['integer', 'null'] }, message: { type: 'string' } },
  },
};

const _POLL: Json = {
  type: 'object',
  required: Object.keys(_POLL_PROPERTIES),
  additionalProperties: false,
  properties: _POLL_PROPERTIES,
};

/** The fields of a write (P132): a creation's and a change's alike. */
const _WRITE_PROPERTIES: Record<string, Json> = {
  name: _text,
  url: _url('The feed’s first page'),
  auth: _AUTH_IN,
  poll_every_seconds: _POLL_EVERY,
  min_interval_per_url_seconds: _MIN_INTERVAL,
  enabled: { type: 'boolean' },
};

const _body = (what: string) =>
  `${what} Unknown fields are refused (400 naming them); the body is at most ${MAX_WRITE_BODY_BYTES / 1024} KiB.`;

/** The schemas of the AEMP sources' routes. */
export const AEMP_SOURCE_SCHEMAS: Readonly<Record<string, Json>> = {
  AempSource: { type: 'object', required: Object.keys(_SOURCE_PROPERTIES), additionalProperties: false, properties: _SOURCE_PROPERTIES },
  AempSourceList: {
    type: 'object',
    required: ['data'],
    additionalProperties: false,
    properties: { data: { type: 'array', items: ref('schemas', 'AempSource') } },
  },
  AempSourceCreate: {
    type: 'object',
    description: _body('A new source, enabled.'),
    required: ['name', 'url', 'auth'],
    additionalProperties: false,
    properties: _WRITE_PROPERTIES,
    examples: [
      {
        name: 'Cat fleet',
        url: 'https://oem.example/aemp/Fleet/1',
        auth: { kind: 'oauth2_client_credentials', token_url: 'https://oem.example/token', client_id: 'fleet', client_secret: '…' },
      },
    ],
  },
  AempSourceChange: {
    type: 'object',
    description: _body('The fields to change, at least one.'),
    minProperties: 1,
    additionalProperties: false,
    properties: _WRITE_PROPERTIES,
    examples: [{ enabled: false }],
  },
  AempPollPage: {
    type: 'object',
    required: ['data', 'next_cursor'],
    additionalProperties: false,
    properties: {
      data: { type: 'array', items: _POLL, description: 'The polls, newest first.' },
      next_cursor: { type: ['string', 'null'], description: 'Pass it as `cursor` to get the next page; null on the last page.' },
    },
  },
};

/** The parameters of the AEMP sources' routes. */
export const AEMP_SOURCE_PARAMETERS: Readonly<Record<string, Json>> = {
  AempSourceId: {
    name: 'id',
    in: 'path',
    required: true,
    description: 'The AEMP source id. A source of another account, or any text that is no id, answers the same 404 as a missing one.',
    schema: { type: 'integer', minimum: 1 },
  },
  AempSourceIfMatch: {
    name: 'If-Match',
    in: 'header',
    required: false,
    description: 'The `ETag` of the source as last read (or `*`): the write applies only if it is still that version, else 412.',
    schema: { type: 'string' },
  },
  AempPollsLimit: {
    name: 'limit',
    in: 'query',
    required: false,
    description: `Polls in a page: 1 to ${AEMP_POLLS_PAGE.max}, default ${AEMP_POLLS_PAGE.default}.`,
    schema: { type: 'integer', minimum: 1, maximum: AEMP_POLLS_PAGE.max, default: AEMP_POLLS_PAGE.default },
  },
};

/** The `ETag` of a source's answer. */
export const AEMP_SOURCE_ETAG_DESCRIPTION =
  "The AEMP source's version: `a` and the count of its changes, in double quotes. Send it back as `If-Match`.";
