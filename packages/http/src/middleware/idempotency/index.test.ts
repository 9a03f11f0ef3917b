import {
  IDEMPOTENCY_LEASE_SECONDS,
  IDEMPOTENCY_KEY_WINDOW_SECONDS,
  StorageUnavailableError,
  type FleetHoursStore,
} from '@fleet-hours/core';
import { createFleetHours, createMemoryStore } from '@fleet-hours/core';
import type { Admission } from '@fleet-hours/core/adapter';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { FleetHoursEnv } from '../../app-env.js';
import { createFixture, type Fixture } from '../../testing/fixture.js';
import { idempotency } from './index.js';

const JSON_TYPE = { 'Content-Type': 'application/json' };
const START = Date.UTC(2026, 11, 1, 12);
const NEW_DEVICE = { name: 'Excavator 4', imei: '490154203237518', model: 'FMC130', timezone: 'Europe/Berlin' };

/** `POST /api/v1/devices` with a JSON body and, when given, an Idempotency-Key. */
function create(fixture: Fixture, options: { key?: string; apiKey?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  return fixture.request('/api/v1/devices', options.apiKey ?? fixture.keys.acmeManage.key, {
    method: 'POST',
    headers: { ...JSON_TYPE, ...(options.key === undefined ? {} : { 'Idempotency-Key': options.key }), ...options.headers },
    body: typeof options.body === 'string' ? options.body : JSON.stringify(options.body ?? NEW_DEVICE),
  });
}

const devicesOf = async (fixture: Fixture, accountId = fixture.accounts.acme.id) => (await fixture.store.listDevices({ accountId })).length;

/** The parts of an answer a replay gives again. */
async function answerOf(response: Response) {
  return {
    status: response.status,
    body: await response.text(),
    location: response.headers.get('Location'),
    etag: response.headers.get('ETag'),
    type: response.headers.get('Content-Type'),
  };
}

/** A store whose `createDevice` waits until `open()` is called: a request that is still running. */
function heldCreates(store: FleetHoursStore) {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  return {
    open: () => open(),
    store: {
      ...store,
      createDevice: async (input: Parameters<FleetHoursStore['createDevice']>[0]) => {
        await gate;
        return store.createDevice(input);
      },
    },
  };
}

describe('Idempotency-Key on POST (D53)', () => {
  it('D53: the same request again answers the first answer — status, body, Location, ETag — with Idempotent-Replayed: true, and creates nothing more', async () => {
    const fixture = await createFixture();
    const before = await devicesOf(fixture);
    const first = await create(fixture, { key: 'order-7f3a' });
    expect(first.status).toBe(201);
    expect(first.headers.get('Idempotent-Replayed')).toBeNull();
    const firstAnswer = await answerOf(first);
    fixture.clock.advance(60_000);
    const again = await create(fixture, { key: 'order-7f3a' });
    expect(await answerOf(again)).toEqual(firstAnswer);
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
    // The rate-limit and request-id headers are the new request's own.
    expect(again.headers.get('X-RateLimit-Remaining')).toBe(String(60 - 1));
    expect(again.headers.get('X-Request-Id')).not.toBe(first.headers.get('X-Request-Id'));
    expect(await devicesOf(fixture)).toBe(before + 1);
  });

  it('D53, P86: another body with the key is 422 idempotency_key_reused (the same JSON spelt otherwise too), and nothing is created', async () => {
    const fixture = await createFixture();
    await create(fixture, { key: 'k1' });
    const before = await devicesOf(fixture);
    const other = await create(fixture, { key: 'k1', body: { ...NEW_DEVICE, name: 'Excavator 5', imei: '490154203237519' } });
    expect(other.status).toBe(422);
    expect(await other.json()).toEqual({
      error: { status: 422, code: 'idempotency_key_reused', message: expect.stringContaining('Idempotency-Key') },
    });
    expect(await devicesOf(fixture)).toBe(before);
    // The same JSON spelt otherwise is another body too: the key names the bytes sent.
    expect((await create(fixture, { key: 'k1', body: JSON.stringify(NEW_DEVICE, null, 2) })).status).toBe(422);
  });

  it('D53: while the first request runs, the same request is 409 idempotency_key_in_use; once it is done, it answers again', async () => {
    const held = { open: () => {} };
    const fixture = await createFixture({
      wrapStore: (store) => {
        const wrapped = heldCreates(store);
        held.open = wrapped.open;
        return wrapped.store;
      },
    });
    const first = create(fixture, { key: 'slow' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const during = await create(fixture, { key: 'slow' });
    expect(during.status).toBe(409);
    expect(((await during.json()) as { error: { code: string } }).error.code).toBe('idempotency_key_in_use');
    // Another body while it runs is still another request: 422.
    expect((await create(fixture, { key: 'slow', body: { ...NEW_DEVICE, name: 'Other' } })).status).toBe(422);
    held.open();
    const answer = await answerOf(await first);
    expect(answer.status).toBe(201);
    const after = await create(fixture, { key: 'slow' });
    expect(after.headers.get('Idempotent-Replayed')).toBe('true');
    expect(await answerOf(after)).toEqual(answer);
  });

  it('D53: a 5xx is not kept: the request sent again runs, and its answer is kept', async () => {
    let failures = 1;
    const fixture = await createFixture({
      wrapStore: (store) => ({
        ...store,
        createDevice: async (input) => {
          if (failures-- > 0) throw new StorageUnavailableError('down');
          return store.createDevice(input);
        },
      }),
    });
    const before = await devicesOf(fixture);
    const failed = await create(fixture, { key: 'retry-me' });
    expect(failed.status).toBe(503);
    expect(await fixture.store.findIdempotencyKey({ accountId: fixture.accounts.acme.id, key: 'retry-me' })).toBeNull();
    const retried = await create(fixture, { key: 'retry-me' });
    expect(retried.status).toBe(201);
    expect(retried.headers.get('Idempotent-Replayed')).toBeNull();
    expect((await create(fixture, { key: 'retry-me' })).headers.get('Idempotent-Replayed')).toBe('true');
    expect(await devicesOf(fixture)).toBe(before + 1);
  });

  it('D53, D55, P102: a change whose change-log entry cannot be written is not kept, nor is its 5xx: sent again, it is made once, with one entry', async () => {
    let failures = 1;
    const fixture = await createFixture({
      wrapStore: (store) => ({
        ...store,
        appendAuditEntry: async (input) => {
          if (failures-- > 0) throw new StorageUnavailableError('down');
          return store.appendAuditEntry(input);
        },
      }),
    });
    const accountId = fixture.accounts.acme.id;
    const entries = async () => (await fixture.store.listAuditEntries({ accountId, limit: 100 })).map((entry) => entry.action);
    const before = { devices: await devicesOf(fixture), entries: await entries() };
    const failed = await create(fixture, { key: 'audited' });
    expect(failed.status).toBe(503);
    expect({ devices: await devicesOf(fixture), entries: await entries() }).toEqual(before);
    expect(await fixture.store.findIdempotencyKey({ accountId, key: 'audited' })).toBeNull();
    const retried = await create(fixture, { key: 'audited' });
    expect(retried.status).toBe(201);
    expect((await create(fixture, { key: 'audited' })).headers.get('Idempotent-Replayed')).toBe('true');
    expect({ devices: await devicesOf(fixture), entries: await entries() }).toEqual({
      devices: before.devices + 1,
      entries: ['device.create', ...before.entries],
    });
  });

  it('D53, P86: a 4xx is kept: a refused request sent again is refused again, as a replay', async () => {
    const fixture = await createFixture();
    const refused = await create(fixture, { key: 'bad', body: { ...NEW_DEVICE, colour: 'red' } });
    expect(refused.status).toBe(400);
    const answer = await answerOf(refused);
    const again = await create(fixture, { key: 'bad', body: { ...NEW_DEVICE, colour: 'red' } });
    expect(await answerOf(again)).toEqual(answer);
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
  });

  it("D53: a key is the account's: another account's same key runs its own request", async () => {
    const fixture = await createFixture();
    const ours = await create(fixture, { key: 'shared' });
    const theirs = await create(fixture, { key: 'shared', apiKey: fixture.keys.otherManage.key });
    expect([ours.status, theirs.status]).toEqual([201, 201]);
    expect(theirs.headers.get('Idempotent-Replayed')).toBeNull();
    expect(((await theirs.json()) as { id: number }).id).not.toBe(((await ours.json()) as { id: number }).id);
    expect(await devicesOf(fixture, fixture.accounts.other.id)).toBe(2);
  });

  it.each([
    ['empty', ''],
    ['256 characters', 'k'.repeat(256)],
    ['a space', 'order 1'],
    ['not ASCII', 'bestellung-ä'],
    ['a control character', 'order\t1'],
  ])('D53: a key that is %s is 400 invalid_header naming the header, and nothing is created', async (_, key) => {
    const fixture = await createFixture();
    const before = await devicesOf(fixture);
    const refused = await create(fixture, { key });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({
      error: { status: 400, code: 'invalid_header', message: expect.stringContaining('Idempotency-Key'), header: 'Idempotency-Key' },
    });
    expect(await devicesOf(fixture)).toBe(before);
  });

  it('D53: a key of 255 visible characters is taken; without a key every request runs', async () => {
    const fixture = await createFixture();
    expect((await create(fixture, { key: `~!${'k'.repeat(253)}` })).status).toBe(201);
    const plain = await create(fixture, { body: { ...NEW_DEVICE, imei: '1' } });
    const plainAgain = await create(fixture, { body: { ...NEW_DEVICE, imei: '1' } });
    expect([plain.status, plainAgain.status]).toEqual([201, 409]);
    expect(plainAgain.headers.get('Idempotent-Replayed')).toBeNull();
  });

  it('D53, P86: the key is checked after the credential: 401 and 403 come first, and claim no key', async () => {
    const fixture = await createFixture();
    expect((await create(fixture, { key: '', apiKey: '' })).status).toBe(401);
    expect((await create(fixture, { key: 'k', apiKey: fixture.keys.acme.key })).status).toBe(403);
    expect(await fixture.store.findIdempotencyKey({ accountId: fixture.accounts.acme.id, key: 'k' })).toBeNull();
  });

  it('D53: after 24 h the key is another request: it runs again', async () => {
    const fixture = await createFixture();
    expect((await create(fixture, { key: 'daily' })).status).toBe(201);
    fixture.clock.advance(IDEMPOTENCY_KEY_WINDOW_SECONDS * 1000);
    expect((await create(fixture, { key: 'daily' })).headers.get('Idempotent-Replayed')).toBe('true');
    fixture.clock.advance(1000);
    // It runs: the IMEI now names the device the first request created.
    const after = await create(fixture, { key: 'daily' });
    expect([after.status, after.headers.get('Idempotent-Replayed')]).toEqual([409, null]);
    expect(await fixture.fleetHours.idempotency.removeExpired()).toBe(0);
    fixture.clock.advance((IDEMPOTENCY_KEY_WINDOW_SECONDS + 1) * 1000);
    expect(await fixture.fleetHours.idempotency.removeExpired()).toBe(1);
  });

  it('P84: a request that never finished holds its key for its lease only; then the key runs again', async () => {
    const fixture = await createFixture();
    const accountId = fixture.accounts.acme.id;
    // A server that stopped mid-request: the key claimed, no answer.
    const decision = await fixture.fleetHours.idempotency.begin({ accountId, key: 'crashed', fingerprint: 'gone', claimId: 'dead' });
    expect(decision.action).toBe('run');
    expect((await create(fixture, { key: 'crashed' })).status).toBe(422);
    fixture.clock.advance(IDEMPOTENCY_LEASE_SECONDS * 1000);
    expect((await create(fixture, { key: 'crashed' })).status).toBe(422);
    fixture.clock.advance(1000);
    const taken = await create(fixture, { key: 'crashed' });
    expect([taken.status, taken.headers.get('Idempotent-Replayed')]).toEqual([201, null]);
    expect((await create(fixture, { key: 'crashed' })).headers.get('Idempotent-Replayed')).toBe('true');
  });

  it('P85: identical requests sent at once create one device; each answer is the first answer replayed or 409, as the serial oracle allows', async () => {
    const fixture = await createFixture({ rateLimits: { writes: 1000 } });
    const count = 10;
    // The serial oracle: one after another, the first runs and every other replays its answer.
    const serial: Awaited<ReturnType<typeof answerOf>>[] = [];
    for (let index = 0; index < count; index += 1) serial.push(await answerOf(await create(fixture, { key: 'serial' })));
    expect(new Set(serial.map((answer) => JSON.stringify(answer))).size).toBe(1);
    const before = await devicesOf(fixture);
    const body = { ...NEW_DEVICE, imei: '77' };
    const responses = await Promise.all(Array.from({ length: count }, () => create(fixture, { key: 'burst', body })));
    const created = responses.filter((response) => response.status === 201);
    const replayed = created.filter((response) => response.headers.get('Idempotent-Replayed') === 'true');
    expect(created.length - replayed.length).toBe(1);
    for (const response of responses.filter((each) => each.status !== 201))
      expect([response.status, ((await response.json()) as { error: { code: string } }).error.code]).toEqual([
        409,
        'idempotency_key_in_use',
      ]);
    const bodies = new Set(await Promise.all(created.map((response) => response.text())));
    expect(bodies.size).toBe(1);
    expect(await devicesOf(fixture)).toBe(before + 1);
  });

  it('D53: an answer without a body (204) is given again without one', async () => {
    const fleetHours = createFleetHours({ store: createMemoryStore(), now: () => START });
    const account = await fleetHours.store.createAccount({ name: 'Acme', plan: 'business', now: START / 1000 });
    let runs = 0;
    const app = new Hono<FleetHoursEnv>();
    app.post(
      '/done',
      async (c, next) => {
        c.set('admission', { admitted: true, account } as unknown as Admission);
        await next();
      },
      idempotency({ fleetHours }),
      (c) => {
        runs += 1;
        return c.body(null, 204);
      },
    );
    const send = () => app.request('/done', { method: 'POST', headers: { 'Idempotency-Key': 'k' }, body: '{}' });
    expect((await send()).status).toBe(204);
    const again = await send();
    expect([again.status, await again.text(), again.headers.get('Idempotent-Replayed'), runs]).toEqual([204, '', 'true', 1]);
  });
});
