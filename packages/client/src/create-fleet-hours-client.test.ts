/**
 * P90, P92 (D57): the client's retries and page walks, through `createFleetHoursClient` with a
 * fetch that answers as the test says and records every request it was sent.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createFleetHoursClient, FleetHoursApiError, parseRetryAfter } from './index.js';

const BASE = 'https://fleet.test';
const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });
const refusal = (status: 429 | 503, headers: Record<string, string> = {}) =>
  json(status, { error: { status, code: status === 429 ? 'rate_limited' : 'service_unavailable', message: 'Wait' } }, headers);
const DEVICE = { id: 7, name: 'Loader', imei: '490154203237518', registration: null, model: 'FMC130', status: 'active' };
const DEVICE_BODY = { ...DEVICE, timezone: 'Europe/Berlin', last_reported_at: null, version: 'd-0123456789abcdef' };

/** A fetch that gives the answers in order (the last one again once they run out), recording each request. */
function scriptedFetch(...answers: (() => Response)[]) {
  const sent: { method: string; url: string; headers: Headers; body: string }[] = [];
  const fetch = vi.fn(async (request: Request) => {
    sent.push({ method: request.method, url: request.url, headers: request.headers, body: await request.text() });
    return answers[Math.min(sent.length, answers.length) - 1]!();
  });
  return { fetch, sent };
}

/** Whether a promise has settled, after the microtasks queued so far. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(
    () => (done = true),
    () => (done = true),
  );
  await vi.advanceTimersByTimeAsync(0);
  return done;
}

describe('retries of 429 and 503 (P90)', () => {
  beforeEach(() => vi.useFakeTimers({ now: Date.UTC(2026, 2, 12, 12) }));
  afterEach(() => vi.useRealTimers());

  it('a GET answered 503 with Retry-After: 2 is sent again after two seconds, and its answer is the call’s', async () => {
    const { fetch, sent } = scriptedFetch(
      () => refusal(503, { 'Retry-After': '2' }),
      () => json(200, { data: [DEVICE_BODY] }),
    );
    const client = createFleetHoursClient({ baseUrl: BASE, apiKey: 'fh_key', fetch });
    const call = client.GET('/api/v1/devices');
    expect(await settled(call)).toBe(false);
    await vi.advanceTimersByTimeAsync(1999);
    expect(sent).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    const { data, response } = await call;
    expect([response.status, data]).toEqual([200, { data: [DEVICE_BODY] }]);
    expect(sent.map((request) => `${request.method} ${request.url} ${request.headers.get('Authorization')}`)).toEqual([
      'GET https://fleet.test/api/v1/devices Bearer fh_key',
      'GET https://fleet.test/api/v1/devices Bearer fh_key',
    ]);
  });

  it('a 429 whose Retry-After is an HTTP date waits until that instant', async () => {
    const { fetch, sent } = scriptedFetch(
      () => refusal(429, { 'Retry-After': new Date(Date.now() + 5000).toUTCString() }),
      () => json(200, { data: [] }),
    );
    const call = createFleetHoursClient({ baseUrl: BASE, apiKey: 'fh_key', fetch }).HEAD('/api/v1/devices');
    await vi.advanceTimersByTimeAsync(4999);
    expect(sent).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect((await call).response.status).toBe(200);
    expect(sent.map((request) => request.method)).toEqual(['HEAD', 'HEAD']);
  });

  it('a POST carries an Idempotency-Key of its own, the same on every retry, with the same body', async () => {
    const { fetch, sent } = scriptedFetch(
      () => refusal(429, { 'Retry-After': '1' }),
      () => refusal(503, { 'Retry-After': '1' }),
      () => json(201, DEVICE_BODY),
    );
    const client = createFleetHoursClient({ baseUrl: BASE, apiKey: 'fh_key', fetch });
    const body = { name: 'Loader', imei: '490154203237518', model: 'FMC130', timezone: 'Europe/Berlin' };
    const call = client.POST('/api/v1/devices', { body });
    await vi.advanceTimersByTimeAsync(2000);
    expect((await call).data).toEqual(DEVICE_BODY);
    expect(sent).toHaveLength(3);
    const keys = sent.map((request) => request.headers.get('Idempotency-Key'));
    expect(keys[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(keys)).toEqual(new Set([keys[0]]));
    expect(sent.map((request) => JSON.parse(request.body))).toEqual([body, body, body]);

    // Another call is another request: another key. A key the caller gives is kept.
    const next = client.POST('/api/v1/devices', { body });
    await vi.advanceTimersByTimeAsync(0);
    await next;
    expect(sent[3]!.headers.get('Idempotency-Key')).not.toBe(keys[0]);
    await client.POST('/api/v1/devices', { body, headers: { 'Idempotency-Key': 'mine-1' } });
    expect(sent[4]!.headers.get('Idempotency-Key')).toBe('mine-1');
  });

  it('PATCH is never sent again, and carries no Idempotency-Key', async () => {
    const { fetch, sent } = scriptedFetch(() => refusal(503, { 'Retry-After': '1' }));
    const client = createFleetHoursClient({ baseUrl: BASE, apiKey: 'fh_key', fetch });
    const answer = await client.PATCH('/api/v1/devices/{id}', { params: { path: { id: 7 } }, body: { status: 'inactive' } });
    expect([answer.response.status, answer.error?.error.code]).toEqual([503, 'service_unavailable']);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.headers.has('Idempotency-Key')).toBe(false);
  });

  it('other failures are answered at once: 500, 400, 404', async () => {
    for (const status of [500, 400, 404]) {
      const { fetch, sent } = scriptedFetch(() => json(status, { error: { status, code: 'x', message: 'No' } }, { 'Retry-After': '1' }));
      const answer = await createFleetHoursClient({ baseUrl: BASE, apiKey: 'fh_key', fetch }).GET('/api/v1/devices');
      expect([answer.response.status, sent.length]).toEqual([status, 1]);
    }
  });

  it('a Retry-After beyond maxDelaySeconds is answered at once, not waited on or retried early', async () => {
    const { fetch, sent } = scriptedFetch(
      () => refusal(429, { 'Retry-After': '61' }),
      () => json(200, { data: [] }),
    );
    const answer = await createFleetHoursClient({ baseUrl: BASE, apiKey: 'fh_key', fetch }).GET('/api/v1/devices');
    expect([answer.response.status, answer.error?.error.code, sent.length]).toEqual([429, 'rate_limited', 1]);
    const capped = scriptedFetch(() => refusal(503, { 'Retry-After': '3' }));
    const client = createFleetHoursClient({ baseUrl: BASE, apiKey: 'fh_key', fetch: capped.fetch, retries: { maxDelaySeconds: 2 } });
    expect((await client.GET('/api/v1/devices')).response.status).toBe(503);
    expect(capped.sent).toHaveLength(1);
  });

  it('gives up after the retries: 3 by default, as many as `retries` says, none with 0', async () => {
    for (const [retries, attempts] of [
      [undefined, 4],
      [1, 2],
      [0, 1],
    ] as const) {
      const { fetch, sent } = scriptedFetch(() => refusal(503, { 'Retry-After': '1' }));
      const call = createFleetHoursClient({ baseUrl: BASE, apiKey: 'fh_key', fetch, ...(retries === undefined ? {} : { retries }) }).GET(
        '/api/v1/devices',
      );
      await vi.advanceTimersByTimeAsync(10_000);
      expect([(await call).response.status, sent.length]).toEqual([503, attempts]);
    }
  });

  it('without a readable Retry-After it waits 1, then 2 seconds', async () => {
    const { fetch, sent } = scriptedFetch(
      () => refusal(503),
      () => refusal(503, { 'Retry-After': 'later' }),
      () => json(200, { data: [] }),
    );
    const call = createFleetHoursClient({ baseUrl: BASE, apiKey: 'fh_key', fetch }).GET('/api/v1/devices');
    await vi.advanceTimersByTimeAsync(999);
    expect(sent).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(sent).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1999);
    expect(sent).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect((await call).response.status).toBe(200);
  });

  it('an aborted call stops waiting and rejects with the abort reason', async () => {
    const { fetch, sent } = scriptedFetch(() => refusal(503, { 'Retry-After': '30' }));
    const controller = new AbortController();
    const call = createFleetHoursClient({ baseUrl: BASE, apiKey: 'fh_key', fetch }).GET('/api/v1/devices', { signal: controller.signal });
    const outcome = call.then(
      () => 'resolved',
      (error: unknown) => error,
    );
    await vi.advanceTimersByTimeAsync(1000);
    controller.abort(new Error('Stop'));
    expect(await outcome).toEqual(new Error('Stop'));
    expect(sent).toHaveLength(1);
  });

  it('refuses retry options that are not whole numbers ≥ 0', () => {
    expect(() => createFleetHoursClient({ baseUrl: BASE, apiKey: 'k', retries: -1 })).toThrow(
      new RangeError('retries.limit must be a whole number ≥ 0: got "-1"'),
    );
    expect(() => createFleetHoursClient({ baseUrl: BASE, apiKey: 'k', retries: { maxDelaySeconds: 0.5 } })).toThrow(RangeError);
  });

  it('parseRetryAfter reads seconds and HTTP dates, and nothing else', () => {
    expect(parseRetryAfter('120', 0)).toBe(120);
    expect(parseRetryAfter(' 0 ', 0)).toBe(0);
    expect(parseRetryAfter('Thu, 01 Jan 1970 00:01:00 GMT', 0)).toBe(60);
    expect(parseRetryAfter('Thu, 01 Jan 1970 00:01:00 GMT', 120_000)).toBe(0);
    expect([parseRetryAfter(null, 0), parseRetryAfter('', 0), parseRetryAfter('-5', 0), parseRetryAfter('1.5', 0)]).toEqual([
      null,
      null,
      null,
      null,
    ]);
  });
});

describe('page walks (P92)', () => {
  const page = (ids: number[], next: string | null) => ({
    data: ids.map((id) => ({ device_id: id, timezone: 'UTC', as_of: '2026-03-12T12:00:00Z', engine_seconds: id })),
    next_cursor: next,
  });

  it('pages() follows next_cursor until it is null, keeping the query; items() yields every element', async () => {
    const { fetch, sent } = scriptedFetch(
      () => json(200, page([1, 2], 'c1')),
      () => json(200, page([3, 4], 'c2')),
      () => json(200, page([5], null)),
    );
    const client = createFleetHoursClient({ baseUrl: BASE, apiKey: 'fh_key', fetch });
    const pages = [];
    for await (const fleetPage of client.pages('/api/v1/meter', { params: { query: { limit: 2 } } })) pages.push(fleetPage);
    expect(pages.map((fleetPage) => fleetPage.data.map((meter) => meter.device_id))).toEqual([[1, 2], [3, 4], [5]]);
    expect(sent.map((request) => request.url)).toEqual([
      `${BASE}/api/v1/meter?limit=2`,
      `${BASE}/api/v1/meter?limit=2&cursor=c1`,
      `${BASE}/api/v1/meter?limit=2&cursor=c2`,
    ]);

    const again = scriptedFetch(
      () => json(200, page([1, 2], 'c1')),
      () => json(200, page([3], null)),
    );
    const ids = [];
    for await (const meter of createFleetHoursClient({ baseUrl: BASE, apiKey: 'k', fetch: again.fetch }).items('/api/v1/meter')) {
      ids.push(meter.device_id);
    }
    expect(ids).toEqual([1, 2, 3]);
  });

  it('a cursor given starts the walk there; stopping early sends no further request', async () => {
    const { fetch, sent } = scriptedFetch(() => json(200, page([3, 4], 'c2')));
    const client = createFleetHoursClient({ baseUrl: BASE, apiKey: 'fh_key', fetch });
    for await (const meter of client.items('/api/v1/meter', { params: { query: { cursor: 'c1' } } })) {
      expect(meter.device_id).toBe(3);
      break;
    }
    expect(sent.map((request) => request.url)).toEqual([`${BASE}/api/v1/meter?cursor=c1`]);
  });

  it('a refused page throws FleetHoursApiError with the status, code and body', async () => {
    const body = { error: { status: 400, code: 'invalid_parameter', message: 'cursor is not a cursor of this endpoint' } };
    const { fetch } = scriptedFetch(
      () => json(200, page([1], 'c1')),
      () => json(400, body),
    );
    const walk = createFleetHoursClient({ baseUrl: BASE, apiKey: 'fh_key', fetch }).pages('/api/v1/meter');
    expect((await walk.next()).value).toEqual(page([1], 'c1'));
    const error = await walk.next().catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(FleetHoursApiError);
    expect(error).toMatchObject({
      name: 'FleetHoursApiError',
      status: 400,
      code: 'invalid_parameter',
      body,
      message: '400 invalid_parameter: cursor is not a cursor of this endpoint',
    });
  });
});
