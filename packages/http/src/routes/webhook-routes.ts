import {
  FleetHoursError,
  ingestTokenBody,
  InvalidParameterError,
  readWebhookFields,
  webhookEndpointBody,
  webhookEntityTag,
  type FleetHours,
  type SendWebhookEvent,
  type WebhookAttempt,
  type WebhookEndpoint,
} from '@fleet-hours/core';
import type { Context, Handler } from 'hono';
import type { FleetHoursEnv } from '../app-env.js';
import { jsonResponse } from '../respond/json-response.js';
import { accountId } from './account-id.js';
import { changeOrigin } from './change-origin.js';
import { readJsonBody } from './device-writes.js';
import { parseDeviceId } from './parse-device-id.js';
import { listRoute, pagedList, wholeList } from './list-route.js';

/**
 * The routes of webhook endpoints and ingest tokens (D24, D41, D52, P80–P83): each reads the
 * request, asks core's `manage` and answers; every check is core's. A webhook endpoint or a token
 * of another account is 404 exactly as a missing one (D11).
 */

/** What the routes of this file are given by the app. */
export interface WebhookRouteOptions {
  readonly fleetHours: FleetHours;
  /** The app's clock, epoch milliseconds. */
  readonly now: () => number;
  /** Sends one event of the outbox now (P83): the app's `sendWebhookEvent`; absent, a test is 503. */
  readonly sendWebhookEvent?: SendWebhookEvent | undefined;
}

type _Route = (options: WebhookRouteOptions) => Handler<FleetHoursEnv>;

const _seconds = (options: WebhookRouteOptions) => Math.floor(options.now() / 1000);

function _notFound(what: 'webhook endpoint' | 'ingest token' | 'event'): FleetHoursError {
  return new FleetHoursError('not_found', { message: `No such ${what} on this account` });
}

/** The endpoint id of the path; `null` for a text no endpoint has (then 404, as a missing one). */
const _id = (c: Context<FleetHoursEnv>) => parseDeviceId(c.req.param('id') ?? '');

const _endpointAnswer = (c: Context<FleetHoursEnv>, endpoint: WebhookEndpoint, now: number, status: 200 | 201 = 200, extra = {}) =>
  jsonResponse(c, { ...webhookEndpointBody(endpoint, now), ...extra }, status, {
    ETag: webhookEntityTag(endpoint),
    ...(status === 201 ? { Location: `${c.req.path.replace(/\/$/, '')}/${endpoint.id}` } : {}),
  });

/** `GET /api/v1/webhooks`: the account's endpoints, by id, without secrets. */
export const listWebhooksRoute: _Route = (options) =>
  listRoute('listWebhooks', options.now, async function listWebhooks(c) {
    const now = _seconds(options);
    const endpoints = await options.fleetHours.manage.listWebhookEndpoints({ accountId: accountId(c) });
    return wholeList({ data: endpoints.map((endpoint) => webhookEndpointBody(endpoint, now)) });
  });

/** `POST /api/v1/webhooks`: a new endpoint, 201, with its `secret` this once (D41). */
export const createWebhookRoute: _Route = (options) =>
  async function createWebhook(c) {
    const fields = await readJsonBody(c);
    const created = await options.fleetHours.manage.createWebhookEndpoint({ accountId: accountId(c), fields, origin: changeOrigin(c) });
    if (!created) throw new FleetHoursError('internal_error', { message: 'The account of an admitted key is gone' });
    return _endpointAnswer(c, created.endpoint, _seconds(options), 201, { secret: created.secret });
  };

/** `GET /api/v1/webhooks/{id}`: one endpoint, with its `ETag` (D54). */
export const getWebhookRoute: _Route = (options) =>
  async function getWebhook(c) {
    const endpointId = _id(c);
    const endpoint =
      endpointId === null ? null : await options.fleetHours.manage.findWebhookEndpoint({ accountId: accountId(c), endpointId });
    if (!endpoint) throw _notFound('webhook endpoint');
    return _endpointAnswer(c, endpoint, _seconds(options));
  };

/** `PATCH /api/v1/webhooks/{id}`: changes `url`, `event_types`, `enabled`, `description`; `If-Match` (D54). */
export const updateWebhookRoute: _Route = (options) =>
  async function updateWebhook(c) {
    const endpointId = _id(c);
    const fields = await readJsonBody(c);
    // The fields are checked first whatever the id: an endpoint that is not there is the last check (P71).
    if (endpointId === null) readWebhookFields(fields, 'update');
    const updated =
      endpointId === null
        ? null
        : await options.fleetHours.manage.updateWebhookEndpoint({
            accountId: accountId(c),
            endpointId,
            fields,
            ifMatch: c.req.header('If-Match'),
            origin: changeOrigin(c),
          });
    if (!updated) throw _notFound('webhook endpoint');
    return _endpointAnswer(c, updated, _seconds(options));
  };

/** `DELETE /api/v1/webhooks/{id}`: 204; `If-Match` (D54). */
export const deleteWebhookRoute: _Route = (options) =>
  async function deleteWebhook(c) {
    const endpointId = _id(c);
    const removed =
      endpointId === null
        ? null
        : await options.fleetHours.manage.removeWebhookEndpoint({
            accountId: accountId(c),
            endpointId,
            ifMatch: c.req.header('If-Match'),
            origin: changeOrigin(c),
          });
    if (!removed) throw _notFound('webhook endpoint');
    return c.body(null, 204);
  };

/** `POST /api/v1/webhooks/{id}/rotate`: the endpoint with its new `secret`, shown this once; both sign for 24 h (D41). */
export const rotateWebhookSecretRoute: _Route = (options) =>
  async function rotateWebhookSecret(c) {
    const endpointId = _id(c);
    const rotated =
      endpointId === null
        ? null
        : await options.fleetHours.manage.rotateWebhookSecret({ accountId: accountId(c), endpointId, origin: changeOrigin(c) });
    if (!rotated) throw _notFound('webhook endpoint');
    return _endpointAnswer(c, rotated.endpoint, _seconds(options), 200, { secret: rotated.secret });
  };

/**
 * `POST /api/v1/webhooks/{id}/test`: sends a `webhook.test` event now, 200 with the attempt (P83).
 * Without a sender (the app was created without `sendWebhookEvent`), 503 saying so.
 */
export const testWebhookRoute: _Route = (options) =>
  async function testWebhook(c) {
    const endpointId = _id(c);
    const send = options.sendWebhookEvent;
    if (!send)
      throw new FleetHoursError('service_unavailable', {
        message: 'This server does not send webhooks: it was started without a webhook sender, so a test cannot be sent',
      });
    const tested =
      endpointId === null
        ? null
        : await options.fleetHours.manage.testWebhookEndpoint({ accountId: accountId(c), endpointId, origin: changeOrigin(c), send });
    if (!tested) throw _notFound('webhook endpoint');
    const { attempt } = tested;
    return jsonResponse(c, {
      event_id: tested.eventId,
      endpoint_id: tested.endpoint.id,
      // Not sent now (the sender had no slot): the servers send it later; the attempt shows in the deliveries.
      sent: attempt !== null,
      status: attempt?.status ?? null,
      duration_ms: attempt?.durationMs ?? null,
      error: attempt?.error ?? null,
      delivered: attempt !== null && attempt.status !== null && attempt.status >= 200 && attempt.status < 300,
    });
  };

/** An attempt in the API's shape. */
export function webhookAttemptBody(attempt: WebhookAttempt) {
  return {
    id: attempt.id,
    event_id: attempt.eventId,
    event_type: attempt.eventType,
    attempted_at: new Date(attempt.attemptedAt * 1000).toISOString().replace('.000Z', 'Z'),
    status: attempt.status,
    duration_ms: attempt.durationMs,
    error: attempt.error,
  };
}

/** `GET /api/v1/webhooks/{id}/deliveries?limit=&cursor=&failed=`: attempts, newest first, a page at a time (P82). */
export const listWebhookDeliveriesRoute: _Route = (options) =>
  listRoute('listWebhookDeliveries', options.now, async function listWebhookDeliveries(c) {
    const endpointId = _id(c);
    const query = routeQuery(c, ['limit', 'cursor', 'failed']);
    const limit = query.limit === undefined ? undefined : wholeQueryNumber(query.limit, 'limit');
    if (query.failed !== undefined && query.failed !== 'true' && query.failed !== 'false')
      throw new InvalidParameterError('failed', 'Parameter failed must be true or false');
    return pagedList(async (cursor) => {
      const page =
        endpointId === null
          ? null
          : await options.fleetHours.manage.listWebhookDeliveries({
              accountId: accountId(c),
              endpointId,
              limit,
              failedOnly: query.failed === 'true',
              cursor,
            });
      if (!page) throw _notFound('webhook endpoint');
      return { body: { data: page.data.map(webhookAttemptBody), next_cursor: page.nextCursor }, nextCursor: page.nextCursor };
    }, query.cursor);
  });

/** `POST /api/v1/events/{event_id}/replay`: the event's deliveries pending again, sent under the same id (D41), 202. */
export const replayEventRoute: _Route = (options) =>
  async function replayEvent(c) {
    const eventId = c.req.param('event_id') ?? '';
    const deliveries = await options.fleetHours.manage.replayWebhookEvent({ accountId: accountId(c), eventId, origin: changeOrigin(c) });
    if (!deliveries) throw _notFound('event');
    return jsonResponse(
      c,
      {
        event_id: eventId,
        deliveries: deliveries.map((delivery) => ({ id: delivery.id, endpoint_id: delivery.endpointId, state: delivery.state })),
      },
      202,
    );
  };

/** `GET /api/v1/ingest-tokens`: the account's tokens, the start of their fingerprints only (P80). */
export const listIngestTokensRoute: _Route = (options) =>
  listRoute('listIngestTokens', options.now, async function listIngestTokens(c) {
    const now = _seconds(options);
    const tokens = await options.fleetHours.manage.listIngestTokens({ accountId: accountId(c) });
    return wholeList({ data: tokens.map((token) => ingestTokenBody(token, now)) });
  });

/** `POST /api/v1/ingest-tokens`: a new token, 201, the `token` this once (D24). */
export const createIngestTokenRoute: _Route = (options) =>
  async function createIngestToken(c) {
    const fields = await readJsonBody(c);
    const created = await options.fleetHours.manage.createIngestToken({ accountId: accountId(c), fields, origin: changeOrigin(c) });
    if (!created) throw new FleetHoursError('internal_error', { message: 'The account of an admitted key is gone' });
    const body = ingestTokenBody(created.record, _seconds(options));
    return jsonResponse(c, { ...body, token: created.token }, 201, {
      // D54 (P100): the version, as the token's later DELETE compares it.
      ETag: `"${body.version}"`,
      Location: `${c.req.path.replace(/\/$/, '')}/${created.record.id}`,
    });
  };

/** `DELETE /api/v1/ingest-tokens/{id}`: revokes the token, 204 (again: 204, it stays revoked, D24); `If-Match` (D54, P100). */
export const revokeIngestTokenRoute: _Route = (options) =>
  async function revokeIngestToken(c) {
    const tokenId = _id(c);
    const revoked =
      tokenId === null
        ? null
        : await options.fleetHours.manage.revokeIngestToken({
            accountId: accountId(c),
            tokenId,
            ifMatch: c.req.header('If-Match'),
            origin: changeOrigin(c),
          });
    if (!revoked) throw _notFound('ingest token');
    return c.body(null, 204);
  };

/** The query's parameters, each once; an unknown one or a repeat is 400 `invalid_parameter`. */
export function routeQuery(c: Context<FleetHoursEnv>, known: readonly string[]): Record<string, string | undefined> {
  const all = c.req.queries();
  const query: Record<string, string | undefined> = {};
  for (const [name, values] of Object.entries(all)) {
    if (!known.includes(name))
      throw new InvalidParameterError(name, `Unknown parameter "${name.slice(0, 40)}": this route takes ${known.join(', ')}`);
    if (values.length > 1) throw new InvalidParameterError(name, `Parameter ${name} is given more than once`);
    query[name] = values[0];
  }
  return query;
}

export function wholeQueryNumber(text: string, name: string): number {
  if (!/^[0-9]{1,7}$/.test(text)) throw new InvalidParameterError(name, `Parameter ${name} must be a whole number`);
  return Number(text);
}
