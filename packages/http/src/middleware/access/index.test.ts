import { ERROR_TABLE } from '@fleet-hours/core';
import { describe, expect, it } from 'vitest';
import { createFixture } from '../../testing/fixture.js';
import { createIngestFixture } from '../../testing/ingest-fixture.js';

type ErrorBody = { error: { status: number; code: string; message: string } };

describe('access(): D10–D12 in the order of D11', () => {
  it.each([
    ['missing', null, 'missing_api_key', /missing/i],
    ['unknown', 'fh_thisKeyWasNeverIssuedByAnyone000000000000000', 'unknown_api_key', /unknown/i],
  ])('answers 401 %s_api_key with a message naming it', async (_name, key, code, message) => {
    const { request } = await createFixture();
    const response = await request('/api/v1/devices', key);
    expect(response.status).toBe(401);
    const body = (await response.json()) as ErrorBody;
    expect(body).toEqual({ error: { status: 401, code, message: expect.stringMatching(message) } });
  });

  it('answers 401 revoked_api_key for a revoked key, and expired_api_key for an expired one', async () => {
    const { request, keys } = await createFixture();
    const revoked = await request('/api/v1/devices', keys.revoked.key);
    expect(revoked.status).toBe(401);
    expect(((await revoked.json()) as ErrorBody).error).toMatchObject({
      code: 'revoked_api_key',
      message: expect.stringMatching(/revoked/i),
    });
    const expired = await request('/api/v1/devices', keys.expired.key);
    expect(expired.status).toBe(401);
    expect(((await expired.json()) as ErrorBody).error).toMatchObject({
      code: 'expired_api_key',
      message: expect.stringMatching(/expired/i),
    });
  });

  it('stops a key on the next request after it is revoked (D10)', async () => {
    const { request, keys, store, clock } = await createFixture();
    expect((await request('/api/v1/devices', keys.acme.key)).status).toBe(200);
    await store.revokeApiKey({ keyId: keys.acme.id, now: clock.nowMs / 1000 });
    const response = await request('/api/v1/devices', keys.acme.key);
    expect(response.status).toBe(401);
    expect(((await response.json()) as ErrorBody).error.code).toBe('revoked_api_key');
  });

  it('stops a key at its expiry instant (D10)', async () => {
    const { request, store, accounts, clock } = await createFixture();
    const { fingerprintApiKey, generateApiKey } = await import('@fleet-hours/core');
    const key = generateApiKey();
    await store.createApiKey({
      accountId: accounts.acme.id,
      fingerprint: await fingerprintApiKey(key),
      label: 'short',
      expiresAt: clock.nowMs / 1000 + 30,
      now: 0,
    });
    expect((await request('/api/v1/devices', key)).status).toBe(200);
    clock.advance(30_000);
    expect(((await (await request('/api/v1/devices', key)).json()) as ErrorBody).error.code).toBe('expired_api_key');
  });

  it('accepts the Bearer scheme in any case and sends a Bearer challenge on 401 (RFC 6750)', async () => {
    const { app, keys } = await createFixture();
    expect((await app.request('/api/v1/devices', { headers: { Authorization: `bearer ${keys.acme.key}` } })).status).toBe(200);
    const basic = await app.request('/api/v1/devices', { headers: { Authorization: 'Basic dXNlcjpwYXNz' } });
    expect(basic.status).toBe(401);
    expect(((await basic.json()) as ErrorBody).error.code).toBe('missing_api_key');
    expect(basic.headers.get('WWW-Authenticate')).toBe('Bearer realm="fleet-hours"');
    const unknown = await app.request('/api/v1/devices', { headers: { Authorization: 'Bearer fh_nope' } });
    expect(unknown.headers.get('WWW-Authenticate')).toBe('Bearer realm="fleet-hours", error="invalid_token"');
  });

  it('answers a key sent without "Bearer " with 401 and a message showing the header to send, for API keys and ingest tokens', async () => {
    const { app, keys } = await createIngestFixture();
    for (const header of [keys.acme.key, 'Basic dXNlcjpwYXNz', `Token ${keys.acme.key}`]) {
      const response = await app.request('/api/v1/devices', { headers: { Authorization: header } });
      expect([response.status, response.headers.get('WWW-Authenticate')]).toEqual([401, 'Bearer realm="fleet-hours"']);
      expect(await response.json()).toEqual({
        error: {
          status: 401,
          code: 'missing_api_key',
          message:
            'API key not sent as a Bearer token: the header must be "Authorization: Bearer <API_KEY>", with "Bearer " before the key',
        },
      });
    }
    const ingest = await app.request('/ingest/v1/telemetry', {
      method: 'POST',
      headers: { Authorization: 'fhi_whatever', 'Content-Type': 'application/x-ndjson' },
      body: '',
    });
    expect(await ingest.json()).toEqual({
      error: {
        status: 401,
        code: 'missing_ingest_token',
        message:
          'Ingest token not sent as a Bearer token: the header must be "Authorization: Bearer <INGEST_TOKEN>", with "Bearer " before the token',
      },
    });
    // Without any header the message stays the plain "missing" one.
    expect(((await (await app.request('/api/v1/devices')).json()) as ErrorBody).error.message).toBe(ERROR_TABLE.missing_api_key.message);
  });

  it('answers two Authorization headers with 401 multiple_credentials saying so, not missing_api_key (P22)', async () => {
    const { app, keys, logs } = await createFixture();
    for (const second of [keys.acme.key, keys.other.key, 'fh_guess']) {
      const headers = new Headers();
      headers.append('Authorization', `Bearer ${keys.acme.key}`);
      headers.append('Authorization', `Bearer ${second}`);
      const response = await app.request('/api/v1/devices', { headers });
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({
        error: {
          status: 401,
          code: 'multiple_credentials',
          message: 'Authorization is given 2 times: send one header "Authorization: Bearer <API_KEY>"',
        },
      });
      expect(response.headers.get('WWW-Authenticate')).toBe('Bearer realm="fleet-hours", error="invalid_request"');
    }
    // Counted per address like every 401 (D14), and no key is named in the log.
    expect(logs.map((entry) => [entry.error_code, entry.key_id])).toEqual([
      ['multiple_credentials', null],
      ['multiple_credentials', null],
      ['multiple_credentials', null],
    ]);
  });

  it('answers an ingest token on the read API with 401 unknown_api_key and a message naming the API key it needs (D24, P25)', async () => {
    const { request } = await createFixture();
    const response = await request('/api/v1/devices', 'fhi_anIngestTokenWhateverItsState');
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({
      error: {
        status: 401,
        code: 'unknown_api_key',
        message: 'An ingest token cannot be used here: send an API key as "Authorization: Bearer <API_KEY>"',
      },
    });
  });

  it('answers 403 plan_without_api_access for a valid key on a plan without API access (D12)', async () => {
    const { request, keys } = await createFixture();
    const response = await request('/api/v1/devices', keys.starter.key);
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({
      error: { status: 403, code: 'plan_without_api_access', message: expect.stringContaining('Business plan') },
    });
    expect(response.headers.get('WWW-Authenticate')).toBeNull();
  });

  it('lets the key through once the account moves to the business plan', async () => {
    const { request, keys, store, accounts } = await createFixture();
    expect((await request('/api/v1/devices', keys.starter.key)).status).toBe(403);
    await store.setAccountPlan({ accountId: accounts.starter.id, plan: 'business' });
    expect((await request('/api/v1/devices', keys.starter.key)).status).toBe(200);
  });

  describe('D11 order: 401 → 403 → 429 → 404', () => {
    it('a revoked or expired key on a starter plan is 401, not 403', async () => {
      const { request, keys } = await createFixture();
      expect(((await (await request('/api/v1/devices', keys.starterRevoked.key)).json()) as ErrorBody).error.code).toBe('revoked_api_key');
      expect(((await (await request('/api/v1/devices', keys.starterExpired.key)).json()) as ErrorBody).error.code).toBe('expired_api_key');
    });

    it('a missing key on a missing device, an unknown route or a refused method is 401', async () => {
      const { request } = await createFixture();
      for (const [path, method] of [
        ['/api/v1/devices/999/hours', 'GET'],
        ['/api/v1/devices/abc/meter', 'GET'],
        ['/api/v1/no-such-route', 'GET'],
        ['/api/v1/devices', 'POST'],
      ] as const) {
        const response = await request(path, null, { method });
        expect([path, method, response.status]).toEqual([path, method, 401]);
      }
    });

    it('a starter key on a missing device, an unknown route or a refused method is 403', async () => {
      const { request, keys } = await createFixture();
      for (const [path, method] of [
        ['/api/v1/devices/999/hours', 'GET'],
        ['/api/v1/no-such-route', 'GET'],
        ['/api/v1/devices/1/meter', 'DELETE'],
      ] as const) {
        const response = await request(path, keys.starter.key, { method });
        expect([path, method, response.status]).toEqual([path, method, 403]);
      }
    });

    it('a starter key over its budget is still 403, never 429', async () => {
      const { request, keys } = await createFixture({ rateLimits: { meter: 2 } });
      const statuses = [];
      for (let attempt = 0; attempt < 4; attempt += 1) {
        const response = await request('/api/v1/devices/999/meter', keys.starter.key);
        statuses.push([response.status, response.headers.get('X-RateLimit-Remaining')]);
      }
      expect(statuses).toEqual([
        [403, '1'],
        [403, '0'],
        [403, '0'],
        [403, '0'],
      ]);
    });

    it('an over-limit request for a missing device is 429, not 404', async () => {
      const { request, keys } = await createFixture({ rateLimits: { hours: 1 } });
      expect((await request('/api/v1/devices/999/hours', keys.acme.key)).status).toBe(404);
      const response = await request('/api/v1/devices/999/hours', keys.acme.key);
      expect(response.status).toBe(429);
      expect(((await response.json()) as ErrorBody).error.code).toBe('rate_limited');
    });

    it('an over-limit request with a bad parameter or an unserved method is 429, not 400 or 405', async () => {
      const { request, keys } = await createFixture({ rateLimits: { hours: 1, daily: 1, meter: 1 } });
      expect((await request('/api/v1/devices/1/hours', keys.acme.key)).status).toBe(200);
      expect((await request('/api/v1/devices/1/hours?from=bad', keys.acme.key)).status).toBe(429);
      expect((await request('/api/v1/devices', keys.acme.key, { method: 'PUT' })).status).toBe(405);
      expect((await request('/api/v1/devices', keys.acme.key, { method: 'PUT' })).status).toBe(429);
    });
  });
});
