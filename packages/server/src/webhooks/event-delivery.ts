import type { FleetHours } from '@fleet-hours/core';
import { startWebhookSender, type WebhookSender } from './webhook-sender.js';

/** What the delivery counts in the server's metrics (`ServerMetrics` extends it): the attempts and the outbox's backlog. */
export interface DeliveryMetrics {
  /** Counts one webhook attempt by what became of its delivery: `delivered`, `retry` (pending again) or `failed` (D41). */
  recordWebhookAttempt(outcome: 'delivered' | 'retry' | 'failed'): void;
  /** Reads the outbox's backlog on every scrape (the pending deliveries and the age of the oldest event among them). */
  watchWebhookBacklog(read: () => Promise<{ readonly pending: number; readonly oldestRaisedAt: number | null }>, now: () => number): void;
}

/** The settings of events and webhooks in a server (D30, D40, D41). */
export interface EventDeliveryOptions {
  /** Delays between attempts, seconds. Default 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
  readonly retrySchedule?: readonly number[];
  /** How long a request may take, ms. Default 15 000. */
  readonly timeoutMs?: number;
  /** Let requests reach loopback and private addresses. Default `false`. */
  readonly allowPrivateAddresses?: boolean;
  /** Requests sent at the same time. Default 32. */
  readonly concurrency?: number;
  /** Requests sent to one endpoint at the same time (D47). Default 4. */
  readonly perEndpoint?: number;
  /** How often the periodic check runs, ms (D40: at least once a minute). Default 60 000. */
  readonly checkIntervalMs?: number;
  /** How often the checks writes asked for are looked for besides right after this server's own writes, ms (P53). Default 5 000. */
  readonly requestedCheckIntervalMs?: number;
}

/** Events and webhooks running in a server. */
export interface EventDelivery {
  /** Checks the events of devices a write just changed (D40), soon and once for writes that come together. */
  afterWrite(accountId: number, deviceIds: readonly number[]): void;
  /** Stops the check, finishes the requests under way and releases what the sender claimed. */
  close(): Promise<void>;
}

/**
 * Runs the periodic event check (D40) and the webhook sender (D41) of a server: the check every
 * `checkIntervalMs` (once at the start), the sender whenever deliveries are due. Logs every
 * attempt (`msg: "webhook attempt"`: `debug` when delivered, `warn` otherwise; never a secret)
 * and counts it in the metrics.
 */
export function startEventDelivery(
  options: EventDeliveryOptions & {
    readonly fleetHours: FleetHours;
    readonly now: () => number;
    readonly log?: (entry: object) => void;
    readonly metrics?: DeliveryMetrics;
  },
): EventDelivery {
  const { fleetHours, now, log, metrics } = options;
  const onError = (error: unknown) =>
    log?.({ level: 'error', msg: 'webhooks failed', error: error instanceof Error ? error.message : String(error) });
  const sender: WebhookSender = startWebhookSender({
    store: fleetHours.store,
    now,
    ...(options.retrySchedule ? { retrySchedule: options.retrySchedule } : {}),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.allowPrivateAddresses === undefined ? {} : { allowPrivateAddresses: options.allowPrivateAddresses }),
    ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
    ...(options.perEndpoint === undefined ? {} : { perEndpoint: options.perEndpoint }),
    pollIntervalMs: 250,
    onError,
    onAttempt: (entry) => {
      const outcome = entry.delivery?.state === 'delivered' ? 'delivered' : entry.delivery?.state === 'failed' ? 'failed' : 'retry';
      metrics?.recordWebhookAttempt(outcome);
      log?.({
        level: outcome === 'delivered' ? 'debug' : 'warn',
        msg: 'webhook attempt',
        event_id: entry.eventId,
        event_type: entry.eventType,
        endpoint_id: entry.endpointId,
        status: entry.attempt.status,
        duration_ms: entry.attempt.durationMs,
        outcome,
        ...(entry.attempt.error === null ? {} : { error: entry.attempt.error }),
      });
    },
  });
  metrics?.watchWebhookBacklog(() => fleetHours.store.webhookBacklog(), now);
  // Events this server raised are sent at once, not at the sender's next look.
  const wakeOn = (stored: number) => {
    if (stored > 0) sender.wake();
  };
  let checking: Promise<unknown> = Promise.resolve();
  const check = () => {
    checking = checking.then(() => fleetHours.events.check({ now: Math.floor(now() / 1000) }).then(wakeOn, onError));
  };
  check();
  const timer = setInterval(check, options.checkIntervalMs ?? 60_000);
  // Devices this server wrote since its last check of them, by account: checked together, one check
  // at a time. A store that keeps the writes' requests (P53) is checked from those instead: the
  // requests of every server and of the CLI's imports too.
  let written = new Map<number, Set<number>>();
  let scheduled = false;
  let closed = false;
  const requests = fleetHours.store.listEventChecks !== undefined;
  const checkWritten = () => {
    scheduled = false;
    if (closed) return;
    const batch = written;
    written = new Map();
    checking = checking.then(async () => {
      if (requests) return fleetHours.events.checkRequested({ now: Math.floor(now() / 1000) }).then(wakeOn, onError);
      for (const [accountId, deviceIds] of batch) {
        await fleetHours.events.check({ now: Math.floor(now() / 1000), accountId, deviceIds: [...deviceIds] }).then(wakeOn, onError);
      }
    });
  };
  const checkSoon = (delayMs: number) => {
    if (scheduled) return;
    scheduled = true;
    setTimeout(checkWritten, delayMs);
  };
  // The requests left by writes whose server stopped before checking them, or by other processes: at the start and every 5 s.
  const requested = requests ? setInterval(() => checkSoon(0), options.requestedCheckIntervalMs ?? 5_000) : undefined;
  if (requests) checkSoon(0);
  return {
    afterWrite(accountId, deviceIds) {
      if (closed || deviceIds.length === 0) return;
      if (!requests) {
        const devices = written.get(accountId) ?? new Set<number>();
        for (const deviceId of deviceIds) devices.add(deviceId);
        written.set(accountId, devices);
      }
      checkSoon(20);
    },
    async close() {
      closed = true;
      clearInterval(timer);
      clearInterval(requested);
      await checking;
      await sender.close();
    },
  };
}
