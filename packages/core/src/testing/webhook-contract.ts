/**
 * D40 and D41 in the storage contract: webhook endpoints, the outbox (an event stored once by its
 * id), deliveries claimed by one sender at a time, every attempt recorded with its effect on the
 * delivery and the endpoint, replay, the backlog and the account's quiet time. D47: a claim gives
 * no endpoint more than its share of a sender, and a retry's delay counts from the attempt's end.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_SILENT_AFTER_SECONDS, type EventType } from '../events/decide-events.js';
import { ENDPOINT_FAILURE_DISABLE_SECONDS } from '../events/retry-schedule.js';
import type { AttemptReport, NewWebhookEvent, WebhookDelivery, WebhookEndpoint } from '../events/webhook-records.js';
import type { FleetHoursStore } from '../store/storage-port.js';
import { refusalOf } from './refusal.js';

const T0 = 1_767_225_600; // 2026-01-01T00:00:00Z
const SECRET = `whsec_${'A'.repeat(43)}=`;
const SCHEDULE = [5, 60];
const ALL: EventType[] = ['service.due_soon', 'service.overdue', 'device.silent', 'device.reporting'];

const event = (
  id: string,
  accountId: number,
  type: EventType = 'device.silent',
  fields: Partial<NewWebhookEvent> = {},
): NewWebhookEvent => ({
  id,
  accountId,
  type,
  deviceId: 1,
  body: JSON.stringify({ type, timestamp: '2026-01-01T00:00:00Z', data: { id } }),
  raisedAt: T0,
  ...fields,
});
/** An attempt that ended in the second it began (`finishedAt`), as a sender reports it. */
const answer = (status: number | null, attemptedAt: number, retryAfterSeconds: number | null = null): AttemptReport => ({
  attemptedAt,
  status,
  durationMs: 12,
  error: status !== null && status < 300 ? null : `answered ${status}`,
  retryAfterSeconds,
  finishedAt: attemptedAt,
});

/** An account with one endpoint wanting every event. */
async function seed(store: FleetHoursStore, eventTypes: EventType[] = ALL): Promise<{ accountId: number; endpoint: WebhookEndpoint }> {
  const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
  const endpoint = (await store.createWebhookEndpoint({
    accountId: account.id,
    url: 'https://a.example/hooks',
    eventTypes,
    secret: SECRET,
    now: T0,
  }))!;
  return { accountId: account.id, endpoint };
}

/**
 * Registers the D40/D41 tests inside `describeStorageContract`.
 *
 * @param store The store of the running test.
 */
export function describeWebhookContract(store: () => FleetHoursStore): void {
  describe('webhooks (D40, D41)', () => {
    _describeEndpoints(store);
    _describeManaged(store);
    _describeOutbox(store);
    _describeAttempts(store);
    _describeBatchedAttempts(store);
  });
  describe('fair, prompt delivery (D47)', () => {
    _describeFairDelivery(store);
  });
}

function _describeEndpoints(store: () => FleetHoursStore): void {
  it('D41: an endpoint is stored with its secret, enabled; a missing account or endpoint is a miss', async () => {
    const { accountId, endpoint } = await seed(store(), ['service.overdue']);
    expect(endpoint).toEqual({
      id: endpoint.id,
      accountId,
      url: 'https://a.example/hooks',
      eventTypes: ['service.overdue'],
      description: null,
      secret: SECRET,
      previousSecret: null,
      previousSecretExpiresAt: null,
      enabled: true,
      disabledReason: null,
      disabledAt: null,
      failingSince: null,
      createdAt: T0,
    });
    expect(await store().findWebhookEndpoint({ endpointId: endpoint.id })).toEqual(endpoint);
    expect(
      await store().createWebhookEndpoint({
        accountId: accountId + 99,
        url: 'https://b.example/',
        eventTypes: ALL,
        secret: SECRET,
        now: T0,
      }),
    ).toBeNull();
    for (const endpointId of [endpoint.id + 99, -1, 1.5, 2 ** 40]) expect(await store().findWebhookEndpoint({ endpointId })).toBeNull();
    expect(await store().listWebhookEndpoints({ accountId: accountId + 99 })).toEqual([]);
  });

  it('D41: endpoints are listed by id; changes apply; disabling says operator, enabling clears the reason', async () => {
    const { accountId, endpoint } = await seed(store());
    const second = (await store().createWebhookEndpoint({
      accountId,
      url: 'https://b.example/',
      eventTypes: ['device.silent'],
      secret: SECRET,
      now: T0 + 1,
    }))!;
    expect((await store().listWebhookEndpoints({ accountId })).map((found) => found.id)).toEqual([endpoint.id, second.id]);
    const changed = await store().updateWebhookEndpoint({
      endpointId: second.id,
      changes: { url: 'https://c.example/', eventTypes: ALL },
      now: T0,
    });
    expect([changed?.url, changed?.eventTypes]).toEqual(['https://c.example/', ALL]);
    const disabled = await store().updateWebhookEndpoint({ endpointId: second.id, changes: { enabled: false }, now: T0 + 5 });
    expect([disabled?.enabled, disabled?.disabledReason, disabled?.disabledAt]).toEqual([false, 'operator', T0 + 5]);
    const enabled = await store().updateWebhookEndpoint({ endpointId: second.id, changes: { enabled: true }, now: T0 + 6 });
    expect([enabled?.enabled, enabled?.disabledReason, enabled?.disabledAt, enabled?.failingSince]).toEqual([true, null, null, null]);
    expect(await store().updateWebhookEndpoint({ endpointId: second.id + 99, changes: { enabled: true }, now: T0 })).toBeNull();
  });

  it('P99: a description is stored as given, kept by changes without one, changed and cleared with null', async () => {
    const { accountId } = await seed(store());
    const described = (await store().createWebhookEndpoint({
      accountId,
      url: 'https://b.example/',
      eventTypes: ALL,
      description: 'Dispatch — “night shift” ✓',
      secret: SECRET,
      now: T0,
    }))!;
    expect(described.description).toBe('Dispatch — “night shift” ✓');
    expect((await store().listWebhookEndpoints({ accountId })).map((found) => found.description)).toEqual([
      null,
      'Dispatch — “night shift” ✓',
    ]);
    const kept = await store().updateWebhookEndpoint({ endpointId: described.id, changes: { enabled: false }, now: T0 });
    expect(kept?.description).toBe('Dispatch — “night shift” ✓');
    const changed = await store().updateWebhookEndpoint({ endpointId: described.id, changes: { description: 'Yard' }, now: T0 });
    expect(changed?.description).toBe('Yard');
    // D54: the description is compared too: an endpoint read before it changed is stale.
    expect(
      await store().updateWebhookEndpoint({ endpointId: described.id, changes: { description: null }, now: T0, expected: kept! }),
    ).toBeNull();
    const cleared = await store().updateWebhookEndpoint({
      endpointId: described.id,
      changes: { description: null },
      now: T0,
      expected: changed!,
    });
    expect(cleared?.description).toBeNull();
    expect(await store().findWebhookEndpoint({ endpointId: described.id })).toEqual(cleared);
    expect(await store().removeWebhookEndpoint({ endpointId: described.id, expected: changed! })).toBeNull();
  });

  it('D41: a rotation keeps the previous secret until the overlap ends', async () => {
    const { endpoint } = await seed(store());
    const next = `whsec_${'B'.repeat(43)}=`;
    const rotated = await store().rotateWebhookSecret({ endpointId: endpoint.id, secret: next, overlapSeconds: 86_400, now: T0 + 10 });
    expect([rotated?.secret, rotated?.previousSecret, rotated?.previousSecretExpiresAt]).toEqual([next, SECRET, T0 + 86_410]);
    expect(await store().rotateWebhookSecret({ endpointId: endpoint.id + 99, secret: next, overlapSeconds: 1, now: T0 })).toBeNull();
  });

  it('D41: removing an endpoint removes its deliveries and attempts', async () => {
    const { accountId, endpoint } = await seed(store());
    await store().raiseEvents({ events: [event('evt_1', accountId)], now: T0 });
    const [claimed] = await store().claimDeliveries({ claimant: 'a', limit: 10, leaseSeconds: 30, now: T0 });
    await store().recordWebhookAttempt({
      deliveryId: claimed!.delivery.id,
      claimant: 'a',
      attempt: answer(500, T0),
      retrySchedule: SCHEDULE,
    });
    expect((await store().removeWebhookEndpoint({ endpointId: endpoint.id }))?.id).toBe(endpoint.id);
    expect(await store().removeWebhookEndpoint({ endpointId: endpoint.id })).toBeNull();
    expect(await store().listWebhookAttempts({ endpointId: endpoint.id, limit: 10 })).toEqual([]);
    expect(await store().webhookBacklog()).toEqual({ pending: 0, oldestRaisedAt: null });
  });

  it("D40: an account's quiet time is 30 minutes until set; a missing account is a miss", async () => {
    const { accountId } = await seed(store());
    expect(await store().findSilentAfter({ accountId })).toBe(DEFAULT_SILENT_AFTER_SECONDS);
    expect(await store().setSilentAfter({ accountId, silentAfterSeconds: 600 })).toBe(600);
    expect(await store().findSilentAfter({ accountId })).toBe(600);
    expect(await store().setSilentAfter({ accountId: accountId + 99, silentAfterSeconds: 600 })).toBeNull();
    expect(await store().findSilentAfter({ accountId: accountId + 99 })).toBeNull();
  });
}

/** What the management of endpoints needs of the store (D54, P80–P82): conditional writes, account-bound replays, pages of attempts. */
function _describeManaged(store: () => FleetHoursStore): void {
  it('D54, P81: a conditional change or removal applies only to the endpoint as read; a change in between makes it a miss', async () => {
    const { endpoint } = await seed(store());
    const changed = await store().updateWebhookEndpoint({
      endpointId: endpoint.id,
      changes: { url: 'https://b.example/' },
      now: T0,
      expected: endpoint,
    });
    expect(changed?.url).toBe('https://b.example/');
    // `endpoint` is stale now: its URL changed.
    expect(
      await store().updateWebhookEndpoint({ endpointId: endpoint.id, changes: { enabled: false }, now: T0, expected: endpoint }),
    ).toBeNull();
    expect(await store().removeWebhookEndpoint({ endpointId: endpoint.id, expected: endpoint })).toBeNull();
    const rotated = (await store().rotateWebhookSecret({
      endpointId: endpoint.id,
      secret: `whsec_${'C'.repeat(43)}=`,
      overlapSeconds: 1,
      now: T0,
    }))!;
    // A rotation in between is a change too.
    expect(
      await store().updateWebhookEndpoint({ endpointId: endpoint.id, changes: { enabled: false }, now: T0, expected: changed! }),
    ).toBeNull();
    expect(await store().findWebhookEndpoint({ endpointId: endpoint.id })).toEqual(rotated);
    const disabled = (await store().updateWebhookEndpoint({
      endpointId: endpoint.id,
      changes: { enabled: false },
      now: T0,
      expected: rotated,
    }))!;
    expect(disabled.enabled).toBe(false);
    expect(await store().removeWebhookEndpoint({ endpointId: endpoint.id, expected: rotated })).toBeNull();
    expect((await store().removeWebhookEndpoint({ endpointId: endpoint.id, expected: disabled }))?.id).toBe(endpoint.id);
    expect(await store().findWebhookEndpoint({ endpointId: endpoint.id })).toBeNull();
  });

  it('D54, P81: conditional changes made at once from one read: exactly one applies, as one after the other would', async () => {
    const { endpoint } = await seed(store());
    const urls = ['https://one.example/', 'https://two.example/', 'https://three.example/'];
    const results = await Promise.all(
      urls.map((url) => store().updateWebhookEndpoint({ endpointId: endpoint.id, changes: { url }, now: T0, expected: endpoint })),
    );
    const applied = results.filter((result) => result !== null);
    expect(applied).toHaveLength(1);
    // The serial oracle: the first applies, the others find the endpoint changed.
    expect((await store().findWebhookEndpoint({ endpointId: endpoint.id }))?.url).toBe(applied[0]!.url);
    const removals = await Promise.all(
      [0, 1, 2].map(() => store().removeWebhookEndpoint({ endpointId: endpoint.id, expected: applied[0]! })),
    );
    expect(removals.filter((removed) => removed !== null)).toHaveLength(1);
  });

  it('P80: a replay for an account is a miss for another account’s event, and replays nothing', async () => {
    const { accountId } = await seed(store());
    await store().raiseEvents({ events: [event('evt_mine', accountId)], now: T0 });
    expect(await store().replayWebhookEvent({ eventId: 'evt_mine', now: T0 + 5, accountId: accountId + 99 })).toBeNull();
    const [pending] = (await store().claimDeliveries({ claimant: 'a', limit: 10, leaseSeconds: 30, now: T0 }))!;
    expect(pending?.delivery.nextAttemptAt).toBe(T0);
    const replayed = await store().replayWebhookEvent({ eventId: 'evt_mine', now: T0 + 5, accountId });
    expect(replayed?.map((delivery) => [delivery.state, delivery.nextAttemptAt])).toEqual([['pending', T0 + 5]]);
  });

  it('P82: attempts are listed a page at a time, each page older than the last one shown', async () => {
    const { accountId, endpoint } = await seed(store());
    await store().raiseEvents({ events: [event('evt_a', accountId), event('evt_b', accountId)], now: T0 });
    const claimed = await store().claimDeliveries({ claimant: 'a', limit: 10, leaseSeconds: 30, now: T0 });
    // Two attempts in one second, one later: the order is by instant, then id.
    await store().recordWebhookAttempt({
      deliveryId: claimed[0]!.delivery.id,
      claimant: 'a',
      attempt: answer(500, T0),
      retrySchedule: SCHEDULE,
    });
    await store().recordWebhookAttempt({
      deliveryId: claimed[1]!.delivery.id,
      claimant: 'a',
      attempt: answer(500, T0),
      retrySchedule: SCHEDULE,
    });
    const [again] = await store().claimDeliveries({ claimant: 'a', limit: 1, leaseSeconds: 30, now: T0 + 5 });
    await store().recordWebhookAttempt({
      deliveryId: again!.delivery.id,
      claimant: 'a',
      attempt: answer(500, T0 + 5),
      retrySchedule: SCHEDULE,
    });
    const all = await store().listWebhookAttempts({ endpointId: endpoint.id, limit: 10 });
    expect(all.map((attempt) => attempt.attemptedAt)).toEqual([T0 + 5, T0, T0]);
    const pages: number[][] = [];
    let before: { attemptedAt: number; id: number } | undefined;
    for (;;) {
      const page = await store().listWebhookAttempts({ endpointId: endpoint.id, limit: 2, ...(before ? { before } : {}) });
      if (page.length === 0) break;
      pages.push(page.map((attempt) => attempt.id));
      before = { attemptedAt: page.at(-1)!.attemptedAt, id: page.at(-1)!.id };
    }
    expect(pages).toEqual([all.slice(0, 2).map((attempt) => attempt.id), [all[2]!.id]]);
  });
}

function _describeOutbox(store: () => FleetHoursStore): void {
  it('D40: an event is stored once by its id, and delivered to the enabled endpoints of its account that want it', async () => {
    const { accountId, endpoint } = await seed(store(), ['device.silent']);
    const other = await seed(store());
    const off = (await store().createWebhookEndpoint({
      accountId,
      url: 'https://off.example/',
      eventTypes: ALL,
      secret: SECRET,
      now: T0,
    }))!;
    await store().updateWebhookEndpoint({ endpointId: off.id, changes: { enabled: false }, now: T0 });
    const events = [event('evt_a', accountId), event('evt_b', accountId, 'service.overdue')];
    expect(await store().raiseEvents({ events, now: T0 })).toEqual(['evt_a', 'evt_b']);
    expect(await store().raiseEvents({ events: [...events, event('evt_c', accountId)], now: T0 + 1 })).toEqual(['evt_c']);
    const claimed = await store().claimDeliveries({ claimant: 'a', limit: 10, leaseSeconds: 30, now: T0 + 1 });
    expect(claimed.map((found) => [found.event.id, found.endpoint.id])).toEqual([
      ['evt_a', endpoint.id],
      ['evt_c', endpoint.id],
    ]);
    expect(claimed[0]!.event).toEqual({ id: 'evt_a', accountId, type: 'device.silent', deviceId: 1, body: events[0]!.body, raisedAt: T0 });
    expect(claimed[0]!.endpoint.secret).toBe(SECRET);
    expect(other.endpoint.accountId).not.toBe(accountId);
  });

  it('D41: an event for one endpoint (webhook.test) goes to it alone', async () => {
    const { accountId, endpoint } = await seed(store());
    await store().createWebhookEndpoint({ accountId, url: 'https://b.example/', eventTypes: ALL, secret: SECRET, now: T0 });
    await store().raiseEvents({
      events: [event('evt_t', accountId, 'webhook.test', { deviceId: null, endpointId: endpoint.id })],
      now: T0,
    });
    const claimed = await store().claimDeliveries({ claimant: 'a', limit: 10, leaseSeconds: 30, now: T0 });
    expect(claimed.map((found) => [found.event.type, found.endpoint.id, found.event.deviceId])).toEqual([
      ['webhook.test', endpoint.id, null],
    ]);
  });

  it('D41, P54: a claim takes the due deliveries, oldest first, up to the limit, and no one else takes them until its lease ends or it is released', async () => {
    const { accountId } = await seed(store());
    await store().raiseEvents({ events: [event('evt_1', accountId)], now: T0 });
    await store().raiseEvents({ events: [event('evt_2', accountId)], now: T0 + 1 });
    await store().raiseEvents({ events: [event('evt_3', accountId)], now: T0 + 50 });
    expect(await store().claimDeliveries({ claimant: 'a', limit: 10, leaseSeconds: 30, now: T0 - 1 })).toEqual([]);
    const first = await store().claimDeliveries({ claimant: 'a', limit: 1, leaseSeconds: 30, now: T0 + 2 });
    expect(first.map((found) => found.event.id)).toEqual(['evt_1']);
    expect(
      (await store().claimDeliveries({ claimant: 'b', limit: 10, leaseSeconds: 30, now: T0 + 2 })).map((found) => found.event.id),
    ).toEqual(['evt_2']);
    expect(await store().claimDeliveries({ claimant: 'c', limit: 10, leaseSeconds: 30, now: T0 + 31 })).toEqual([]);
    expect(
      (await store().claimDeliveries({ claimant: 'c', limit: 10, leaseSeconds: 30, now: T0 + 32 })).map((found) => found.event.id),
    ).toEqual(['evt_1', 'evt_2']);
    await store().releaseWebhookClaims({ claimant: 'c' });
    expect(
      (await store().claimDeliveries({ claimant: 'd', limit: 10, leaseSeconds: 30, now: T0 + 50 })).map((found) => found.event.id),
    ).toEqual(['evt_1', 'evt_2', 'evt_3']);
  });

  it('D41: a claim of one event takes only its deliveries', async () => {
    const { accountId } = await seed(store());
    await store().raiseEvents({ events: [event('evt_1', accountId), event('evt_2', accountId)], now: T0 });
    const claimed = await store().claimDeliveries({ claimant: 'a', eventId: 'evt_2', limit: 10, leaseSeconds: 30, now: T0 });
    expect(claimed.map((found) => found.event.id)).toEqual(['evt_2']);
  });

  it('D41: claims made at once never share a delivery', async () => {
    const { accountId } = await seed(store());
    await store().raiseEvents({ events: Array.from({ length: 40 }, (_, index) => event(`evt_${index}`, accountId)), now: T0 });
    const claims = await Promise.all(
      Array.from({ length: 8 }, (_, index) => store().claimDeliveries({ claimant: `s${index}`, limit: 7, leaseSeconds: 30, now: T0 })),
    );
    const ids = claims.flat().map((found) => found.delivery.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBe(40);
  });

  it('D41: the deliveries of a disabled endpoint wait, and go on when it is enabled again', async () => {
    const { accountId, endpoint } = await seed(store());
    await store().raiseEvents({ events: [event('evt_1', accountId)], now: T0 });
    await store().updateWebhookEndpoint({ endpointId: endpoint.id, changes: { enabled: false }, now: T0 });
    expect(await store().claimDeliveries({ claimant: 'a', limit: 10, leaseSeconds: 30, now: T0 })).toEqual([]);
    expect(await store().webhookBacklog()).toEqual({ pending: 1, oldestRaisedAt: T0 });
    await store().updateWebhookEndpoint({ endpointId: endpoint.id, changes: { enabled: true }, now: T0 });
    expect(await store().claimDeliveries({ claimant: 'a', limit: 10, leaseSeconds: 30, now: T0 })).toHaveLength(1);
  });

  it('D41: instants in milliseconds are refused and write nothing', async () => {
    const { accountId } = await seed(store());
    expect((await refusalOf(store().raiseEvents({ events: [event('evt_1', accountId)], now: T0 * 1000 }))).message).toMatch(
      /^now must be epoch seconds/,
    );
    expect(
      (await refusalOf(store().raiseEvents({ events: [event('evt_1', accountId, 'device.silent', { raisedAt: T0 * 1000 })], now: T0 })))
        .message,
    ).toMatch(/^events\[0\]\.raisedAt must be epoch seconds/);
    expect(await store().webhookBacklog()).toEqual({ pending: 0, oldestRaisedAt: null });
  });
}

/** What the attempt tests share: one claimed delivery, a report by `a`, a claim by `a`. */
function _attemptHelpers(store: () => FleetHoursStore) {
  /** An account with an endpoint, one event, and its delivery claimed by `a` at T0. */
  const claimedOne = async () => {
    const { accountId, endpoint } = await seed(store());
    await store().raiseEvents({ events: [event('evt_1', accountId)], now: T0 });
    const [claimed] = await store().claimDeliveries({ claimant: 'a', limit: 1, leaseSeconds: 30, now: T0 });
    return { accountId, endpoint, deliveryId: claimed!.delivery.id };
  };
  const record = (deliveryId: number, attempt: AttemptReport, claimant = 'a') =>
    store().recordWebhookAttempt({ deliveryId, claimant, attempt, retrySchedule: SCHEDULE });
  const claimAt = (now: number) => store().claimDeliveries({ claimant: 'a', limit: 1, leaseSeconds: 30, now });
  return { claimedOne, record, claimAt };
}

function _describeAttempts(store: () => FleetHoursStore): void {
  const { claimedOne, record, claimAt } = _attemptHelpers(store);

  it('D41: a 2xx delivers; a failure retries on the schedule, honouring Retry-After, then fails', async () => {
    const { endpoint, deliveryId } = await claimedOne();
    expect(await record(deliveryId, answer(500, T0))).toMatchObject({ state: 'pending', attempts: 1, nextAttemptAt: T0 + 5 });
    expect(await claimAt(T0 + 4)).toEqual([]);
    expect(await claimAt(T0 + 5)).toHaveLength(1);
    expect(await record(deliveryId, answer(429, T0 + 5, 120))).toMatchObject({ state: 'pending', attempts: 2, nextAttemptAt: T0 + 125 });
    expect(await claimAt(T0 + 125)).toHaveLength(1);
    expect(await record(deliveryId, answer(null, T0 + 125))).toMatchObject({ state: 'failed', attempts: 3, nextAttemptAt: null });
    expect((await store().findWebhookEndpoint({ endpointId: endpoint.id }))?.failingSince).toBe(T0);
    const attempts = await store().listWebhookAttempts({ endpointId: endpoint.id, limit: 2 });
    expect(attempts.map((attempt) => [attempt.attemptedAt, attempt.status, attempt.eventType])).toEqual([
      [T0 + 125, null, 'device.silent'],
      [T0 + 5, 429, 'device.silent'],
    ]);
    expect(attempts[0]).toMatchObject({ deliveryId, eventId: 'evt_1', endpointId: endpoint.id, durationMs: 12, error: 'answered null' });
  });

  it('D41: a success clears the failing streak; a 410 fails the delivery and disables the endpoint', async () => {
    const { accountId, endpoint, deliveryId } = await claimedOne();
    await record(deliveryId, answer(503, T0));
    await claimAt(T0 + 5);
    expect(await record(deliveryId, answer(204, T0 + 5))).toMatchObject({ state: 'delivered', attempts: 2, nextAttemptAt: null });
    expect((await store().findWebhookEndpoint({ endpointId: endpoint.id }))?.failingSince).toBeNull();
    await store().raiseEvents({ events: [event('evt_2', accountId)], now: T0 + 6 });
    const [claimed] = await claimAt(T0 + 6);
    expect(await record(claimed!.delivery.id, answer(410, T0 + 6))).toMatchObject({ state: 'failed', attempts: 1 });
    expect(await store().findWebhookEndpoint({ endpointId: endpoint.id })).toMatchObject({
      enabled: false,
      disabledReason: 'gone',
      disabledAt: T0 + 6,
    });
  });

  it('D41: five days without a success disable the endpoint', async () => {
    const { accountId, endpoint, deliveryId } = await claimedOne();
    await record(deliveryId, answer(500, T0));
    await store().raiseEvents({ events: [event('evt_2', accountId)], now: T0 + ENDPOINT_FAILURE_DISABLE_SECONDS });
    const claimed = await store().claimDeliveries({
      claimant: 'a',
      limit: 10,
      leaseSeconds: 30,
      now: T0 + ENDPOINT_FAILURE_DISABLE_SECONDS,
    });
    await record(claimed[0]!.delivery.id, answer(500, T0 + ENDPOINT_FAILURE_DISABLE_SECONDS - 1));
    expect((await store().findWebhookEndpoint({ endpointId: endpoint.id }))?.enabled).toBe(true);
    await record(claimed[1]!.delivery.id, answer(500, T0 + ENDPOINT_FAILURE_DISABLE_SECONDS));
    expect(await store().findWebhookEndpoint({ endpointId: endpoint.id })).toMatchObject({ enabled: false, disabledReason: 'failing' });
  });

  it('D41: an attempt reported after its claim was lost is recorded and changes nothing else', async () => {
    const { endpoint, deliveryId } = await claimedOne();
    await store().claimDeliveries({ claimant: 'b', limit: 1, leaseSeconds: 30, now: T0 + 30 });
    expect(await record(deliveryId, answer(500, T0 + 31), 'a')).toMatchObject({ state: 'pending', attempts: 0 });
    expect((await store().findWebhookEndpoint({ endpointId: endpoint.id }))?.failingSince).toBeNull();
    expect(await store().listWebhookAttempts({ endpointId: endpoint.id, limit: 10 })).toHaveLength(1);
    expect(await record(deliveryId + 99, answer(500, T0))).toBeNull();
  });

  it("D41: a replay makes the event's deliveries pending again, from attempt 0; failedOnly lists the failed ones' attempts", async () => {
    const { endpoint, deliveryId } = await claimedOne();
    await record(deliveryId, answer(410, T0));
    expect(await store().listWebhookAttempts({ endpointId: endpoint.id, failedOnly: true, limit: 10 })).toHaveLength(1);
    await store().updateWebhookEndpoint({ endpointId: endpoint.id, changes: { enabled: true }, now: T0 });
    const replayed = await store().replayWebhookEvent({ eventId: 'evt_1', now: T0 + 100 });
    expect(replayed).toEqual([
      { id: deliveryId, eventId: 'evt_1', endpointId: endpoint.id, state: 'pending', attempts: 0, nextAttemptAt: T0 + 100, createdAt: T0 },
    ]);
    expect(await store().listWebhookAttempts({ endpointId: endpoint.id, failedOnly: true, limit: 10 })).toEqual([]);
    expect((await claimAt(T0 + 100))[0]?.event.id).toBe('evt_1');
    expect(await store().replayWebhookEvent({ eventId: 'evt_none', now: T0 })).toBeNull();
  });
}

/** `recordWebhookAttempts`: a batch of reports, recorded as one by one (D41). */
function _describeBatchedAttempts(store: () => FleetHoursStore): void {
  const { claimedOne, record } = _attemptHelpers(store);

  it('D41: attempts recorded in one batch end exactly as when recorded one by one, in the same order', async () => {
    /** One account's scenario: four events claimed by `a`, then six reports — by `recordAll`. */
    const scenario = async (prefix: string, recordAll: (reports: { deliveryId: number; attempt: AttemptReport }[]) => Promise<unknown>) => {
      const { accountId, endpoint } = await seed(store(), ['device.silent']);
      const ids = [1, 2, 3, 4].map((index) => `evt_${prefix}_${index}`);
      await store().raiseEvents({ events: ids.map((id) => event(id, accountId)), now: T0 });
      const delivery: number[] = [];
      for (const eventId of ids)
        delivery.push((await store().claimDeliveries({ claimant: 'a', eventId, limit: 1, leaseSeconds: 30, now: T0 }))[0]!.delivery.id);
      const results = await recordAll([
        { deliveryId: delivery[0]!, attempt: answer(500, T0) },
        { deliveryId: delivery[1]!, attempt: answer(204, T0 + 1) },
        { deliveryId: delivery[0]!, attempt: answer(200, T0 + 2) },
        { deliveryId: delivery[2]!, attempt: answer(200, T0 + 3) },
        { deliveryId: 9_999_999, attempt: answer(200, T0 + 3) },
        { deliveryId: delivery[3]!, attempt: answer(410, T0 + 4) },
      ]);
      const attempts = await store().listWebhookAttempts({ endpointId: endpoint.id, limit: 10 });
      const position = (deliveryId: number) => delivery.indexOf(deliveryId);
      return {
        results: (results as (WebhookDelivery | null)[]).map((one) =>
          one === null ? null : { ...one, id: position(one.id), eventId: one.eventId.replace(prefix, ''), endpointId: 0 },
        ),
        endpoint: { ...(await store().findWebhookEndpoint({ endpointId: endpoint.id }))!, id: 0, accountId: 0 },
        attempts: attempts.map((one) => ({
          ...one,
          id: 0,
          deliveryId: position(one.deliveryId),
          eventId: one.eventId.replace(prefix, ''),
          endpointId: 0,
        })),
      };
    };
    const serial = await scenario('one', async (reports) => {
      const results = [];
      for (const { deliveryId, attempt } of reports) results.push(await record(deliveryId, attempt));
      return results;
    });
    const batched = await scenario('batch', (reports) =>
      store().recordWebhookAttempts({ claimant: 'a', reports, retrySchedule: SCHEDULE }),
    );
    expect(batched).toEqual(serial);
    expect(serial.results.map((one) => one && [one.id, one.state, one.attempts])).toEqual([
      [0, 'pending', 1],
      [1, 'delivered', 1],
      [0, 'pending', 1],
      [2, 'delivered', 1],
      null,
      [3, 'failed', 1],
    ]);
    expect(serial.endpoint).toMatchObject({ enabled: false, disabledReason: 'gone', failingSince: T0 + 4 });
    expect(serial.attempts).toHaveLength(5);
  });

  it('D41: a batch of successes delivers each, clears the failing streak, and leaves a delivery claimed by another sender as it is', async () => {
    const { accountId, endpoint, deliveryId } = await claimedOne();
    await record(deliveryId, answer(500, T0));
    await store().raiseEvents({ events: ['evt_2', 'evt_3', 'evt_4'].map((id) => event(id, accountId)), now: T0 });
    const mine = await store().claimDeliveries({ claimant: 'a', limit: 2, leaseSeconds: 30, now: T0 });
    const theirs = await store().claimDeliveries({ claimant: 'b', limit: 1, leaseSeconds: 30, now: T0 });
    const reports = [...mine, ...theirs].map((claimed) => ({ deliveryId: claimed.delivery.id, attempt: answer(200, T0 + 1) }));
    const recorded = await store().recordWebhookAttempts({ claimant: 'a', reports, retrySchedule: SCHEDULE });
    expect(recorded.map((one) => one && [one.eventId, one.state, one.attempts])).toEqual([
      ['evt_2', 'delivered', 1],
      ['evt_3', 'delivered', 1],
      ['evt_4', 'pending', 0],
    ]);
    expect((await store().findWebhookEndpoint({ endpointId: endpoint.id }))?.failingSince).toBeNull();
    expect(await store().listWebhookAttempts({ endpointId: endpoint.id, limit: 10 })).toHaveLength(4);
    expect(await store().recordWebhookAttempts({ claimant: 'a', reports: [], retrySchedule: SCHEDULE })).toEqual([]);
  });

  it('D41: a batch with an instant in milliseconds is refused and records nothing', async () => {
    const { endpoint, deliveryId } = await claimedOne();
    const reports = [
      { deliveryId, attempt: answer(200, T0) },
      { deliveryId, attempt: answer(200, T0 * 1000) },
    ];
    expect((await refusalOf(store().recordWebhookAttempts({ claimant: 'a', reports, retrySchedule: SCHEDULE }))).message).toMatch(
      /^reports\[1\]\.attempt\.attemptedAt must be epoch seconds/,
    );
    expect(await store().listWebhookAttempts({ endpointId: endpoint.id, limit: 10 })).toEqual([]);
    expect(await store().webhookBacklog()).toMatchObject({ pending: 1 });
  });
}

/** D47: an endpoint's share of a claim; the retry's delay from the end of the attempt. */
function _describeFairDelivery(store: () => FleetHoursStore): void {
  const { claimedOne, record } = _attemptHelpers(store);
  /** Endpoint `hanging` of one account with 10 due deliveries, then `quick` of another with 2, raised later. */
  const twoEndpoints = async () => {
    const hanging = await seed(store());
    const quick = await seed(store());
    const ids = (prefix: string, count: number) => Array.from({ length: count }, (_, index) => `evt_${prefix}_${index}`);
    await store().raiseEvents({ events: ids('h', 10).map((id) => event(id, hanging.accountId)), now: T0 });
    await store().raiseEvents({ events: ids('q', 2).map((id) => event(id, quick.accountId)), now: T0 + 1 });
    return { hanging: hanging.endpoint.id, quick: quick.endpoint.id };
  };
  const claim = (claimant: string, held: { endpointId: number; requests: number }[], limit = 10) =>
    store().claimDeliveries({ claimant, limit, leaseSeconds: 30, now: T0 + 2, perEndpoint: 4, held });
  const ids = (claimed: readonly { event: { id: string } }[]) => claimed.map((one) => one.event.id);

  it("D47, P62: a claim takes at most an endpoint's share, so the deliveries of another endpoint behind it are claimed too, oldest first", async () => {
    await twoEndpoints();
    expect(ids(await claim('a', []))).toEqual(['evt_h_0', 'evt_h_1', 'evt_h_2', 'evt_h_3', 'evt_q_0', 'evt_q_1']);
  });

  it('D47, P62: what the claimant already sends to an endpoint counts against its share; an endpoint at its share is skipped', async () => {
    const { hanging, quick } = await twoEndpoints();
    expect(ids(await claim('a', [{ endpointId: hanging, requests: 4 }]))).toEqual(['evt_q_0', 'evt_q_1']);
    expect(ids(await claim('b', [{ endpointId: hanging, requests: 3 }]))).toEqual(['evt_h_0']);
    expect(
      ids(
        await claim('c', [
          { endpointId: hanging, requests: 9 },
          { endpointId: quick, requests: 0 },
        ]),
      ),
    ).toEqual([]);
    expect(ids(await claim('d', [{ endpointId: quick, requests: 1 }], 2))).toEqual(['evt_h_1', 'evt_h_2']);
  });

  it('D47: without a share a claim takes the oldest due deliveries, whatever their endpoint', async () => {
    await twoEndpoints();
    const claimed = await store().claimDeliveries({ claimant: 'a', limit: 10, leaseSeconds: 30, now: T0 + 2 });
    expect(ids(claimed)).toEqual(Array.from({ length: 10 }, (_, index) => `evt_h_${index}`));
  });

  it('D47, P62: claims made at once, each with its share, never share a delivery and never give one claimant more than its share', async () => {
    const { hanging, quick } = await twoEndpoints();
    const claims = [
      ...(await Promise.all(
        Array.from({ length: 6 }, (_, index) =>
          store().claimDeliveries({ claimant: `s${index}`, limit: 10, leaseSeconds: 30, now: T0 + 2, perEndpoint: 2 }),
        ),
      )),
    ];
    // A claim may find the rows another is taking locked, and take fewer; later claims take the rest.
    for (let index = 0; index < 12; index += 1)
      claims.push(await store().claimDeliveries({ claimant: `t${index}`, limit: 10, leaseSeconds: 30, now: T0 + 2, perEndpoint: 2 }));
    const all = claims.flat().map((one) => one.delivery.id);
    expect(new Set(all).size).toBe(all.length);
    expect(all).toHaveLength(12);
    for (const claimed of claims)
      for (const endpointId of [hanging, quick])
        expect(claimed.filter((one) => one.endpoint.id === endpointId).length).toBeLessThanOrEqual(2);
  });

  it("D47, P63: a retry's delay counts from the end of the failed attempt; Retry-After still from its start", async () => {
    const { deliveryId } = await claimedOne();
    // A request that hung for 20 s, from T0: the next attempt 5 s after its end, not at once.
    const hung = { ...answer(null, T0), durationMs: 20_000, finishedAt: T0 + 20 };
    expect(await record(deliveryId, hung)).toMatchObject({ state: 'pending', attempts: 1, nextAttemptAt: T0 + 25 });
    await store().claimDeliveries({ claimant: 'a', limit: 1, leaseSeconds: 30, now: T0 + 25 });
    const asked = { ...answer(429, T0 + 25, 3600), durationMs: 2_000, finishedAt: T0 + 27 };
    expect(await record(deliveryId, asked)).toMatchObject({ state: 'pending', attempts: 2, nextAttemptAt: T0 + 25 + 3600 });
  });

  it('D47: a report without its end counts the delay from its start and its duration, rounded up', async () => {
    const { deliveryId } = await claimedOne();
    const { finishedAt: _ended, ...report } = { ...answer(503, T0), durationMs: 15_000.4 };
    const recorded = await store().recordWebhookAttempts({
      claimant: 'a',
      reports: [{ deliveryId, attempt: report }],
      retrySchedule: SCHEDULE,
    });
    expect(recorded[0]).toMatchObject({ state: 'pending', attempts: 1, nextAttemptAt: T0 + 16 + 5 });
  });
}
