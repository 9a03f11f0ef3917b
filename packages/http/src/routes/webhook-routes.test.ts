import { describe, expect, it } from 'vitest';
import { fingerprintApiKey, type ChangeReport, type SendWebhookEvent } from '@fleet-hours/core';
import { createFixture, type FixtureOptions } from '../testing/fixture.js';

const JSON_TYPE = { 'Content-Type': 'application/json' };
const URL_A = 'https://ops.example.com/hooks';

type Fixture = Awaited<ReturnType<typeof createFixture>>;
type Body = Record<string, unknown> & { id: number };
interface ErrorJson {
  error: { status: number; code: string; message: string; field?: string; scope?: string };
}

/** A fixture whose change log is recorded (D55). */
async function fixtureWithLog(options: FixtureOptions = {}) {
  const changes: ChangeReport[] = [];
  const fixture = await createFixture({ changeLog: { record: async (change) => void changes.push(change) }, ...options });
  return { ...fixture, changes };
}

function send(fixture: Fixture, method: string, path: string, key: string | null, body?: unknown, headers: Record<string, string> = {}) {
  return fixture.request(path, key, {
    method,
    headers: { ...(body === undefined ? {} : JSON_TYPE), ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
}

async function createEndpoint(fixture: Fixture, key = fixture.keys.acmeManage.key, body: unknown = { url: URL_A }) {
  const response = await send(fixture, 'POST', '/api/v1/webhooks', key, body);
  expect(response.status).toBe(201);
  return { response, body: (await response.json()) as Body & { secret: string } };
}

describe('webhook endpoints over the API (D41, D52, P80)', () => {
  it('POST creates an enabled endpoint: 201, Location, ETag, the secret this once; GET never shows it again', async () => {
    const fixture = await fixtureWithLog();
    const { response, body } = await createEndpoint(fixture, fixture.keys.acmeManage.key, {
      url: URL_A,
      event_types: ['device.silent', 'service.overdue'],
    });
    expect(body).toEqual({
      id: expect.any(Number),
      url: URL_A,
      event_types: ['service.overdue', 'device.silent'],
      enabled: true,
      description: null,
      disabled_reason: null,
      disabled_at: null,
      failing_since: null,
      previous_secret_expires_at: null,
      created_at: '2026-12-01T12:00:15Z',
      version: expect.stringMatching(/^w-[0-9a-f]{16}$/),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    expect(response.headers.get('Location')).toBe(`/api/v1/webhooks/${body.id}`);
    expect(response.headers.get('ETag')).toBe(`"${body.version}"`);
    const stored = await fixture.store.findWebhookEndpoint({ endpointId: body.id });
    expect(stored?.secret).toBe(body.secret);

    const one = await fixture.request(`/api/v1/webhooks/${body.id}`, fixture.keys.acmeManage.key);
    const list = await fixture.request('/api/v1/webhooks', fixture.keys.acmeManage.key);
    const oneText = await one.text();
    const listText = await list.text();
    const { secret: _secret, ...shown } = body;
    expect(JSON.parse(oneText)).toEqual(shown);
    expect(JSON.parse(listText)).toEqual({ data: [shown] });
    expect(one.headers.get('ETag')).toBe(response.headers.get('ETag'));
    for (const text of [oneText, listText]) expect(text).not.toContain(body.secret.slice(6, 30));
    // D11: another account sees none of it.
    expect(await (await fixture.request('/api/v1/webhooks', fixture.keys.otherManage.key)).json()).toEqual({ data: [] });
  });

  it('D55: each write is reported with the key and the request, and the secret never reaches the change log', async () => {
    const fixture = await fixtureWithLog();
    const { body } = await createEndpoint(fixture);
    await send(
      fixture,
      'PATCH',
      `/api/v1/webhooks/${body.id}`,
      fixture.keys.acmeManage.key,
      { enabled: false },
      { 'X-Request-Id': 'req-7' },
    );
    const rotated = (await (await send(fixture, 'POST', `/api/v1/webhooks/${body.id}/rotate`, fixture.keys.acmeManage.key)).json()) as {
      secret: string;
    };
    await send(fixture, 'DELETE', `/api/v1/webhooks/${body.id}`, fixture.keys.acmeManage.key);
    expect(fixture.changes.map((change) => change.action)).toEqual([
      'webhook.create',
      'webhook.update',
      'webhook.rotate',
      'webhook.delete',
    ]);
    const prefix = (await fingerprintApiKey(fixture.keys.acmeManage.key)).slice(0, 8);
    for (const change of fixture.changes) {
      expect(change).toMatchObject({
        accountId: fixture.accounts.acme.id,
        origin: { actor: { kind: 'api_key', fingerprintPrefix: prefix } },
        resource: { type: 'webhook', id: String(body.id) },
        secretFields: ['secret'],
      });
    }
    expect(fixture.changes[1]).toMatchObject({
      origin: { requestId: 'req-7' },
      before: { enabled: true },
      after: { enabled: false, disabled_reason: 'operator' },
    });
    expect(fixture.changes[0]?.after).toMatchObject({ secret: '[redacted]' });
    const logged = JSON.stringify(fixture.changes);
    expect(logged).not.toContain(body.secret.slice(6, 30));
    expect(logged).not.toContain(rotated.secret.slice(6, 30));
  });

  it.each([
    [{ url: 'http://ops.example.com/hooks' }, 'url'],
    [{ url: 'https://user:pw@ops.example.com/hooks' }, 'url'],
    [{ url: 'not a url' }, 'url'],
    [{ url: 7 }, 'url'],
    [{}, 'url'],
    [{ url: URL_A, event_types: ['webhook.test'] }, 'event_types'],
    [{ url: URL_A, event_types: 'device.silent' }, 'event_types'],
    [{ url: URL_A, enabled: false }, 'enabled'],
    [{ url: URL_A, description: 'x'.repeat(201) }, 'description'],
    [{ url: URL_A, secret: 'whsec_x' }, 'secret'],
  ])('POST refuses %j with 400 invalid_field naming %s, and creates nothing', async (body, field) => {
    const fixture = await createFixture();
    const response = await send(fixture, 'POST', '/api/v1/webhooks', fixture.keys.acmeManage.key, body);
    expect(response.status).toBe(400);
    expect(((await response.json()) as ErrorJson).error).toMatchObject({ code: 'invalid_field', field });
    expect(await fixture.store.listWebhookEndpoints({ accountId: fixture.accounts.acme.id })).toEqual([]);
  });

  it('POST refuses a body that is not JSON (400) or not sent as JSON (415)', async () => {
    const fixture = await createFixture();
    expect((await send(fixture, 'POST', '/api/v1/webhooks', fixture.keys.acmeManage.key, '{"url":')).status).toBe(400);
    const typed = await fixture.request('/api/v1/webhooks', fixture.keys.acmeManage.key, {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain' },
      body: JSON.stringify({ url: URL_A }),
    });
    expect(typed.status).toBe(415);
  });

  it('D51: a read key is refused with 403 insufficient_scope on every webhook and token route, reads included', async () => {
    const fixture = await createFixture();
    const { body } = await createEndpoint(fixture);
    const key = fixture.keys.acme.key;
    for (const [method, path, payload] of [
      ['GET', '/api/v1/webhooks'],
      ['POST', '/api/v1/webhooks', { url: URL_A }],
      ['GET', `/api/v1/webhooks/${body.id}`],
      ['PATCH', `/api/v1/webhooks/${body.id}`, { enabled: false }],
      ['DELETE', `/api/v1/webhooks/${body.id}`],
      ['POST', `/api/v1/webhooks/${body.id}/rotate`],
      ['POST', `/api/v1/webhooks/${body.id}/test`],
      ['GET', `/api/v1/webhooks/${body.id}/deliveries`],
      ['POST', '/api/v1/events/evt_1/replay'],
      ['GET', '/api/v1/ingest-tokens'],
      ['POST', '/api/v1/ingest-tokens', {}],
      ['DELETE', '/api/v1/ingest-tokens/1'],
    ] as const) {
      const response = await send(fixture, method, path, key, payload);
      expect([method, path, response.status]).toEqual([method, path, 403]);
      expect(((await response.json()) as ErrorJson).error).toMatchObject({ code: 'insufficient_scope', scope: 'manage' });
    }
    const stored = await fixture.store.findWebhookEndpoint({ endpointId: body.id });
    expect(stored?.enabled).toBe(true);
  });

  it("D11: another account's endpoint is 404 on every route, byte for byte as a missing one, and is left as it was", async () => {
    const fixture = await createFixture();
    const { body } = await createEndpoint(fixture);
    const before = await fixture.store.findWebhookEndpoint({ endpointId: body.id });
    for (const [method, suffix, payload] of [
      ['GET', ''],
      ['PATCH', '', { enabled: false }],
      ['DELETE', ''],
      ['POST', '/rotate'],
      ['GET', '/deliveries'],
    ] as const) {
      const theirs = await send(fixture, method, `/api/v1/webhooks/${body.id}${suffix}`, fixture.keys.otherManage.key, payload);
      const missing = await send(fixture, method, `/api/v1/webhooks/999999${suffix}`, fixture.keys.otherManage.key, payload);
      const garbage = await send(fixture, method, `/api/v1/webhooks/x1${suffix}`, fixture.keys.otherManage.key, payload);
      expect([theirs.status, missing.status, garbage.status]).toEqual([404, 404, 404]);
      const text = await theirs.text();
      expect(await missing.text()).toBe(text);
      expect(await garbage.text()).toBe(text);
      expect(JSON.parse(text)).toEqual({ error: { status: 404, code: 'not_found', message: 'No such webhook endpoint on this account' } });
    }
    expect(await fixture.store.findWebhookEndpoint({ endpointId: body.id })).toEqual(before);
  });

  it('PATCH changes the fields given; a new ETag; enabling clears why it was disabled', async () => {
    const fixture = await createFixture();
    const { response, body } = await createEndpoint(fixture);
    const changed = await send(fixture, 'PATCH', `/api/v1/webhooks/${body.id}`, fixture.keys.acmeManage.key, {
      url: 'https://other.example/x',
      event_types: ['device.reporting'],
      enabled: false,
    });
    expect(changed.status).toBe(200);
    expect(await changed.json()).toMatchObject({
      url: 'https://other.example/x',
      event_types: ['device.reporting'],
      enabled: false,
      disabled_reason: 'operator',
      disabled_at: '2026-12-01T12:00:15Z',
    });
    expect(changed.headers.get('ETag')).not.toBe(response.headers.get('ETag'));
    const enabled = await send(fixture, 'PATCH', `/api/v1/webhooks/${body.id}`, fixture.keys.acmeManage.key, { enabled: true });
    expect(await enabled.json()).toMatchObject({ enabled: true, disabled_reason: null, disabled_at: null });
    for (const [payload, field] of [
      [{ enabled: 'yes' }, 'enabled'],
      [{ secret: 'whsec_x' }, 'secret'],
      [{ url: 'ftp://x.example/' }, 'url'],
    ] as const) {
      const refused = await send(fixture, 'PATCH', `/api/v1/webhooks/${body.id}`, fixture.keys.acmeManage.key, payload);
      expect(((await refused.json()) as ErrorJson).error).toMatchObject({ status: 400, code: 'invalid_field', field });
    }
    const empty = await send(fixture, 'PATCH', `/api/v1/webhooks/${body.id}`, fixture.keys.acmeManage.key, {});
    expect(((await empty.json()) as ErrorJson).error.code).toBe('invalid_body');
    // P71: the fields are checked first, also on an id no endpoint has.
    const first = await send(fixture, 'PATCH', '/api/v1/webhooks/x', fixture.keys.acmeManage.key, { enabled: 'yes' });
    expect(first.status).toBe(400);
  });

  it('P99: a description is written by POST and PATCH, shown by every answer, versioned and audited', async () => {
    const fixture = await fixtureWithLog();
    const { response, body } = await createEndpoint(fixture, fixture.keys.acmeManage.key, { url: URL_A, description: ' Dispatch board ' });
    expect([body.description, response.headers.get('ETag')]).toEqual(['Dispatch board', `"${body.version}"`]);
    const one = (await (await fixture.request(`/api/v1/webhooks/${body.id}`, fixture.keys.acmeManage.key)).json()) as Body;
    const list = (await (await fixture.request('/api/v1/webhooks', fixture.keys.acmeManage.key)).json()) as { data: Body[] };
    expect([one.description, list.data[0]?.description, list.data[0]?.version]).toEqual(['Dispatch board', 'Dispatch board', body.version]);
    const patch = (fields: unknown, ifMatch?: string) =>
      send(fixture, 'PATCH', `/api/v1/webhooks/${body.id}`, fixture.keys.acmeManage.key, fields, ifMatch ? { 'If-Match': ifMatch } : {});
    const patched = await patch({ description: 'Night shift' }, `"${body.version}"`);
    const changed = (await patched.json()) as Body;
    expect([patched.status, changed.description, changed.url]).toEqual([200, 'Night shift', URL_A]);
    expect(changed.version).not.toBe(body.version);
    expect(patched.headers.get('ETag')).toBe(`"${changed.version}"`);
    expect(fixture.changes.at(-1)).toMatchObject({
      action: 'webhook.update',
      before: { description: 'Dispatch board' },
      after: { description: 'Night shift' },
    });
    // D54: the version read before the description changed is stale.
    expect((await patch({ description: null }, `"${body.version}"`)).status).toBe(412);
    for (const none of [null, '']) {
      const cleared = await patch({ description: none });
      expect(((await cleared.json()) as Body).description).toBeNull();
    }
    for (const bad of [7, ['x'], 'Yard\u001b[2J', 'Yard\u202eexe', 'x'.repeat(201)]) {
      for (const [method, path, extra] of [
        ['POST', '/api/v1/webhooks', { url: URL_A }],
        ['PATCH', `/api/v1/webhooks/${body.id}`, {}],
      ] as const) {
        const refused = await send(fixture, method, path, fixture.keys.acmeManage.key, { ...extra, description: bad });
        expect([refused.status, ((await refused.json()) as ErrorJson).error]).toEqual([
          400,
          expect.objectContaining({ code: 'invalid_field', field: 'description' }),
        ]);
      }
    }
    expect(await fixture.store.listWebhookEndpoints({ accountId: fixture.accounts.acme.id })).toHaveLength(1);
  });

  it('D54, P81: PATCH and DELETE with a stale If-Match are 412 and change nothing; with the current tag they apply', async () => {
    const fixture = await createFixture();
    const { response, body } = await createEndpoint(fixture);
    const first = response.headers.get('ETag')!;
    const patched = await send(
      fixture,
      'PATCH',
      `/api/v1/webhooks/${body.id}`,
      fixture.keys.acmeManage.key,
      { enabled: false },
      { 'If-Match': first },
    );
    expect(patched.status).toBe(200);
    const second = patched.headers.get('ETag')!;
    const stale = await send(
      fixture,
      'PATCH',
      `/api/v1/webhooks/${body.id}`,
      fixture.keys.acmeManage.key,
      { enabled: true },
      { 'If-Match': first },
    );
    expect([stale.status, ((await stale.json()) as ErrorJson).error.code]).toEqual([412, 'precondition_failed']);
    expect((await fixture.store.findWebhookEndpoint({ endpointId: body.id }))?.enabled).toBe(false);
    // A rotation is a new version too.
    await send(fixture, 'POST', `/api/v1/webhooks/${body.id}/rotate`, fixture.keys.acmeManage.key);
    const afterRotation = await send(fixture, 'DELETE', `/api/v1/webhooks/${body.id}`, fixture.keys.acmeManage.key, undefined, {
      'If-Match': second,
    });
    expect(afterRotation.status).toBe(412);
    const current = (await fixture.request(`/api/v1/webhooks/${body.id}`, fixture.keys.acmeManage.key)).headers.get('ETag')!;
    const removed = await send(fixture, 'DELETE', `/api/v1/webhooks/${body.id}`, fixture.keys.acmeManage.key, undefined, {
      'If-Match': `"w-0000000000000000", ${current}`,
    });
    expect(removed.status).toBe(204);
    expect(await removed.text()).toBe('');
    expect((await fixture.request(`/api/v1/webhooks/${body.id}`, fixture.keys.acmeManage.key)).status).toBe(404);
    expect((await send(fixture, 'DELETE', `/api/v1/webhooks/${body.id}`, fixture.keys.acmeManage.key)).status).toBe(404);
  });

  it('D54, P81: three PATCHes at once with one tag: one 200, two 412', async () => {
    const fixture = await createFixture();
    const { response, body } = await createEndpoint(fixture);
    const tag = response.headers.get('ETag')!;
    const statuses = await Promise.all(
      ['https://one.example/', 'https://two.example/', 'https://three.example/'].map(
        async (url) =>
          (await send(fixture, 'PATCH', `/api/v1/webhooks/${body.id}`, fixture.keys.acmeManage.key, { url }, { 'If-Match': tag })).status,
      ),
    );
    expect(statuses.sort()).toEqual([200, 412, 412]);
  });

  it('D41: a rotation answers the new secret this once; both secrets sign for 24 hours; GET shows neither', async () => {
    const fixture = await createFixture();
    const { body } = await createEndpoint(fixture);
    const response = await send(fixture, 'POST', `/api/v1/webhooks/${body.id}/rotate`, fixture.keys.acmeManage.key);
    expect(response.status).toBe(200);
    const rotated = (await response.json()) as Body & { secret: string };
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(body.secret);
    expect(rotated.previous_secret_expires_at).toBe('2026-12-02T12:00:15Z');
    const stored = await fixture.store.findWebhookEndpoint({ endpointId: body.id });
    expect([stored?.secret, stored?.previousSecret]).toEqual([rotated.secret, body.secret]);
    const shown = await (await fixture.request(`/api/v1/webhooks/${body.id}`, fixture.keys.acmeManage.key)).text();
    expect(shown).not.toContain('secret"');
    expect(JSON.parse(shown)).toMatchObject({ previous_secret_expires_at: '2026-12-02T12:00:15Z' });
  });
});

describe('secrets and Idempotency-Key (D53, P80)', () => {
  it('an answer given again for a key has the secret or token null, and no secret is kept for the key', async () => {
    const fixture = await createFixture();
    const key = fixture.keys.acmeManage.key;
    const once = { 'Idempotency-Key': 'hook-1' };
    const first = await send(fixture, 'POST', '/api/v1/webhooks', key, { url: URL_A }, once);
    const again = await send(fixture, 'POST', '/api/v1/webhooks', key, { url: URL_A }, once);
    const created = (await first.json()) as Body & { secret: string };
    expect(created.secret).toMatch(/^whsec_/);
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
    expect(await again.json()).toEqual({ ...created, secret: null });
    const rotated = (await (
      await send(fixture, 'POST', `/api/v1/webhooks/${created.id}/rotate`, key, undefined, { 'Idempotency-Key': 'rot-1' })
    ).json()) as {
      secret: string;
    };
    const rotatedAgain = (await (
      await send(fixture, 'POST', `/api/v1/webhooks/${created.id}/rotate`, key, undefined, { 'Idempotency-Key': 'rot-1' })
    ).json()) as {
      secret: string | null;
    };
    expect([typeof rotated.secret, rotatedAgain.secret]).toEqual(['string', null]);
    const token = (await (await send(fixture, 'POST', '/api/v1/ingest-tokens', key, {}, { 'Idempotency-Key': 'tok-1' })).json()) as {
      token: string;
    };
    const tokenAgain = (await (await send(fixture, 'POST', '/api/v1/ingest-tokens', key, {}, { 'Idempotency-Key': 'tok-1' })).json()) as {
      token: string | null;
    };
    expect([typeof token.token, tokenAgain.token]).toEqual(['string', null]);
    const accountId = fixture.accounts.acme.id;
    const kept = JSON.stringify(
      await Promise.all(
        ['hook-1', 'rot-1', 'tok-1'].map((idempotencyKey) => fixture.store.findIdempotencyKey({ accountId, key: idempotencyKey })),
      ),
    );
    expect(kept).toContain('"status":201');
    for (const secret of [created.secret, rotated.secret, token.token]) expect(kept).not.toContain(secret.slice(6, 30));
  });
});

describe('POST /api/v1/webhooks/{id}/test (D41, P83)', () => {
  it('without a sender the app answers 503 service_unavailable (a 5xx tells no more, D16), and raises no event', async () => {
    const fixture = await createFixture();
    const { body } = await createEndpoint(fixture);
    const response = await send(fixture, 'POST', `/api/v1/webhooks/${body.id}/test`, fixture.keys.acmeManage.key);
    expect(response.status).toBe(503);
    expect(((await response.json()) as ErrorJson).error.code).toBe('service_unavailable');
    expect(await fixture.store.webhookBacklog()).toEqual({ pending: 0, oldestRaisedAt: null });
  });

  it('puts a webhook.test event for that endpoint alone in the outbox and answers the attempt the sender made', async () => {
    const sent: string[] = [];
    let store: Fixture['store'] | undefined;
    // The sender is the server's I/O: here it claims the event as a sender would and answers 500.
    const sendWebhookEvent: SendWebhookEvent = async ({ eventId }) => {
      sent.push(eventId);
      const claimed = await store!.claimDeliveries({ claimant: 't', eventId, limit: 10, leaseSeconds: 30, now: 1_796_126_415 });
      expect(claimed.map((one) => [one.event.type, one.endpoint.url])).toEqual([['webhook.test', URL_A]]);
      return { status: 500, durationMs: 12, error: 'answered 500' };
    };
    const fixture = await fixtureWithLog({ sendWebhookEvent });
    store = fixture.store;
    const { body } = await createEndpoint(fixture);
    await createEndpoint(fixture, fixture.keys.acmeManage.key, { url: 'https://second.example/' });
    const response = await send(fixture, 'POST', `/api/v1/webhooks/${body.id}/test`, fixture.keys.acmeManage.key);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      event_id: sent[0],
      endpoint_id: body.id,
      sent: true,
      status: 500,
      duration_ms: 12,
      error: 'answered 500',
      delivered: false,
    });
    expect(sent[0]).toMatch(new RegExp(`^evt_test_e${body.id}_[0-9a-f]{32}$`));
    expect(fixture.changes.at(-1)?.action).toBe('webhook.test');
  });

  it('a disabled endpoint is 409 conflict and nothing is sent; another account’s is 404', async () => {
    const sent: string[] = [];
    const fixture = await createFixture({
      sendWebhookEvent: async ({ eventId }) => {
        sent.push(eventId);
        return { status: 200, durationMs: 1, error: null };
      },
    });
    const { body } = await createEndpoint(fixture);
    expect((await send(fixture, 'POST', `/api/v1/webhooks/${body.id}/test`, fixture.keys.otherManage.key)).status).toBe(404);
    await send(fixture, 'PATCH', `/api/v1/webhooks/${body.id}`, fixture.keys.acmeManage.key, { enabled: false });
    const response = await send(fixture, 'POST', `/api/v1/webhooks/${body.id}/test`, fixture.keys.acmeManage.key);
    expect([response.status, ((await response.json()) as ErrorJson).error.code]).toEqual([409, 'conflict']);
    expect(sent).toEqual([]);
  });
});

describe('deliveries and replays over the API (D41, P82)', () => {
  /** An endpoint with `count` failed attempts, one event each, a second apart. */
  async function withAttempts(fixture: Fixture, count: number) {
    const { body } = await createEndpoint(fixture);
    const accountId = fixture.accounts.acme.id;
    const base = 1_796_126_415;
    for (let index = 0; index < count; index += 1) {
      const id = `evt_${index}`;
      await fixture.store.raiseEvents({
        events: [{ id, accountId, type: 'device.silent', deviceId: null, body: '{}', raisedAt: base }],
        now: base + index,
      });
      const [claimed] = await fixture.store.claimDeliveries({ claimant: 't', eventId: id, limit: 1, leaseSeconds: 30, now: base + index });
      await fixture.store.recordWebhookAttempt({
        deliveryId: claimed!.delivery.id,
        claimant: 't',
        attempt: { attemptedAt: base + index, status: 500, durationMs: 5, error: 'answered 500', retryAfterSeconds: null },
        retrySchedule: [],
      });
    }
    return body;
  }

  it('lists attempts newest first, a page at a time, each cursor leading to the next page', async () => {
    const fixture = await createFixture();
    const endpoint = await withAttempts(fixture, 5);
    const seen: string[] = [];
    let path = `/api/v1/webhooks/${endpoint.id}/deliveries?limit=2`;
    for (let pages = 0; pages < 5; pages += 1) {
      const page = (await (await fixture.request(path, fixture.keys.acmeManage.key)).json()) as {
        data: { event_id: string; status: number; error: string }[];
        next_cursor: string | null;
      };
      seen.push(...page.data.map((attempt) => attempt.event_id));
      if (page.next_cursor === null) break;
      path = `/api/v1/webhooks/${endpoint.id}/deliveries?limit=2&cursor=${page.next_cursor}`;
    }
    expect(seen).toEqual(['evt_4', 'evt_3', 'evt_2', 'evt_1', 'evt_0']);
    const first = (await (await fixture.request(`/api/v1/webhooks/${endpoint.id}/deliveries`, fixture.keys.acmeManage.key)).json()) as {
      data: unknown[];
    };
    expect(first.data[0]).toEqual({
      id: expect.any(Number),
      event_id: 'evt_4',
      event_type: 'device.silent',
      attempted_at: '2026-12-01T12:00:19Z',
      status: 500,
      duration_ms: 5,
      error: 'answered 500',
    });
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=1001', 'limit'],
    ['limit=x', 'limit'],
    ['cursor=nope', 'cursor'],
    ['failed=yes', 'failed'],
    ['colour=red', 'colour'],
  ])('refuses ?%s with 400 invalid_parameter', async (query, name) => {
    const fixture = await createFixture();
    const endpoint = await withAttempts(fixture, 1);
    const response = await fixture.request(`/api/v1/webhooks/${endpoint.id}/deliveries?${query}`, fixture.keys.acmeManage.key);
    expect(response.status).toBe(400);
    const error = ((await response.json()) as ErrorJson).error;
    expect(error.code).toBe('invalid_parameter');
    expect(error.message).toContain(name);
  });

  it("a cursor of another endpoint's list is refused", async () => {
    const fixture = await createFixture();
    const endpoint = await withAttempts(fixture, 3);
    const { body: other } = await createEndpoint(fixture);
    const page = (await (
      await fixture.request(`/api/v1/webhooks/${endpoint.id}/deliveries?limit=1`, fixture.keys.acmeManage.key)
    ).json()) as {
      next_cursor: string;
    };
    const response = await fixture.request(
      `/api/v1/webhooks/${other.id}/deliveries?cursor=${page.next_cursor}`,
      fixture.keys.acmeManage.key,
    );
    expect(response.status).toBe(400);
  });

  it("POST /events/{event_id}/replay makes the account's event pending again: 202; another account's or a missing event is 404", async () => {
    const fixture = await fixtureWithLog();
    await withAttempts(fixture, 1);
    const response = await send(fixture, 'POST', '/api/v1/events/evt_0/replay', fixture.keys.acmeManage.key);
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({
      event_id: 'evt_0',
      deliveries: [{ id: expect.any(Number), endpoint_id: expect.any(Number), state: 'pending' }],
    });
    expect(fixture.changes.at(-1)).toMatchObject({ action: 'event.replay', resource: { type: 'event', id: 'evt_0' } });
    const theirs = await send(fixture, 'POST', '/api/v1/events/evt_0/replay', fixture.keys.otherManage.key);
    const missing = await send(fixture, 'POST', '/api/v1/events/evt_none/replay', fixture.keys.otherManage.key);
    const bad = await send(fixture, 'POST', '/api/v1/events/%20x/replay', fixture.keys.otherManage.key);
    expect([theirs.status, missing.status, bad.status]).toEqual([404, 404, 404]);
    expect(await theirs.text()).toBe(await missing.text());
  });
});

describe('ingest tokens over the API (D24, P80)', () => {
  it('POST creates a token: 201, the token this once; it ingests; the list shows the start of its fingerprint only', async () => {
    const fixture = await fixtureWithLog();
    const response = await send(fixture, 'POST', '/api/v1/ingest-tokens', fixture.keys.acmeManage.key, {
      label: ' yard gateway ',
      expires_at: '2027-06-01T00:00:00+02:00',
    });
    expect(response.status).toBe(201);
    const created = (await response.json()) as Body & { token: string };
    const fingerprint = await fingerprintApiKey(created.token);
    expect(created).toEqual({
      id: expect.any(Number),
      label: 'yard gateway',
      fingerprint_prefix: fingerprint.slice(0, 8),
      state: 'active',
      created_at: '2026-12-01T12:00:15Z',
      expires_at: '2027-05-31T22:00:00Z',
      revoked_at: null,
      version: expect.stringMatching(/^t-[0-9a-f]{16}$/),
      token: expect.stringMatching(/^fhi_[A-Za-z0-9]{43}$/),
    });
    expect(response.headers.get('Location')).toBe(`/api/v1/ingest-tokens/${created.id}`);
    expect(response.headers.get('ETag')).toBe(`"${created.version}"`);
    expect((await fixture.fleetHours.authenticate(`Bearer ${created.token}`, 'ingest_token')).ok).toBe(true);
    const listText = await (await fixture.request('/api/v1/ingest-tokens', fixture.keys.acmeManage.key)).text();
    const { token: _token, ...shown } = created;
    expect(JSON.parse(listText)).toEqual({ data: [shown] });
    expect(listText).not.toContain(created.token.slice(4));
    expect(listText).not.toContain(fingerprint.slice(8, 40));
    expect(await (await fixture.request('/api/v1/ingest-tokens', fixture.keys.otherManage.key)).json()).toEqual({ data: [] });
    expect(fixture.changes).toHaveLength(1);
    expect(fixture.changes[0]).toMatchObject({ action: 'ingest_token.create', after: { token: '[redacted]' }, secretFields: ['token'] });
    expect(JSON.stringify(fixture.changes)).not.toContain(created.token.slice(4));
  });

  it.each([
    [{ label: 7 }, 'label'],
    [{ label: 'a\u0007b' }, 'label'],
    [{ label: 'x'.repeat(201) }, 'label'],
    [{ expires_at: 'tomorrow' }, 'expires_at'],
    [{ expires_at: '2027-01-01T00:00:00' }, 'expires_at'],
    [{ scope: 'manage' }, 'scope'],
  ])('POST refuses %j with 400 invalid_field naming %s', async (body, field) => {
    const fixture = await createFixture();
    const response = await send(fixture, 'POST', '/api/v1/ingest-tokens', fixture.keys.acmeManage.key, body);
    expect(response.status).toBe(400);
    expect(((await response.json()) as ErrorJson).error).toMatchObject({ code: 'invalid_field', field });
    expect(await fixture.store.listIngestTokens({ accountId: fixture.accounts.acme.id })).toEqual([]);
  });

  it("DELETE revokes: 204, refused from then on, again 204; another account's token is 404 and stays active", async () => {
    const fixture = await fixtureWithLog();
    const created = (await (await send(fixture, 'POST', '/api/v1/ingest-tokens', fixture.keys.acmeManage.key, {})).json()) as Body & {
      token: string;
    };
    const theirs = await send(fixture, 'DELETE', `/api/v1/ingest-tokens/${created.id}`, fixture.keys.otherManage.key);
    expect([theirs.status, await theirs.json()]).toEqual([
      404,
      { error: { status: 404, code: 'not_found', message: 'No such ingest token on this account' } },
    ]);
    expect((await fixture.fleetHours.authenticate(`Bearer ${created.token}`, 'ingest_token')).ok).toBe(true);
    const revoked = await send(fixture, 'DELETE', `/api/v1/ingest-tokens/${created.id}`, fixture.keys.acmeManage.key);
    expect(revoked.status).toBe(204);
    expect((await fixture.fleetHours.authenticate(`Bearer ${created.token}`, 'ingest_token')).ok).toBe(false);
    expect((await send(fixture, 'DELETE', `/api/v1/ingest-tokens/${created.id}`, fixture.keys.acmeManage.key)).status).toBe(204);
    const list = (await (await fixture.request('/api/v1/ingest-tokens', fixture.keys.acmeManage.key)).json()) as { data: Body[] };
    expect(list.data[0]).toMatchObject({ state: 'revoked', revoked_at: '2026-12-01T12:00:15Z' });
    // Revoked once: one change written down.
    expect(fixture.changes.map((change) => change.action)).toEqual(['ingest_token.create', 'ingest_token.revoke']);
    expect(fixture.changes[1]).toMatchObject({ before: { state: 'active', revoked_at: null }, after: { state: 'revoked' } });
    expect((await send(fixture, 'DELETE', '/api/v1/ingest-tokens/x', fixture.keys.acmeManage.key)).status).toBe(404);
  });

  it('D54, P100: DELETE with a stale If-Match is 412 precondition_failed and revokes nothing; with its ETag it revokes', async () => {
    const fixture = await fixtureWithLog();
    const response = await send(fixture, 'POST', '/api/v1/ingest-tokens', fixture.keys.acmeManage.key, { label: 'gate' });
    const created = (await response.json()) as Body & { token: string; version: string };
    const tag = response.headers.get('ETag')!;
    const stale = await send(fixture, 'DELETE', `/api/v1/ingest-tokens/${created.id}`, fixture.keys.acmeManage.key, undefined, {
      'If-Match': '"t-0000000000000000"',
    });
    expect([stale.status, ((await stale.json()) as ErrorJson).error.code]).toEqual([412, 'precondition_failed']);
    expect((await fixture.fleetHours.authenticate(`Bearer ${created.token}`, 'ingest_token')).ok).toBe(true);
    expect(fixture.changes.map((change) => change.action)).toEqual(['ingest_token.create']);
    // Another account's token is 404 before its version is compared (D11).
    const theirs = await send(fixture, 'DELETE', `/api/v1/ingest-tokens/${created.id}`, fixture.keys.otherManage.key, undefined, {
      'If-Match': tag,
    });
    expect(theirs.status).toBe(404);
    const revoked = await send(fixture, 'DELETE', `/api/v1/ingest-tokens/${created.id}`, fixture.keys.acmeManage.key, undefined, {
      'If-Match': tag,
    });
    expect(revoked.status).toBe(204);
    expect((await fixture.fleetHours.authenticate(`Bearer ${created.token}`, 'ingest_token')).ok).toBe(false);
    const list = (await (await fixture.request('/api/v1/ingest-tokens', fixture.keys.acmeManage.key)).json()) as { data: Body[] };
    expect(list.data[0]?.version).toMatch(/^t-[0-9a-f]{16}$/);
    expect(list.data[0]?.version).not.toBe(created.version);
    // The tag of the token before its revocation names it no more; the list's names it.
    const again = await send(fixture, 'DELETE', `/api/v1/ingest-tokens/${created.id}`, fixture.keys.acmeManage.key, undefined, {
      'If-Match': tag,
    });
    expect(again.status).toBe(412);
    const current = await send(fixture, 'DELETE', `/api/v1/ingest-tokens/${created.id}`, fixture.keys.acmeManage.key, undefined, {
      'If-Match': `"${list.data[0]?.version}"`,
    });
    expect(current.status).toBe(204);
  });
});
