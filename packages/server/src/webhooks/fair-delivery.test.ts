/**
 * D47 through the sender's public function, `startWebhookSender`, over a memory store and real
 * HTTP receivers on 127.0.0.1: a hanging endpoint holds no more than its share of the sender, so
 * another account's events go on; a retry's delay counts from the end of the failed attempt; a
 * sender's claims outlive its request (a live sender's request is never sent twice at once) and a
 * dead sender's are sent again within the timeout and 15 s.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMemoryStore, type FleetHoursStore, webhookBody } from '@fleet-hours/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startWebhookSender, type WebhookAttemptEntry } from './webhook-sender.js';

const T0 = Math.floor(Date.now() / 1000);
const SECRET = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;

/**
 * A receiver: `answer` gives a status, or `null` to hold the request until the receiver closes.
 * It counts the requests open at once (the most ever, and by event id: one sent twice at once).
 */
async function startReceiver(answer: (id: string) => number | null | Promise<number | null>) {
  const state = { open: 0, mostOpen: 0, received: [] as string[], overlaps: [] as string[] };
  const openIds = new Set<string>();
  const held: ServerResponse[] = [];
  const server = createServer((request, response) => {
    const id = String(request.headers['webhook-id']);
    state.received.push(id);
    if (openIds.has(id)) state.overlaps.push(id);
    openIds.add(id);
    state.open += 1;
    state.mostOpen = Math.max(state.mostOpen, state.open);
    const done = () => {
      if (!openIds.delete(id)) return;
      state.open -= 1;
    };
    response.on('close', done);
    request.resume();
    request.on('end', async () => {
      const status = await answer(id);
      if (status === null) held.push(response);
      else response.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    state,
    openIds,
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of held) response.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const until = async (done: () => boolean) => {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 10));
};

describe('fair, prompt delivery (D47)', () => {
  let store: FleetHoursStore;
  let closers: (() => Promise<void>)[];
  let receivers: (() => Promise<void>)[];
  beforeEach(() => {
    store = createMemoryStore();
    closers = [];
    receivers = [];
  });
  afterEach(async () => {
    // The receivers first: a request they hold ends, so a sender closes without waiting for its timeout.
    for (const close of [...receivers, ...closers.reverse()]) await close();
  });

  /** An account with an endpoint at `url`, and `count` events raised for it now. */
  const accountWith = async (url: string, prefix: string, count: number) => {
    const account = await store.createAccount({ name: prefix, plan: 'business', now: T0 });
    const endpoint = (await store.createWebhookEndpoint({
      accountId: account.id,
      url,
      eventTypes: ['device.silent'],
      secret: SECRET,
      now: T0,
    }))!;
    const body = webhookBody({ type: 'device.silent', raisedAt: T0, data: { device_id: 7, device_name: 'Loader' } });
    const ids = Array.from({ length: count }, (_, index) => `evt_${prefix}_${index}`);
    await store.raiseEvents({
      events: ids.map((id) => ({ id, accountId: account.id, type: 'device.silent' as const, deviceId: 7, body, raisedAt: T0 })),
      now: T0,
    });
    return { endpoint, ids };
  };
  const receiver = async (answer: (id: string) => number | null | Promise<number | null>) => {
    const started = await startReceiver(answer);
    receivers.push(started.close);
    return started;
  };

  it("D47: a hanging endpoint holds only its share of the sender; another account's events go on while it hangs", async () => {
    const hanging = await receiver(() => null);
    const quick = await receiver(() => 204);
    // 40 events for the hanging endpoint first (the oldest due), then 5 of another account.
    await accountWith(hanging.url, 'hanging', 40);
    const { ids } = await accountWith(quick.url, 'quick', 5);
    const sender = startWebhookSender({ store, allowPrivateAddresses: true, concurrency: 8, timeoutMs: 60_000, pollIntervalMs: 10 });
    closers.push(() => sender.close());
    // Without a share the sender's 8 requests all go to the hanging endpoint, and the others wait for its timeout.
    await until(() => quick.state.received.length === ids.length || hanging.state.open > 4);
    expect(quick.state.received.sort()).toEqual(ids.sort());
    expect(hanging.state.mostOpen).toBe(4);
    expect(hanging.state.open).toBe(4);
  });

  it('D47: the share is a setting: perEndpoint 2 sends two requests at once to one endpoint', async () => {
    const hanging = await receiver(() => null);
    await accountWith(hanging.url, 'hanging', 10);
    let looks = 0;
    const counted: FleetHoursStore = {
      ...store,
      claimDeliveries: (input) => {
        looks += 1;
        return store.claimDeliveries(input);
      },
    };
    const sender = startWebhookSender({
      store: counted,
      allowPrivateAddresses: true,
      perEndpoint: 2,
      timeoutMs: 60_000,
      pollIntervalMs: 10,
    });
    closers.push(() => sender.close());
    await until(() => hanging.state.open >= 2);
    // Ten more looks while the two hang: none sends a third.
    const seen = looks;
    await until(() => looks >= seen + 10);
    expect(hanging.state.mostOpen).toBe(2);
  });

  it("D47: a retry's delay counts from the end of the failed attempt (a request that took 20 s is retried 5 s after it)", async () => {
    let clock = T0;
    const slow = await receiver((id) => {
      if (id === 'evt_slow_0' && clock === T0) clock += 20;
      return clock === T0 + 20 ? 500 : 204;
    });
    await accountWith(slow.url, 'slow', 1);
    const sender = startWebhookSender({ store, now: () => clock * 1000, retrySchedule: [5], allowPrivateAddresses: true, poll: false });
    closers.push(() => sender.close());
    const [first] = await sender.runOnce();
    expect([first?.attempt.attemptedAt, first?.attempt.finishedAt, first?.delivery?.nextAttemptAt]).toEqual([T0, T0 + 20, T0 + 25]);
    clock = T0 + 24;
    expect(await sender.runOnce()).toEqual([]);
    clock = T0 + 25;
    expect((await sender.runOnce()).map((entry) => entry.delivery?.state)).toEqual(['delivered']);
  });

  it('D47: a request that timed out is not retried at once: the delay counts from its timeout', async () => {
    const hanging = await receiver(() => null);
    await accountWith(hanging.url, 'timeout', 1);
    const sender = startWebhookSender({ store, retrySchedule: [1], allowPrivateAddresses: true, timeoutMs: 1_200, poll: false });
    closers.push(() => sender.close());
    const [entry] = await sender.runOnce();
    expect(entry?.attempt.error).toBe('no answer within 1200 ms');
    const { attemptedAt, durationMs } = entry!.attempt;
    expect(entry!.delivery!.nextAttemptAt!).toBeGreaterThanOrEqual(attemptedAt + durationMs / 1000 + 1);
  });

  it("P63: a live sender's request is never sent again while it may run; a dead sender's claim is sent again within the timeout and 15 s", async () => {
    const hanging = await receiver(() => null);
    await accountWith(hanging.url, 'lease', 1);
    const timeoutMs = 2_000;
    // Sender A claims the event and sends it; then it dies: the store never hears from it again.
    let dead = false;
    const deadStore = new Proxy(store, {
      get: (target, name, receiverOf) => {
        const value = Reflect.get(target, name, receiverOf) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => (dead ? new Promise(() => {}) : (value as (...a: unknown[]) => unknown).apply(target, args));
      },
    });
    const a = startWebhookSender({ store: deadStore, allowPrivateAddresses: true, timeoutMs, poll: false });
    void a.runOnce();
    await until(() => hanging.state.received.length === 1);
    dead = true;
    const claimedBy = Date.now();
    // Sender B looks with clocks set forward: when A's request may still run, it takes nothing.
    let clock = claimedBy + timeoutMs;
    const entries: WebhookAttemptEntry[] = [];
    const b = startWebhookSender({ store, now: () => clock, allowPrivateAddresses: true, timeoutMs, retrySchedule: [3600], poll: false });
    closers.push(() => b.close());
    expect(await b.runOnce()).toEqual([]);
    clock = claimedBy + timeoutMs + 4_000;
    expect(await b.runOnce()).toEqual([]);
    // The timeout and 15 s after A claimed it (A claimed it before its request arrived): B sends it again.
    clock = claimedBy + timeoutMs + 15_000;
    entries.push(...(await b.runOnce()));
    expect(entries.map((entry) => entry.eventId)).toEqual(['evt_lease_0']);
    expect(hanging.state.received).toEqual(['evt_lease_0', 'evt_lease_0']);
  });

  it("P63: two running senders, one's request hanging until its timeout: the other never sends that event at the same time", async () => {
    const timeoutMs = 1_500;
    const hanging = await receiver(() => null);
    await accountWith(hanging.url, 'live', 1);
    const entries: WebhookAttemptEntry[] = [];
    const a = startWebhookSender({
      store,
      allowPrivateAddresses: true,
      timeoutMs,
      retrySchedule: [3600],
      pollIntervalMs: 10,
      onAttempt: (entry) => entries.push(entry),
    });
    closers.push(() => a.close());
    await until(() => hanging.state.received.length === 1);
    // B's clock runs as far ahead as A's request may last: it looks every 10 ms while A's request hangs.
    const b = startWebhookSender({ store, now: () => Date.now() + timeoutMs, allowPrivateAddresses: true, timeoutMs, pollIntervalMs: 10 });
    closers.push(() => b.close());
    await until(() => entries.length === 1);
    expect(entries[0]?.attempt.error).toBe(`no answer within ${timeoutMs} ms`);
    expect(hanging.state.received).toEqual(['evt_live_0']);
    expect(hanging.state.overlaps).toEqual([]);
  });
});
