import { describe, expect, it } from 'vitest';
import { createFixture } from '../testing/fixture.js';
import { checkFleetPagesMatchDevices, createFleetApp, walkPages } from '../testing/fleet-fixture.js';

type ErrorBody = { error: { status: number; code: string; message: string } };

describe('GET /api/v1/hours (D32)', () => {
  it('answers { data, next_cursor }: every element the body of /devices/{id}/hours for that device, field for field and in the same order, for random fleets, zones, windows and page sizes', async () => {
    await checkFleetPagesMatchDevices({
      path: '/hours',
      numRuns: 40,
      // P32: refused only when the window fails for every device of the account.
      allRefused: async (response) => {
        expect(response.status).toBe(400);
        expect(((await response.json()) as ErrorBody).error.message).toMatch(
          /^Parameter from ".*" is after today in the zone of every device of the account/,
        );
      },
      // P32: this device's today is before `from`: an empty window, from the start of that date to now.
      refusedElement: (element, deviceId) => {
        expect(JSON.parse(element)).toMatchObject({ device_id: deviceId, engine_seconds: 0, moving_seconds: 0, idle_seconds: 0 });
        expect(Object.keys(JSON.parse(element))).toEqual([
          'device_id',
          'from',
          'to',
          'timezone',
          'engine_seconds',
          'moving_seconds',
          'idle_seconds',
        ]);
      },
    });
  });

  it('walks every device of the account exactly once, by ascending id, whatever the page size', async () => {
    const { get, deviceIds } = await createFleetApp(Array.from({ length: 12 }, () => ({ timeZone: 'UTC', pieces: [], openLast: false })));
    for (const limit of [1, 5, 11, 12, 13, 500]) {
      const { elements, pages } = await walkPages(get, '/api/v1/hours', `from=2026-11-01&limit=${limit}`);
      expect(elements.map((element) => (JSON.parse(element) as { device_id: number }).device_id)).toEqual(deviceIds);
      expect(pages).toBe(Math.ceil(12 / limit));
    }
  });

  it('pages 100 devices by default, at most 500', async () => {
    const { get, deviceIds } = await createFleetApp(Array.from({ length: 101 }, () => ({ timeZone: 'UTC', pieces: [], openLast: false })));
    const first = (await (await get('/api/v1/hours')).json()) as { data: unknown[]; next_cursor: string | null };
    expect(first.data).toHaveLength(100);
    expect(typeof first.next_cursor).toBe('string');
    const second = (await (await get(`/api/v1/hours?cursor=${first.next_cursor}`)).json()) as {
      data: { device_id: number }[];
      next_cursor: string | null;
    };
    expect(second).toEqual({ data: [expect.objectContaining({ device_id: deviceIds[100] })], next_cursor: null });
    expect(((await (await get('/api/v1/hours?limit=500')).json()) as { data: unknown[] }).data).toHaveLength(101);
  });

  it("shows a key only its own account's devices, and an account without devices an empty page", async () => {
    const { request, keys, devices, store, accounts } = await createFixture();
    const body = (await (await request('/api/v1/hours', keys.other.key)).json()) as { data: { device_id: number }[]; next_cursor: null };
    expect(body.data.map((element) => element.device_id)).toEqual([devices.foreign.id]);
    await store.setAccountPlan({ accountId: accounts.starter.id, plan: 'business' });
    const empty = await request('/api/v1/hours?from=2030-01-01', keys.starter.key);
    expect([empty.status, await empty.json()]).toEqual([200, { data: [], next_cursor: null }]);
  });

  it.each([
    ['limit=0', 'limit', 'Parameter limit "0" is out of range: give a whole number from 1 to 500'],
    ['limit=501', 'limit', 'Parameter limit "501" is out of range: give a whole number from 1 to 500'],
    ['limit=ten', 'limit', 'Cannot parse limit "ten": give a whole number from 1 to 500'],
    ['limit=-1', 'limit', 'Cannot parse limit "-1": give a whole number from 1 to 500'],
    ['limit=', 'limit', 'Cannot parse limit "": give a whole number from 1 to 500'],
    ['limit=5&limit=5', 'limit', 'Parameter limit is given 2 times: give it once'],
    ['cursor=', 'cursor', 'Parameter cursor "" is not a cursor of this API: give the next_cursor of a previous page'],
    ['cursor=abc', 'cursor', 'Parameter cursor "abc" is not a cursor of this API: give the next_cursor of a previous page'],
    ['cursor=a&cursor=b', 'cursor', 'Parameter cursor is given 2 times: give it once'],
    ['from=2026-02-30&limit=0', 'from', 'Cannot parse from "2026-02-30": no such day'],
  ])('answers 400 invalid_parameter naming the parameter for %s', async (query, parameter, message) => {
    const { request, keys } = await createFixture();
    const response = await request(`/api/v1/hours?${query}`, keys.acme.key);
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as ErrorBody;
    expect(error).toMatchObject({ status: 400, code: 'invalid_parameter' });
    expect(error.message).toContain(parameter);
    expect(error.message).toMatch(
      message.startsWith('Cannot parse from')
        ? /Cannot parse from "2026-02-30"/
        : new RegExp(`^${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`),
    );
  });

  it('answers 400 naming cursor for a cursor of another endpoint or of another account (P33)', async () => {
    const { request, keys } = await createFixture();
    const dailyCursor = ((await (await request('/api/v1/hours/daily?limit=1', keys.acme.key)).json()) as { next_cursor: string })
      .next_cursor;
    const hoursCursor = ((await (await request('/api/v1/hours?limit=1', keys.acme.key)).json()) as { next_cursor: string }).next_cursor;
    const cases = [
      [
        keys.acme.key,
        dailyCursor,
        'Parameter cursor is a cursor of /api/v1/hours/daily, not of /api/v1/hours: give the next_cursor of a page of this endpoint',
      ],
      [
        keys.other.key,
        hoursCursor,
        'Parameter cursor belongs to another account: give the next_cursor of a page read with a key of this account',
      ],
    ] as const;
    for (const [key, cursor, message] of cases) {
      const response = await request(`/api/v1/hours?cursor=${cursor}`, key);
      expect(response.status).toBe(400);
      expect(((await response.json()) as ErrorBody).error).toEqual({ status: 400, code: 'invalid_parameter', message });
    }
    // The same cursor goes on with a second key of the same account.
    expect((await request(`/api/v1/hours?cursor=${hoursCursor}`, keys.acmeSecond.key)).status).toBe(200);
  });

  it('a cursor survives devices added meanwhile: the walk goes on after the last device seen (P33)', async () => {
    const { get, store, account, deviceIds } = await createFleetApp(
      Array.from({ length: 3 }, () => ({ timeZone: 'UTC', pieces: [], openLast: false })),
    );
    const first = (await (await get('/api/v1/hours?limit=2')).json()) as { data: { device_id: number }[]; next_cursor: string };
    const added = (await store.createDevice({ accountId: account.id, name: 'New', imei: '999', model: 'm', timeZone: 'UTC' }))!;
    const second = (await (await get(`/api/v1/hours?limit=2&cursor=${first.next_cursor}`)).json()) as {
      data: { device_id: number }[];
      next_cursor: string | null;
    };
    expect([...first.data, ...second.data].map((element) => element.device_id)).toEqual([...deviceIds, added.id]);
    expect(second.next_cursor).toBeNull();
  });

  it('answers HEAD with the headers and no body', async () => {
    const { request, keys } = await createFixture();
    const response = await request('/api/v1/hours', keys.acme.key, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('X-RateLimit-Limit')).toBe('60');
    expect(await response.text()).toBe('');
  });

  describe('access (D11, D14, D33)', () => {
    it('checks 401 → 403 → 429 like every endpoint, with the rate-limit headers on every answer', async () => {
      const { request, keys } = await createFixture({ rateLimits: { unauthenticated: 1000 } });
      const codeOf = async (response: Response) => ((await response.json()) as ErrorBody).error.code;
      const missing = await request('/api/v1/hours');
      expect([missing.status, await codeOf(missing.clone()), missing.headers.get('WWW-Authenticate')]).toEqual([
        401,
        'missing_api_key',
        expect.stringContaining('Bearer'),
      ]);
      const revoked = await request('/api/v1/hours', keys.revoked.key);
      expect([revoked.status, await codeOf(revoked)]).toEqual([401, 'revoked_api_key']);
      const starter = await request('/api/v1/hours', keys.starter.key);
      expect([starter.status, await codeOf(starter)]).toEqual([403, 'plan_without_api_access']);
      for (const response of [missing, revoked, starter]) {
        expect(response.headers.get('X-RateLimit-Limit')).not.toBeNull();
        expect(response.headers.get('X-RateLimit-Remaining')).not.toBeNull();
      }
    });

    it('counts 60 requests per minute per key on its own budget; the 61st is 429 with Retry-After and X-RateLimit-Reset (D33)', async () => {
      const { request, keys, devices, clock } = await createFixture();
      for (let count = 1; count <= 60; count += 1) {
        const response = await request('/api/v1/hours', keys.acme.key);
        expect([response.status, response.headers.get('X-RateLimit-Limit'), response.headers.get('X-RateLimit-Remaining')]).toEqual([
          200,
          '60',
          String(60 - count),
        ]);
      }
      const refused = await request('/api/v1/hours', keys.acme.key);
      expect(refused.status).toBe(429);
      expect(((await refused.json()) as ErrorBody).error.code).toBe('rate_limited');
      // The fixture's clock is 15 s into its minute.
      expect([
        refused.headers.get('X-RateLimit-Limit'),
        refused.headers.get('X-RateLimit-Remaining'),
        refused.headers.get('Retry-After'),
        refused.headers.get('X-RateLimit-Reset'),
      ]).toEqual(['60', '0', '45', '45']);
      // Still 401 and 403 before 429 (D11); the other endpoints, fleet or not, and other keys have their own budgets.
      expect((await request('/api/v1/hours', keys.revoked.key)).status).toBe(401);
      expect((await request('/api/v1/hours', keys.starter.key)).status).toBe(403);
      expect((await request('/api/v1/hours', keys.acmeSecond.key)).status).toBe(200);
      expect((await request('/api/v1/hours/daily', keys.acme.key)).status).toBe(200);
      expect((await request('/api/v1/meter', keys.acme.key)).status).toBe(200);
      expect((await request(`/api/v1/devices/${devices.newYork.id}/hours`, keys.acme.key)).headers.get('X-RateLimit-Limit')).toBe('30');
      clock.advance(45_000);
      expect((await request('/api/v1/hours', keys.acme.key)).status).toBe(200);
    });

    it('takes its limit from configuration (D33)', async () => {
      const { request, keys } = await createFixture({ rateLimits: { fleetHours: 2 } });
      expect((await request('/api/v1/hours', keys.acme.key)).headers.get('X-RateLimit-Limit')).toBe('2');
      await request('/api/v1/hours', keys.acme.key);
      expect((await request('/api/v1/hours', keys.acme.key)).status).toBe(429);
      expect((await request('/api/v1/meter', keys.acme.key)).headers.get('X-RateLimit-Limit')).toBe('60');
    });

    it('answers other methods 405 with Allow, after the key check (D17)', async () => {
      const { request, keys } = await createFixture();
      expect((await request('/api/v1/hours', null, { method: 'POST' })).status).toBe(401);
      const response = await request('/api/v1/hours', keys.acme.key, { method: 'POST' });
      expect([response.status, response.headers.get('Allow')]).toEqual([405, 'GET, HEAD']);
    });
  });
});
