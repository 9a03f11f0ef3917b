import {
  checkWebhookEventTypes,
  checkWebhookUrl,
  EVENT_ID_PATTERN,
  InvalidFieldError,
  isFleetHoursError,
  readWebhookFields,
  WEBHOOK_DELIVERIES_PAGE,
  webhookEndpointBody,
  webhookWrites,
  type EventType,
  type FleetHoursStore,
  type WebhookAttempt,
  type WebhookEndpoint,
  type WebhookEndpointBody,
  type WebhookWrites,
} from '@fleet-hours/core';
import { CommandError, UsageError } from '../cli/cli-errors.js';
import { formatTable } from '../cli/format-table.js';
import { readDuration, readId, readNumber } from '../cli/option-values.js';
import { readServerSetting } from '../cli/server-settings.js';
import { sendOneEvent } from '../webhooks/send-one-event.js';
import { CLI_ORIGIN, cliChangeLog } from './_cli-change-log.js';
import { _withOptionNames } from './_option-refusal.js';
import { requireAccount } from './accounts.js';
import { optionalOption, requiredOption, type CommandContext, type CommandResult } from './command-context.js';
import { presentAccount } from './present-records.js';

/** An endpoint as the CLI shows it: the API's shape (P80), with its account, its types named `events`; never its secrets (D41). */
export type WebhookEndpointJson = Omit<WebhookEndpointBody, 'event_types'> & {
  readonly account_id: number;
  readonly events: WebhookEndpointBody['event_types'];
};

const _iso = (seconds: number | null) => (seconds === null ? null : new Date(seconds * 1000).toISOString().replace('.000Z', 'Z'));

/** The API's shape of an endpoint (P80), with its account and `events` as the CLI names them. */
function _present(endpoint: WebhookEndpoint, now: number): WebhookEndpointJson {
  const { id, url, event_types, ...rest } = webhookEndpointBody(endpoint, now);
  return { id, account_id: endpoint.accountId, url, events: event_types, ...rest };
}

/** The core's management of endpoints (P80), the one the API uses, at the CLI's now, reporting to the account's change log (D55). */
function _writes(context: CommandContext, store: FleetHoursStore): WebhookWrites {
  return webhookWrites({ store, nowSeconds: () => context.now, changeLog: cliChangeLog(store, context) });
}

function _readUrl(text: string): string {
  return _withOptionNames({ url: '--url' }, () => checkWebhookUrl(text));
}

function _readEvents(text: string | undefined): EventType[] {
  const types = text === undefined ? undefined : text.split(',').map((part) => part.trim());
  return _withOptionNames({ events: '--events' }, () => checkWebhookEventTypes(types));
}

/** `--description` (P99): checked by the core as the API's `description`; a refusal is a usage error naming the option (exit 2). */
function _readDescription(context: CommandContext, command: string): { description?: string | null } {
  const text = optionalOption(context, 'description');
  if (text === undefined) return {};
  try {
    return { description: readWebhookFields({ description: text }, 'update').description ?? null };
  } catch (error) {
    if (error instanceof InvalidFieldError) throw new UsageError(`--description${error.message.replace(/^description:?/, '')}`, command);
    throw error;
  }
}

/** ` ("what it is for")` after an endpoint's URL, when it has a description. */
const _described = (endpoint: { readonly description: string | null }) =>
  endpoint.description === null ? '' : ` (${JSON.stringify(endpoint.description)})`;

async function _endpoint(store: FleetHoursStore, endpointId: number): Promise<WebhookEndpoint> {
  const endpoint = await store.findWebhookEndpoint({ endpointId });
  if (!endpoint) throw new CommandError(`No webhook endpoint with id ${endpointId}`);
  return endpoint;
}

/** `accounts update --id ID --silent-after DURATION` → the account with `silent_after_seconds` (D40). */
export async function updateAccountCommand(context: CommandContext): Promise<CommandResult> {
  const accountId = readId(requiredOption(context, 'id'), '--id');
  const silentAfterSeconds = readDuration(requiredOption(context, 'silent-after'), '--silent-after');
  if (silentAfterSeconds < 60 || silentAfterSeconds > 366 * 86_400)
    throw new CommandError('--silent-after must be from 1 minute to 366 days');
  const store = await context.store();
  const account = presentAccount(await requireAccount(store, accountId));
  await store.setSilentAfter({ accountId, silentAfterSeconds });
  return {
    json: { ...account, silent_after_seconds: silentAfterSeconds },
    text: `Account ${account.id}: an active device is silent after ${silentAfterSeconds} s without a report.\n`,
  };
}

/** `webhooks create --account ID --url URL [--events TYPES] [--description TEXT]` → the endpoint and its secret, shown this once. */
export async function createWebhookCommand(context: CommandContext): Promise<CommandResult> {
  const accountId = readId(requiredOption(context, 'account'), '--account');
  const url = _readUrl(requiredOption(context, 'url'));
  const eventTypes = _readEvents(optionalOption(context, 'events'));
  const described = _readDescription(context, 'webhooks create');
  const store = await context.store();
  await requireAccount(store, accountId);
  const created = await _writes(context, store).createWebhookEndpoint({
    accountId,
    fields: { url, event_types: eventTypes, ...described },
    origin: CLI_ORIGIN,
  });
  if (!created) throw new CommandError(`No account with id ${accountId}`);
  const { endpoint, secret } = created;
  return {
    json: { ..._present(endpoint, context.now), secret },
    text:
      `Created webhook endpoint ${endpoint.id} for ${url}${_described(endpoint)} (${eventTypes.join(', ')}).\n` +
      `Secret (shown once; verify every request with it): ${secret}\n`,
  };
}

/** `webhooks list --account ID` → `{ data: [endpoint…] }`, without secrets. */
export async function listWebhooksCommand(context: CommandContext): Promise<CommandResult> {
  const accountId = readId(requiredOption(context, 'account'), '--account');
  const store = await context.store();
  await requireAccount(store, accountId);
  const endpoints = (await _writes(context, store).listWebhookEndpoints({ accountId })).map((endpoint) => _present(endpoint, context.now));
  const text =
    endpoints.length === 0
      ? `No webhook endpoints for account ${accountId}. Add one with: fleet-hours webhooks create --account ${accountId} --url URL\n`
      : formatTable(
          [{ header: 'ID', align: 'right' }, { header: 'URL' }, { header: 'EVENTS' }, { header: 'STATE' }, { header: 'DESCRIPTION' }],
          endpoints.map((endpoint) => [
            endpoint.id,
            endpoint.url,
            endpoint.events.join(','),
            endpoint.enabled ? 'enabled' : `disabled (${endpoint.disabled_reason})`,
            endpoint.description ?? '',
          ]),
        );
  return { json: { data: endpoints }, text };
}

/** `webhooks update --id ID [--url URL] [--events TYPES] [--description TEXT] [--enable|--disable]`. */
export async function updateWebhookCommand(context: CommandContext): Promise<CommandResult> {
  const endpointId = readId(requiredOption(context, 'id'), '--id');
  const urlText = optionalOption(context, 'url');
  const eventsText = optionalOption(context, 'events');
  const enable = context.options.enable === true;
  const disable = context.options.disable === true;
  if (enable && disable) throw new UsageError('--enable and --disable do not go together', 'webhooks update');
  const described = _readDescription(context, 'webhooks update');
  if (urlText === undefined && eventsText === undefined && described.description === undefined && !enable && !disable) {
    throw new UsageError('Nothing to change: give at least one of --url, --events, --description, --enable, --disable', 'webhooks update');
  }
  const fields = {
    ...(urlText === undefined ? {} : { url: _readUrl(urlText) }),
    ...(eventsText === undefined ? {} : { event_types: _readEvents(eventsText) }),
    ...described,
    ...(enable ? { enabled: true } : disable ? { enabled: false } : {}),
  };
  const store = await context.store();
  const { accountId } = await _endpoint(store, endpointId);
  const updated = await _writes(context, store).updateWebhookEndpoint({ accountId, endpointId, fields, origin: CLI_ORIGIN });
  if (!updated) throw new CommandError(`No webhook endpoint with id ${endpointId}`);
  const shown = _present(updated, context.now);
  return {
    json: shown,
    text: `Webhook endpoint ${shown.id}: ${shown.url}${_described(shown)}, ${shown.events.join(', ')}, ${shown.enabled ? 'enabled' : 'disabled'}.\n`,
  };
}

/** `webhooks rotate --id ID` → the new secret, shown this once; both secrets sign for 24 h (D41). */
export async function rotateWebhookCommand(context: CommandContext): Promise<CommandResult> {
  const endpointId = readId(requiredOption(context, 'id'), '--id');
  const store = await context.store();
  const { accountId } = await _endpoint(store, endpointId);
  const done = await _writes(context, store).rotateWebhookSecret({ accountId, endpointId, origin: CLI_ORIGIN });
  if (!done) throw new CommandError(`No webhook endpoint with id ${endpointId}`);
  const { endpoint: rotated, secret } = done;
  return {
    json: { ..._present(rotated, context.now), secret },
    text: `New secret of webhook endpoint ${endpointId} (shown once): ${secret}\nBoth secrets sign every request until ${_iso(rotated.previousSecretExpiresAt)}.\n`,
  };
}

/** `webhooks remove --id ID`. */
export async function removeWebhookCommand(context: CommandContext): Promise<CommandResult> {
  const endpointId = readId(requiredOption(context, 'id'), '--id');
  const store = await context.store();
  const { accountId } = await _endpoint(store, endpointId);
  const removed = await _writes(context, store).removeWebhookEndpoint({ accountId, endpointId, origin: CLI_ORIGIN });
  if (!removed) throw new CommandError(`No webhook endpoint with id ${endpointId}`);
  return { json: _present(removed, context.now), text: `Removed webhook endpoint ${endpointId} (${removed.url}).\n` };
}

/**
 * `webhooks test --id ID [--webhook-timeout S] [--webhook-allow-private-addresses on]` → sends a `webhook.test` event to the endpoint now and prints the
 * attempt; exit 1 when it was not a 2xx (the event stays in the outbox and is retried by the servers).
 */
export async function testWebhookCommand(context: CommandContext): Promise<CommandResult> {
  const endpointId = readId(requiredOption(context, 'id'), '--id');
  // D48: the settings named in its refusals, taken as flags here too (else their variables, as serve reads them).
  const timeout = readServerSetting('webhookTimeout', context.options, context.io.env, 'webhooks test');
  const allowPrivateAddresses = readServerSetting('webhookAllowPrivateAddresses', context.options, context.io.env, 'webhooks test');
  const retrySchedule = readServerSetting('webhookRetrySchedule', {}, context.io.env, 'webhooks test');
  const store = await context.store();
  const found = await _endpoint(store, endpointId);
  const send = sendOneEvent({
    store,
    now: () => context.io.now(),
    timeoutMs: Math.round(timeout * 1000),
    allowPrivateAddresses,
    retrySchedule,
  });
  const tested = await _writes(context, store)
    .testWebhookEndpoint({ accountId: found.accountId, endpointId, origin: CLI_ORIGIN, send })
    .catch((error: unknown) => {
      // The core refuses a disabled endpoint (409); the CLI says how to enable it.
      if (!isFleetHoursError(error) || error.code !== 'conflict') throw error;
      throw new CommandError(
        `Webhook endpoint ${endpointId} is disabled (${found.disabledReason}): enable it with webhooks update --id ${endpointId} --enable`,
      );
    });
  if (!tested) throw new CommandError(`No webhook endpoint with id ${endpointId}`);
  const { endpoint, attempt } = tested;
  const event = { id: tested.eventId };
  if (!attempt) throw new CommandError(`The test event ${event.id} could not be sent now; the servers will send it`);
  const { status, durationMs, error } = attempt;
  const ok = status !== null && status >= 200 && status < 300;
  return {
    json: { event_id: event.id, endpoint_id: endpointId, status, duration_ms: durationMs, error, delivered: ok },
    text: `${ok ? 'Delivered' : 'Not delivered'}: ${event.id} to ${endpoint.url}: ${status === null ? error : `HTTP ${status}`} in ${durationMs} ms.\n`,
    exitCode: ok ? 0 : 1,
  };
}

function _presentAttempt(attempt: WebhookAttempt) {
  return {
    id: attempt.id,
    event_id: attempt.eventId,
    event_type: attempt.eventType,
    endpoint_id: attempt.endpointId,
    attempted_at: _iso(attempt.attemptedAt),
    status: attempt.status,
    duration_ms: attempt.durationMs,
    error: attempt.error,
  };
}

/** `webhooks deliveries --id ID [--failed] [--limit N]` → `{ data: [attempt…] }`, newest first (D41). */
export async function webhookDeliveriesCommand(context: CommandContext): Promise<CommandResult> {
  const endpointId = readId(requiredOption(context, 'id'), '--id');
  const limitText = optionalOption(context, 'limit');
  const limit = limitText === undefined ? 50 : readNumber(limitText, '--limit', { positive: true, integer: true });
  if (limit > WEBHOOK_DELIVERIES_PAGE.max)
    throw new UsageError(`--limit must be at most ${WEBHOOK_DELIVERIES_PAGE.max}`, 'webhooks deliveries');
  const store = await context.store();
  const { accountId } = await _endpoint(store, endpointId);
  const page = await _writes(context, store).listWebhookDeliveries({
    accountId,
    endpointId,
    failedOnly: context.options.failed === true,
    limit,
  });
  const attempts = (page?.data ?? []).map(_presentAttempt);
  const text =
    attempts.length === 0
      ? `No attempts yet for webhook endpoint ${endpointId}.\n`
      : formatTable(
          [
            { header: 'AT' },
            { header: 'EVENT' },
            { header: 'TYPE' },
            { header: 'STATUS', align: 'right' },
            { header: 'MS', align: 'right' },
            { header: 'ERROR' },
          ],
          attempts.map((attempt) => [
            attempt.attempted_at!,
            attempt.event_id,
            attempt.event_type,
            attempt.status ?? '—',
            attempt.duration_ms,
            attempt.error ?? '',
          ]),
        );
  return { json: { data: attempts }, text };
}

/** `webhooks replay --event EVENT_ID` → its deliveries pending again, sent by the servers under the same id (D41). */
export async function replayWebhookCommand(context: CommandContext): Promise<CommandResult> {
  const eventId = requiredOption(context, 'event');
  if (!EVENT_ID_PATTERN.test(eventId))
    throw new UsageError(`--event must be an event id (evt_…), got "${eventId.slice(0, 40)}"`, 'webhooks replay');
  const store = await context.store();
  const deliveries = await _writes(context, store).replayWebhookEvent({ accountId: null, eventId, origin: CLI_ORIGIN });
  if (!deliveries) throw new CommandError(`No event with id ${eventId}`);
  return {
    json: {
      event_id: eventId,
      deliveries: deliveries.map((delivery) => ({ id: delivery.id, endpoint_id: delivery.endpointId, state: delivery.state })),
    },
    text: `Event ${eventId}: ${deliveries.length} ${deliveries.length === 1 ? 'delivery' : 'deliveries'} pending again; the running servers send it under the same id.\n`,
  };
}
