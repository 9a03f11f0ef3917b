/**
 * Delivery (D41) through the sender's public function, `startWebhookSender`, over a memory store
 * and a real HTTP receiver that verifies every request with the Standard Webhooks reference
 * library: signatures (both secrets during a rotation; a wrong secret fails), the same id on every
 * retry, Retry-After, 410, a timeout, and addresses refused unless allowed (P52).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMemoryStore, type FleetHoursStore, webhookBody } from '@fleet-hours/core';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startWebhookSender } from './webhook-sender.js';

/** Now: the reference library refuses a timestamp more than five minutes from its clock. */
const T0 = Math.floor(Date.now() / 1000);
const SECRET = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
const OTHER = `whsec_${Buffer.alloc(32, 2).toString('base64')}`;

interface Received {
  readonly id: string;
  readonly body: string;
  readonly verifiedWith: string[];
}

/** A receiver that answers what `answer` says and records every request, verified with each secret it knows. */
async function startReceiver(secrets: string[], answer: (request: IncomingMessage, response: ServerResponse, index: number) => void) {
  const received: Received[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    request.on('end', () => {
      const headers = request.headers as Record<string, string>;
      const verifiedWith = secrets.filter((secret) => {
        try {
          new Webhook(secret).verify(body, headers);
          return true;
        } catch {
          return false;
        }
      });
      received.push({ id: headers['webhook-id']!, body, verifiedWith });
      answer(request, response, received.length - 1);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return { url, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('startWebhookSender() (D41)', () => {
  let store: FleetHoursStore;
  let clock: number;
  let closers: (() => Promise<void>)[];
  beforeEach(() => {
    store = createMemoryStore();
    clock = T0;
    closers = [];
  });
  afterEach(async () => {
    for (const close of closers.reverse()) await close();
  });

  const setUp = async (
    answer: (request: IncomingMessage, response: ServerResponse, index: number) => void,
    options: { allowPrivateAddresses?: boolean; timeoutMs?: number } = {},
  ) => {
    const receiver = await startReceiver([SECRET, OTHER], answer);
    closers.push(receiver.close);
    const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
    const endpoint = (await store.createWebhookEndpoint({
      accountId: account.id,
      url: receiver.url,
      eventTypes: ['device.silent'],
      secret: SECRET,
      now: T0,
    }))!;
    const sender = startWebhookSender({
      store,
      now: () => clock * 1000,
      retrySchedule: [5, 60],
      poll: false,
      allowPrivateAddresses: options.allowPrivateAddresses ?? true,
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    });
    closers.push(() => sender.close());
    const body = webhookBody({ type: 'device.silent', raisedAt: T0, data: { device_id: 7, device_name: 'Loader' } });
    await store.raiseEvents({
      events: [{ id: 'evt_silent_d7_r1', accountId: account.id, type: 'device.silent', deviceId: 7, body, raisedAt: T0 }],
      now: T0,
    });
    return { receiver, endpoint, sender, body };
  };
  const attempts = (endpointId: number) => store.listWebhookAttempts({ endpointId, limit: 10 });

  it('sends the stored body (P55) signed per Standard Webhooks; the reference library verifies it, and a wrong secret does not', async () => {
    const { receiver, endpoint, sender, body } = await setUp((_, response) => response.writeHead(204).end());
    expect(await sender.runOnce()).toHaveLength(1);
    expect(receiver.received).toEqual([{ id: 'evt_silent_d7_r1', body, verifiedWith: [SECRET] }]);
    expect((await attempts(endpoint.id)).map((attempt) => [attempt.status, attempt.error])).toEqual([[204, null]]);
    expect(await store.webhookBacklog()).toEqual({ pending: 0, oldestRaisedAt: null });
  });

  it('retries a 500 on the schedule with the same webhook-id, and a 200 delivers', async () => {
    const { receiver, endpoint, sender } = await setUp((_, response, index) => response.writeHead(index === 0 ? 500 : 200).end());
    await sender.runOnce();
    clock += 4;
    expect(await sender.runOnce()).toEqual([]);
    clock += 1;
    expect(await sender.runOnce()).toHaveLength(1);
    expect(receiver.received.map((request) => request.id)).toEqual(['evt_silent_d7_r1', 'evt_silent_d7_r1']);
    expect((await attempts(endpoint.id)).map((attempt) => [attempt.status, attempt.error])).toEqual([
      [200, null],
      [500, 'answered HTTP 500'],
    ]);
  });

  it("honours a 429's Retry-After longer than the schedule", async () => {
    const { sender } = await setUp((_, response, index) => response.writeHead(index === 0 ? 429 : 200, { 'retry-after': '30' }).end());
    await sender.runOnce();
    clock += 29;
    expect(await sender.runOnce()).toEqual([]);
    clock += 1;
    expect(await sender.runOnce()).toHaveLength(1);
  });

  it('P51: counts a Retry-After in seconds from the answer, rounded up, not from the second the attempt started in', async () => {
    // The request starts at T0 and is answered half a second later: 30 s from the answer is T0 + 30.5, so T0 + 31.
    const { sender } = await setUp((_, response, index) => {
      if (index === 0) clock += 0.5;
      response.writeHead(index === 0 ? 429 : 200, { 'retry-after': '30' }).end();
    });
    await sender.runOnce();
    clock = T0 + 30;
    expect(await sender.runOnce()).toEqual([]);
    clock = T0 + 31;
    expect(await sender.runOnce()).toHaveLength(1);
  });

  it('disables the endpoint on a 410 and sends it nothing more', async () => {
    const { endpoint, sender } = await setUp((_, response) => response.writeHead(410).end());
    await sender.runOnce();
    expect(await store.findWebhookEndpoint({ endpointId: endpoint.id })).toMatchObject({ enabled: false, disabledReason: 'gone' });
    await store.raiseEvents({
      events: [{ id: 'evt_2', accountId: endpoint.accountId, type: 'device.silent', deviceId: 7, body: '{}', raisedAt: T0 }],
      now: T0,
    });
    clock += 3600;
    expect(await sender.runOnce()).toEqual([]);
  });

  it('counts no answer within the timeout as a failure to retry', async () => {
    const { endpoint, sender } = await setUp(() => {}, { timeoutMs: 200 });
    await sender.runOnce();
    const [attempt] = await attempts(endpoint.id);
    expect([attempt?.status, attempt?.error]).toEqual([null, 'no answer within 200 ms']);
    expect(await store.webhookBacklog()).toEqual({ pending: 1, oldestRaisedAt: T0 });
  });

  it("signs with both secrets while a rotation's overlap lasts, then with the new one", async () => {
    const { receiver, endpoint, sender } = await setUp((_, response, index) => response.writeHead(index === 0 ? 500 : 200).end());
    await store.rotateWebhookSecret({ endpointId: endpoint.id, secret: OTHER, overlapSeconds: 5, now: T0 });
    await sender.runOnce();
    clock += 5;
    await sender.runOnce();
    expect(receiver.received.map((request) => request.verifiedWith)).toEqual([[SECRET, OTHER], [OTHER]]);
  });

  it('refuses a loopback address unless allowed, recording why (P52)', async () => {
    const { receiver, endpoint, sender } = await setUp((_, response) => response.writeHead(200).end(), { allowPrivateAddresses: false });
    await sender.runOnce();
    expect(receiver.received).toEqual([]);
    const [attempt] = await attempts(endpoint.id);
    expect(attempt?.status).toBeNull();
    expect(attempt?.error).toMatch(/^refused: the address 127\.0\.0\.1 is not public/);
  });

  it('refuses a name that resolves to a loopback address unless allowed, checked in the lookup of the connection (P52)', async () => {
    const { receiver, endpoint, sender } = await setUp((_, response) => response.writeHead(200).end(), { allowPrivateAddresses: false });
    await store.updateWebhookEndpoint({
      endpointId: endpoint.id,
      changes: { url: receiver.url.replace('127.0.0.1', 'localhost') },
      now: T0,
    });
    await sender.runOnce();
    expect(receiver.received).toEqual([]);
    const [attempt] = await attempts(endpoint.id);
    expect(attempt?.error).toMatch(/^refused: localhost resolves to (127\.0\.0\.1|::1), which is not public/);
  });

  it('P54: on close, a running sender finishes the request under way, records it and leaves nothing claimed', async () => {
    const { receiver, endpoint } = await setUp(() => {}, { timeoutMs: 300 });
    const running = startWebhookSender({
      store,
      now: () => clock * 1000,
      retrySchedule: [5],
      allowPrivateAddresses: true,
      timeoutMs: 300,
      pollIntervalMs: 10,
    });
    while (receiver.received.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    await running.close();
    const [attempt] = await attempts(endpoint.id);
    expect(attempt?.error).toBe('no answer within 300 ms');
    clock += 5;
    expect(await store.claimDeliveries({ claimant: 'next', limit: 10, leaseSeconds: 60, now: clock })).toHaveLength(1);
  });

  it('a running sender keeps several requests in flight and reports them in batches: every attempt recorded, each event delivered once (D41)', async () => {
    const failedOnce = new Set<string>();
    // Every third event is answered 500 the first time.
    const { receiver, endpoint } = await setUp((request, response) => {
      const id = String(request.headers['webhook-id']);
      const index = Number(id.slice('evt_many_'.length));
      const fail = index % 3 === 0 && !failedOnce.has(id);
      if (fail) failedOnce.add(id);
      response.writeHead(fail ? 500 : 204).end();
    });
    const account = (await store.findWebhookEndpoint({ endpointId: endpoint.id }))!.accountId;
    const body = webhookBody({ type: 'device.silent', raisedAt: T0, data: { device_id: 7, device_name: 'Loader' } });
    const ids = Array.from({ length: 60 }, (_, index) => `evt_many_${index}`);
    await store.raiseEvents({
      events: ids.map((id) => ({ id, accountId: account, type: 'device.silent' as const, deviceId: 7, body, raisedAt: T0 })),
      now: T0,
    });
    const entries: { eventId: string; state: string | undefined }[] = [];
    const running = startWebhookSender({
      store,
      now: () => clock * 1000,
      retrySchedule: [5],
      allowPrivateAddresses: true,
      concurrency: 8,
      pollIntervalMs: 10,
      onAttempt: (entry) => entries.push({ eventId: entry.eventId, state: entry.delivery?.state }),
    });
    closers.push(() => running.close());
    const settled = () => entries.length;
    // The first rounds: every event once (and the one raised by setUp); then the failed ones are due 5 s later.
    while (settled() < ids.length + 1) await new Promise((resolve) => setTimeout(resolve, 10));
    clock += 5;
    while (settled() < ids.length + 1 + failedOnce.size) await new Promise((resolve) => setTimeout(resolve, 10));
    await running.close();
    const expected = ids.map((id, index) => [id, index % 3 === 0 ? ['pending', 'delivered'] : ['delivered']] as const);
    const seen = new Map<string, (string | undefined)[]>();
    for (const entry of entries) seen.set(entry.eventId, [...(seen.get(entry.eventId) ?? []), entry.state]);
    expect(ids.map((id) => [id, seen.get(id)])).toEqual(expected);
    expect(receiver.received.filter((one) => one.id.startsWith('evt_many_'))).toHaveLength(ids.length + failedOnce.size);
    expect(await store.listWebhookAttempts({ endpointId: endpoint.id, limit: 1000 })).toHaveLength(ids.length + 1 + failedOnce.size);
    expect(await store.webhookBacklog()).toEqual({ pending: 0, oldestRaisedAt: null });
  });

  it('wake() sends an event raised after the last look at once, without waiting for the next look (D41)', async () => {
    const { receiver, endpoint } = await setUp((_request, response) => response.writeHead(204).end());
    const running = startWebhookSender({ store, now: () => clock * 1000, allowPrivateAddresses: true, pollIntervalMs: 3_600_000 });
    closers.push(() => running.close());
    // The first look sends the event raised by setUp; the next look is an hour away.
    while (receiver.received.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    const body = webhookBody({ type: 'device.silent', raisedAt: T0, data: { device_id: 8, device_name: 'Crane' } });
    await store.raiseEvents({
      events: [{ id: 'evt_woken', accountId: endpoint.accountId, type: 'device.silent', deviceId: 8, body, raisedAt: T0 }],
      now: T0,
    });
    running.wake();
    while (!receiver.received.some((one) => one.id === 'evt_woken')) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(receiver.received.map((one) => one.id)).toEqual(['evt_silent_d7_r1', 'evt_woken']);
  });
});
