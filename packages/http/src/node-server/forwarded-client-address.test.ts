import { createFleetHours, createMemoryStore } from '@fleet-hours/core';
import { describe, expect, it } from 'vitest';
import type { AccessLogEntry } from '../middleware/access-log/index.js';
import { createFleetHoursApp } from '../create-fleet-hours-app.js';
import { forwardedClientAddress } from './forwarded-client-address.js';
import { serve } from './serve.js';

function appWithHops(hops: number) {
  const logs: AccessLogEntry[] = [];
  const now = () => 1_767_225_630_000;
  const app = createFleetHoursApp({
    fleetHours: createFleetHours({ store: createMemoryStore(), now }),
    now,
    logger: (entry) => logs.push(entry),
    rateLimits: { unauthenticated: 2 },
    clientAddress: forwardedClientAddress(hops),
  });
  return { app, logs };
}

describe('forwardedClientAddress() (P30, D14)', () => {
  it('takes the N-th entry from the right of X-Forwarded-For: what the outermost trusted proxy saw', async () => {
    const { app, logs } = appWithHops(2);
    await app.request('/api/v1/devices', { headers: { 'X-Forwarded-For': '6.6.6.6, 203.0.113.7, 10.0.0.2' } });
    await app.request('/api/v1/devices', { headers: { 'X-Forwarded-For': '203.0.113.8,10.0.0.2' } });
    expect(logs.map((entry) => entry.client_address)).toEqual(['203.0.113.7', '203.0.113.8']);
  });

  it('counts the per-address budget by that address, whatever the client claims further left', async () => {
    const { app } = appWithHops(1);
    const from = (forwarded: string) => app.request('/api/v1/devices', { headers: { 'X-Forwarded-For': forwarded } });
    expect((await from('1.1.1.1, 198.51.100.1')).headers.get('X-RateLimit-Remaining')).toBe('1');
    expect((await from('2.2.2.2, 198.51.100.1')).headers.get('X-RateLimit-Remaining')).toBe('0');
    expect((await from('3.3.3.3, 198.51.100.1')).status).toBe(429);
    expect((await from('198.51.100.2')).status).toBe(401);
  });

  it('falls back to the socket address with 0 hops, without the header or with too few entries', async () => {
    for (const [hops, forwarded] of [
      [0, '203.0.113.7'],
      [1, undefined],
      [3, '203.0.113.7, 10.0.0.2'],
    ] as const) {
      const { app, logs } = appWithHops(hops);
      const server = await serve({ app, port: 0, handleSignals: false });
      try {
        await fetch(`${server.url}/api/v1/devices`, { headers: forwarded === undefined ? {} : { 'X-Forwarded-For': forwarded } });
      } finally {
        await server.close();
      }
      expect([hops, logs[0]?.client_address]).toEqual([hops, '127.0.0.1']);
    }
    const { app, logs } = appWithHops(1);
    await app.request('/api/v1/devices');
    expect(logs[0]?.client_address).toBe('unknown');
  });

  it('refuses a negative or fractional number of hops', () => {
    expect(() => forwardedClientAddress(-1)).toThrow('Trusted proxy hops must be a whole number ≥ 0, got -1');
    expect(() => forwardedClientAddress(1.5)).toThrow(RangeError);
  });
});
