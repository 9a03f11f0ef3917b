import type { FleetHoursStore, SendWebhookEvent } from '@fleet-hours/core';
import { startWebhookSender } from './webhook-sender.js';

/**
 * Sends one event of the outbox now (P83): what `webhooks test` and `POST /api/v1/webhooks/{id}/test`
 * send their `webhook.test` event with. A sender of its own that does not poll claims that event's
 * deliveries, sends them signed as every delivery is (D41, with the address checks of D48), records
 * the attempt and stops; the attempt is told, or `null` when nothing could be claimed now (the
 * running servers send it).
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
  return async ({ eventId }) => {
    const sender = startWebhookSender({
      store: options.store,
      poll: false,
      now: options.now,
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.allowPrivateAddresses === undefined ? {} : { allowPrivateAddresses: options.allowPrivateAddresses }),
      ...(options.retrySchedule === undefined ? {} : { retrySchedule: options.retrySchedule }),
    });
    try {
      const [entry] = await sender.runOnce(eventId);
      if (!entry) return null;
      const { status, durationMs, error } = entry.attempt;
      return { status, durationMs, error };
    } finally {
      await sender.close();
    }
  };
}
