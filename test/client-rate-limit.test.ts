/**
 * P90 (D57): the client waits out a real 429 of the API's rate limit and gets its answer, with the
 * app served in this process on a clock the test moves (fake timers), so that the wait for the next
 * rate-limit window takes no real time. test/e2e/client.test.ts does the same against `serve` for a
 * 503, and reads a real 429 there.
 */
import { createFleetHoursClient } from '@fleet-hours/client';
import { createFleetHours, createMemoryStore, fingerprintApiKey, generateApiKey } from '@fleet-hours/core';
import { createFleetHoursApp } from '@fleet-hours/http';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';

// Only the clock and timers are faked: the app's hashing and promises run for real, and `setImmediate` lets them.
beforeEach(() => vi.useFakeTimers({ now: Date.UTC(2026, 2, 12, 12, 0, 20), toFake: ['Date', 'setTimeout', 'clearTimeout'] }));
afterEach(() => vi.useRealTimers());

async function startApp() {
  const store = createMemoryStore();
  const account = await store.createAccount({ name: 'Acme Haulage', plan: 'business', now: 0 });
  const apiKey = generateApiKey();
  await store.createApiKey({
    accountId: account.id,
    fingerprint: await fingerprintApiKey(apiKey),
    label: null,
    expiresAt: null,
    now: 0,
    scope: 'manage',
  });
  const now = () => Date.now();
  const app = createFleetHoursApp({
    fleetHours: createFleetHours({ store, now }),
    now,
    logger: () => {},
    rateLimits: { devices: 1, writes: 1 },
  });
  const answered: string[] = [];
  /** The `Idempotency-Key` of each request (`null`: none). */
  const idempotencyKeys: (string | null)[] = [];
  const client = createFleetHoursClient({
    baseUrl: 'http://fleet.test',
    apiKey,
    fetch: async (request) => {
      idempotencyKeys.push(request.headers.get('Idempotency-Key'));
      const response = await app.request(request);
      answered.push(
        `${new Date().toISOString().slice(11, 19)} ${request.method} ${response.status} ${response.headers.get('Retry-After') ?? '-'}`,
      );
      return response;
    },
  });
  /** Resolves once the app has answered `count` requests (real time passes; the fake clock stands still). */
  const answeredAtLeast = async (count: number) => {
    while (answered.length < count) await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve)); // and the client takes in the answer
  };
  return { client, answered, answeredAtLeast, idempotencyKeys };
}

it('a GET refused 429 by the rate limit is sent again when its window ends, 40 s later, and answered 200', async () => {
  const { client, answered, answeredAtLeast } = await startApp();
  expect((await client.GET('/api/v1/devices')).response.status).toBe(200);
  const call = client.GET('/api/v1/devices');
  await answeredAtLeast(2);
  await vi.advanceTimersByTimeAsync(39_999);
  expect(answered).toEqual(['12:00:20 GET 200 -', '12:00:20 GET 429 40']);
  await vi.advanceTimersByTimeAsync(1);
  const { response, data } = await call;
  expect([response.status, data]).toEqual([200, { data: [] }]);
  expect(answered.at(-1)).toBe('12:01:00 GET 200 -');
});

it('a POST refused 429 is sent again with the same Idempotency-Key, and creates one device', async () => {
  const { client, answered, answeredAtLeast, idempotencyKeys } = await startApp();
  const body = (name: string, imei: string) => ({ name, imei, model: 'FMB920', timezone: 'Europe/Berlin' });
  expect((await client.POST('/api/v1/devices', { body: body('Truck 1', '356307042441013') })).response.status).toBe(201);
  const call = client.POST('/api/v1/devices', { body: body('Truck 2', '356307042441021') });
  await answeredAtLeast(2);
  await vi.advanceTimersByTimeAsync(40_000);
  const { response, data } = await call;
  expect([response.status, data?.name]).toEqual([201, 'Truck 2']);
  expect(answered).toEqual(['12:00:20 POST 201 -', '12:00:20 POST 429 40', '12:01:00 POST 201 -']);
  const [first, refused, retried] = idempotencyKeys;
  expect([refused, new Set([first, refused]).size]).toEqual([retried, 2]);
  expect(refused).toMatch(/^[0-9a-f-]{36}$/);
  await vi.advanceTimersByTimeAsync(60_000);
  expect((await client.GET('/api/v1/devices')).data?.data.map((device) => device.name)).toEqual(['Truck 1', 'Truck 2']);
});
