import { createFleetHours, createMemoryStore } from '@fleet-hours/core';
import { Hono } from 'hono';
import { describe, expect, it, vi } from 'vitest';
import { createFixture } from './testing/fixture.js';
import { createFleetHoursApp } from './create-fleet-hours-app.js';

const DATA_PATHS = [
  '/api/v1/devices',
  '/api/v1/devices/1/hours',
  '/api/v1/devices/1/hours/daily',
  '/api/v1/devices/1/meter',
  '/api/v1/devices/1/service',
  '/api/v1/hours',
  '/api/v1/hours/daily',
  '/api/v1/meter',
  '/api/v1/service',
];

describe('createFleetHoursApp()', () => {
  it('answers every data route with JSON in UTF-8 that is never cached', async () => {
    const { request, keys } = await createFixture();
    for (const path of DATA_PATHS) {
      const response = await request(path, keys.acme.key);
      expect([path, response.status]).toEqual([path, 200]);
      expect(response.headers.get('Content-Type')).toBe('application/json; charset=UTF-8');
      expect(response.headers.get('Cache-Control')).toBe('no-store');
      await expect(response.json()).resolves.toBeTypeOf('object');
    }
  });

  it('answers HEAD like GET, headers only, on every route and for errors (D17)', async () => {
    const { request, keys } = await createFixture();
    const stable = (response: Response) =>
      _headerList(response).filter(([name]) => !['x-request-id', 'x-ratelimit-remaining'].includes(name));
    for (const [path, key] of [
      ...DATA_PATHS.map((path) => [path, keys.acme.key] as const),
      ['/api/v1/devices/999/meter', keys.acme.key] as const,
      ['/api/v1/devices', null] as const,
    ]) {
      const get = await request(path, key);
      const head = await request(path, key, { method: 'HEAD' });
      expect([path, head.status]).toEqual([path, get.status]);
      expect(stable(head)).toEqual(stable(get));
      expect(head.headers.get('X-RateLimit-Remaining')).not.toBeNull();
      expect(await head.text()).toBe('');
    }
  });

  it('returns a plain Hono app that can be mounted in an existing one without touching its other routes', async () => {
    const { app, keys } = await createFixture();
    const host = new Hono();
    host.use('*', async (c, next) => {
      await next();
      c.header('X-Host', 'yes');
    });
    host.get('/health', (c) => c.text('ok'));
    host.post('/webhooks', (c) => c.json({ received: true }, 202));
    host.route('/', app);
    host.notFound((c) => c.text('host 404', 404));
    host.onError((_error, c) => c.text('host 500', 500));

    const health = await host.request('/health');
    expect([health.status, await health.text(), health.headers.get('X-Host')]).toEqual([200, 'ok', 'yes']);
    for (const name of ['X-Request-Id', 'X-RateLimit-Limit', 'Content-Security-Policy']) expect(health.headers.get(name)).toBeNull();
    expect((await host.request('/webhooks', { method: 'POST' })).status).toBe(202);
    expect(await (await host.request('/elsewhere')).text()).toBe('host 404');

    const devices = await host.request('/api/v1/devices', { headers: { Authorization: `Bearer ${keys.acme.key}` } });
    expect([devices.status, devices.headers.get('X-Host'), devices.headers.get('X-RateLimit-Limit')]).toEqual([200, 'yes', '120']);
    // The API's own errors keep the API's JSON body inside the host.
    const missing = await host.request('/api/v1/devices/999/meter', { headers: { Authorization: `Bearer ${keys.acme.key}` } });
    expect(await missing.json()).toEqual({ error: { status: 404, code: 'device_not_found', message: 'No such device on this account' } });
    const unknown = await host.request('/api/v1/nope', { headers: { Authorization: `Bearer ${keys.acme.key}` } });
    expect([unknown.status, ((await unknown.json()) as { error: { code: string } }).error.code]).toEqual([404, 'not_found']);
    const post = await host.request('/api/v1/devices', { method: 'POST' });
    expect([post.status, ((await post.json()) as { error: { code: string } }).error.code]).toEqual([401, 'missing_api_key']);
    expect((await host.request('/docs')).headers.get('Content-Type')).toBe('text/html; charset=UTF-8');
  });

  it('keeps the JSON 500 inside a host app with its own error handler', async () => {
    const store = createMemoryStore();
    const failing = { ...store, findApiKey: async () => Promise.reject(new Error('select * from api_keys failed')) };
    const app = createFleetHoursApp({ fleetHours: createFleetHours({ store: failing, now: Date.now }), logger: () => {} });
    const host = new Hono().route('/', app);
    host.onError((_error, c) => c.text('host 500', 500));
    const response = await host.request('/api/v1/devices', { headers: { Authorization: 'Bearer fh_x' } });
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(JSON.parse(text)).toMatchObject({ error: { status: 500, code: 'internal_error' } });
    expect(text).not.toContain('api_keys');
  });

  it('serves under a prefix too: host.route("/fleet", app)', async () => {
    const { app, keys } = await createFixture();
    const host = new Hono().route('/fleet', app);
    const response = await host.request('/fleet/api/v1/devices/1/hours?from=2026-03-08&to=2026-03-08', {
      headers: { Authorization: `Bearer ${keys.acme.key}` },
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { engine_seconds: number }).engine_seconds).toBe(82_800);
    expect((await host.request('/fleet/api/v1/devices', { method: 'DELETE' })).status).toBe(401);
  });

  it('works with only the service given: default clock, limits, counters and logger', async () => {
    vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      const store = createMemoryStore();
      // Typed as a plain Hono app: what a host holds.
      const app: Hono = createFleetHoursApp({ fleetHours: createFleetHours({ store, now: Date.now }) });
      const response = await app.request('/api/v1/devices');
      expect([response.status, response.headers.get('X-RateLimit-Limit'), response.headers.get('X-RateLimit-Remaining')]).toEqual([
        401,
        '30',
        '29',
      ]);
      expect(console.log).toHaveBeenCalledTimes(1);
    } finally {
      vi.restoreAllMocks();
    }
  });
});

function _headerList(response: Response): [string, string][] {
  const list: [string, string][] = [];
  response.headers.forEach((value, name) => list.push([name, value]));
  return list;
}
