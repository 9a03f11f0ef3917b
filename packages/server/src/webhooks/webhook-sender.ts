import { randomUUID } from 'node:crypto';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
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
  /** Requests sent to one endpoint at the same time (D47: its share of the sender). Default 4. */
  readonly perEndpoint?: number;
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
  /** Looks for due deliveries at once rather than at its next look (events were just raised in this process). */
  wake(): void;
  /** Stops claiming, finishes the requests under way, releases anything still claimed. */
  close(): Promise<void>;
}

/**
 * Delivers the outbox (D41): claims due deliveries (a lease longer than the timeout, so no other
 * sender takes them meanwhile), sends each signed per Standard Webhooks, records every attempt
 * with the retry schedule, and looks again — at once while there is more to send or a request has
 * ended, else after `pollIntervalMs`. One endpoint never has more than `perEndpoint` requests of
 * this sender under way (D47, P62): a hanging endpoint holds its share, the other slots go on to the
 * other endpoints. Any number of senders, in any number of processes, share one database.
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
  const concurrency = Math.max(1, options.concurrency ?? 32);
  const { deliverClaimed, agents } = _deliverer(options);
  let stopping = false;
  // Deliveries under way (sent, or waiting for their report): slots freed are claimed again while
  // the others are in flight, a quarter of them at a time, so the claims stay few and the pipeline
  // full (D41). A request that ends also looks again at once: its endpoint has room in its share.
  const inFlight = new Set<Promise<unknown>>();
  const refill = Math.max(1, Math.floor(concurrency / 4));
  const waits = { slot: null as (() => void) | null, idle: null as (() => void) | null };
  const flags = { woken: false, ended: false };
  const claimAndSend = deliverClaimed(() => {
    flags.ended = true;
    waits.idle?.();
  });
  const waitFor = (kind: 'slot' | 'idle', ms: number | null) =>
    new Promise<void>((resolve) => {
      const timer = ms === null ? undefined : setTimeout(resolve, ms);
      waits[kind] = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  const runOnce = async (eventId?: string) => {
    const sending = await claimAndSend(concurrency, eventId);
    const entries = await Promise.all(
      sending.map((one) =>
        one.catch((error: unknown) => {
          options.onError?.(error);
          return null;
        }),
      ),
    );
    return entries.filter((entry) => entry !== null);
  };
  const loop = (async () => {
    while (!stopping && options.poll !== false) {
      const free = concurrency - inFlight.size;
      if (free < refill && inFlight.size > 0) {
        await waitFor('slot', null);
        waits.slot = null;
        continue;
      }
      let sending: readonly Promise<unknown>[] = [];
      let failed = false;
      flags.woken = false;
      flags.ended = false;
      try {
        sending = await claimAndSend(free);
      } catch (error) {
        failed = true;
        options.onError?.(error);
      }
      for (const one of sending) {
        const tracked: Promise<unknown> = one
          .catch((error: unknown) => options.onError?.(error))
          .finally(() => {
            inFlight.delete(tracked);
            // A freed slot looks again at once, also when the last look found nothing.
            waits.slot?.();
            waits.idle?.();
          });
        inFlight.add(tracked);
      }
      if (stopping) break;
      // Nothing due (or the store failed): look again after the interval, when a slot frees or a request ends, or when woken.
      if ((failed || (sending.length === 0 && !flags.ended)) && !flags.woken) {
        await waitFor('idle', options.pollIntervalMs ?? 1000);
        waits.idle = null;
      }
    }
    await Promise.all(inFlight);
  })();
  return {
    runOnce,
    wake() {
      flags.woken = true;
      waits.idle?.();
    },
    async close() {
      stopping = true;
      waits.slot?.();
      waits.idle?.();
      await loop;
      await claimAndSend.drained();
      await options.store.releaseWebhookClaims({ claimant: claimAndSend.claimant }).catch((error: unknown) => options.onError?.(error));
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

/** How long a request may take by default, in milliseconds (`timeoutMs`). */
export const DEFAULT_SEND_TIMEOUT_MS = 15_000;

/**
 * Claims and sends (D41, D47, P62, P63): one claim at a time, each telling the store how many
 * requests this sender has under way to each endpoint, so that no endpoint gets more than its share;
 * every delivery claimed is sent at once (none waits in the sender while its lease runs), within
 * the timeout and never past 5 s before its lease ends, and reported with when it ended.
 */
function _deliverer(options: WebhookSenderOptions) {
  const now = options.now ?? Date.now;
  const claimant = `sender-${randomUUID()}`;
  const timeoutMs = options.timeoutMs ?? DEFAULT_SEND_TIMEOUT_MS;
  const perEndpoint = Math.max(1, options.perEndpoint ?? _PER_ENDPOINT);
  // Connections to the receivers are kept and reused (D41). An idle one is closed after 4 s, before
  // a receiver's own idle limit (5 s for Node's servers) would close it under a request; the
  // sockets are not capped here, the sender's concurrency caps the requests (none waits for a socket).
  const kept = { keepAlive: true, timeout: 4_000, scheduling: 'lifo' as const };
  const agents = { http: new HttpAgent(kept), https: new HttpsAgent(kept) };
  const send = { allowPrivateAddresses: options.allowPrivateAddresses ?? false, agents, now };
  // P63: the lease covers the request (its timeout at most) and 13 s for the claim and the report;
  // a sender that dies gives its deliveries back within the timeout and 13 s.
  const leaseSeconds = Math.ceil(timeoutMs / 1000) + _LEASE_MARGIN_SECONDS;
  const recorder = _attemptRecorder(options.store, claimant, options.retrySchedule ?? DEFAULT_RETRY_SCHEDULE_SECONDS, options.onError);
  const requests = new Map<number, number>();
  const count = (endpointId: number, step: 1 | -1) => {
    const left = (requests.get(endpointId) ?? 0) + step;
    if (left > 0) requests.set(endpointId, left);
    else requests.delete(endpointId);
  };

  const deliver = async (claimed: ClaimedDelivery, leaseEndsMs: number, onEnded: () => void): Promise<WebhookAttemptEntry | null> => {
    // A claim that came back too late to send within its lease is left to expire (another look takes it).
    const leftMs = leaseEndsMs - _REPORT_MARGIN_MS - now();
    if (leftMs < _SHORTEST_REQUEST_MS) return null;
    const endpointId = claimed.endpoint.id;
    const attemptedAt = Math.floor(now() / 1000);
    count(endpointId, 1);
    let sent: AttemptReport;
    try {
      sent = await sendWebhook(claimed, attemptedAt, { ...send, timeoutMs: Math.min(timeoutMs, leftMs) });
    } finally {
      count(endpointId, -1);
      onEnded();
    }
    // D47: the retry's delay counts from here, the end of the attempt.
    const attempt: AttemptReport = { ...sent, finishedAt: Math.max(attemptedAt, Math.ceil(now() / 1000)) };
    const delivery = await recorder.record(claimed.delivery.id, attempt);
    const entry: WebhookAttemptEntry = {
      eventId: claimed.event.id,
      eventType: claimed.event.type,
      endpointId,
      attempt,
      delivery,
      ageSeconds: attemptedAt - claimed.event.raisedAt,
    };
    options.onAttempt?.(entry);
    return entry;
  };
  let claiming: Promise<unknown> = Promise.resolve();
  const deliverClaimed = (onEnded: () => void) =>
    Object.assign(
      (limit: number, eventId?: string): Promise<readonly Promise<WebhookAttemptEntry | null>[]> => {
        // One claim at a time, its deliveries started (and counted) before the next claim reads the counts.
        const run = claiming.then(async () => {
          const claimedAt = Math.floor(now() / 1000);
          const claimed = await options.store.claimDeliveries({
            claimant,
            limit,
            leaseSeconds,
            now: claimedAt,
            perEndpoint,
            held: [...requests].map(([endpointId, under]) => ({ endpointId, requests: under })),
            ...(eventId === undefined ? {} : { eventId }),
          });
          return claimed.map((one) => deliver(one, (claimedAt + leaseSeconds) * 1000, onEnded));
        });
        claiming = run.catch(() => {});
        return run;
      },
      { claimant, drained: () => recorder.drained() },
    );
  return { deliverClaimed, agents };
}

/** Requests to one endpoint under way at once, by default (D47). */
const _PER_ENDPOINT = 4;
/** What a lease holds beyond the request's timeout: the claim before it and the report after it (P63). */
const _LEASE_MARGIN_SECONDS = 13;
/** A request ends at least this long before its lease, so that its report lands while the claim holds (P63). */
const _REPORT_MARGIN_MS = 5_000;
/** Less time than this left in a lease: the delivery is not sent (its claim came back late). */
const _SHORTEST_REQUEST_MS = 1_000;

/**
 * Reports attempts to the store in batches (D41): the attempts that finish while a report is
 * being written are written together by the next one, in the order they finished
 * (`recordWebhookAttempts`). Should a batch fail, each of its attempts is reported alone, so a
 * store failure costs no more than the attempts it really refuses.
 */
function _attemptRecorder(store: FleetHoursStore, claimant: string, retrySchedule: readonly number[], onError?: (error: unknown) => void) {
  type Waiting = {
    deliveryId: number;
    attempt: AttemptReport;
    resolve: (delivery: WebhookDelivery | null) => void;
    reject: (error: unknown) => void;
  };
  const queue: Waiting[] = [];
  let writing: Promise<void> | null = null;
  const alone = async (one: Waiting) => {
    try {
      one.resolve(await store.recordWebhookAttempt({ deliveryId: one.deliveryId, claimant, attempt: one.attempt, retrySchedule }));
    } catch (error) {
      one.reject(error);
    }
  };
  const write = async () => {
    while (queue.length > 0) {
      const batch = queue.splice(0, _BATCH_LIMIT);
      try {
        const reports = batch.map(({ deliveryId, attempt }) => ({ deliveryId, attempt }));
        const recorded = await store.recordWebhookAttempts({ claimant, reports, retrySchedule });
        batch.forEach((one, index) => one.resolve(recorded[index] ?? null));
      } catch (error) {
        onError?.(error);
        for (const one of batch) await alone(one);
      }
    }
    writing = null;
  };
  return {
    record(deliveryId: number, attempt: AttemptReport): Promise<WebhookDelivery | null> {
      return new Promise((resolve, reject) => {
        queue.push({ deliveryId, attempt, resolve, reject });
        writing ??= write();
      });
    },
    drained: async () => {
      while (writing !== null) await writing;
    },
  };
}

/** At most this many attempts in one report to the store. */
const _BATCH_LIMIT = 100;
