import { randomUUID } from 'node:crypto';
import { webhookBody, type NewWebhookEvent } from '@fleet-hours/core';

/**
 * A `webhook.test` event for one endpoint (D41), under a new id.
 *
 * @param input The endpoint and its account, and now (epoch seconds).
 * @returns The event to put in the outbox.
 */
export function testEvent(input: { readonly endpointId: number; readonly accountId: number; readonly now: number }): NewWebhookEvent {
  return {
    id: `evt_test_e${input.endpointId}_${randomUUID().replaceAll('-', '')}`,
    accountId: input.accountId,
    type: 'webhook.test',
    deviceId: null,
    body: webhookBody({ type: 'webhook.test', raisedAt: input.now, data: { endpoint_id: input.endpointId } }),
    raisedAt: input.now,
    endpointId: input.endpointId,
  };
}
