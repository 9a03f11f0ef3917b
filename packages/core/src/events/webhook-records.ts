import type { EpochSeconds } from '../types.js';
import type { EventType } from './decide-events.js';
import type { EndpointDisabledReason } from './retry-schedule.js';

/**
 * A webhook endpoint of an account (D41). The store keeps its secrets to sign with; the operator
 * sees a secret once, when it is made (`webhooks create`, `webhooks rotate`), never again.
 */
export interface WebhookEndpoint {
  readonly id: number;
  readonly accountId: number;
  readonly url: string;
  /** The event types it wants, in the contract's order. */
  readonly eventTypes: readonly EventType[];
  /** What it is for, for people (at most 200 characters, no control characters), or `null`. */
  readonly description: string | null;
  /** `whsec_…`: signs every request. */
  readonly secret: string;
  /** The secret before the last rotation: signs too until `previousSecretExpiresAt` (24 h). */
  readonly previousSecret: string | null;
  readonly previousSecretExpiresAt: EpochSeconds | null;
  readonly enabled: boolean;
  /** Why it is disabled (`gone`: a 410; `failing`: five days without a success; `operator`), else `null`. */
  readonly disabledReason: EndpointDisabledReason | null;
  readonly disabledAt: EpochSeconds | null;
  /** The first failed attempt since the last success, `null` while it succeeds. */
  readonly failingSince: EpochSeconds | null;
  readonly createdAt: EpochSeconds;
}

/** What an endpoint is created with (D41). */
export interface NewWebhookEndpoint {
  readonly accountId: number;
  readonly url: string;
  readonly eventTypes: readonly EventType[];
  /** Left out: `null`. */
  readonly description?: string | null;
  readonly secret: string;
}

/** What an operator may change on an endpoint; `enabled: true` clears the reason and the failing streak. */
export interface WebhookEndpointChanges {
  readonly url?: string;
  readonly eventTypes?: readonly EventType[];
  /** `null` clears it. */
  readonly description?: string | null;
  readonly enabled?: boolean;
}

/** An event in the outbox (D40): its body is fixed when it is raised, so every attempt sends the same bytes. */
export interface WebhookEvent {
  /** Stable (D40): `webhook-id` of every request, retry and replay. */
  readonly id: string;
  readonly accountId: number;
  readonly type: EventType;
  /** The device it is about (`null` for `webhook.test`). */
  readonly deviceId: number | null;
  /** The JSON body as sent (`webhookBody`). */
  readonly body: string;
  readonly raisedAt: EpochSeconds;
}

/**
 * An event to put in the outbox; `endpointId` sends it to that endpoint only (`webhook.test`);
 * `cause` is the decision's (`RaisedEvent.cause`): for a silence event, the report it follows.
 */
export interface NewWebhookEvent extends WebhookEvent {
  readonly endpointId?: number;
  readonly cause?: EpochSeconds;
}

/** Where the delivery of one event to one endpoint stands. */
export type WebhookDeliveryState = 'pending' | 'delivered' | 'failed';

/** The delivery of one event to one endpoint (D41). */
export interface WebhookDelivery {
  readonly id: number;
  readonly eventId: string;
  readonly endpointId: number;
  readonly state: WebhookDeliveryState;
  /** Attempts made since it was created or last replayed. */
  readonly attempts: number;
  /** When it is due (pending), else `null`. */
  readonly nextAttemptAt: EpochSeconds | null;
  readonly createdAt: EpochSeconds;
}

/** One attempt to deliver an event (D41): what the endpoint answered, how long it took, what failed. */
export interface WebhookAttempt {
  readonly id: number;
  readonly deliveryId: number;
  readonly eventId: string;
  readonly eventType: EventType;
  readonly endpointId: number;
  readonly attemptedAt: EpochSeconds;
  /** The HTTP status, or `null` when no answer came (timeout, refused connection, refused address). */
  readonly status: number | null;
  readonly durationMs: number;
  /** What failed, for people (never a secret), or `null` for a 2xx. */
  readonly error: string | null;
}

/** A delivery claimed by one sender, with what it needs to send it. */
export interface ClaimedDelivery {
  readonly delivery: WebhookDelivery;
  readonly event: WebhookEvent;
  readonly endpoint: WebhookEndpoint;
}

/** What a sender reports of one attempt. */
export interface AttemptReport {
  readonly attemptedAt: EpochSeconds;
  readonly status: number | null;
  readonly durationMs: number;
  readonly error: string | null;
  /** The receiver's `Retry-After` in seconds (`parseRetryAfter`), or `null`. */
  readonly retryAfterSeconds: number | null;
  /**
   * When the attempt ended (its answer, its timeout or its failure), epoch seconds rounded up: the
   * schedule's delay counts from it (D47). Left out: `attemptedAt` plus `durationMs` rounded up.
   */
  readonly finishedAt?: EpochSeconds;
}
