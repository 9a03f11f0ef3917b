import { createMemoryRateLimitStore, type RateLimitStore } from '@fleet-hours/core';
import { describe, expect, it } from 'vitest';
import { createFixture } from '../../testing/fixture.js';

const limitHeaders = (response: Response) => ({
  status: response.status,
  limit: response.headers.get('X-RateLimit-Limit'),
  remaining: response.headers.get('X-RateLimit-Remaining'),
  retryAfter: response.headers.get('Retry-After'),
  reset: response.headers.get('X-RateLimit-Reset'),
});

describe('access(): counting, D13–D15', () => {
  it('allows 120 /devices requests a minute and answers the 121st with 429 and the reset headers', async () => {
    const { request, keys } = await createFixture();
    for (let count = 1; count <= 120; count += 1) {
      const response = await request('/api/v1/devices', keys.acme.key);
      expect(limitHeaders(response)).toEqual({ status: 200, limit: '120', remaining: String(120 - count), retryAfter: null, reset: null });
    }
    const refused = await request('/api/v1/devices', keys.acme.key);
    // The fixture's clock is 15 s into its minute: the window resets in 45 s.
    expect(limitHeaders(refused)).toEqual({ status: 429, limit: '120', remaining: '0', retryAfter: '45', reset: '45' });
    expect(await refused.json()).toEqual({
      error: { status: 429, code: 'rate_limited', message: expect.stringContaining('retry in 45 s') },
    });
  });

  it('allows 30 /hours requests a minute, refuses the 31st, and gives the budget back in the next minute', async () => {
    const { request, keys, clock } = await createFixture();
    for (let count = 1; count <= 30; count += 1) {
      expect(limitHeaders(await request('/api/v1/devices/1/hours', keys.acme.key))).toMatchObject({
        status: 200,
        limit: '30',
        remaining: String(30 - count),
      });
    }
    expect(limitHeaders(await request('/api/v1/devices/1/hours', keys.acme.key))).toEqual({
      status: 429,
      limit: '30',
      remaining: '0',
      retryAfter: '45',
      reset: '45',
    });

    clock.advance(44_500);
    // Half a second before the reset: still refused, and the wait is rounded up to a whole second (D14).
    expect(limitHeaders(await request('/api/v1/devices/1/hours', keys.acme.key))).toMatchObject({
      status: 429,
      retryAfter: '1',
      reset: '1',
    });

    clock.advance(500);
    expect(limitHeaders(await request('/api/v1/devices/1/hours', keys.acme.key))).toEqual({
      status: 200,
      limit: '30',
      remaining: '29',
      retryAfter: null,
      reset: null,
    });
  });

  it('counts each route template separately: 30 /hours and 30 /hours/daily and 30 /meter in one minute all pass', async () => {
    const { request, keys } = await createFixture();
    for (const path of ['/api/v1/devices/1/hours', '/api/v1/devices/1/hours/daily', '/api/v1/devices/1/meter']) {
      for (let count = 1; count <= 30; count += 1) expect((await request(path, keys.acme.key)).status).toBe(200);
    }
    expect(limitHeaders(await request('/api/v1/devices', keys.acme.key))).toMatchObject({ status: 200, remaining: '119' });
    expect((await request('/api/v1/devices/1/meter', keys.acme.key)).status).toBe(429);
  });

  it('counts per route template, not per device id: other devices share the budget', async () => {
    const { request, keys, devices } = await createFixture({ rateLimits: { hours: 3 } });
    expect((await request(`/api/v1/devices/${devices.newYork.id}/hours`, keys.acme.key)).status).toBe(200);
    expect((await request(`/api/v1/devices/${devices.kathmandu.id}/hours`, keys.acme.key)).status).toBe(200);
    expect((await request('/api/v1/devices/999/hours', keys.acme.key)).status).toBe(404);
    expect((await request(`/api/v1/devices/${devices.idle.id}/hours`, keys.acme.key)).status).toBe(429);
  });

  it('counts per key: another key of the same account has its own budget', async () => {
    const { request, keys } = await createFixture({ rateLimits: { devices: 1 } });
    expect((await request('/api/v1/devices', keys.acme.key)).status).toBe(200);
    expect((await request('/api/v1/devices', keys.acme.key)).status).toBe(429);
    expect(limitHeaders(await request('/api/v1/devices', keys.acmeSecond.key))).toMatchObject({ status: 200, remaining: '0' });
    expect((await request('/api/v1/devices', keys.other.key)).status).toBe(200);
  });

  it('counts HEAD with GET against the same route budget', async () => {
    const { request, keys } = await createFixture({ rateLimits: { meter: 2 } });
    expect(limitHeaders(await request('/api/v1/devices/1/meter', keys.acme.key, { method: 'HEAD' }))).toMatchObject({
      status: 200,
      remaining: '1',
    });
    expect(limitHeaders(await request('/api/v1/devices/1/meter', keys.acme.key))).toMatchObject({ status: 200, remaining: '0' });
    expect(limitHeaders(await request('/api/v1/devices/1/meter', keys.acme.key, { method: 'HEAD' }))).toMatchObject({
      status: 429,
      retryAfter: '45',
    });
  });

  it('sends X-RateLimit-Limit and X-RateLimit-Remaining on errors too: 400, 401, 403, 404, 405 (D14)', async () => {
    const { request, keys } = await createFixture();
    const cases: [string, string | null, string, number, string][] = [
      ['/api/v1/devices/1/hours?from=x', keys.acme.key, 'GET', 400, '30'],
      ['/api/v1/devices', null, 'GET', 401, '30'],
      ['/api/v1/devices', keys.starter.key, 'GET', 403, '120'],
      ['/api/v1/devices/999/meter', keys.acme.key, 'GET', 404, '30'],
      ['/api/v1/unknown', keys.acme.key, 'GET', 404, '30'],
      ['/api/v1/devices', keys.acme.key, 'PUT', 405, '30'],
    ];
    for (const [path, key, method, status, limit] of cases) {
      const response = await request(path, key, { method });
      expect(response.status).toBe(status);
      expect(response.headers.get('X-RateLimit-Limit')).toBe(limit);
      expect(Number(response.headers.get('X-RateLimit-Remaining'))).toBeGreaterThanOrEqual(0);
      expect(response.headers.get('Retry-After')).toBeNull();
    }
  });

  describe('requests without a valid key (D14)', () => {
    it('count every 401 against a budget of 30 per client address, then answer 429 (P13)', async () => {
      const { request, keys } = await createFixture();
      const bad = [null, 'fh_unknown', keys.revoked.key, keys.expired.key];
      for (let count = 1; count <= 30; count += 1) {
        expect(limitHeaders(await request('/api/v1/devices', bad[count % bad.length]))).toMatchObject({
          status: 401,
          limit: '30',
          remaining: String(30 - count),
        });
      }
      const refused = await request('/api/v1/devices/1/hours', 'fh_yet_another_guess');
      expect(limitHeaders(refused)).toEqual({ status: 429, limit: '30', remaining: '0', retryAfter: '45', reset: '45' });
      expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/without a valid API key/);
    });

    it('still tell a revoked or expired key what is wrong once the address budget is spent, and count it; guesses get 429 (P21)', async () => {
      const { request, keys } = await createFixture({ rateLimits: { unauthenticated: 2 } });
      const answer = async (key: string | null) => {
        const response = await request('/api/v1/devices/1/hours', key);
        return [
          response.status,
          ((await response.json()) as { error: { code: string } }).error.code,
          response.headers.get('X-RateLimit-Remaining'),
          response.headers.get('Retry-After'),
        ];
      };
      expect(await answer(keys.revoked.key)).toEqual([401, 'revoked_api_key', '1', null]);
      expect(await answer(keys.expired.key)).toEqual([401, 'expired_api_key', '0', null]);
      for (let attempt = 0; attempt < 40; attempt += 1) {
        expect(await answer(keys.revoked.key)).toEqual([401, 'revoked_api_key', '0', null]);
        expect(await answer(keys.starterExpired.key)).toEqual([401, 'expired_api_key', '0', null]);
      }
      // The budget they spent still guards against guessing: unknown and missing keys get 429.
      expect(await answer('fh_guess')).toEqual([429, 'rate_limited', '0', '45']);
      expect(await answer(null)).toEqual([429, 'rate_limited', '0', '45']);
      expect((await request('/api/v1/devices/1/hours', keys.acme.key)).status).toBe(200);
    });

    it('do not hold back a valid key from the same address, nor requests from another address', async () => {
      const { request, keys } = await createFixture({
        rateLimits: { unauthenticated: 2 },
        clientAddress: (c) => c.req.header('X-Test-Address') ?? 'unknown',
      });
      const from = (address: string) => ({ headers: { 'X-Test-Address': address } });
      for (let count = 0; count < 2; count += 1) expect((await request('/api/v1/devices', 'fh_guess', from('10.0.0.1'))).status).toBe(401);
      expect((await request('/api/v1/devices', 'fh_guess', from('10.0.0.1'))).status).toBe(429);
      expect((await request('/api/v1/devices', keys.acme.key, from('10.0.0.1'))).status).toBe(200);
      expect(limitHeaders(await request('/api/v1/devices', 'fh_guess', from('10.0.0.2')))).toMatchObject({ status: 401, remaining: '1' });
    });

    it('come back in the next minute', async () => {
      const { request, clock } = await createFixture({ rateLimits: { unauthenticated: 1 } });
      expect((await request('/api/v1/devices')).status).toBe(401);
      expect((await request('/api/v1/devices')).status).toBe(429);
      clock.advance(45_000);
      expect(limitHeaders(await request('/api/v1/devices'))).toMatchObject({ status: 401, remaining: '0' });
    });
  });

  it('does not use budget for a refused request (D13): the store is asked to count it and declines', async () => {
    const counted: { key: string; limit: number; allowed: boolean; count: number }[] = [];
    const memory = createMemoryRateLimitStore();
    const recording: RateLimitStore = {
      async consume(input) {
        const result = await memory.consume(input);
        counted.push({ key: input.key, limit: input.limit, ...result });
        return result;
      },
    };
    const { request, keys } = await createFixture({ rateLimits: { meter: 1 }, rateLimitStore: recording });
    await request('/api/v1/devices/1/meter', keys.acme.key);
    await request('/api/v1/devices/1/meter', keys.acme.key);
    await request('/api/v1/devices/1/meter', keys.acme.key);
    expect(counted).toEqual([
      { key: `key:${keys.acme.id}:/api/v1/devices/{id}/meter`, limit: 1, allowed: true, count: 1 },
      { key: `key:${keys.acme.id}:/api/v1/devices/{id}/meter`, limit: 1, allowed: false, count: 1 },
      { key: `key:${keys.acme.id}:/api/v1/devices/{id}/meter`, limit: 1, allowed: false, count: 1 },
    ]);
  });

  it('keeps its counters in the store it is given, so instances sharing one store share the limits (D15)', async () => {
    const shared = createMemoryRateLimitStore();
    const first = await createFixture({ rateLimits: { devices: 2 }, rateLimitStore: shared });
    // A second app over the same data and the same counters: the same key ids, as with one database.
    const second = await createFixture({ rateLimits: { devices: 2 }, rateLimitStore: shared });
    expect(second.keys.acme.id).toBe(first.keys.acme.id);
    expect((await first.request('/api/v1/devices', first.keys.acme.key)).status).toBe(200);
    expect((await second.request('/api/v1/devices', second.keys.acme.key)).status).toBe(200);
    expect((await first.request('/api/v1/devices', first.keys.acme.key)).status).toBe(429);
    expect((await second.request('/api/v1/devices', second.keys.acme.key)).status).toBe(429);
  });

  it('uses the configured limits in the headers and refuses limits that are not positive integers', async () => {
    const { request, keys } = await createFixture({ rateLimits: { devices: 5 } });
    expect(limitHeaders(await request('/api/v1/devices', keys.acme.key))).toMatchObject({ limit: '5', remaining: '4' });
    await expect(createFixture({ rateLimits: { hours: 0 } })).rejects.toThrow(RangeError);
    await expect(createFixture({ rateLimits: { devices: 1.5 } })).rejects.toThrow(
      'Rate limit "devices" must be a positive integer, got 1.5',
    );
  });
});
