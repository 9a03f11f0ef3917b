/**
 * P83: `sendOneEvent`, what a test event is sent with, over a memory store and a real HTTP
 * receiver: the attempt it made, or, when a running server's sender claimed the delivery first (it
 * polls the same outbox), that sender's attempt once it is recorded — the event was sent now all
 * the same, once.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMemoryStore, webhookTestEvent } from '@fleet-hours/core';
import { afterEach, describe, expect, it } from 'vitest';
import { sendOneEvent } from './send-one-event.js';
import { startWebhookSender } from './webhook-sender.js';

const SECRET = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;

describe('sendOneEvent() (P83)', () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  /** A receiver that holds every request until `release()`, then answers 204; `arrived` resolves at the first request. */
  async function heldReceiver() {
    const held: ServerResponse[] = [];
    let arrived!: () => void;
    const first = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        held.push(response);
        arrived();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
      first,
      requests: () => held.length,
      release: () => {
        for (const response of held) response.writeHead(204).end();
      },
    };
  }

  async function raisedTest(url: string) {
    const store = createMemoryStore();
    const now = Math.floor(Date.now() / 1000);
    const account = await store.createAccount({ name: 'Acme', plan: 'business', now });
    const endpoint = (await store.createWebhookEndpoint({ accountId: account.id, url, eventTypes: [], secret: SECRET, now }))!;
    const event = webhookTestEvent({ endpointId: endpoint.id, accountId: account.id, now, id: 'ab12' });
    await store.raiseEvents({ events: [event], now });
    return { store, endpointId: endpoint.id, eventId: event.id };
  }

  it('sends the event itself and tells its attempt', async () => {
    const receiver = await heldReceiver();
    const { store, endpointId, eventId } = await raisedTest(receiver.url);
    const sending = sendOneEvent({ store, now: Date.now, allowPrivateAddresses: true })({ eventId, endpointId });
    await receiver.first;
    receiver.release();
    expect(await sending).toEqual({ status: 204, durationMs: expect.any(Number), error: null });
    expect(receiver.requests()).toBe(1);
  });

  it("a delivery a server's sender claimed first: that sender's attempt, once recorded, and the event sent once", async () => {
    const receiver = await heldReceiver();
    const { store, endpointId, eventId } = await raisedTest(receiver.url);
    // The running server's sender claims the delivery between the raise and the test's own claim.
    const server = startWebhookSender({ store, poll: false, allowPrivateAddresses: true });
    closers.push(() => server.close());
    const serversAttempt = server.runOnce();
    await receiver.first;
    const sending = sendOneEvent({ store, now: Date.now, allowPrivateAddresses: true, timeoutMs: 60_000 })({ eventId, endpointId });
    // Its own claim found nothing to send: it waits for the other sender's attempt.
    receiver.release();
    const [entry] = await serversAttempt;
    expect(await sending).toEqual({ status: 204, durationMs: entry!.attempt.durationMs, error: null });
    expect(receiver.requests()).toBe(1);
  });
});
