import type { EpochSeconds } from '../types.js';
import type { EventType } from './decide-events.js';

/** The body of a webhook request (D40): `{ type, timestamp, data }`. */
export interface WebhookBody {
  readonly type: EventType;
  /** The instant the event was raised, UTC, e.g. `2026-11-25T15:00:00Z`. */
  readonly timestamp: string;
  readonly data: Readonly<Record<string, unknown>>;
}

/**
 * The JSON body of an event's webhook requests (D40). The outbox stores it when the event is
 * raised, so every attempt and every replay sends the same bytes.
 *
 * @param input The event's type, the instant it was raised and its data.
 * @returns The body as sent.
 * @example
 * ```ts
 * import { webhookBody } from '@fleet-hours/core';
 * webhookBody({ type: 'webhook.test', raisedAt: 1795618800, data: { endpoint_id: 4 } });
 * // '{"type":"webhook.test","timestamp":"2026-11-25T15:00:00Z","data":{"endpoint_id":4}}'
 * ```
 */
export function webhookBody(input: {
  readonly type: EventType;
  readonly raisedAt: EpochSeconds;
  readonly data: Readonly<Record<string, unknown>>;
}): string {
  const timestamp = new Date(input.raisedAt * 1000).toISOString().replace('.000Z', 'Z');
  const body: WebhookBody = { type: input.type, timestamp, data: input.data };
  return JSON.stringify(body);
}

/**
 * The headers of a webhook request per the Standard Webhooks specification (D41): the event id,
 * the attempt's timestamp in seconds and every signature (`v1,<base64>`, one per secret in use,
 * separated by spaces).
 *
 * @param input The event id, the attempt's instant and the signatures.
 * @returns The request's headers.
 * @example
 * ```ts
 * import { webhookHeaders } from '@fleet-hours/core';
 * webhookHeaders({ eventId: 'evt_1', attemptedAt: 1795627591, signatures: ['v1,a', 'v1,b'] })['webhook-signature']; // 'v1,a v1,b'
 * ```
 */
export function webhookHeaders(input: {
  readonly eventId: string;
  readonly attemptedAt: EpochSeconds;
  readonly signatures: readonly string[];
}): Record<string, string> {
  return {
    'content-type': 'application/json',
    'webhook-id': input.eventId,
    'webhook-timestamp': String(input.attemptedAt),
    'webhook-signature': input.signatures.join(' '),
  };
}

/** How long a rotated-out secret keeps signing (D41): 24 hours. */
export const SECRET_ROTATION_OVERLAP_SECONDS = 86_400;

/**
 * The secrets that sign a request at `now` (D41): the current one, and the previous one while its
 * 24 hours after a rotation last.
 *
 * @param endpoint The secrets and when the previous one stops signing.
 * @param now Epoch seconds.
 * @returns One or two secrets, the current first.
 * @example
 * ```ts
 * import { signingSecrets } from '@fleet-hours/core';
 * signingSecrets({ secret: 'whsec_new', previousSecret: 'whsec_old', previousSecretExpiresAt: 200 }, 100); // ['whsec_new', 'whsec_old']
 * ```
 */
export function signingSecrets(
  endpoint: { readonly secret: string; readonly previousSecret: string | null; readonly previousSecretExpiresAt: EpochSeconds | null },
  now: EpochSeconds,
): string[] {
  const { previousSecret, previousSecretExpiresAt } = endpoint;
  if (previousSecret === null || previousSecretExpiresAt === null || now >= previousSecretExpiresAt) return [endpoint.secret];
  return [endpoint.secret, previousSecret];
}
