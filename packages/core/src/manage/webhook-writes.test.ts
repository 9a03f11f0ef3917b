/** Webhook endpoints and ingest tokens managed in core (P80–P83): every write reports its change (D55), never a secret. */
import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../store/memory-store.js';
import type { ChangeOrigin, ChangeReport } from './change-log.js';
import { ingestTokenBody, ingestTokenVersion, ingestTokenWrites } from './ingest-token-writes.js';
import { readWebhookFields, webhookEntityTag, webhookTestEvent } from './webhook-fields.js';
import { webhookWrites } from './webhook-writes.js';

const T0 = 1_767_225_600; // 2026-01-01T00:00:00Z
const CLI: ChangeOrigin = { actor: { kind: 'cli' }, requestId: null };
const KEY: ChangeOrigin = { actor: { kind: 'api_key', label: 'ops', fingerprintPrefix: '0123abcd' }, requestId: 'req-1' };

async function setUp() {
  const store = createMemoryStore();
  const acme = await store.createAccount({ name: 'Acme', plan: 'business', now: 0 });
  const other = await store.createAccount({ name: 'Other', plan: 'business', now: 0 });
  const changes: ChangeReport[] = [];
  const changeLog = { record: async (change: ChangeReport) => void changes.push(change) };
  const options = { store, nowSeconds: () => T0, changeLog };
  return { store, acme: acme.id, other: other.id, changes, webhooks: webhookWrites(options), tokens: ingestTokenWrites(options) };
}

describe('webhookWrites() (D41, D55, P80)', () => {
  it('reports each change with its origin, the endpoint in its API shape, and never the secret', async () => {
    const { acme, changes, webhooks } = await setUp();
    const created = (await webhooks.createWebhookEndpoint({ accountId: acme, fields: { url: 'https://a.example/' }, origin: KEY }))!;
    const endpointId = created.endpoint.id;
    await webhooks.updateWebhookEndpoint({ accountId: acme, endpointId, fields: { enabled: false }, origin: CLI });
    const rotated = (await webhooks.rotateWebhookSecret({ accountId: acme, endpointId, origin: CLI }))!;
    await webhooks.removeWebhookEndpoint({ accountId: acme, endpointId, origin: KEY });
    expect(changes.map((change) => [change.action, change.origin.actor.kind])).toEqual([
      ['webhook.create', 'api_key'],
      ['webhook.update', 'cli'],
      ['webhook.rotate', 'cli'],
      ['webhook.delete', 'api_key'],
    ]);
    expect(changes[0]).toEqual({
      accountId: acme,
      origin: KEY,
      action: 'webhook.create',
      resource: { type: 'webhook', id: String(endpointId) },
      before: null,
      after: expect.objectContaining({ url: 'https://a.example/', enabled: true, secret: '[redacted]' }),
      secretFields: ['secret'],
    });
    expect(changes[2]?.after).toMatchObject({ previous_secret_expires_at: '2026-01-02T00:00:00Z' });
    expect(changes[3]?.after).toBeNull();
    const logged = JSON.stringify(changes);
    for (const secret of [created.secret, rotated.secret]) expect(logged).not.toContain(secret.slice(6));
  });

  it("another account's endpoint is a miss for every write, which changes and reports nothing", async () => {
    const { acme, other, changes, webhooks, store } = await setUp();
    const { endpoint } = (await webhooks.createWebhookEndpoint({ accountId: acme, fields: { url: 'https://a.example/' }, origin: KEY }))!;
    changes.length = 0;
    const send = async () => ({ status: 200, durationMs: 1, error: null });
    expect(await webhooks.findWebhookEndpoint({ accountId: other, endpointId: endpoint.id })).toBeNull();
    expect(
      await webhooks.updateWebhookEndpoint({ accountId: other, endpointId: endpoint.id, fields: { enabled: false }, origin: KEY }),
    ).toBeNull();
    expect(await webhooks.rotateWebhookSecret({ accountId: other, endpointId: endpoint.id, origin: KEY })).toBeNull();
    expect(await webhooks.testWebhookEndpoint({ accountId: other, endpointId: endpoint.id, origin: KEY, send })).toBeNull();
    expect(await webhooks.listWebhookDeliveries({ accountId: other, endpointId: endpoint.id })).toBeNull();
    expect(await webhooks.removeWebhookEndpoint({ accountId: other, endpointId: endpoint.id, origin: KEY })).toBeNull();
    expect(await store.findWebhookEndpoint({ endpointId: endpoint.id })).toEqual(endpoint);
    expect(changes).toEqual([]);
  });

  it('P83: a test raises a webhook.test event for the endpoint, reports it, then asks the sender given to send it', async () => {
    const { acme, changes, webhooks, store } = await setUp();
    const { endpoint } = (await webhooks.createWebhookEndpoint({ accountId: acme, fields: { url: 'https://a.example/' }, origin: KEY }))!;
    const asked: string[] = [];
    const tested = await webhooks.testWebhookEndpoint({
      accountId: acme,
      endpointId: endpoint.id,
      origin: CLI,
      send: async ({ eventId }) => {
        asked.push(eventId);
        // The event is in the outbox, for this endpoint, before the sender is asked.
        const claimed = await store.claimDeliveries({ claimant: 't', eventId, limit: 5, leaseSeconds: 30, now: T0 });
        expect(claimed.map((one) => [one.event.type, one.endpoint.id])).toEqual([['webhook.test', endpoint.id]]);
        return null;
      },
    });
    expect(tested).toEqual({ eventId: asked[0], endpoint, attempt: null });
    expect(changes.at(-1)).toMatchObject({ action: 'webhook.test', origin: CLI });
  });

  it('a replay from the CLI (any account) is reported on the account of the event', async () => {
    const { acme, changes, webhooks, store } = await setUp();
    await webhooks.createWebhookEndpoint({ accountId: acme, fields: { url: 'https://a.example/' }, origin: KEY });
    await store.raiseEvents({
      events: [{ id: 'evt_1', accountId: acme, type: 'device.silent', deviceId: null, body: '{}', raisedAt: T0 }],
      now: T0,
    });
    const replayed = await webhooks.replayWebhookEvent({ accountId: null, eventId: 'evt_1', origin: CLI });
    expect(replayed).toHaveLength(1);
    expect(changes.at(-1)).toMatchObject({ accountId: acme, action: 'event.replay', resource: { type: 'event', id: 'evt_1' } });
    expect(await webhooks.replayWebhookEvent({ accountId: null, eventId: 'not an id', origin: CLI })).toBeNull();
  });

  it('P99: a description is checked as a name, written, audited and part of the version; null or empty clears it', async () => {
    const { acme, changes, webhooks } = await setUp();
    const fields = { url: 'https://a.example/', description: '  Dispatch board ' };
    const { endpoint } = (await webhooks.createWebhookEndpoint({ accountId: acme, fields, origin: KEY }))!;
    expect(endpoint.description).toBe('Dispatch board');
    const before = webhookEntityTag(endpoint);
    const changed = (await webhooks.updateWebhookEndpoint({
      accountId: acme,
      endpointId: endpoint.id,
      fields: { description: 'Yard' },
      ifMatch: before,
      origin: CLI,
    }))!;
    expect(changed.description).toBe('Yard');
    expect(webhookEntityTag(changed)).not.toBe(before);
    expect(changes.at(-1)?.before).toMatchObject({ description: 'Dispatch board' });
    expect(changes.at(-1)?.after).toMatchObject({ description: 'Yard', version: webhookEntityTag(changed).slice(1, -1) });
    // The tag read before the description changed no longer names it (D54).
    await expect(
      webhooks.updateWebhookEndpoint({
        accountId: acme,
        endpointId: endpoint.id,
        fields: { description: null },
        ifMatch: before,
        origin: CLI,
      }),
    ).rejects.toMatchObject({ code: 'precondition_failed' });
    for (const none of [null, '', '   ']) expect(readWebhookFields({ description: none }, 'update')).toEqual({ description: null });
    for (const [bad, why] of [
      [7, /description must be a string or null/],
      ['Yard\u001b[2J', /description must be text without control characters/],
      ['Yard\u202eexe', /U\+202E/],
      ['x'.repeat(201), /description must be at most 200 characters/],
    ] as const) {
      expect(() => readWebhookFields({ url: 'https://a.example/', description: bad }, 'create')).toThrow(
        expect.objectContaining({ field: 'description', message: expect.stringMatching(why) }),
      );
    }
    expect(readWebhookFields({ description: 'x'.repeat(200) }, 'update').description).toHaveLength(200);
  });

  it('reads the fields by their API names; the tag changes with what a write or a rotation changes', () => {
    expect(readWebhookFields({ url: 'http://localhost:8080/in' }, 'create')).toEqual({
      url: 'http://localhost:8080/in',
      eventTypes: ['service.due_soon', 'service.overdue', 'device.silent', 'device.reporting'],
    });
    const endpoint = { url: 'https://a.example/', eventTypes: [], enabled: true, description: null, previousSecretExpiresAt: null };
    const tag = webhookEntityTag(endpoint);
    expect(tag).toMatch(/^"w-[0-9a-f]{16}"$/);
    expect(webhookEntityTag({ ...endpoint })).toBe(tag);
    expect(webhookEntityTag({ ...endpoint, enabled: false })).not.toBe(tag);
    expect(webhookEntityTag({ ...endpoint, previousSecretExpiresAt: T0 })).not.toBe(tag);
    // P99: the description is part of the version; an empty one is none.
    expect(webhookEntityTag({ ...endpoint, description: 'Dispatch' })).not.toBe(tag);
    expect(webhookEntityTag({ ...endpoint, description: 'Dispatch' })).not.toBe(webhookEntityTag({ ...endpoint, description: 'Yard' }));
    const event = webhookTestEvent({ endpointId: 4, accountId: 1, now: T0, id: 'ab' });
    expect([event.id, event.endpointId, JSON.parse(event.body)]).toEqual([
      'evt_test_e4_ab',
      4,
      { type: 'webhook.test', timestamp: '2026-01-01T00:00:00Z', data: { endpoint_id: 4 } },
    ]);
  });
});

describe('ingestTokenWrites() (D24, D55, P80)', () => {
  it('D54, P100: a token has a version, changed by its revocation; a revocation with a stale If-Match is 412 and revokes nothing', async () => {
    const { acme, store, tokens } = await setUp();
    const created = (await tokens.createIngestToken({ accountId: acme, fields: { label: 'gate' }, origin: KEY }))!;
    const active = ingestTokenBody(created.record, T0).version;
    expect(active).toMatch(/^t-[0-9a-f]{16}$/);
    expect(ingestTokenVersion(created.record)).toBe(active);
    const tokenId = created.record.id;
    await expect(
      tokens.revokeIngestToken({ accountId: acme, tokenId, ifMatch: '"t-0000000000000000"', origin: KEY }),
    ).rejects.toMatchObject({
      code: 'precondition_failed',
      status: 412,
    });
    expect((await store.listIngestTokens({ accountId: acme }))[0]?.revokedAt).toBeNull();
    const revoked = (await tokens.revokeIngestToken({ accountId: acme, tokenId, ifMatch: `"${active}"`, origin: KEY }))!;
    expect(revoked.revokedAt).toBe(T0);
    const after = ingestTokenVersion(revoked);
    expect(after).not.toBe(active);
    // The tag of the token as it was before its revocation is stale now; its own tag, or *, still revokes (nothing changes).
    await expect(tokens.revokeIngestToken({ accountId: acme, tokenId, ifMatch: `"${active}"`, origin: KEY })).rejects.toMatchObject({
      code: 'precondition_failed',
    });
    expect((await tokens.revokeIngestToken({ accountId: acme, tokenId, ifMatch: `"${after}"`, origin: KEY }))?.revokedAt).toBe(T0);
    expect((await tokens.revokeIngestToken({ accountId: acme, tokenId, ifMatch: '*', origin: KEY }))?.revokedAt).toBe(T0);
  });

  it('D54, P100: a token revoked by another write between the read and the revocation is 412', async () => {
    const { acme, store } = await setUp();
    let now = T0;
    const tokens = ingestTokenWrites({ store, nowSeconds: () => now });
    const created = (await tokens.createIngestToken({ accountId: acme, fields: {}, origin: KEY }))!;
    const read = `"${ingestTokenVersion(created.record)}"`;
    // Another revocation lands while this one runs: the store keeps its instant, not this write's.
    // Without units (P102): the wrapper's revocation is the one the write calls.
    const { atomically: _units, ...plain } = store;
    const racing = ingestTokenWrites({
      store: {
        ...plain,
        revokeIngestToken: async (input) => {
          await store.revokeIngestToken({ tokenId: input.tokenId, now: T0 - 5 });
          return store.revokeIngestToken(input);
        },
      },
      nowSeconds: () => now,
    });
    now = T0 + 1;
    await expect(
      racing.revokeIngestToken({ accountId: acme, tokenId: created.record.id, ifMatch: read, origin: KEY }),
    ).rejects.toMatchObject({
      code: 'precondition_failed',
    });
    expect((await store.listIngestTokens({ accountId: acme }))[0]?.revokedAt).toBe(T0 - 5);
  });

  it('reports a creation and a first revocation, never the token; the CLI revokes any account’s token', async () => {
    const { acme, other, changes, tokens } = await setUp();
    const created = (await tokens.createIngestToken({ accountId: acme, fields: { label: 'gate' }, origin: KEY }))!;
    expect(await tokens.revokeIngestToken({ accountId: other, tokenId: created.record.id, origin: KEY })).toBeNull();
    expect((await tokens.revokeIngestToken({ accountId: null, tokenId: created.record.id, origin: CLI }))?.revokedAt).toBe(T0);
    await tokens.revokeIngestToken({ accountId: acme, tokenId: created.record.id, origin: KEY });
    expect(changes.map((change) => [change.action, change.accountId, change.origin.actor.kind])).toEqual([
      ['ingest_token.create', acme, 'api_key'],
      ['ingest_token.revoke', acme, 'cli'],
    ]);
    expect(changes[1]).toMatchObject({ before: { state: 'active' }, after: { state: 'revoked' }, secretFields: ['token'] });
    expect(JSON.stringify(changes)).not.toContain(created.token.slice(4));
  });
});
