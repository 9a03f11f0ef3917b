import { createFleetHours, createMemoryStore } from '@fleet-hours/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createFixture } from '../../testing/fixture.js';
import { createFleetHoursApp } from '../../create-fleet-hours-app.js';

describe('accessLog()', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('writes one structured entry per request: method, route template, status, duration, key id, request id', async () => {
    const { request, keys, logs, devices } = await createFixture();
    const response = await request(`/api/v1/devices/${devices.newYork.id}/hours/daily?from=2026-03-08&to=2026-03-08`, keys.acme.key);
    expect(logs).toEqual([
      {
        time: '2026-12-01T12:00:15.000Z',
        request_id: response.headers.get('X-Request-Id'),
        method: 'GET',
        route: '/api/v1/devices/{id}/hours/daily',
        status: 200,
        duration_ms: expect.any(Number),
        key_id: keys.acme.id,
        client_address: 'unknown',
      },
    ]);
    expect(logs[0]!.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it('logs route templates, never raw paths or query strings, and the error code of errors', async () => {
    const { request, keys, logs } = await createFixture();
    await request('/api/v1/devices/not-a-number/meter?secret_token=1', keys.acme.key);
    await request('/api/v1/devices', null, { method: 'HEAD' });
    await request('/api/v1/private-thing', keys.acme.key, { method: 'DELETE' });
    await request('/api/v1/openapi.json');
    expect(logs.map(({ method, route, status, key_id, error_code }) => ({ method, route, status, key_id, error_code }))).toEqual([
      { method: 'GET', route: '/api/v1/devices/{id}/meter', status: 404, key_id: keys.acme.id, error_code: 'device_not_found' },
      { method: 'HEAD', route: '/api/v1/devices', status: 401, key_id: null, error_code: 'missing_api_key' },
      { method: 'DELETE', route: '/api/v1/*', status: 405, key_id: keys.acme.id, error_code: 'method_not_allowed' },
      { method: 'GET', route: '/api/v1/openapi.json', status: 200, key_id: null, error_code: undefined },
    ]);
    // Markers with letters outside hex, so a random request id (a UUID) can never match them.
    expect(JSON.stringify(logs)).not.toMatch(/not-a-number|secret_token|private-thing/);
  });

  it('never logs a key, its fingerprint or the Authorization header, and names the key of a 403 by id', async () => {
    const { request, keys, logs, store, accounts } = await createFixture();
    const fingerprints = [
      ...(await store.listApiKeys({ accountId: accounts.acme.id })),
      ...(await store.listApiKeys({ accountId: accounts.starter.id })),
    ].map((key) => key.fingerprint);
    for (const key of Object.values(keys)) await request('/api/v1/devices', key.key);
    const text = JSON.stringify(logs);
    for (const key of Object.values(keys)) expect(text).not.toContain(key.key);
    for (const fingerprint of fingerprints) expect(text).not.toContain(fingerprint);
    expect(text).not.toMatch(/Bearer|fh_/);
    expect(logs.find((entry) => entry.status === 403)?.key_id).toBe(keys.starter.id);
  });

  it('keeps serving when the logger throws', async () => {
    const fleetHours = createFleetHours({ store: createMemoryStore(), now: Date.now });
    const app = createFleetHoursApp({
      fleetHours,
      logger: () => {
        throw new Error('disk full');
      },
    });
    expect((await app.request('/api/v1/devices')).status).toBe(401);
  });

  it('writes one JSON line to stdout by default', async () => {
    const lines: unknown[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: unknown) => {
      lines.push(line);
    });
    const app = createFleetHoursApp({ fleetHours: createFleetHours({ store: createMemoryStore(), now: Date.now }) });
    await app.request('/api/v1/devices', { headers: { Authorization: 'Bearer fh_not_a_key' } });
    expect(lines).toHaveLength(1);
    expect(typeof lines[0]).toBe('string');
    expect(JSON.parse(lines[0] as string)).toMatchObject({
      method: 'GET',
      route: '/api/v1/devices',
      status: 401,
      key_id: null,
      error_code: 'unknown_api_key',
    });
    expect(lines[0]).not.toContain('fh_not_a_key');
  });
});
