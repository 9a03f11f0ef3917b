/**
 * D28: the app serves a bounded number of requests at a time; beyond it a request is refused at
 * once with 503 and `Retry-After`, never queued. Driven through `app.request()` over a store whose
 * calls the test holds open.
 */
import type { FleetHoursStore } from '@fleet-hours/core';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { createFixture } from '../../testing/fixture.js';
import { createFleetHoursApp } from '../../create-fleet-hours-app.js';
import { inFlightLimit } from './index.js';

/** A store whose `findDevice` calls wait while held: requests in flight on demand. */
function holdableStore(store: FleetHoursStore) {
  let gate: Promise<void> | null = null;
  let open = () => {};
  let waiting = 0;
  const wrapped: FleetHoursStore = Object.assign(Object.create(store) as FleetHoursStore, {
    async findDevice(input: Parameters<FleetHoursStore['findDevice']>[0]) {
      if (gate) {
        waiting += 1;
        await gate;
        waiting -= 1;
      }
      return store.findDevice(input);
    },
  });
  return {
    store: wrapped,
    hold() {
      gate = new Promise((resolve) => (open = resolve));
    },
    release() {
      gate = null;
      open();
    },
    get waiting() {
      return waiting;
    },
  };
}

async function boundedApp(maxInFlight: number) {
  let holdable!: ReturnType<typeof holdableStore>;
  const fixture = await createFixture({
    wrapStore: (store) => {
      holdable = holdableStore(store);
      return holdable.store;
    },
  });
  const app = createFleetHoursApp({ fleetHours: fixture.fleetHours, now: fixture.now, logger: () => {}, maxInFlight, probes: true });
  const request = (path: string, key?: string) => app.request(path, key ? { headers: { Authorization: `Bearer ${key}` } } : {});
  return { ...fixture, app, holdable, request };
}

/** Lets pending requests run until they wait on the store. */
async function settle(until: () => boolean): Promise<void> {
  for (let turn = 0; turn < 1000 && !until(); turn += 1) await new Promise((resolve) => setImmediate(resolve));
  expect(until()).toBe(true);
}

describe('inFlightLimit() (D28)', () => {
  it("refuses request N+1 at once with 503, Retry-After and the route's rate-limit headers while N are in flight; serves again once they finish", async () => {
    const { holdable, request, keys, devices } = await boundedApp(2);
    const meter = `/api/v1/devices/${devices.newYork.id}/meter`;
    holdable.hold();
    const held = [request(meter, keys.acme.key), request(meter, keys.acme.key)];
    await settle(() => holdable.waiting === 2);

    // Answered while the two are still held: nothing queued behind them.
    const refused = await request(meter, keys.acme.key);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('Content-Type')).toBe('application/json; charset=UTF-8');
    expect(await refused.json()).toEqual({
      error: { status: 503, code: 'service_unavailable', message: 'The service is temporarily unavailable: retry shortly' },
    });
    expect(refused.headers.get('Retry-After')).toBe('1');
    // Never counted: the route's limit, nothing promised (P15).
    expect([refused.headers.get('X-RateLimit-Limit'), refused.headers.get('X-RateLimit-Remaining')]).toEqual(['30', '0']);
    expect(refused.headers.get('X-Request-Id')).toBeTruthy();
    // Every route that reaches the store shares the bound; also without a key, also off the API.
    expect((await request('/api/v1/devices', keys.acme.key)).status).toBe(503);
    expect((await request('/api/v1/devices')).status).toBe(503);
    expect((await request('/elsewhere')).status).toBe(503);
    expect(holdable.waiting).toBe(2);

    holdable.release();
    for (const response of await Promise.all(held)) expect(response.status).toBe(200);
    const after = await request(meter, keys.acme.key);
    expect(after.status).toBe(200);
    expect(after.headers.get('Retry-After')).toBeNull();
    // The two held and this one were counted, the refused one was not.
    expect(after.headers.get('X-RateLimit-Remaining')).toBe('27');
  });

  it('never refuses the routes that reach no database: probes, reference, docs', async () => {
    const { holdable, request, keys, devices } = await boundedApp(1);
    holdable.hold();
    const held = request(`/api/v1/devices/${devices.newYork.id}/hours`, keys.acme.key);
    await settle(() => holdable.waiting === 1);
    for (const path of ['/healthz', '/api/v1/openapi.json', '/docs']) expect([path, (await request(path)).status]).toEqual([path, 200]);
    holdable.release();
    expect((await held).status).toBe(200);
  });

  it('frees the slot of a request that failed', async () => {
    const app = new Hono();
    app.use('*', inFlightLimit({ maxInFlight: 1 }));
    app.get('/fail', () => {
      throw new Error('boom');
    });
    app.get('/ok', (c) => c.text('ok'));
    app.onError((_error, c) => c.text('failed', 500));
    expect((await app.request('/fail')).status).toBe(500);
    expect((await app.request('/ok')).status).toBe(200);
  });

  it('takes a positive integer bound', () => {
    expect(() => inFlightLimit({ maxInFlight: 0 })).toThrow('maxInFlight must be a positive integer: got "0"');
    expect(() => inFlightLimit({ maxInFlight: 2, retryAfterSeconds: 0.5 })).toThrow(
      'retryAfterSeconds must be a positive integer: got "0.5"',
    );
    expect(() => createFleetHoursApp({ fleetHours: {} as never, maxInFlight: 1.5 })).toThrow(RangeError);
  });
});
