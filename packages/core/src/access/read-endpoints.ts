/**
 * The endpoints of the read API as one table of data: each row is everything the core knows of an
 * endpoint — its name (which is also the name of its budget in `RateLimits`), its path template,
 * its default rate limit and, for the fleet endpoints, its page sizes and the tag its cursors carry.
 * Every other list of endpoints is derived from it: the route policies (`ROUTE_POLICIES`), the
 * limits (`RateLimits`, `DEFAULT_RATE_LIMITS`), the page sizes (`FLEET_PAGE_SIZES`) and the cursor
 * templates here; the HTTP layer's handlers and OpenAPI operations, keyed by the same names; and
 * the server's `--rate-limit-…` flags. Adding an endpoint is a row here, a read of the service, a
 * handler and its OpenAPI operation in the HTTP layer, and its docs.
 */

/** The base path of version 1 of the read API. */
export const API_V1 = '/api/v1';

/** The base path of the served ISO 15143-3 (AEMP 2.0) feed (D64). */
export const AEMP_V2 = '/aemp/v2';

/**
 * What paged fleet endpoints add (D32): devices per page when `limit` is not given and at most, and
 * the tag their cursors carry (P33) — fixed once a cursor has been handed out, since a cursor names
 * the endpoint it was made for.
 */
export interface FleetPaging {
  readonly cursor: string;
  readonly defaultLimit: number;
  readonly maxLimit: number;
}

/** One endpoint of the read API: GET (and HEAD), with an API key, counted on its own budget (D11, D13, D17, D33). */
export interface ReadEndpoint {
  /** Names the endpoint, its budget in `RateLimits` and its `--rate-limit-…` flag (in kebab case). */
  readonly name: string;
  /** The path template, in the OpenAPI syntax (`{id}`). */
  readonly template: string;
  /** Requests per minute per API key by default (D13, D33, D39). */
  readonly rateLimit: number;
  /** Set for a fleet endpoint, paged by `limit` and `cursor` (D32). */
  readonly paging?: FleetPaging;
}

/**
 * Every endpoint of the read API (D13, D32, D33, D39), in the order the server's flags and the
 * OpenAPI document list them.
 */
export const READ_ENDPOINTS = [
  { name: 'devices', template: `${API_V1}/devices`, rateLimit: 120 },
  { name: 'hours', template: `${API_V1}/devices/{id}/hours`, rateLimit: 30 },
  { name: 'daily', template: `${API_V1}/devices/{id}/hours/daily`, rateLimit: 30 },
  { name: 'meter', template: `${API_V1}/devices/{id}/meter`, rateLimit: 30 },
  { name: 'fleetHours', template: `${API_V1}/hours`, rateLimit: 60, paging: { cursor: 'hours', defaultLimit: 100, maxLimit: 500 } },
  // A year of days per vehicle is much data: smaller pages (D32).
  { name: 'fleetDaily', template: `${API_V1}/hours/daily`, rateLimit: 60, paging: { cursor: 'daily', defaultLimit: 20, maxLimit: 100 } },
  { name: 'fleetMeter', template: `${API_V1}/meter`, rateLimit: 60, paging: { cursor: 'meter', defaultLimit: 100, maxLimit: 500 } },
  { name: 'service', template: `${API_V1}/devices/{id}/service`, rateLimit: 30 },
  { name: 'fleetService', template: `${API_V1}/service`, rateLimit: 60, paging: { cursor: 'service', defaultLimit: 100, maxLimit: 500 } },
  // Who the presented key is (P96): its scope, so that a client such as the fleet view knows which controls to offer.
  { name: 'key', template: `${API_V1}/key`, rateLimit: 60 },
  // D64 (P121): the served AEMP feed, with a read key; pages are numbered, 100 equipment or values a page.
  { name: 'aempFleet', template: `${AEMP_V2}/Fleet/{page}`, rateLimit: 60 },
  { name: 'aempEquipment', template: `${AEMP_V2}/Fleet/Equipment/ID/{id}`, rateLimit: 30 },
  { name: 'aempSeries', template: `${AEMP_V2}/Fleet/Equipment/ID/{id}/{kind}/{startUTC}/{endUTC}/{page}`, rateLimit: 30 },
  // D60: utilization by day, ISO week or month; a fleet page per device (a year of days each, as the daily series).
  { name: 'utilization', template: `${API_V1}/devices/{id}/utilization`, rateLimit: 30 },
  {
    name: 'fleetUtilization',
    template: `${API_V1}/utilization`,
    rateLimit: 60,
    paging: { cursor: 'utilization', defaultLimit: 20, maxLimit: 100 },
  },
] as const satisfies readonly ReadEndpoint[];

/** A row of {@link READ_ENDPOINTS}. */
export type ReadEndpointRow = (typeof READ_ENDPOINTS)[number];

/** The name of an endpoint of the read API: `devices`, `hours`, …, `fleetService`. */
export type ReadEndpointName = ReadEndpointRow['name'];

/** The fleet endpoints (D32), by the tag their cursors carry: `hours`, `daily`, `meter`, `service` (D39). */
export type FleetEndpoint = Extract<ReadEndpointRow, { readonly paging: FleetPaging }>['paging']['cursor'];

/** The rows of the fleet endpoints, in table order. */
export const FLEET_ENDPOINTS: readonly (ReadEndpoint & { readonly paging: FleetPaging & { readonly cursor: FleetEndpoint } })[] =
  READ_ENDPOINTS.filter((row): row is Extract<ReadEndpointRow, { readonly paging: FleetPaging }> => 'paging' in row);

/**
 * One route of a `manage` key (D51, D52): a write, counted on the key's one budget of writes
 * (`writes` in `RateLimits`), or a GET of what only a manage key may read (the change log, D55),
 * counted on the key's one budget of manage reads (`manageReads`, P88).
 */
export interface ManageEndpoint {
  /** Names the route, its policy in `ROUTE_POLICIES` and its operation in the HTTP layer. */
  readonly name: string;
  /** The method it answers: a read of what only a `manage` key sees (the change log, webhook endpoints, ingest tokens) is `GET` (P80). */
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The path template, in the OpenAPI syntax (`{id}`). */
  readonly template: string;
  /** Set for a paged list (`limit`, `cursor`, newest first): entries per page and the tag its cursors carry (P33). */
  readonly paging?: FleetPaging;
}

/**
 * Every write route (D52), in the order the OpenAPI document lists them: the table of the write
 * routes as `READ_ENDPOINTS` is the read API's. They all count on one budget per key (default
 * {@link DEFAULT_WRITE_RATE_LIMIT} a minute, D52).
 */
export const MANAGE_ENDPOINTS = [
  { name: 'createDevice', method: 'POST', template: `${API_V1}/devices` },
  { name: 'updateDevice', method: 'PATCH', template: `${API_V1}/devices/{id}` },
  // D55: the change log, newest first (P87); a read of a manage key, on its budget of manage reads (P88).
  { name: 'listAudit', method: 'GET', template: `${API_V1}/audit`, paging: { cursor: 'audit', defaultLimit: 50, maxLimit: 500 } },
  // Hour-meter readings, service schedules and services done (D38, D39, D52, P76): a manage key, also to list readings.
  { name: 'listHourMeterReadings', method: 'GET', template: `${API_V1}/devices/{id}/hour-meter/readings` },
  { name: 'addHourMeterReading', method: 'POST', template: `${API_V1}/devices/{id}/hour-meter/readings` },
  { name: 'removeHourMeterReading', method: 'DELETE', template: `${API_V1}/devices/{id}/hour-meter/readings/{reading_id}` },
  { name: 'createServiceSchedule', method: 'POST', template: `${API_V1}/devices/{id}/service/schedules` },
  { name: 'updateServiceSchedule', method: 'PATCH', template: `${API_V1}/devices/{id}/service/schedules/{schedule_id}` },
  { name: 'removeServiceSchedule', method: 'DELETE', template: `${API_V1}/devices/{id}/service/schedules/{schedule_id}` },
  { name: 'recordServiceDone', method: 'POST', template: `${API_V1}/devices/{id}/service/schedules/{schedule_id}/done` },
  // Webhook endpoints and ingest tokens (D24, D41, P80): their reads too need a manage key.
  { name: 'listWebhooks', method: 'GET', template: `${API_V1}/webhooks` },
  { name: 'createWebhook', method: 'POST', template: `${API_V1}/webhooks` },
  { name: 'getWebhook', method: 'GET', template: `${API_V1}/webhooks/{id}` },
  { name: 'updateWebhook', method: 'PATCH', template: `${API_V1}/webhooks/{id}` },
  { name: 'deleteWebhook', method: 'DELETE', template: `${API_V1}/webhooks/{id}` },
  { name: 'rotateWebhookSecret', method: 'POST', template: `${API_V1}/webhooks/{id}/rotate` },
  { name: 'testWebhook', method: 'POST', template: `${API_V1}/webhooks/{id}/test` },
  { name: 'listWebhookDeliveries', method: 'GET', template: `${API_V1}/webhooks/{id}/deliveries` },
  { name: 'replayEvent', method: 'POST', template: `${API_V1}/events/{event_id}/replay` },
  { name: 'listIngestTokens', method: 'GET', template: `${API_V1}/ingest-tokens` },
  { name: 'createIngestToken', method: 'POST', template: `${API_V1}/ingest-tokens` },
  { name: 'revokeIngestToken', method: 'DELETE', template: `${API_V1}/ingest-tokens/{id}` },
  // Work calendars (D58, P113): a device's (its own, else the account's default) and the account's default.
  { name: 'getDeviceCalendar', method: 'GET', template: `${API_V1}/devices/{id}/calendar` },
  { name: 'putDeviceCalendar', method: 'PUT', template: `${API_V1}/devices/{id}/calendar` },
  { name: 'getAccountCalendar', method: 'GET', template: `${API_V1}/calendar` },
  { name: 'putAccountCalendar', method: 'PUT', template: `${API_V1}/calendar` },
  // AEMP sources (D65, P133): their reads too need a manage key; the polls newest first (P135).
  { name: 'listAempSources', method: 'GET', template: `${API_V1}/aemp/sources` },
  { name: 'createAempSource', method: 'POST', template: `${API_V1}/aemp/sources` },
  { name: 'getAempSource', method: 'GET', template: `${API_V1}/aemp/sources/{id}` },
  { name: 'updateAempSource', method: 'PATCH', template: `${API_V1}/aemp/sources/{id}` },
  { name: 'deleteAempSource', method: 'DELETE', template: `${API_V1}/aemp/sources/{id}` },
  { name: 'listAempPolls', method: 'GET', template: `${API_V1}/aemp/sources/{id}/polls` },
] as const satisfies readonly ManageEndpoint[];

/** A row of {@link MANAGE_ENDPOINTS}. */
export type ManageEndpointRow = (typeof MANAGE_ENDPOINTS)[number];

/** The name of a write route: `createDevice`, `updateDevice`. */
export type ManageEndpointName = ManageEndpointRow['name'];

/** Requests per minute per API key to the write routes, all together, by default (D52). */
export const DEFAULT_WRITE_RATE_LIMIT = 60;

/** Requests per minute per API key to the GET routes of {@link MANAGE_ENDPOINTS}, all together, by default (P88). */
export const DEFAULT_MANAGE_READ_RATE_LIMIT = 120;

/** The paged lists of the manage routes (P87): by the tag their cursors carry (`audit`). */
export type ManagePagedEndpoint = Extract<ManageEndpointRow, { readonly paging: FleetPaging }>['paging']['cursor'];

/** Every paged list's cursor tag: the fleet endpoints' (D32) and the manage routes' (P87). */
export type PagedEndpoint = FleetEndpoint | ManagePagedEndpoint;

/** Every paged list, fleet endpoints first: its template and its paging (cursor tag, page sizes). */
export const PAGED_ENDPOINTS: readonly { readonly template: string; readonly paging: FleetPaging & { readonly cursor: PagedEndpoint } }[] =
  [
    ...FLEET_ENDPOINTS,
    ...MANAGE_ENDPOINTS.filter((row): row is Extract<ManageEndpointRow, { readonly paging: FleetPaging }> => 'paging' in row),
  ];

/**
 * The methods a path of the API answers (D17, D52): GET and HEAD on the read API's paths, and the
 * methods of the write routes whose template matches it; for the `Allow` header of a 405.
 *
 * @param path A request path under /api/v1.
 * @returns The methods, e.g. `['GET', 'HEAD', 'POST']` for `/api/v1/devices`, `['PATCH']` for `/api/v1/devices/7`.
 */
export function allowedMethods(path: string): readonly string[] {
  const matches = (template: string) => new RegExp(`^${template.replace(/\{[A-Za-z_]+\}/g, '[^/]+')}$`).test(path);
  const reads = READ_ENDPOINTS.some((row) => matches(row.template)) || !MANAGE_ENDPOINTS.some((row) => matches(row.template));
  const manage = MANAGE_ENDPOINTS.filter((row) => matches(row.template)).flatMap((row) =>
    row.method === 'GET' ? ['GET', 'HEAD'] : [row.method],
  );
  return [...new Set([...(reads ? ['GET', 'HEAD'] : []), ...manage])];
}
