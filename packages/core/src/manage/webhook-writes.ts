import { FleetHoursError, InvalidParameterError } from '../errors/errors.js';
import { SECRET_ROTATION_OVERLAP_SECONDS } from '../events/webhook-message.js';
import type { WebhookAttempt, WebhookDelivery, WebhookEndpoint } from '../events/webhook-records.js';
import type { FleetHoursStore } from '../store/storage-port.js';
import type { EpochSeconds } from '../types.js';
import { REDACTED, type ChangeLog, type ChangeOrigin } from './change-log.js';
import { NO_CHANGE_LOG, type ConditionalWrite, type FieldsWrite } from './write-input.js';
import { changeUnits } from './change-unit.js';
import { decodeDeliveriesCursor, encodeDeliveriesCursor } from './deliveries-cursor.js';
import { ifMatchNames, preconditionFailed } from './entity-tag.js';
import { EVENT_ID_PATTERN, readWebhookFields, webhookEndpointBody, webhookTestEvent, webhookVersion } from './webhook-fields.js';

/**
 * Webhook endpoints managed (D41, D52): the one implementation behind `/api/v1/webhooks…`,
 * `POST /api/v1/events/{event_id}/replay` and the CLI's `webhooks create|list|update|rotate|remove|
 * test|deliveries|replay`. Fields are checked here by their names in the API's body; the URL and the
 * event types by the checks of D41 (`checkWebhookUrl`, `checkWebhookEventTypes`), which the CLI's
 * options use too. A secret is made here, returned once by the write that made it, and never given
 * to the change log (D55). Sending a test is I/O: the front end passes the sender (P83).
 */

/** Attempts in a page of `deliveries` (P82): 50 by default, at most 1000. */
export const WEBHOOK_DELIVERIES_PAGE = { default: 50, max: 1000 } as const;

/** The attempt a test made (P83): the answer's status (`null`: none), how long it took, why it failed. */
export interface WebhookTestAttempt {
  readonly status: number | null;
  readonly durationMs: number;
  readonly error: string | null;
}

/**
 * Sends one event of the outbox now, as the servers' sender would (P83): the I/O a front end
 * brings. `endpointId`: the one endpoint it is for (a test's). `null` when it could not be sent now
 * (the servers send it later).
 */
export type SendWebhookEvent = (input: { readonly eventId: string; readonly endpointId: number }) => Promise<WebhookTestAttempt | null>;

/** A page of an endpoint's attempts, newest first (P82). */
export interface WebhookDeliveriesPage {
  readonly data: readonly WebhookAttempt[];
  /** The `cursor` of the next page; `null` on the last. */
  readonly nextCursor: string | null;
}

/** A write of one endpoint of the account, on its version (D54). */
type _EndpointWrite = ConditionalWrite & { readonly endpointId: number };

/** The service's management of webhook endpoints (D41, D52): every front end's. */
export interface WebhookWrites {
  /** The account's endpoints, by id. */
  listWebhookEndpoints(input: { readonly accountId: number }): Promise<readonly WebhookEndpoint[]>;
  /** An endpoint of the account; `null` when the account has none by that id (another account's included). */
  findWebhookEndpoint(input: { readonly accountId: number; readonly endpointId: number }): Promise<WebhookEndpoint | null>;
  /**
   * Creates an endpoint of the account, enabled, with a new secret.
   *
   * @returns The endpoint and its secret, which is never returned again; `null` when the account does not exist.
   * @throws {InvalidFieldError} A field that cannot be used (400).
   */
  createWebhookEndpoint(input: FieldsWrite): Promise<{ readonly endpoint: WebhookEndpoint; readonly secret: string } | null>;
  /**
   * Changes an endpoint of the account: `enabled: true` also clears why it was disabled.
   *
   * @returns The endpoint; `null` when the account has no such endpoint.
   * @throws {InvalidFieldError} A field that cannot be used (400).
   * @throws {FleetHoursError} `precondition_failed` (412) when `ifMatch` names none of its tag, also when it changes meanwhile (D54).
   */
  updateWebhookEndpoint(input: FieldsWrite & _EndpointWrite): Promise<WebhookEndpoint | null>;
  /**
   * Removes an endpoint of the account, with its deliveries and attempts.
   *
   * @returns The endpoint removed; `null` when the account has no such endpoint.
   * @throws {FleetHoursError} `precondition_failed` (412), as {@link WebhookWrites.updateWebhookEndpoint}.
   */
  removeWebhookEndpoint(input: _EndpointWrite): Promise<WebhookEndpoint | null>;
  /**
   * A new secret for an endpoint of the account (D41): both sign every request for 24 hours.
   *
   * @returns The endpoint and its new secret, shown this once; `null` when the account has no such endpoint.
   */
  rotateWebhookSecret(input: {
    readonly accountId: number;
    readonly endpointId: number;
    readonly origin: ChangeOrigin;
  }): Promise<{ readonly endpoint: WebhookEndpoint; readonly secret: string } | null>;
  /**
   * Sends a `webhook.test` event to an endpoint of the account now (D41, P83): the event is put in
   * the outbox for that endpoint alone, then `send` sends it.
   *
   * @returns The event's id, the endpoint and the attempt (`null`: not sent now, the servers will);
   *   `null` when the account has no such endpoint.
   * @throws {FleetHoursError} `conflict` (409) when the endpoint is disabled.
   */
  testWebhookEndpoint(input: {
    readonly accountId: number;
    readonly endpointId: number;
    readonly origin: ChangeOrigin;
    readonly send: SendWebhookEvent;
  }): Promise<{ readonly eventId: string; readonly endpoint: WebhookEndpoint; readonly attempt: WebhookTestAttempt | null } | null>;
  /**
   * A page of an endpoint's attempts, newest first (D41, P82).
   *
   * @returns The page; `null` when the account has no such endpoint.
   * @throws {InvalidParameterError} A `limit` out of 1…{@link WEBHOOK_DELIVERIES_PAGE}.max, a cursor of another list.
   */
  listWebhookDeliveries(input: {
    readonly accountId: number;
    readonly endpointId: number;
    readonly limit?: number | undefined;
    readonly failedOnly?: boolean | undefined;
    readonly cursor?: string | undefined;
  }): Promise<WebhookDeliveriesPage | null>;
  /**
   * Makes every delivery of an event pending again, to be sent under the same id (D41).
   *
   * @param input `accountId`: the account whose event it must be; `null` for the operator's CLI, any account's.
   * @returns Its deliveries; `null` when there is no such event (of the account).
   */
  replayWebhookEvent(input: {
    readonly accountId: number | null;
    readonly eventId: string;
    readonly origin: ChangeOrigin;
  }): Promise<readonly WebhookDelivery[] | null>;
}

/**
 * The management of webhook endpoints over a store (D41, D52). Fields are checked before the store
 * is asked anything, so a bad field is 400 whichever endpoint it names.
 *
 * @param options The store, the clock in epoch seconds, where changes are written down (D55; default: nowhere).
 * @returns The writes.
 */
export function webhookWrites(options: {
  readonly store: FleetHoursStore;
  readonly nowSeconds: () => EpochSeconds;
  readonly changeLog?: ChangeLog | undefined;
  /** Random bytes for a new secret; default WebCrypto's. */
  readonly randomBytes?: (length: number) => Uint8Array;
}): WebhookWrites {
  const { store, nowSeconds } = options;
  const changeLog = options.changeLog ?? NO_CHANGE_LOG;
  const randomBytes = options.randomBytes ?? ((length: number) => globalThis.crypto.getRandomValues(new Uint8Array(length)));
  const newSecret = () => `whsec_${btoa(String.fromCharCode(...randomBytes(32)))}`;
  const finder = (store: FleetHoursStore) => async (accountId: number, endpointId: number) => {
    const endpoint = await store.findWebhookEndpoint({ endpointId });
    // Another account's endpoint is a miss, exactly as a missing one (D11).
    return endpoint && endpoint.accountId === accountId ? endpoint : null;
  };
  const find = finder(store);
  const recorder =
    (changeLog: ChangeLog) =>
    (
      action: string,
      origin: ChangeOrigin,
      endpoint: WebhookEndpoint,
      before: Readonly<Record<string, unknown>> | null,
      after: Readonly<Record<string, unknown>> | null,
    ) =>
      changeLog.record({
        accountId: endpoint.accountId,
        origin,
        action,
        resource: { type: 'webhook', id: String(endpoint.id) },
        before,
        after,
        // D55: the secret is never handed to the log; the field says that one was set.
        secretFields: ['secret'],
      });
  // P102: each write reads, changes and reports in one unit of the store.
  const units = changeUnits(store, changeLog);
  const inUnit: _Context['inUnit'] = (work) =>
    units(({ store, changeLog }) => work({ store, changeLog, find: finder(store), record: recorder(changeLog) }));
  return {
    listWebhookEndpoints: ({ accountId }) => store.listWebhookEndpoints({ accountId }),
    findWebhookEndpoint: ({ accountId, endpointId }) => find(accountId, endpointId),
    async createWebhookEndpoint({ accountId, fields, origin }) {
      const checked = readWebhookFields(fields, 'create');
      const secret = newSecret();
      const now = nowSeconds();
      return inUnit(async ({ store, record }) => {
        const endpoint = await store.createWebhookEndpoint({
          accountId,
          url: checked.url!,
          eventTypes: checked.eventTypes!,
          description: checked.description ?? null,
          secret,
          now,
        });
        if (!endpoint) return null;
        await record('webhook.create', origin, endpoint, null, { ...webhookEndpointBody(endpoint, now), secret: REDACTED });
        return { endpoint, secret };
      });
    },
    async updateWebhookEndpoint({ accountId, endpointId, fields, ifMatch, origin }) {
      const changes = readWebhookFields(fields, 'update');
      return inUnit(async ({ store, find, record }) => {
        const current = await find(accountId, endpointId);
        if (!current) return null;
        if (ifMatch !== undefined && !ifMatchNames(ifMatch, webhookVersion(current))) throw preconditionFailed('webhook endpoint');
        const now = nowSeconds();
        // D54: the store applies the change only to the endpoint as read: a change in between is 412 too.
        const updated = await store.updateWebhookEndpoint({
          endpointId,
          changes,
          now,
          ...(ifMatch === undefined ? {} : { expected: current }),
        });
        if (!updated) {
          if (ifMatch !== undefined) throw preconditionFailed('webhook endpoint');
          return null;
        }
        await record('webhook.update', origin, updated, webhookEndpointBody(current, now), webhookEndpointBody(updated, now));
        return updated;
      });
    },
    removeWebhookEndpoint: ({ accountId, endpointId, ifMatch, origin }) =>
      inUnit(async ({ store, find, record }) => {
        const current = await find(accountId, endpointId);
        if (!current) return null;
        if (ifMatch !== undefined && !ifMatchNames(ifMatch, webhookVersion(current))) throw preconditionFailed('webhook endpoint');
        const removed = await store.removeWebhookEndpoint({ endpointId, ...(ifMatch === undefined ? {} : { expected: current }) });
        if (!removed) {
          if (ifMatch !== undefined) throw preconditionFailed('webhook endpoint');
          return null;
        }
        await record('webhook.delete', origin, removed, webhookEndpointBody(removed, nowSeconds()), null);
        return removed;
      }),
    rotateWebhookSecret: ({ accountId, endpointId, origin }) =>
      inUnit(async ({ store, find, record }) => {
        const current = await find(accountId, endpointId);
        if (!current) return null;
        const secret = newSecret();
        const now = nowSeconds();
        const rotated = await store.rotateWebhookSecret({ endpointId, secret, overlapSeconds: SECRET_ROTATION_OVERLAP_SECONDS, now });
        if (!rotated) return null;
        await record('webhook.rotate', origin, rotated, webhookEndpointBody(current, now), webhookEndpointBody(rotated, now));
        return { endpoint: rotated, secret };
      }),
    ..._outboxWrites({ store, nowSeconds, find, inUnit, randomBytes }),
  };
}

/** What the writes of an endpoint share with those of its outbox. */
interface _Context {
  readonly store: FleetHoursStore;
  readonly nowSeconds: () => EpochSeconds;
  readonly randomBytes: (length: number) => Uint8Array;
  find(accountId: number, endpointId: number): Promise<WebhookEndpoint | null>;
  /** P102: runs a write in one unit, with the unit's store, change log, `find` and `record`. */
  inUnit<T>(work: (unit: _Unit) => Promise<T>): Promise<T>;
}

/** A write's unit (P102): its store and change log, and `find` and `record` over them. */
interface _Unit {
  readonly store: FleetHoursStore;
  readonly changeLog: ChangeLog;
  find(accountId: number, endpointId: number): Promise<WebhookEndpoint | null>;
  record(
    action: string,
    origin: ChangeOrigin,
    endpoint: WebhookEndpoint,
    before: Readonly<Record<string, unknown>> | null,
    after: Readonly<Record<string, unknown>> | null,
  ): Promise<void>;
}

/** Tests, attempts and replays (D41, P82, P83). */
function _outboxWrites(context: _Context): Pick<WebhookWrites, 'testWebhookEndpoint' | 'listWebhookDeliveries' | 'replayWebhookEvent'> {
  const { store, nowSeconds, find, inUnit, randomBytes } = context;
  return {
    async testWebhookEndpoint({ accountId, endpointId, origin, send }) {
      const raised = await inUnit(async ({ store, find, record }) => {
        const endpoint = await find(accountId, endpointId);
        if (!endpoint) return null;
        if (!endpoint.enabled)
          throw new FleetHoursError('conflict', {
            message: `Webhook endpoint ${endpointId} is disabled (${endpoint.disabledReason}): enable it first, then test it`,
          });
        const now = nowSeconds();
        const event = webhookTestEvent({ endpointId, accountId, now, id: _randomHex(randomBytes(16)) });
        await store.raiseEvents({ events: [event], now });
        const body = webhookEndpointBody(endpoint, now);
        await record('webhook.test', origin, endpoint, body, body);
        return { event, endpoint };
      });
      if (!raised) return null;
      // Sent once the unit is kept: the sender finds the event in the outbox (P83).
      return { eventId: raised.event.id, endpoint: raised.endpoint, attempt: await send({ eventId: raised.event.id, endpointId }) };
    },
    async listWebhookDeliveries({ accountId, endpointId, limit, failedOnly, cursor }) {
      const size = limit ?? WEBHOOK_DELIVERIES_PAGE.default;
      if (!Number.isInteger(size) || size < 1 || size > WEBHOOK_DELIVERIES_PAGE.max)
        throw new InvalidParameterError('limit', `Parameter limit must be a whole number from 1 to ${WEBHOOK_DELIVERIES_PAGE.max}`);
      const before = cursor === undefined ? undefined : decodeDeliveriesCursor(cursor, endpointId, failedOnly === true);
      if (!(await find(accountId, endpointId))) return null;
      // One more than the page: whether there is a next page, without a count.
      const found = await store.listWebhookAttempts({
        endpointId,
        failedOnly: failedOnly === true,
        limit: size + 1,
        ...(before ? { before } : {}),
      });
      const data = found.slice(0, size);
      const last = data.at(-1);
      return { data, nextCursor: found.length > size && last ? encodeDeliveriesCursor(endpointId, failedOnly === true, last) : null };
    },
    async replayWebhookEvent({ accountId, eventId, origin }) {
      if (!EVENT_ID_PATTERN.test(eventId)) return null;
      return inUnit(async ({ store, changeLog }) => {
        const deliveries = await store.replayWebhookEvent({ eventId, now: nowSeconds(), ...(accountId === null ? {} : { accountId }) });
        if (!deliveries) return null;
        const first = deliveries[0] === undefined ? null : await store.findWebhookEndpoint({ endpointId: deliveries[0].endpointId });
        const owner = accountId ?? first?.accountId;
        // Nothing pending again (no endpoint wanted the event): nothing changed to write down.
        if (owner !== undefined && deliveries.length > 0)
          await changeLog.record({
            accountId: owner,
            origin,
            action: 'event.replay',
            resource: { type: 'event', id: eventId },
            before: null,
            after: {
              deliveries: deliveries.map((delivery) => ({ id: delivery.id, endpoint_id: delivery.endpointId, state: delivery.state })),
            },
          });
        return deliveries;
      });
    },
  };
}

const _randomHex = (bytes: Uint8Array) => Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
