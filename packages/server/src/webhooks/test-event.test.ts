/** `webhook.test` events (D41): one endpoint's, under a new id each time. */
import { describe, expect, it } from 'vitest';
import { testEvent } from './test-event.js';

const T0 = 1_767_225_600; // 2026-01-01T00:00:00Z

describe('testEvent() (D41)', () => {
  it('testEvent() makes a webhook.test event for one endpoint, under a new id each time', () => {
    const first = testEvent({ endpointId: 4, accountId: 1, now: T0 });
    expect(JSON.parse(first.body)).toEqual({ type: 'webhook.test', timestamp: '2026-01-01T00:00:00Z', data: { endpoint_id: 4 } });
    expect(first.endpointId).toBe(4);
    expect(testEvent({ endpointId: 4, accountId: 1, now: T0 }).id).not.toBe(first.id);
  });
});
