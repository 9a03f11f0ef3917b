/**
 * What the HTTP layer adds to each row of core's `MANAGE_ENDPOINTS` (the write routes, D52): the
 * handler that answers it and its operation in the OpenAPI document. The app registers one route
 * per row (`create-fleet-hours-app.ts`), the document describes one operation per row
 * (`openapi-manage.ts`), and the compiler refuses a row of core's table that has no entry here.
 * The method, the policy (a `manage` key, the key's budget of writes) are the core row's.
 */
import type { FleetHours, SendWebhookEvent } from '@fleet-hours/core';
import { MANAGE_ENDPOINTS, ROUTE_POLICIES, type ManageEndpoint } from '@fleet-hours/core/adapter';
import type { Handler } from 'hono';
import type { FleetHoursEnv } from '../app-env.js';
import { honoPath } from './api-routes.js';
import type { ApiEndpoint, OperationWords } from './read-endpoints.js';
import { createDeviceRoute, updateDeviceRoute } from './device-writes.js';
import { listAuditRoute } from './audit.js';
import { getWorkCalendarRoute, putWorkCalendarRoute } from './calendar-routes.js';
import {
  createIngestTokenRoute,
  createWebhookRoute,
  deleteWebhookRoute,
  getWebhookRoute,
  listIngestTokensRoute,
  listWebhookDeliveriesRoute,
  listWebhooksRoute,
  replayEventRoute,
  revokeIngestTokenRoute,
  rotateWebhookSecretRoute,
  testWebhookRoute,
  updateWebhookRoute,
} from './webhook-routes.js';
import {
  createAempSourceRoute,
  deleteAempSourceRoute,
  getAempSourceRoute,
  listAempPollsRoute,
  listAempSourcesRoute,
  updateAempSourceRoute,
} from './aemp-source-routes.js';
import {
  addHourMeterReadingRoute,
  createServiceScheduleRoute,
  listHourMeterReadingsRoute,
  recordServiceDoneRoute,
  removeHourMeterReadingRoute,
  removeServiceScheduleRoute,
  updateServiceScheduleRoute,
} from './maintenance-writes.js';

type ManageEndpointRow = (typeof MANAGE_ENDPOINTS)[number];

/** The operation of a write route in the OpenAPI document; its path, method and limit come from its core row. */
export interface ManageOpenApiOperation
  extends OperationWords<'Devices' | 'Service' | 'Audit' | 'Webhooks' | 'Ingest tokens' | 'Calendars' | 'AEMP sources'> {
  /** The schema of the request body, in `components.schemas`; absent: the route reads no body. */
  readonly requestSchema?: string;
  /** Whether the body may be left out (a service done now). */
  readonly optionalBody?: boolean;
  /** The schema of the answer's body, in `components.schemas`; absent for a 204. */
  readonly schema?: string;
  /** The status of a success: 201 for a creation, 202 for work the servers do later, 204 for a removal. */
  readonly status: 200 | 201 | 202 | 204;
  /** Parameters besides the device id, in `components.parameters` (path ids, `If-Match`, paging). */
  readonly parameters?: readonly string[];
  /** The 409 of the route, in `components.responses`; absent: none. */
  readonly conflict?: string;
  /** What a success answers, for the document. */
  readonly answer?: string;
  /** Webhooks and ingest tokens (P80): what the path's parameter names and its 404. */
  readonly resource?: { readonly parameter: string; readonly notFound: string };
  /** Webhooks and ingest tokens (P80): the route's query parameters, in `components.parameters`. */
  readonly query?: readonly string[];
  /** Webhooks, ingest tokens and calendars (P80): whether it takes `If-Match` (D54). */
  readonly ifMatch?: boolean;
  /** Webhooks and ingest tokens (P80): refusals besides the common ones, by status, in `components.responses`. */
  readonly refusals?: Readonly<Record<string, string>>;
}

/** What a write route's handler is given by the app. */
export interface ManageRouteOptions {
  readonly fleetHours: FleetHours;
  /** The app's clock, epoch milliseconds. */
  readonly now: () => number;
  /** Sends one event of the outbox now (P83): the app's `sendWebhookEvent`. */
  readonly sendWebhookEvent?: SendWebhookEvent | undefined;
}

/** The HTTP side of one write route. */
interface _HttpManageEndpoint {
  readonly handler: (options: ManageRouteOptions) => Handler<FleetHoursEnv>;
  readonly openApi: ManageOpenApiOperation;
  /** Fields of its answer shown once (P80): never kept for an `Idempotency-Key`, `null` in a replay. */
  readonly secretFields?: readonly string[];
}

const _WEBHOOK = { parameter: 'WebhookId', notFound: 'ResourceNotFound' } as const;
const _TOKEN = { parameter: 'IngestTokenId', notFound: 'ResourceNotFound' } as const;
const _AEMP_SOURCE = { parameter: 'AempSourceId', notFound: 'ResourceNotFound' } as const;

const _DEVICE_CALENDAR =
  'The device\'s own calendar when it has one (`source: "device"`), else the account\'s default (`"account"`), else none (`"none"`: `weekly` is null). `timezone` is the device\'s zone: the windows are its local wall time. `version` counts the changes of the device\'s own calendar (0: never set); `ETag` is it in double quotes.';
const _CALENDAR_PUT =
  'The body is a calendar: `weekly` with every day `mon`…`sun` (a list of `[start, end]` windows of `HH:MM` local time, `[]` for a day without work; `end` before `start` runs past midnight; `"24:00"` only as an end; at most 10 windows a day, not overlapping) and `exceptions` (dated days with other windows, `[]` for none: at most 366, each date once). `timezone`, `version` and `source` may be sent back as a read shows them; other values are 400. With `If-Match`, only over the version read (412 otherwise). The same calendar again changes nothing.';

/** Every write route, by its name in core's table. */
const HTTP_MANAGE_ENDPOINTS: { readonly [Row in ManageEndpointRow as Row['name']]: _HttpManageEndpoint } = {
  createDevice: {
    handler: createDeviceRoute,
    openApi: {
      operationId: 'createDevice',
      summary: 'Create a vehicle',
      description:
        'A new device of the account. `name`, `imei`, `model` and `timezone` are needed; `registration` and `status` (`active` by default) are optional. The answer is the device, with its URL in `Location`. An IMEI that already names an active device of the account is 409 `conflict`.',
      tag: 'Devices',
      requestSchema: 'DeviceCreate',
      schema: 'Device',
      status: 201,
    },
  },
  updateDevice: {
    handler: updateDeviceRoute,
    openApi: {
      operationId: 'updateDevice',
      summary: 'Change a vehicle',
      description:
        'Changes the fields given, at least one; the others stay. `status` is `active` or `inactive`: an inactive device frees its IMEI. A device of another account is 404, as a missing one. A change that would give two active devices of the account one IMEI is 409 `conflict`.',
      tag: 'Devices',
      requestSchema: 'DeviceChange',
      schema: 'Device',
      status: 200,
    },
  },
  listAudit: {
    handler: listAuditRoute,
    openApi: {
      operationId: 'listAudit',
      summary: 'List the changes',
      description:
        'Every change made to the account by the API or the operator CLI, newest first, a page at a time: when, by which key (its label and the first 8 characters of its fingerprint) or `cli`, under which request (`X-Request-Id`), the action, the resource, and each field changed as `[before, after]`. Secrets are written as `"[redacted]"`. Pass `next_cursor` back as `cursor` until it is null.',
      tag: 'Audit',
      schema: 'AuditPage',
      status: 200,
    },
  },
  // Hour-meter readings, service schedules and services done (D38, D39, D52, P76).
  listHourMeterReadings: {
    handler: listHourMeterReadingsRoute,
    openApi: {
      operationId: 'listHourMeterReadings',
      summary: "A vehicle's hour-meter readings",
      description:
        "The readings of the machine's own hour meter recorded for the device, newest first, a page at a time (`limit` 1–500, default 100; `cursor` the `next_cursor` of the page before).",
      tag: 'Service',
      schema: 'HourMeterReadingPage',
      status: 200,
      parameters: ['ReadingLimit', 'ReadingCursor'],
      answer: 'OK: a page of readings',
    },
  },
  addHourMeterReading: {
    handler: addHourMeterReadingRoute,
    openApi: {
      operationId: 'addHourMeterReading',
      summary: 'Record an hour-meter reading',
      description:
        "What the machine's hour meter showed (`reading_seconds`) at an instant (`read_at`, default now; not in the future). A reading at the same instant is replaced (same id). The hour meter counts from the latest reading at or before each instant, so a reading for the past re-bases everything after it. The answer is the reading with the hour meter it gives now.",
      tag: 'Service',
      requestSchema: 'HourMeterReadingCreate',
      schema: 'HourMeterReadingRecorded',
      status: 201,
      answer: 'Created: the reading and the hour meter now, its URL in `Location`',
    },
  },
  removeHourMeterReading: {
    handler: removeHourMeterReadingRoute,
    openApi: {
      operationId: 'removeHourMeterReading',
      summary: 'Remove an hour-meter reading',
      description: 'A reading of another device or of another account is 404, as a missing device.',
      tag: 'Service',
      status: 204,
      parameters: ['ReadingId', 'IfMatch'],
      answer: 'Removed',
    },
  },
  createServiceSchedule: {
    handler: createServiceScheduleRoute,
    openApi: {
      operationId: 'createServiceSchedule',
      summary: 'Create a service schedule',
      description:
        'A schedule of engine time (`interval_seconds` of hour meter) and optionally calendar days (`interval_days`), whichever comes first, with due-soon margins (default a tenth of each interval). Without `last_done_at` the last service is now, at the hour meter now. A name the device already has is 409 `conflict`. The answer is the schedule as `/service` shows it.',
      tag: 'Service',
      requestSchema: 'ServiceScheduleCreate',
      schema: 'ServiceScheduleWritten',
      status: 201,
      conflict: 'ScheduleConflict',
      answer: 'Created: the schedule, its URL in `Location`',
    },
  },
  updateServiceSchedule: {
    handler: updateServiceScheduleRoute,
    openApi: {
      operationId: 'updateServiceSchedule',
      summary: 'Change a service schedule',
      description:
        'Changes the fields given, at least one; the others stay. `null` removes the calendar interval (and its margin) or returns a margin to its default. A name another schedule of the device has is 409 `conflict`.',
      tag: 'Service',
      requestSchema: 'ServiceScheduleChange',
      schema: 'ServiceScheduleWritten',
      status: 200,
      parameters: ['ScheduleId', 'IfMatch'],
      conflict: 'ScheduleConflict',
      answer: 'OK: the schedule',
    },
  },
  removeServiceSchedule: {
    handler: removeServiceScheduleRoute,
    openApi: {
      operationId: 'removeServiceSchedule',
      summary: 'Remove a service schedule',
      description: 'A schedule of another device or of another account is 404, as a missing device.',
      tag: 'Service',
      status: 204,
      parameters: ['ScheduleId', 'IfMatch'],
      answer: 'Removed',
    },
  },
  recordServiceDone: {
    handler: recordServiceDoneRoute,
    openApi: {
      operationId: 'recordServiceDone',
      summary: 'Record a service done',
      description:
        "The schedule's last service becomes `done_at` (default now; not in the future), at the hour meter of then; `hour_meter_seconds`, when given, is recorded as a reading at `done_at` first. The body may be left out.",
      tag: 'Service',
      requestSchema: 'ServiceDone',
      optionalBody: true,
      schema: 'ServiceScheduleWritten',
      status: 200,
      parameters: ['ScheduleId'],
      answer: 'OK: the schedule after the service',
    },
  },
  // Webhook endpoints and ingest tokens (P80–P83).
  listWebhooks: {
    handler: listWebhooksRoute,
    openApi: {
      operationId: 'listWebhooks',
      summary: 'List webhook endpoints',
      description: 'The account’s webhook endpoints, by id. A secret is never shown again after the answer that made it.',
      tag: 'Webhooks',
      schema: 'WebhookList',
      status: 200,
    },
  },
  createWebhook: {
    handler: createWebhookRoute,
    secretFields: ['secret'],
    openApi: {
      operationId: 'createWebhook',
      summary: 'Add a webhook endpoint',
      description:
        'A new endpoint, enabled. `url` is needed: https, or http for a loopback host only. `event_types` are the events it wants, every type when absent or empty. The answer holds `secret`, the key every request to the endpoint is signed with: it is shown this once.',
      tag: 'Webhooks',
      requestSchema: 'WebhookCreate',
      schema: 'WebhookWithSecret',
      status: 201,
    },
  },
  getWebhook: {
    handler: getWebhookRoute,
    openApi: {
      operationId: 'getWebhook',
      summary: 'Read a webhook endpoint',
      description: 'One endpoint, with its `ETag`. An endpoint of another account is 404, as a missing one.',
      tag: 'Webhooks',
      schema: 'Webhook',
      status: 200,
      resource: _WEBHOOK,
    },
  },
  updateWebhook: {
    handler: updateWebhookRoute,
    openApi: {
      operationId: 'updateWebhook',
      summary: 'Change a webhook endpoint',
      description:
        'Changes the fields given, at least one. `enabled: true` enables an endpoint that was disabled (by you, by a 410 or by five days of failures) and clears why; `enabled: false` disables it. With `If-Match`, only the version read is changed (412 otherwise).',
      tag: 'Webhooks',
      requestSchema: 'WebhookChange',
      schema: 'Webhook',
      status: 200,
      resource: _WEBHOOK,
      ifMatch: true,
    },
  },
  deleteWebhook: {
    handler: deleteWebhookRoute,
    openApi: {
      operationId: 'deleteWebhook',
      summary: 'Remove a webhook endpoint',
      description: 'Removes the endpoint with its deliveries and their attempts. With `If-Match`, only the version read (412 otherwise).',
      tag: 'Webhooks',
      status: 204,
      resource: _WEBHOOK,
      ifMatch: true,
    },
  },
  rotateWebhookSecret: {
    handler: rotateWebhookSecretRoute,
    secretFields: ['secret'],
    openApi: {
      operationId: 'rotateWebhookSecret',
      summary: 'Rotate a webhook endpoint’s secret',
      description:
        'A new secret, shown this once in `secret`. For 24 hours every request is signed with both the new and the previous secret (`previous_secret_expires_at`), so the receiver can switch without missing one.',
      tag: 'Webhooks',
      schema: 'WebhookWithSecret',
      status: 200,
      resource: _WEBHOOK,
    },
  },
  testWebhook: {
    handler: testWebhookRoute,
    openApi: {
      operationId: 'testWebhook',
      summary: 'Send a test event',
      description:
        'Sends a `webhook.test` event to the endpoint now and answers with the attempt: the status the endpoint answered (`null`: no answer), how long it took and why it failed. A disabled endpoint is 409 `conflict`; a server that sends no webhooks answers 503.',
      tag: 'Webhooks',
      schema: 'WebhookTest',
      status: 200,
      resource: _WEBHOOK,
    },
  },
  listWebhookDeliveries: {
    handler: listWebhookDeliveriesRoute,
    openApi: {
      operationId: 'listWebhookDeliveries',
      summary: 'List delivery attempts',
      description:
        'The endpoint’s attempts, newest first, a page at a time: pass the answer’s `next_cursor` as `cursor` for the next page (`null` on the last). `failed=true` lists only the attempts of deliveries that have failed for good.',
      tag: 'Webhooks',
      schema: 'WebhookAttemptPage',
      status: 200,
      resource: _WEBHOOK,
      query: ['DeliveriesLimit', 'Cursor', 'FailedOnly'],
    },
  },
  replayEvent: {
    handler: replayEventRoute,
    openApi: {
      operationId: 'replayEvent',
      summary: 'Send an event again',
      description:
        'Makes every delivery of the event pending again: the servers send it again, under the same event id, so a receiver that already has it can tell. An event of another account is 404, as a missing one.',
      tag: 'Webhooks',
      schema: 'EventReplay',
      status: 202,
      resource: { parameter: 'EventId', notFound: 'ResourceNotFound' },
    },
  },
  listIngestTokens: {
    handler: listIngestTokensRoute,
    openApi: {
      operationId: 'listIngestTokens',
      summary: 'List ingest tokens',
      description:
        'The account’s ingest tokens, revoked and expired ones too. A token is never shown again: only the start of its fingerprint.',
      tag: 'Ingest tokens',
      schema: 'IngestTokenList',
      status: 200,
    },
  },
  createIngestToken: {
    handler: createIngestTokenRoute,
    secretFields: ['token'],
    openApi: {
      operationId: 'createIngestToken',
      summary: 'Create an ingest token',
      description:
        'A new token for the ingestion routes: it writes telemetry of the account’s devices and reads nothing. The answer holds `token`, shown this once: only its fingerprint is kept, so a lost token cannot be recovered.',
      tag: 'Ingest tokens',
      requestSchema: 'IngestTokenCreate',
      schema: 'IngestTokenWithToken',
      status: 201,
    },
  },
  revokeIngestToken: {
    handler: revokeIngestTokenRoute,
    openApi: {
      operationId: 'revokeIngestToken',
      summary: 'Revoke an ingest token',
      description:
        'The token is refused (401 `revoked_ingest_token`) from the next request on. Revoking it again changes nothing. With `If-Match`, only the token as read is revoked: one revoked since is 412.',
      tag: 'Ingest tokens',
      status: 204,
      resource: _TOKEN,
      ifMatch: true,
    },
  },
  // Work calendars (D58, P113).
  getDeviceCalendar: {
    handler: getWorkCalendarRoute,
    openApi: {
      operationId: 'getDeviceCalendar',
      summary: "A vehicle's work calendar",
      description: `The calendar the device's hours are set against. ${_DEVICE_CALENDAR}`,
      tag: 'Calendars',
      schema: 'WorkCalendar',
      status: 200,
      ifMatch: false,
    },
  },
  putDeviceCalendar: {
    handler: putWorkCalendarRoute,
    openApi: {
      operationId: 'putDeviceCalendar',
      summary: "Set a vehicle's work calendar",
      description: `Sets the device's own calendar; \`null\` removes it, and the device uses the account's default again. ${_CALENDAR_PUT} The answer is the calendar the device uses now, as GET shows it.`,
      tag: 'Calendars',
      requestSchema: 'WorkCalendarPut',
      schema: 'WorkCalendar',
      status: 200,
    },
  },
  getAccountCalendar: {
    handler: getWorkCalendarRoute,
    openApi: {
      operationId: 'getAccountCalendar',
      summary: "The account's default work calendar",
      description:
        'The calendar of every device of the account without its own (`source: "account"`), or none (`"none"`: `weekly` is null). `timezone` is null: each device reads the windows in its own zone. `version` counts its changes (0: never set); `ETag` is it in double quotes.',
      tag: 'Calendars',
      schema: 'WorkCalendar',
      status: 200,
    },
  },
  putAccountCalendar: {
    handler: putWorkCalendarRoute,
    openApi: {
      operationId: 'putAccountCalendar',
      summary: "Set the account's default work calendar",
      description: `Sets the default of every device without its own calendar; \`null\` removes it. ${_CALENDAR_PUT} The answer is the default, as GET shows it.`,
      tag: 'Calendars',
      requestSchema: 'WorkCalendarPut',
      schema: 'WorkCalendar',
      status: 200,
      ifMatch: true,
    },
  },
  // AEMP sources (D65, P133).
  listAempSources: {
    handler: listAempSourcesRoute,
    openApi: {
      operationId: 'listAempSources',
      summary: 'List AEMP sources',
      description: 'The account’s AEMP sources (the ISO 15143-3 feeds of OEM clouds the server polls), by id. A secret is never shown.',
      tag: 'AEMP sources',
      schema: 'AempSourceList',
      status: 200,
    },
  },
  createAempSource: {
    handler: createAempSourceRoute,
    openApi: {
      operationId: 'createAempSource',
      summary: 'Add an AEMP source',
      description:
        'A new source, enabled and polled at once, then every `poll_every_seconds`. `name`, `url` (the feed’s first page, https) and `auth` are needed. The secret of `auth` (`password`, `token` or `client_secret`) is stored to sign in and never shown again: the answer says `has_secret: true`.',
      tag: 'AEMP sources',
      requestSchema: 'AempSourceCreate',
      schema: 'AempSource',
      status: 201,
    },
  },
  getAempSource: {
    handler: getAempSourceRoute,
    openApi: {
      operationId: 'getAempSource',
      summary: 'Read an AEMP source',
      description: 'One source, with its `ETag`. A source of another account is 404, as a missing one.',
      tag: 'AEMP sources',
      schema: 'AempSource',
      status: 200,
      resource: _AEMP_SOURCE,
    },
  },
  updateAempSource: {
    handler: updateAempSourceRoute,
    openApi: {
      operationId: 'updateAempSource',
      summary: 'Change an AEMP source',
      description:
        'Changes the fields given, at least one. `auth`, when given, is given whole, with its secret. `enabled: false` stops its polls. With `If-Match`, only the version read is changed (412 otherwise).',
      tag: 'AEMP sources',
      requestSchema: 'AempSourceChange',
      schema: 'AempSource',
      status: 200,
      resource: _AEMP_SOURCE,
      ifMatch: true,
    },
  },
  deleteAempSource: {
    handler: deleteAempSourceRoute,
    openApi: {
      operationId: 'deleteAempSource',
      summary: 'Remove an AEMP source',
      description:
        'Removes the source and the records of its polls; the readings it stored stay. With `If-Match`, only the version read (412 otherwise).',
      tag: 'AEMP sources',
      status: 204,
      resource: _AEMP_SOURCE,
      ifMatch: true,
    },
  },
  listAempPolls: {
    handler: listAempPollsRoute,
    openApi: {
      operationId: 'listAempPolls',
      summary: 'List the polls of an AEMP source',
      description:
        'The records of the source’s polls, newest first, a page at a time: pages read, equipment seen, matched and unmatched (set a device’s `pin`, or `oem_name` and `serial_number`, to match it), readings stored and refused, and the error that ended a poll. Pass the answer’s `next_cursor` as `cursor` for the next page (`null` on the last).',
      tag: 'AEMP sources',
      schema: 'AempPollPage',
      status: 200,
      resource: _AEMP_SOURCE,
      query: ['AempPollsLimit', 'Cursor'],
    },
  },
};

/** A write route as the app and the document use it: its core row (name, method, template) with its HTTP side. */
export type ManageApiEndpoint = Omit<ApiEndpoint, 'endpoint' | 'openApi' | 'handler'> & {
  readonly endpoint: ManageEndpoint;
  readonly openApi: ManageOpenApiOperation;
  /** Fields of its answer shown once (P80): never kept for an `Idempotency-Key`. */
  readonly secretFields: readonly string[];
  /** Its handler over a service, with the app's clock and webhook sender. */
  handler(fleetHours: FleetHours, app?: Omit<ManageRouteOptions, 'fleetHours'>): Handler<FleetHoursEnv>;
};

/** Every write route, in the order of core's `MANAGE_ENDPOINTS`. */
export const MANAGE_API_ENDPOINTS: readonly ManageApiEndpoint[] = MANAGE_ENDPOINTS.map((endpoint): ManageApiEndpoint => {
  const http = HTTP_MANAGE_ENDPOINTS[endpoint.name];
  return {
    endpoint,
    policy: ROUTE_POLICIES[endpoint.name],
    honoPath: honoPath(endpoint.template),
    openApi: http.openApi,
    secretFields: http.secretFields ?? [],
    handler: (fleetHours, app) => http.handler({ fleetHours, now: app?.now ?? Date.now, sendWebhookEvent: app?.sendWebhookEvent }),
  };
});
