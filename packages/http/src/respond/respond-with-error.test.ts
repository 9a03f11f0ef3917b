import { StorageUnavailableError, type FleetHoursStore } from '@fleet-hours/core';
import { describe, expect, it } from 'vitest';
import { createFixture, failingStore } from '../testing/fixture.js';

type ErrorBody = { error: { status: number; code: string; message: string } };

/** Everything of a response that must not tell one 404 from another (the request id differs by design). */
const comparable = async (response: Response) => ({
  status: response.status,
  body: await response.text(),
  headers: _headerList(response).filter(([name]) => name !== 'x-request-id' && name !== 'x-ratelimit-remaining'),
});

describe('respondWithError(): one error body for everything (D16)', () => {
  describe('404 device_not_found (D11)', () => {
    for (const route of ['hours', 'hours/daily', 'meter']) {
      it(`/${route}: another account's device, a missing one and every non-id answer the same bytes`, async () => {
        const { request, keys, devices } = await createFixture({ rateLimits: { hours: 100, daily: 100, meter: 100 } });
        const ids = [
          String(devices.foreign.id),
          '999',
          '2147483648',
          'abc',
          '0',
          '-1',
          '1.5',
          '1e3',
          '007',
          '%201',
          '99999999999999999999',
          '0x1',
          '',
          '%2F',
        ];
        const answers = await Promise.all(
          ids.map(async (id) => comparable(await request(`/api/v1/devices/${id}/${route}`, keys.acme.key))),
        );
        for (const answer of answers) expect(answer).toEqual(answers[0]);
        expect(answers[0]!.status).toBe(404);
        expect(JSON.parse(answers[0]!.body)).toEqual({
          error: { status: 404, code: 'device_not_found', message: 'No such device on this account' },
        });
      });
    }

    it('a device of another account is served to that account', async () => {
      const { request, keys, devices } = await createFixture();
      expect((await request(`/api/v1/devices/${devices.foreign.id}/meter`, keys.other.key)).status).toBe(200);
    });
  });

  it('answers 404 not_found for an unknown path under /api/v1 once the key is accepted (P12)', async () => {
    const { request, keys } = await createFixture();
    // `/api/v1/devices/1` is a path of the API since D52 (PATCH): a GET there is 405 (device-writes.test.ts).
    for (const path of ['/api/v1', '/api/v1/', '/api/v1/devices/', '/api/v1/devices/1/hours/weekly']) {
      const response = await request(path, keys.acme.key);
      expect([path, response.status]).toEqual([path, 404]);
      expect(response.headers.get('Content-Type')).toBe('application/json; charset=UTF-8');
      expect(((await response.json()) as ErrorBody).error).toMatchObject({ status: 404, code: 'not_found' });
    }
  });

  it("answers an empty device id as a device path: 404 device_not_found on the route's budget, not not_found (D11, P9, P24)", async () => {
    const { request, keys, logs } = await createFixture({ rateLimits: { daily: 2 } });
    for (const path of ['/api/v1/devices//hours', '/api/v1/devices//hours/daily', '/api/v1/devices//meter']) {
      const response = await request(path, keys.acme.key);
      expect([path, response.status, ((await response.json()) as ErrorBody).error.code]).toEqual([path, 404, 'device_not_found']);
    }
    expect(logs.map((entry) => entry.route)).toEqual([
      '/api/v1/devices/{id}/hours',
      '/api/v1/devices/{id}/hours/daily',
      '/api/v1/devices/{id}/meter',
    ]);
    expect((await request('/api/v1/devices//hours/daily', keys.acme.key)).headers.get('X-RateLimit-Remaining')).toBe('0');
    expect((await request('/api/v1/devices//hours/daily', keys.acme.key)).status).toBe(429);
    expect((await request('/api/v1/devices//meter')).status).toBe(401);
  });

  it('answers the JSON 404 outside the API too when served alone, with a request id and the rate-limit headers of the client address (D31, P23)', async () => {
    const { request, keys, logs } = await createFixture({ rateLimits: { unauthenticated: 3 } });
    const answers = [];
    for (const [path, method] of [
      ['/robots.txt', 'GET'],
      ['/api/v2/devices', 'GET'],
      ['/api/v2/devices', 'HEAD'],
      ['/api/v2/devices', 'POST'],
    ] as const) {
      const response = await request(path, keys.acme.key, { method });
      expect(response.headers.get('X-Request-Id')).toMatch(/^[0-9a-f-]{36}$/);
      const text = await response.text();
      answers.push([
        path,
        method,
        response.status,
        response.headers.get('X-RateLimit-Limit'),
        response.headers.get('X-RateLimit-Remaining'),
        text === '' ? '' : (JSON.parse(text) as ErrorBody).error.code,
      ]);
    }
    expect(answers).toEqual([
      ['/robots.txt', 'GET', 404, '3', '2', 'not_found'],
      ['/api/v2/devices', 'GET', 404, '3', '1', 'not_found'],
      ['/api/v2/devices', 'HEAD', 404, '3', '0', ''],
      ['/api/v2/devices', 'POST', 429, '3', '0', 'rate_limited'],
    ]);
    expect(logs.map((entry) => [entry.route, entry.status, entry.error_code])).toEqual([
      ['*', 404, 'not_found'],
      ['*', 404, 'not_found'],
      ['*', 404, 'not_found'],
      ['*', 429, 'rate_limited'],
    ]);
    // The API's own budget of the key is untouched; the address budget holds back only requests without a valid key.
    expect((await request('/api/v1/devices', keys.acme.key)).headers.get('X-RateLimit-Remaining')).toBe('119');
  });

  it.each(['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])(
    'answers %s with 405 method_not_allowed, an Allow header and the JSON body (D17)',
    async (method) => {
      const { request, keys } = await createFixture();
      for (const path of [
        // POST is served on /api/v1/devices (D52): its 405s are in device-writes.test.ts.
        ...(method === 'POST' ? [] : ['/api/v1/devices']),
        '/api/v1/devices/1/hours',
        '/api/v1/devices/1/hours/daily',
        '/api/v1/devices/1/meter',
        '/api/v1/whatever',
      ]) {
        const response = await request(path, keys.acme.key, { method });
        const allow = path === '/api/v1/devices' ? 'GET, HEAD, POST' : 'GET, HEAD';
        expect([path, response.status, response.headers.get('Allow')]).toEqual([path, 405, allow]);
        expect(response.headers.get('Content-Type')).toBe('application/json; charset=UTF-8');
        expect(await response.json()).toEqual({
          error: {
            status: 405,
            code: 'method_not_allowed',
            message: `Method ${method} is not allowed: use ${allow === 'GET, HEAD' ? 'GET or HEAD' : 'GET, HEAD or POST'}`,
          },
        });
      }
    },
  );

  it('answers 405 on the OpenAPI document and /docs without a key', async () => {
    const { request } = await createFixture();
    for (const path of ['/api/v1/openapi.json', '/docs']) {
      const response = await request(path, null, { method: 'POST' });
      expect([path, response.status, response.headers.get('Allow')]).toEqual([path, 405, 'GET, HEAD']);
      expect(((await response.json()) as ErrorBody).error.code).toBe('method_not_allowed');
    }
  });

  describe('503 service_unavailable when the store is down, and recovery without a restart (D18; headers P15)', () => {
    it('while the key cannot be checked', async () => {
      let control!: ReturnType<typeof failingStore>;
      const { request, keys, logs } = await createFixture({
        wrapStore: (store) => {
          control = failingStore(store);
          return control.store;
        },
      });
      control.fail(() => new StorageUnavailableError('connect ECONNREFUSED 127.0.0.1:5432'));
      const down = await request('/api/v1/devices/1/hours', keys.acme.key);
      expect(down.status).toBe(503);
      expect(await down.json()).toEqual({
        error: { status: 503, code: 'service_unavailable', message: 'The service is temporarily unavailable: retry shortly' },
      });
      // Not counted (the key could not be checked), so nothing is promised (D14).
      expect([down.headers.get('X-RateLimit-Limit'), down.headers.get('X-RateLimit-Remaining')]).toEqual(['30', '0']);
      // D28: every 503 says when to retry.
      expect(down.headers.get('Retry-After')).toBe('5');
      expect(logs.at(-1)).toMatchObject({
        status: 503,
        error_code: 'service_unavailable',
        error: { name: 'StorageUnavailableError', message: 'connect ECONNREFUSED 127.0.0.1:5432' },
      });

      control.fail(null);
      const back = await request('/api/v1/devices/1/hours', keys.acme.key);
      expect(back.status).toBe(200);
      expect(back.headers.get('X-RateLimit-Remaining')).toBe('29');
    });

    it('while the data cannot be read, with the request counted', async () => {
      let control!: ReturnType<typeof failingStore>;
      const { request, keys } = await createFixture({
        wrapStore: (store) => {
          control = failingStore(store);
          return control.store;
        },
      });
      control.fail(() => new StorageUnavailableError(), ['listDevices', 'findDevice']);
      for (const path of ['/api/v1/devices', '/api/v1/devices/1/hours', '/api/v1/devices/1/hours/daily', '/api/v1/devices/1/meter']) {
        const response = await request(path, keys.acme.key);
        expect([path, response.status]).toEqual([path, 503]);
        expect(Number(response.headers.get('X-RateLimit-Remaining'))).toBeGreaterThan(0);
      }
      control.fail(null);
      expect((await request('/api/v1/devices', keys.acme.key)).status).toBe(200);
    });

    it('while the rate-limit counters are down (D15: a shared store)', async () => {
      let down = true;
      const { request, keys } = await createFixture({
        rateLimitStore: {
          async consume() {
            if (down) throw new StorageUnavailableError('counter table unreachable');
            return { count: 1, allowed: true };
          },
        },
      });
      const response = await request('/api/v1/devices', keys.acme.key);
      expect(response.status).toBe(503);
      expect([response.headers.get('X-RateLimit-Limit'), response.headers.get('X-RateLimit-Remaining')]).toEqual(['120', '0']);
      down = false;
      expect((await request('/api/v1/devices', keys.acme.key)).status).toBe(200);
    });
  });

  it('answers 500 internal_error without the stack, SQL or paths of an unexpected failure, and logs it without the key', async () => {
    const leak =
      'syntax error at or near "SELEC" in SELECT fingerprint FROM api_keys WHERE account_id = $1 (/srv/fleet-hours/node_modules/postgres/src/connection.js:794:26)';
    const { request, keys, logs } = await createFixture({
      wrapStore: (store): FleetHoursStore => ({
        ...store,
        listDevices: async () => {
          throw new Error(leak);
        },
        findDevice: async () => {
          throw new TypeError("Cannot read properties of undefined (reading 'time_zone')");
        },
      }),
    });
    for (const path of ['/api/v1/devices', '/api/v1/devices/1/meter']) {
      const response = await request(path, keys.acme.key, { headers: { 'X-Request-Id': 'support-ticket-42' } });
      expect(response.status).toBe(500);
      const text = await response.text();
      expect(JSON.parse(text)).toEqual({
        error: { status: 500, code: 'internal_error', message: 'Internal error (request id support-ticket-42): it has been logged' },
      });
      for (const secret of [
        'SELECT',
        'SELEC',
        'api_keys',
        '/srv',
        'node_modules',
        'connection.js',
        'at ',
        'time_zone',
        'TypeError',
        keys.acme.key,
      ]) {
        expect(text).not.toContain(secret);
      }
      expect(response.headers.get('X-RateLimit-Remaining')).not.toBeNull();
    }
    expect(logs.map((entry) => [entry.status, entry.error?.message])).toEqual([
      [500, leak],
      [500, "Cannot read properties of undefined (reading 'time_zone')"],
    ]);
    expect(logs[0]!.error!.stack).toContain('Error: syntax error');
    expect(JSON.stringify(logs)).not.toContain(keys.acme.key);
  });

  it('answers 500 for a driver error that carries its query, without the query', async () => {
    const { request, keys } = await createFixture({
      wrapStore: (store): FleetHoursStore => ({
        ...store,
        listDevices: async () => {
          throw Object.assign(new Error('boom'), { name: 'PostgresError', query: 'SELECT 1' });
        },
      }),
    });
    const response = await request('/api/v1/devices', keys.acme.key);
    expect(response.status).toBe(500);
    expect(await response.text()).not.toContain('SELECT');
  });
});

function _headerList(response: Response): [string, string][] {
  const list: [string, string][] = [];
  response.headers.forEach((value, name) => list.push([name, value]));
  return list;
}
