import { randomUUID } from 'node:crypto';
import {
  DEFAULT_RETRY_SCHEDULE_SECONDS,
  type AttemptReport,
  type ClaimedDelivery,
  type FleetHoursStore,
  type WebhookDelivery,
} from '@fleet-hours/core';
import { sendWebhook } from './send-webhook.js';

/** Options of {@link startWebhookSender}. */
export interface WebhookSenderOptions {
  readonly store: FleetHoursStore;
  /** The clock, epoch milliseconds. Default `Date.now`. */
  readonly now?: () => number;
  /** Delays between attempts, seconds (D41). Default 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
  readonly retrySchedule?: readonly number[];
  /** How long a request may take, ms (D41). Default 15 000. */
  readonly timeoutMs?: number;
  /** Let requests reach loopback and private addresses. Default `false`. */
  readonly allowPrivateAddresses?: boolean;
  /** Deliveries sent at the same time. Default 32. */
  readonly concurrency?: number;
  /** How often to look for due deliveries when there were none, ms. Default 1000. */
  readonly pollIntervalMs?: number;
  /** Look for due deliveries by itself. Default `true`; `false`: only `runOnce()` sends (a command that sends one event now). */
  readonly poll?: boolean;
  /** Receives one entry per attempt (the delivery log). */
  readonly onAttempt?: (entry: WebhookAttemptEntry) => void;
  /** Receives a failure of the store (the sender keeps going). */
  readonly onError?: (error: unknown) => void;
}

/** One attempt, as the sender reports it to its log and metrics. */
export interface WebhookAttemptEntry {
  readonly eventId: string;
  readonly eventType: string;
  readonly endpointId: number;
  readonly attempt: AttemptReport;
  /** The delivery after the attempt (`delivered`, `pending`: retried later, `failed`). */
  readonly delivery: WebhookDelivery | null;
  /** Seconds from the event being raised to this attempt. */
  readonly ageSeconds: number;
}

/** A running sender. */
export interface WebhookSender {
  /** Claims and sends what is due now (only that event's deliveries with `eventId`), once; resolves with the attempts made. */
  runOnce(eventId?: string): Promise<readonly WebhookAttemptEntry[]>;
  /** Stops claiming, finishes the requests under way, releases anything still claimed. */
  close(): Promise<void>;
}

/**
 * Delivers the outbox (D41): claims due deliveries (a lease longer than the timeout, so no other
 * sender takes them meanwhile), sends each signed per Standard Webhooks, records every attempt
 * with the retry schedule, and looks again — at once while there is more to send, else after
 * `pollIntervalMs`. Any number of senders, in any number of processes, share one database.
 *
 * @param options The store and the delivery settings.
 * @returns The sender, already running.
 * @example
 * ```ts
 * import { createMemoryStore } from '@fleet-hours/core';
 * import { startWebhookSender } from '@fleet-hours/server';
 * const sender = startWebhookSender({ store: createMemoryStore(), pollIntervalMs: 50 });
 * await sender.close();
 * ```
 */
export function startWebhookSender(options: WebhookSenderOptions): WebhookSender {
  const now = options.now ?? Date.now;
  const claimant = `sender-${randomUUID()}`;
  const timeoutMs = options.timeoutMs ?? 15_000;
  const concurrency = options.concurrency ?? 32;
  const retrySchedule = options.retrySchedule ?? DEFAULT_RETRY_SCHEDULE_SECONDS;
  const send = { timeoutMs, allowPrivateAddresses: options.allowPrivateAddresses ?? false };
  // The lease outlives the request and its report, so a delivery is never sent by two senders at once.
  const leaseSeconds = Math.ceil(timeoutMs / 1000) + 60;
  let stopping = false;
  let wake: (() => void) | null = null;

  const deliver = async (claimed: ClaimedDelivery) => {
    const attemptedAt = Math.floor(now() / 1000);
    const attempt = await sendWebhook(claimed, attemptedAt, send);
    const delivery = await options.store.recordWebhookAttempt({ deliveryId: claimed.delivery.id, claimant, attempt, retrySchedule });
    const entry: WebhookAttemptEntry = {
      eventId: claimed.event.id,
      eventType: claimed.event.type,
      endpointId: claimed.endpoint.id,
      attempt,
      delivery,
      ageSeconds: attemptedAt - claimed.event.raisedAt,
    };
    options.onAttempt?.(entry);
    return entry;
  };
  const runOnce = async (eventId?: string) => {
    const claimed = await options.store.claimDeliveries({
      claimant,
      limit: concurrency,
      leaseSeconds,
      now: Math.floor(now() / 1000),
      ...(eventId === undefined ? {} : { eventId }),
    });
    const entries = await Promise.all(
      claimed.map((one) =>
        deliver(one).catch((error: unknown) => {
          options.onError?.(error);
          return null;
        }),
      ),
    );
    return entries.filter((entry) => entry !== null);
  };
  // Keeps up to `concurrency` requests under way: a freed slot is claimed again at once.
  const inFlight = new Set<Promise<unknown>>();
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  const loop = (async () => {
    while (!stopping && options.poll !== false) {
      let claimed: readonly ClaimedDelivery[] = [];
      try {
        const limit = concurrency - inFlight.size;
        if (limit > 0) claimed = await options.store.claimDeliveries({ claimant, limit, leaseSeconds, now: Math.floor(now() / 1000) });
      } catch (error) {
        options.onError?.(error);
      }
      for (const one of claimed) {
        const sending: Promise<unknown> = deliver(one)
          .catch((error: unknown) => options.onError?.(error))
          .finally(() => {
            inFlight.delete(sending);
            (wake as (() => void) | null)?.();
          });
        inFlight.add(sending);
      }
      if (stopping) break;
      // Nothing due, or every slot taken: wait for a slot to free or the next look.
      if (claimed.length === 0 || inFlight.size >= concurrency) await pause(options.pollIntervalMs ?? 1000);
      wake = null;
    }
    await Promise.all(inFlight);
  })();
  return {
    runOnce,
    async close() {
      stopping = true;
      (wake as (() => void) | null)?.();
      await loop;
      await options.store.releaseWebhookClaims({ claimant }).catch((error: unknown) => options.onError?.(error));
    },
  };
}
