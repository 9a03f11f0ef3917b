import { assertEpochSeconds } from '../time/assert-epoch-seconds.js';
import { DEFAULT_SILENT_AFTER_SECONDS } from '../events/decide-events.js';
import { deliveryAfterAttempt, endpointAfterAttempt } from '../events/retry-schedule.js';
import type { AttemptReport, WebhookAttempt, WebhookDelivery, WebhookEndpoint, WebhookEvent } from '../events/webhook-records.js';
import type { WebhookOutboxStore } from './storage-port.js';
import { takeRow } from './memory-rows.js';
import type { MemoryUndo } from './memory-units.js';

/** A delivery as the memory store keeps it: with its claim. */
type _Delivery = WebhookDelivery & { claimant: string | null; claimedUntil: number | null };

/** What the parts of a memory store's webhooks share. */
function _memoryWebhookState() {
  const endpoints = new Map<number, WebhookEndpoint>();
  const events = new Map<string, WebhookEvent>();
  const deliveries = new Map<number, _Delivery>();
  const attempts: WebhookAttempt[] = [];
  const silentAfter = new Map<number, number>();
  /** `device:cause` of the silences raised, and of those closed by `device.reporting`. */
  const silences = { raised: new Map<string, { deviceId: number; since: number }>(), closed: new Set<string>() };
  const ids = { endpoint: 0, delivery: 0, attempt: 0 };
  const shown = (delivery: _Delivery): WebhookDelivery => {
    const { claimant: _claimant, claimedUntil: _claimedUntil, ...visible } = delivery;
    return visible;
  };
  const deliver = (event: WebhookEvent, endpointId: number, now: number) => {
    const delivery: _Delivery = {
      id: ++ids.delivery,
      eventId: event.id,
      endpointId,
      state: 'pending',
      attempts: 0,
      nextAttemptAt: now,
      createdAt: now,
      claimant: null,
      claimedUntil: null,
    };
    deliveries.set(delivery.id, delivery);
  };
  return { endpoints, events, deliveries, attempts, silentAfter, silences, ids, shown, deliver };
}

type _State = ReturnType<typeof _memoryWebhookState>;

/** Endpoints, the outbox, deliveries and attempts of a memory store (D40, D41), over its accounts. */
export function memoryWebhooks(accounts: ReadonlyMap<number, unknown>, undo: MemoryUndo): WebhookOutboxStore {
  const state = _memoryWebhookState();
  const { endpoints, events, deliveries, attempts, silentAfter, silences, ids } = state;
  undo.keep([endpoints, events, attempts, silentAfter, silences.closed, ids]);
  // Deliveries are claimed in place, and a raised silence's record may be too.
  undo.keep([deliveries, silences.raised], { copyValues: true });
  return { ..._memoryEndpoints(state, accounts), ..._memoryOutbox(state), ..._memoryAccountEvents(state, accounts) };
}

/** Whether an endpoint still has the fields of `expected` a conditional write compares (D54, P81); always without one. */
function _stillAsRead(endpoint: WebhookEndpoint, expected: WebhookEndpoint | undefined): boolean {
  return (
    expected === undefined ||
    (endpoint.url === expected.url &&
      endpoint.eventTypes.join(',') === expected.eventTypes.join(',') &&
      endpoint.enabled === expected.enabled &&
      endpoint.description === expected.description &&
      endpoint.secret === expected.secret)
  );
}

/** Endpoints. */
function _memoryEndpoints(state: _State, accounts: ReadonlyMap<number, unknown>) {
  const { endpoints, deliveries, attempts, ids } = state;
  return {
    async createWebhookEndpoint({ accountId, url, eventTypes, description, secret, now }) {
      assertEpochSeconds('now', now);
      if (!accounts.has(accountId)) return null;
      const endpoint: WebhookEndpoint = {
        id: ++ids.endpoint,
        accountId,
        url,
        eventTypes: [...eventTypes],
        description: description ?? null,
        secret,
        previousSecret: null,
        previousSecretExpiresAt: null,
        enabled: true,
        disabledReason: null,
        disabledAt: null,
        failingSince: null,
        createdAt: now,
      };
      endpoints.set(endpoint.id, endpoint);
      return { ...endpoint };
    },
    findWebhookEndpoint: async ({ endpointId }) => _copy(endpoints.get(endpointId)),
    listWebhookEndpoints: async ({ accountId }) =>
      [...endpoints.values()]
        .filter((endpoint) => endpoint.accountId === accountId)
        .sort((a, b) => a.id - b.id)
        .map((endpoint) => ({ ...endpoint })),
    async updateWebhookEndpoint({ endpointId, changes, now, expected }) {
      assertEpochSeconds('now', now);
      const endpoint = endpoints.get(endpointId);
      if (!endpoint || !_stillAsRead(endpoint, expected)) return null;
      let changed: WebhookEndpoint = {
        ...endpoint,
        url: changes.url ?? endpoint.url,
        eventTypes: changes.eventTypes ? [...changes.eventTypes] : endpoint.eventTypes,
        description: changes.description === undefined ? endpoint.description : changes.description,
      };
      if (changes.enabled === true) changed = { ...changed, enabled: true, disabledReason: null, disabledAt: null, failingSince: null };
      if (changes.enabled === false && endpoint.enabled)
        changed = { ...changed, enabled: false, disabledReason: 'operator', disabledAt: now };
      endpoints.set(endpointId, changed);
      return { ...changed };
    },
    async rotateWebhookSecret({ endpointId, secret, overlapSeconds, now }) {
      assertEpochSeconds('now', now);
      const endpoint = endpoints.get(endpointId);
      if (!endpoint) return null;
      const rotated = { ...endpoint, secret, previousSecret: endpoint.secret, previousSecretExpiresAt: now + overlapSeconds };
      endpoints.set(endpointId, rotated);
      return { ...rotated };
    },
    async removeWebhookEndpoint({ endpointId, expected }) {
      const found = endpoints.get(endpointId);
      if (!found || !_stillAsRead(found, expected)) return null;
      const endpoint = takeRow(endpoints, endpointId);
      if (!endpoint) return null;
      for (const delivery of [...deliveries.values()]) if (delivery.endpointId === endpointId) deliveries.delete(delivery.id);
      for (let index = attempts.length - 1; index >= 0; index -= 1)
        if (attempts[index]!.endpointId === endpointId) attempts.splice(index, 1);
      return endpoint;
    },
  } satisfies Partial<WebhookOutboxStore>;
}

/** The outbox, deliveries and attempts. */
function _memoryOutbox(state: _State) {
  const { endpoints, events, deliveries, attempts, silences, ids, shown, deliver } = state;
  /** One attempt (D41): recorded; the delivery and the endpoint changed only while `claimant` holds the claim. */
  const recordOne = (input: { deliveryId: number; claimant: string; attempt: AttemptReport; retrySchedule: readonly number[] }) => {
    const { deliveryId, claimant, attempt, retrySchedule } = input;
    const delivery = deliveries.get(deliveryId);
    if (!delivery) return null;
    const event = events.get(delivery.eventId)!;
    attempts.push({
      id: ++ids.attempt,
      deliveryId,
      eventId: delivery.eventId,
      eventType: event.type,
      endpointId: delivery.endpointId,
      attemptedAt: attempt.attemptedAt,
      status: attempt.status,
      durationMs: attempt.durationMs,
      error: attempt.error,
    });
    if (delivery.claimant !== claimant) return shown(delivery);
    const endpoint = endpoints.get(delivery.endpointId)!;
    const effect = endpointAfterAttempt({ status: attempt.status, failingSince: endpoint.failingSince, now: attempt.attemptedAt });
    endpoints.set(endpoint.id, {
      ...endpoint,
      failingSince: effect.failingSince,
      ...(effect.disable !== null && endpoint.enabled
        ? { enabled: false, disabledReason: effect.disable, disabledAt: attempt.attemptedAt }
        : {}),
    });
    Object.assign(delivery, deliveryAfterAttempt(delivery.attempts + 1, attempt, retrySchedule), { claimant: null, claimedUntil: null });
    return shown(delivery);
  };
  return {
    async raiseEvents({ events: raised, now }) {
      assertEpochSeconds('now', now);
      raised.forEach((event, index) => assertEpochSeconds(`events[${index}].raisedAt`, event.raisedAt));
      const stored: string[] = [];
      for (const { endpointId, cause, ...event } of raised) {
        if (events.has(event.id)) continue;
        events.set(event.id, { ...event });
        if (cause !== undefined && event.deviceId !== null && event.type === 'device.silent') {
          silences.raised.set(`${event.deviceId}:${cause}`, { deviceId: event.deviceId, since: cause });
        }
        if (cause !== undefined && event.type === 'device.reporting') silences.closed.add(`${event.deviceId}:${cause}`);
        stored.push(event.id);
        for (const endpoint of _byId(endpoints.values())) {
          if (endpoint.accountId !== event.accountId) continue;
          const wanted =
            endpointId === undefined ? endpoint.enabled && endpoint.eventTypes.includes(event.type) : endpoint.id === endpointId;
          if (wanted) deliver(event, endpoint.id, now);
        }
      }
      return stored;
    },
    async claimDeliveries({ claimant, eventId, limit, leaseSeconds, now, perEndpoint, held }) {
      assertEpochSeconds('now', now);
      // D47: what each endpoint may still take of this claimant's share.
      const room = new Map<number, number>();
      const roomOf = (endpointId: number) => room.get(endpointId) ?? perEndpoint ?? Number.POSITIVE_INFINITY;
      for (const { endpointId, requests } of held ?? []) room.set(endpointId, roomOf(endpointId) - requests);
      const due = [...deliveries.values()]
        .filter(
          (delivery) =>
            delivery.state === 'pending' &&
            delivery.nextAttemptAt! <= now &&
            (delivery.claimedUntil === null || delivery.claimedUntil <= now),
        )
        .filter(
          (delivery) => endpoints.get(delivery.endpointId)?.enabled === true && (eventId === undefined || delivery.eventId === eventId),
        )
        .sort((a, b) => a.nextAttemptAt! - b.nextAttemptAt! || a.id - b.id)
        .filter((delivery) => {
          const left = roomOf(delivery.endpointId);
          room.set(delivery.endpointId, left - 1);
          return left >= 1;
        })
        .slice(0, limit);
      return due.map((delivery) => {
        delivery.claimant = claimant;
        delivery.claimedUntil = now + leaseSeconds;
        return {
          delivery: shown(delivery),
          event: { ...events.get(delivery.eventId)! },
          endpoint: { ...endpoints.get(delivery.endpointId)! },
        };
      });
    },
    async recordWebhookAttempt(input) {
      assertEpochSeconds('attempt.attemptedAt', input.attempt.attemptedAt);
      return recordOne(input);
    },
    async recordWebhookAttempts({ claimant, reports, retrySchedule }) {
      reports.forEach((report, index) => assertEpochSeconds(`reports[${index}].attempt.attemptedAt`, report.attempt.attemptedAt));
      const recorded: (WebhookDelivery | null)[] = [];
      for (const { deliveryId, attempt } of reports) recorded.push(recordOne({ deliveryId, claimant, attempt, retrySchedule }));
      return recorded;
    },
    async releaseWebhookClaims({ claimant }) {
      for (const delivery of deliveries.values()) {
        if (delivery.claimant === claimant) Object.assign(delivery, { claimant: null, claimedUntil: null });
      }
    },
    async listWebhookAttempts({ endpointId, failedOnly, limit, before }) {
      const older = (attempt: WebhookAttempt) =>
        before === undefined ||
        attempt.attemptedAt < before.attemptedAt ||
        (attempt.attemptedAt === before.attemptedAt && attempt.id < before.id);
      return attempts
        .filter(
          (attempt) =>
            attempt.endpointId === endpointId && older(attempt) && (!failedOnly || deliveries.get(attempt.deliveryId)?.state === 'failed'),
        )
        .sort((a, b) => b.attemptedAt - a.attemptedAt || b.id - a.id)
        .slice(0, limit)
        .map((attempt) => ({ ...attempt }));
    },
    async replayWebhookEvent({ eventId, now, accountId }) {
      assertEpochSeconds('now', now);
      const event = events.get(eventId);
      if (!event || (accountId !== undefined && event.accountId !== accountId)) return null;
      const replayed = _byId(deliveries.values()).filter((delivery) => delivery.eventId === eventId);
      for (const delivery of replayed)
        Object.assign(delivery, { state: 'pending', attempts: 0, nextAttemptAt: now, claimant: null, claimedUntil: null });
      return replayed.map(shown);
    },
  } satisfies Partial<WebhookOutboxStore>;
}

/** Open silences, the backlog and each account's quiet time. */
function _memoryAccountEvents(state: _State, accounts: ReadonlyMap<number, unknown>) {
  const { events, deliveries, silentAfter, silences } = state;
  return {
    async listOpenSilences({ deviceIds }) {
      const wanted = new Set(deviceIds);
      return [...silences.raised]
        .filter(([key, silence]) => wanted.has(silence.deviceId) && !silences.closed.has(key))
        .map(([, silence]) => ({ ...silence }))
        .sort((a, b) => a.deviceId - b.deviceId || a.since - b.since);
    },
    async webhookBacklog() {
      const pending = [...deliveries.values()].filter((delivery) => delivery.state === 'pending');
      const raisedAt = pending.map((delivery) => events.get(delivery.eventId)!.raisedAt);
      return { pending: pending.length, oldestRaisedAt: raisedAt.length === 0 ? null : Math.min(...raisedAt) };
    },
    async setSilentAfter({ accountId, silentAfterSeconds }) {
      if (!accounts.has(accountId)) return null;
      silentAfter.set(accountId, silentAfterSeconds);
      return silentAfterSeconds;
    },
    findSilentAfter: async ({ accountId }) =>
      accounts.has(accountId) ? (silentAfter.get(accountId) ?? DEFAULT_SILENT_AFTER_SECONDS) : null,
  } satisfies Partial<WebhookOutboxStore>;
}

const _byId = <T extends { id: number }>(items: Iterable<T>) => [...items].sort((a, b) => a.id - b.id);
const _copy = <T extends object>(value: T | undefined): T | null => (value === undefined ? null : { ...value });
