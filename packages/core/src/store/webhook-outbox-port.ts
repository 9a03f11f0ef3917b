import type { EpochSeconds } from '../types.js';
import type {
  AttemptReport,
  ClaimedDelivery,
  NewWebhookEndpoint,
  NewWebhookEvent,
  WebhookAttempt,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointChanges,
} from '../events/webhook-records.js';

/**
 * The part of the storage port for events and webhooks (D40, D41): endpoints, the durable outbox
 * of events, their deliveries and every attempt. Instants are epoch seconds, checked like every
 * other method's; ids that no store can hold are misses.
 */
export interface WebhookOutboxStore {
  /** MUST store a new endpoint, enabled, created at `now`; `null` when the account does not exist. */
  createWebhookEndpoint(input: NewWebhookEndpoint & { readonly now: EpochSeconds }): Promise<WebhookEndpoint | null>;

  /** MUST return the endpoint or `null`. */
  findWebhookEndpoint(input: { readonly endpointId: number }): Promise<WebhookEndpoint | null>;

  /** MUST return the account's endpoints by id. */
  listWebhookEndpoints(input: { readonly accountId: number }): Promise<readonly WebhookEndpoint[]>;

  /**
   * MUST apply the changes and return the endpoint, or `null` when there is none. `enabled: true`
   * clears `disabledReason`, `disabledAt` and `failingSince`; `enabled: false` disables it with the
   * reason `operator` at `now` (an endpoint already disabled keeps its reason). With `expected`
   * (D54, P81), it MUST apply them only if the endpoint still has the URL, event types, `enabled`,
   * description and secret of `expected`, in the same statement or transaction, and return `null` otherwise.
   */
  updateWebhookEndpoint(input: {
    readonly endpointId: number;
    readonly changes: WebhookEndpointChanges;
    readonly now: EpochSeconds;
    readonly expected?: WebhookEndpoint;
  }): Promise<WebhookEndpoint | null>;

  /**
   * MUST make `secret` the endpoint's secret and keep the one it replaces as `previousSecret` until
   * `now + overlapSeconds` (D41: 24 h); `null` when there is no such endpoint.
   */
  rotateWebhookSecret(input: {
    readonly endpointId: number;
    readonly secret: string;
    readonly overlapSeconds: number;
    readonly now: EpochSeconds;
  }): Promise<WebhookEndpoint | null>;

  /**
   * MUST delete the endpoint with its deliveries and attempts and return it; `null` when there is
   * none. With `expected` (D54, P81), only if it still has the URL, event types, `enabled`,
   * description and secret of `expected` (else `null`, nothing deleted).
   */
  removeWebhookEndpoint(input: { readonly endpointId: number; readonly expected?: WebhookEndpoint }): Promise<WebhookEndpoint | null>;

  /**
   * MUST put each event in the outbox once by id (D40: an id already stored is left as it is) and,
   * for each event it stores, a delivery due at `now` to every enabled endpoint of the event's
   * account that wants its type — or, with `endpointId`, to that endpoint only, if it is the
   * account's. Atomic: all or nothing.
   *
   * @returns The ids of the events it stored (not those already there).
   */
  raiseEvents(input: { readonly events: readonly NewWebhookEvent[]; readonly now: EpochSeconds }): Promise<readonly string[]>;

  /**
   * MUST claim up to `limit` pending deliveries due at `now` of enabled endpoints, oldest due
   * first, that no unexpired claim holds, for `claimant` until `now + leaseSeconds`, and return
   * them. Two concurrent calls never claim one delivery (D41: one event is never sent by two
   * senders at once); a claim that expires (its sender died) is claimed again. With `eventId`, only
   * that event's deliveries (a command that sends one event now). With `perEndpoint` (D47: an
   * endpoint's share of a sender), it MUST NOT claim more of one endpoint's deliveries than
   * `perEndpoint` less what `held` says the claimant is already sending to it, and it MUST skip the
   * endpoints at their share, so that the due deliveries of the other endpoints are claimed: a
   * claim returns none only when no endpoint under its share has a due delivery no one holds.
   */
  claimDeliveries(input: {
    readonly claimant: string;
    readonly eventId?: string;
    readonly limit: number;
    readonly leaseSeconds: number;
    readonly now: EpochSeconds;
    readonly perEndpoint?: number;
    readonly held?: readonly { readonly endpointId: number; readonly requests: number }[];
  }): Promise<readonly ClaimedDelivery[]>;

  /**
   * MUST record the attempt and release the claim. A 2xx marks the delivery `delivered`; any other
   * outcome schedules the next attempt by `nextAttemptAt` over `retrySchedule` (`failed` when it is
   * spent, or at once on a 410); the endpoint's failing streak and disabling follow
   * `endpointAfterAttempt` (D41). Only the claimant's claim is changed: an attempt reported after
   * the claim expired is recorded, and changes nothing else. `null` when there is no such delivery.
   */
  recordWebhookAttempt(input: {
    readonly deliveryId: number;
    readonly claimant: string;
    readonly attempt: AttemptReport;
    readonly retrySchedule: readonly number[];
  }): Promise<WebhookDelivery | null>;

  /**
   * MUST record several attempts of `claimant` as `recordWebhookAttempt` would, one after the
   * other in the order given (D41: every attempt recorded), and return, for each, the delivery
   * after it (`null`: no such delivery). A store may do it in fewer statements (a sender reports
   * the requests that finished together); when it throws, nothing of the batch is recorded.
   */
  recordWebhookAttempts(input: {
    readonly claimant: string;
    readonly reports: readonly { readonly deliveryId: number; readonly attempt: AttemptReport }[];
    readonly retrySchedule: readonly number[];
  }): Promise<readonly (WebhookDelivery | null)[]>;

  /** MUST release every claim of `claimant` (a sender that stops without sending what it claimed). */
  releaseWebhookClaims(input: { readonly claimant: string }): Promise<void>;

  /**
   * MUST return the endpoint's attempts, newest first (by instant, then id), at most `limit`;
   * with `failedOnly`, only attempts of deliveries that have failed; with `before` (P82: a page
   * after another), only attempts older than it in that order.
   */
  listWebhookAttempts(input: {
    readonly endpointId: number;
    readonly failedOnly?: boolean;
    readonly limit: number;
    readonly before?: { readonly attemptedAt: EpochSeconds; readonly id: number };
  }): Promise<readonly WebhookAttempt[]>;

  /**
   * MUST make every delivery of the event pending again, due at `now`, its attempts counted from 0
   * (D41: a replay sends the same id); `null` when there is no such event — with `accountId`, also
   * when the event is another account's (P80, nothing replayed) — else its deliveries.
   */
  replayWebhookEvent(input: {
    readonly eventId: string;
    readonly now: EpochSeconds;
    readonly accountId?: number;
  }): Promise<readonly WebhookDelivery[] | null>;

  /**
   * MUST return, for each of the devices, the open silence (D40): the `cause` of a `device.silent`
   * event of the device with no `device.reporting` event of the same device and cause; by device id.
   */
  listOpenSilences(input: {
    readonly deviceIds: readonly number[];
  }): Promise<readonly { readonly deviceId: number; readonly since: EpochSeconds }[]>;

  /** MUST return the number of pending deliveries and the instant the oldest one's event was raised (`null`: none). */
  webhookBacklog(): Promise<{ readonly pending: number; readonly oldestRaisedAt: EpochSeconds | null }>;

  /**
   * MUST set the account's quiet time after which an active device is silent (D40); `null` when
   * the account does not exist.
   */
  setSilentAfter(input: { readonly accountId: number; readonly silentAfterSeconds: number }): Promise<number | null>;

  /** MUST return the account's quiet time (default `DEFAULT_SILENT_AFTER_SECONDS`), or `null` when the account does not exist. */
  findSilentAfter(input: { readonly accountId: number }): Promise<number | null>;
}
