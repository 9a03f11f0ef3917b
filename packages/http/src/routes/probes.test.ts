import { createFleetHours, createMemoryStore, StorageUnavailableError, type FleetHoursStore } from '@fleet-hours/core';
import { describe, expect, it } from 'vitest';
import { failingStore } from '../testing/fixture.js';
import type { AccessLogEntry } from '../middleware/access-log/index.js';
import { createFleetHoursApp } from '../create-fleet-hours-app.js';

function probeApp(store: FleetHoursStore, probes = true) {
  const logs: AccessLogEntry[] = [];
  const now = () => 1_767_225_630_000;
  const app = createFleetHoursApp({
    fleetHours: createFleetHours({ store, now }),
    now,
    logger: (entry) => logs.push(entry),
    rateLimits: { unauthenticated: 2 },
    probes,
  });
  return { app, logs };
}

describe('GET /healthz and GET /readyz (D30, P27)', () => {
  it('/healthz answers 200 { status: "ok" } without a key, uncounted and without rate-limit headers', async () => {
    const { app, logs } = probeApp(createMemoryStore());
    for (let request = 0; request < 5; request += 1) {
      const response = await app.request('/healthz');
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ status: 'ok' });
      expect(response.headers.get('X-RateLimit-Limit')).toBeNull();
      expect(response.headers.get('Cache-Control')).toBe('no-store');
      expect(response.headers.get('X-Request-Id')).toBeTruthy();
    }
    // Five probes used none of the per-address budget of 2: a request without a key still gets its 401.
    const unauthenticated = await app.request('/api/v1/devices');
    expect([unauthenticated.status, unauthenticated.headers.get('X-RateLimit-Remaining')]).toEqual([401, '1']);
    expect(logs.map((entry) => [entry.route, entry.status])).toEqual([
      ...Array.from({ length: 5 }, () => ['/healthz', 200]),
      ['/api/v1/devices', 401],
    ]);
  });

  it('/readyz answers 200 { status: "ready" } while the store answers its ping, counting nothing', async () => {
    const store = createMemoryStore();
    let pings = 0;
    const { app } = probeApp({ ...store, ping: async () => void (pings += 1) });
    for (let request = 0; request < 3; request += 1) {
      const response = await app.request('/readyz');
      expect([response.status, await response.json(), response.headers.get('X-RateLimit-Remaining')]).toEqual([
        200,
        { status: 'ready' },
        null,
      ]);
    }
    expect(pings).toBe(3);
    expect((await app.request('/readyz', { method: 'HEAD' })).status).toBe(200);
  });

  it('/readyz answers 503 service_unavailable while the database is down, and 200 again once it is back (D18); /healthz stays 200', async () => {
    const outage = failingStore(createMemoryStore());
    const { app, logs } = probeApp(outage.store);
    outage.fail(() => new StorageUnavailableError('Storage is unavailable (ECONNREFUSED)'));
    const down = await app.request('/readyz');
    expect(down.status).toBe(503);
    expect(await down.json()).toEqual({
      error: { status: 503, code: 'service_unavailable', message: 'The service is temporarily unavailable: retry shortly' },
    });
    expect(logs.at(-1)).toMatchObject({ route: '/readyz', status: 503, error: { message: 'Storage is unavailable (ECONNREFUSED)' } });
    expect((await app.request('/healthz')).status).toBe(200);
    outage.fail(null);
    expect((await app.request('/readyz')).status).toBe(200);
  });

  it('/readyz of a store without ping() asks for a key that does not exist; any failure is 503, never 500', async () => {
    const { ping: _ping, ...withoutPing } = createMemoryStore();
    const lookups: string[] = [];
    let broken = false;
    const store: FleetHoursStore = {
      ...withoutPing,
      findApiKey: async (input) => {
        lookups.push(input.fingerprint);
        if (broken) throw new Error('relation "api_keys" does not exist');
        return withoutPing.findApiKey(input);
      },
    };
    const { app } = probeApp(store);
    expect((await app.request('/readyz')).status).toBe(200);
    broken = true;
    const failed = await app.request('/readyz');
    expect([failed.status, ((await failed.json()) as { error: { code: string } }).error.code]).toEqual([503, 'service_unavailable']);
    expect(lookups).toEqual(['0'.repeat(64), '0'.repeat(64)]);
  });

  it('answers other methods with 405 and Allow, and is not served unless the app is asked to', async () => {
    const { app } = probeApp(createMemoryStore());
    const post = await app.request('/healthz', { method: 'POST' });
    expect([post.status, post.headers.get('Allow')]).toEqual([405, 'GET, HEAD']);
    const { app: withoutProbes } = probeApp(createMemoryStore(), false);
    const missing = await withoutProbes.request('/healthz');
    expect([missing.status, missing.headers.get('X-RateLimit-Limit')]).toEqual([404, '2']);
  });
});
