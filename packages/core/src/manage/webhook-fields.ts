import { FleetHoursError, InvalidFieldError, InvalidParameterError } from '../errors/errors.js';
import type { EventType } from '../events/decide-events.js';
import { checkWebhookEventTypes, checkWebhookUrl } from '../events/webhook-endpoint.js';
import { webhookBody } from '../events/webhook-message.js';
import type { NewWebhookEvent, WebhookEndpoint, WebhookEndpointChanges } from '../events/webhook-records.js';
import type { EpochSeconds } from '../types.js';
import { entityVersion } from './entity-tag.js';
import { readOptionalText } from './optional-text.js';

/**
 * A webhook endpoint as the API reads and shows it (D41, P80): the fields of a write by their names
 * in the body, the answer's shape, the entity tag (D54), and the `webhook.test` event.
 */

/** The fields of an endpoint a write gives, by their names in the API's body (P80). */
export const WEBHOOK_FIELDS = ['url', 'event_types', 'enabled', 'description'] as const;

/** The longest description of an endpoint, in characters. */
export const WEBHOOK_DESCRIPTION_MAX = 200;

/** The fields a new endpoint may be given: it is created enabled (P80). */
const _CREATE_FIELDS: readonly string[] = ['url', 'event_types', 'description'];

/**
 * Checks the fields of an endpoint write (P80): a JSON object of {@link WEBHOOK_FIELDS}; `url`
 * needed to create, an https URL (http only for a loopback host, D41); `event_types` an array of
 * subscribable types (absent or empty: every type); `enabled` a boolean, only on a change (a new
 * endpoint is enabled); `description` a text checked as a name (D50), at most
 * {@link WEBHOOK_DESCRIPTION_MAX} characters (`null` or empty: none). A change needs at least one field.
 *
 * @param input The body, as parsed from JSON.
 * @param mode `create` or `update`.
 * @returns The checked changes.
 * @throws {InvalidFieldError} Naming the first field that cannot be used, unknown fields included.
 * @throws {FleetHoursError} `invalid_body` when the input is not an object, or a change without fields.
 * @example
 * ```ts
 * import { readWebhookFields } from '@fleet-hours/core';
 * readWebhookFields({ url: 'https://ops.example.com/hooks', event_types: ['device.silent'] }, 'create');
 * // { url: 'https://ops.example.com/hooks', eventTypes: ['device.silent'] }
 * ```
 */
export function readWebhookFields(input: unknown, mode: 'create' | 'update'): WebhookEndpointChanges {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw new FleetHoursError('invalid_body', { message: 'The body must be a JSON object with the fields of a webhook endpoint' });
  const given = input as Readonly<Record<string, unknown>>;
  const allowed = mode === 'create' ? _CREATE_FIELDS : WEBHOOK_FIELDS;
  for (const field of Object.keys(given)) {
    if (!allowed.includes(field)) {
      const why =
        field === 'enabled' ? 'a new endpoint is enabled: disable it with a change' : `a webhook endpoint has ${allowed.join(', ')}`;
      throw new InvalidFieldError(field, `Unknown field "${field.slice(0, 40)}": ${why}`);
    }
  }
  if (mode === 'create' && given.url === undefined) throw new InvalidFieldError('url', 'url is required');
  if (mode === 'update' && Object.keys(given).length === 0)
    throw new FleetHoursError('invalid_body', { message: `Nothing to change: give at least one of ${WEBHOOK_FIELDS.join(', ')}` });
  const changes: { url?: string; eventTypes?: EventType[]; description?: string | null; enabled?: boolean } = {};
  if (given.url !== undefined) changes.url = _url(given.url);
  if (given.event_types !== undefined || mode === 'create') changes.eventTypes = _eventTypes(given.event_types);
  if (given.description !== undefined) changes.description = readOptionalText('description', given.description, WEBHOOK_DESCRIPTION_MAX);
  if (given.enabled !== undefined) {
    if (typeof given.enabled !== 'boolean') throw new InvalidFieldError('enabled', 'enabled must be true or false');
    changes.enabled = given.enabled;
  }
  return changes;
}

function _url(value: unknown): string {
  if (typeof value !== 'string') throw new InvalidFieldError('url', 'url must be a string: an absolute https URL');
  try {
    return checkWebhookUrl(value);
  } catch (error) {
    if (error instanceof InvalidParameterError) throw new InvalidFieldError('url', error.message);
    throw error;
  }
}

function _eventTypes(value: unknown): EventType[] {
  if (value !== undefined && (!Array.isArray(value) || !value.every((type) => typeof type === 'string')))
    throw new InvalidFieldError('event_types', 'event_types must be an array of event types, e.g. ["device.silent"]');
  try {
    return checkWebhookEventTypes(value as string[] | undefined);
  } catch (error) {
    if (error instanceof InvalidParameterError) throw new InvalidFieldError('event_types', error.message.replace(/^events/, 'event_types'));
    throw error;
  }
}

/** An endpoint as the API shows it: never its secrets (D41: a secret is shown once, when it is made). */
export type WebhookEndpointBody = {
  readonly id: number;
  readonly url: string;
  readonly event_types: readonly EventType[];
  readonly enabled: boolean;
  /** What it is for, for people; `null`: none. */
  readonly description: string | null;
  /** Why it is disabled: `operator`, `gone` (a 410), `failing` (D41); `null` while enabled. */
  readonly disabled_reason: string | null;
  readonly disabled_at: string | null;
  readonly failing_since: string | null;
  /** While a rotation's 24 hours last, when the previous secret stops signing; else `null`. */
  readonly previous_secret_expires_at: string | null;
  readonly created_at: string;
  /** D54 (P81): its `ETag` without the quotes. */
  readonly version: string;
};

/**
 * An endpoint in the API's shape (P80): snake_case, instants in UTC ISO 8601, no secret.
 *
 * @param endpoint The endpoint.
 * @param now Now, epoch seconds: a rotation's end that has passed is shown as `null`.
 */
export function webhookEndpointBody(endpoint: WebhookEndpoint, now: EpochSeconds): WebhookEndpointBody {
  const rotating = endpoint.previousSecretExpiresAt !== null && endpoint.previousSecretExpiresAt > now;
  return {
    id: endpoint.id,
    url: endpoint.url,
    event_types: endpoint.eventTypes,
    enabled: endpoint.enabled,
    description: endpoint.description,
    disabled_reason: endpoint.disabledReason,
    disabled_at: _iso(endpoint.disabledAt),
    failing_since: _iso(endpoint.failingSince),
    previous_secret_expires_at: rotating ? _iso(endpoint.previousSecretExpiresAt) : null,
    created_at: _iso(endpoint.createdAt)!,
    version: webhookVersion(endpoint),
  };
}

/**
 * The entity tag of an endpoint (D54, P81): over its URL, event types, `enabled`, description and
 * the end of its last rotation, so that a change, a rotation or the sender disabling it all give a new tag, and a
 * delivery does not. The secret itself is not hashed into a header.
 *
 * @example
 * ```ts
 * import { webhookEntityTag } from '@fleet-hours/core';
 * webhookEntityTag({ url: 'https://a.example/', eventTypes: [], enabled: true, description: null, previousSecretExpiresAt: null }).length; // 20
 * ```
 */
export function webhookEntityTag(
  endpoint: Pick<WebhookEndpoint, 'url' | 'eventTypes' | 'enabled' | 'description' | 'previousSecretExpiresAt'>,
): string {
  return `"${webhookVersion(endpoint)}"`;
}

/** The version of an endpoint (D54, P81): its entity tag unquoted, `w-0123456789abcdef`. */
export function webhookVersion(
  endpoint: Pick<WebhookEndpoint, 'url' | 'eventTypes' | 'enabled' | 'description' | 'previousSecretExpiresAt'>,
): string {
  // The description is hashed last, and only when there is one: an endpoint without one keeps the version it had before descriptions.
  const values: unknown[] = [endpoint.url, endpoint.eventTypes, endpoint.enabled, endpoint.previousSecretExpiresAt];
  return entityVersion('w', endpoint.description === null ? values : [...values, endpoint.description]);
}

/** An event id as the outbox names events (D40): `evt_` and up to 200 characters. */
export const EVENT_ID_PATTERN = /^evt_[A-Za-z0-9_.]{1,200}$/;

/**
 * A `webhook.test` event for one endpoint (D41), under a new id.
 *
 * @param input The endpoint and its account, now (epoch seconds) and a random hex text for the id.
 * @returns The event to put in the outbox, for that endpoint alone.
 */
export function webhookTestEvent(input: {
  readonly endpointId: number;
  readonly accountId: number;
  readonly now: EpochSeconds;
  readonly id: string;
}): NewWebhookEvent {
  return {
    id: `evt_test_e${input.endpointId}_${input.id}`,
    accountId: input.accountId,
    type: 'webhook.test',
    deviceId: null,
    body: webhookBody({ type: 'webhook.test', raisedAt: input.now, data: { endpoint_id: input.endpointId } }),
    raisedAt: input.now,
    endpointId: input.endpointId,
  };
}

const _iso = (seconds: number | null) => (seconds === null ? null : new Date(seconds * 1000).toISOString().replace('.000Z', 'Z'));
