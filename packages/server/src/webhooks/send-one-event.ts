import type { FleetHoursStore, SendWebhookEvent, WebhookTestAttempt } from '@fleet-hours/core';
import { DEFAULT_SEND_TIMEOUT_MS, startWebhookSender } from './webhook-sender.js';

/** How often the attempt of a delivery another sender claimed is looked for, in milliseconds. */
const _LOOK_EVERY_MS = 50;
/** How long after its send timeout the attempt of another sender is still waited for, in milliseconds. */
const _RECORD_MARGIN_MS = 5_000;

/**
 * Sends one event of the outbox now (P83): what `webhooks test` and `POST /api/v1/webhooks/{id}/test`
 * send their `webhook.test` event with. A sender of its own that does not poll claims that event's
 * deliveries, sends them signed as every delivery is (D41, with the address checks of D48), records
 * the attempt and stops. The running servers' senders poll the same outbox: one of them may claim
 * the delivery between its raise and this claim. Then that sender's attempt is the one told, once
 * it is recorded (within the send timeout, then a margin): the event was sent now all the same.
 * `null` when no attempt was made by then (the running servers send it).
 *
 * @param options The store and the delivery settings of the servers.
 * @returns The sender of one event.
 */
export function sendOneEvent(options: {
  readonly store: FleetHoursStore;
  readonly now: () => number;
  readonly timeoutMs?: number | undefined;
  readonly allowPrivateAddresses?: boolean | undefined;
  readonly retrySchedule?: readonly number[] | undefined;
}): SendWebhookEvent {
  return async ({ eventId, endpointId }) => {
    const sender = startWebhookSender({
      store: options.store,
      poll: false,
      now: options.now,
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.allowPrivateAddresses === undefined ? {} : { allowPrivateAddresses: options.allowPrivateAddresses }),
      ...(options.retrySchedule === undefined ? {} : { retrySchedule: options.retrySchedule }),
    });
    let sent: WebhookTestAttempt | null = null;
    try {
      const [entry] = await sender.runOnce(eventId);
      if (entry) sent = { status: entry.attempt.status, durationMs: entry.attempt.durationMs, error: entry.attempt.error };
    } finally {
      await sender.close();
    }
    // The send timeout of the sender that claimed it (the servers', as this one's), and a margin to record the attempt.
    return (
      sent ?? _attemptOfAnother(options.store, eventId, endpointId, (options.timeoutMs ?? DEFAULT_SEND_TIMEOUT_MS) + _RECORD_MARGIN_MS)
    );
  };
}

/** The attempt at the event another sender claimed, once it is recorded; `null` when none is within `waitMs`. */
async function _attemptOfAnother(
  store: FleetHoursStore,
  eventId: string,
  endpointId: number,
  waitMs: number,
): Promise<WebhookTestAttempt | null> {
  const until = Date.now() + waitMs;
  for (;;) {
    // The newest attempts of the endpoint: this event's, made a moment ago, is among them.
    const attempt = (await store.listWebhookAttempts({ endpointId, limit: 20 })).find((one) => one.eventId === eventId);
    if (attempt) return { status: attempt.status, durationMs: attempt.durationMs, error: attempt.error };
    if (Date.now() >= until) return null;
    await new Promise((resolve) => setTimeout(resolve, _LOOK_EVERY_MS));
  }
}
