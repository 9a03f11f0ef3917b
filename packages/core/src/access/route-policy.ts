import type { CredentialKind } from './access-policy.js';
import type { ApiKeyScope } from './api-key.js';
import type { RateLimits } from './rate-limit.js';
import {
  API_V1,
  MANAGE_ENDPOINTS,
  READ_ENDPOINTS,
  type ManageEndpoint,
  type ManageEndpointRow,
  type ReadEndpointRow,
} from './read-endpoints.js';

/**
 * The budget a route counts against: a limit of {@link RateLimits}, or `unmatched` — the one
 * budget of paths and methods under /api/v1 that are not served, at the lowest read-endpoint limit
 * (P12).
 */
export type RouteLimit = keyof RateLimits | 'unmatched';

/**
 * The access rules of one route, as data: which credential it needs and which budget it counts
 * against. The HTTP layer's one access middleware reads it; a new route or a second credential
 * kind is a row, not new code: the fleet endpoints (D32, D33) are
 * `{ template: '/api/v1/hours', credential: 'api_key', limit: 'fleetHours' }`, and ingestion is
 * `{ template: '/ingest/v1/telemetry', credential: 'ingest_token', limit: 'ingest', counter: '/ingest' }`.
 */
export interface RoutePolicy {
  /** The route template as logs and counters name it (D13 counts per template, not per device id). */
  readonly template: string;
  /**
   * The credential the route needs; `null` for routes open to anyone. A route that needs one checks
   * it first (D11); a route that needs none is counted per client address, if counted at all.
   */
  readonly credential: CredentialKind | null;
  /** The budget it counts against; `null` for routes that are not counted (P14, D30). */
  readonly limit: RouteLimit | null;
  /**
   * The counter a valid credential uses on this route; default the template (D13: per endpoint).
   * Routes that share one budget per credential (ingestion: per token) name the same counter.
   */
  readonly counter?: string;
  /**
   * Where the credential is read: the `Authorization` header (default), or the path parameter
   * `{token}` of the template, for clients that cannot set headers (OsmAnd trackers, D24).
   */
  readonly credentialFrom?: 'header' | 'path';
  /**
   * The scope an API key needs on this route (D51): `manage` on the write routes; absent, any key
   * (`read` is every key's least).
   */
  readonly scope?: ApiKeyScope;
}

/** The policy of each endpoint of the read API: an API key, counted on the endpoint's own budget (D11, D13, D33). */
type ReadEndpointPolicies = {
  readonly [Row in ReadEndpointRow as Row['name']]: {
    readonly template: Row['template'];
    readonly credential: 'api_key';
    readonly limit: Row['name'];
  };
};

const _READ_ENDPOINT_POLICIES = Object.fromEntries(
  READ_ENDPOINTS.map((endpoint) => [endpoint.name, { template: endpoint.template, credential: 'api_key', limit: endpoint.name }]),
) as ReadEndpointPolicies;

/**
 * The policy of each manage route: a `manage` key (D51), counted on the key's one budget of writes
 * (D52), or for a GET on its one budget of manage reads (P88), so reading the change log never
 * takes from the writes.
 */
type ManageEndpointPolicies = {
  readonly [Row in ManageEndpointRow as Row['name']]: {
    readonly template: Row['template'];
    readonly credential: 'api_key';
    readonly limit: Row['method'] extends 'GET' ? 'manageReads' : 'writes';
    readonly counter: Row['method'] extends 'GET' ? typeof _MANAGE_READS_COUNTER : typeof _WRITES_COUNTER;
    readonly scope: 'manage';
  };
};

/** The one counter of a key's writes (D52): every write route names it. */
const _WRITES_COUNTER = `${API_V1}/writes`;
/** The one counter of a key's reads of manage routes (P88): every GET row of `MANAGE_ENDPOINTS` names it. */
const _MANAGE_READS_COUNTER = `${API_V1}/manage-reads`;

const _MANAGE_ENDPOINT_POLICIES = Object.fromEntries(
  MANAGE_ENDPOINTS.map((endpoint: ManageEndpoint) => [
    endpoint.name,
    endpoint.method === 'GET'
      ? { template: endpoint.template, credential: 'api_key', limit: 'manageReads', counter: _MANAGE_READS_COUNTER, scope: 'manage' }
      : { template: endpoint.template, credential: 'api_key', limit: 'writes', counter: _WRITES_COUNTER, scope: 'manage' },
  ]),
) as ManageEndpointPolicies;

/**
 * Every route of the server and its access rules (D11–D14, P12, P14, P23). Templates use the
 * OpenAPI syntax (`{id}`).
 */
export const ROUTE_POLICIES = {
  /** The endpoints of the read API, one per row of `READ_ENDPOINTS`. */
  ..._READ_ENDPOINT_POLICIES,
  /** The write routes, one per row of `MANAGE_ENDPOINTS` (D51, D52). */
  ..._MANAGE_ENDPOINT_POLICIES,
  /** Any other path or method under /api/v1: checked and counted like a data route, then 404 or 405 (P12). */
  unmatched: { template: `${API_V1}/*`, credential: 'api_key', limit: 'unmatched' },
  /** The OpenAPI document: open, not counted (P14). */
  openApi: { template: `${API_V1}/openapi.json`, credential: null, limit: null },
  /** The reference page: open, not counted (P14). */
  docs: { template: '/docs', credential: null, limit: null },
  /**
   * Telemetry ingestion (`docs/ingestion.md`, D24): an ingest token, one budget per token over the
   * three protocols (6,000 per minute by default). Not gated by plan.
   */
  ingestTelemetry: { template: '/ingest/v1/telemetry', credential: 'ingest_token', limit: 'ingest', counter: '/ingest' },
  ingestTraccar: { template: '/ingest/traccar', credential: 'ingest_token', limit: 'ingest', counter: '/ingest' },
  /** OsmAnd trackers cannot set headers: the token is the last path segment, never logged (the log names this template). */
  ingestOsmand: {
    template: '/ingest/osmand/{token}',
    credential: 'ingest_token',
    limit: 'ingest',
    counter: '/ingest',
    credentialFrom: 'path',
  },
  /** Any other path or method under /ingest: checked and counted like an ingestion route, then 404 or 405. */
  ingestUnmatched: { template: '/ingest/*', credential: 'ingest_token', limit: 'ingest', counter: '/ingest' },
  /** Any path outside the API when the app is served alone: counted per client address, then 404 (D31, P23). */
  notFound: { template: '*', credential: null, limit: 'unauthenticated' },
} as const satisfies Readonly<Record<string, RoutePolicy>>;

/**
 * The requests per minute of a route's budget.
 *
 * @param limit The route's budget name.
 * @param limits The limits in force.
 * @returns Requests per minute; for `unmatched`, the lowest of the `/hours`, `/hours/daily` and
 *   `/meter` limits (P12).
 * @example
 * ```ts
 * import { DEFAULT_RATE_LIMITS } from '@fleet-hours/core';
 * import { routeLimit } from '@fleet-hours/core/adapter';
 * routeLimit('devices', DEFAULT_RATE_LIMITS); // 120
 * routeLimit('unmatched', DEFAULT_RATE_LIMITS); // 30
 * ```
 */
export function routeLimit(limit: RouteLimit, limits: RateLimits): number {
  return limit === 'unmatched' ? Math.min(limits.hours, limits.daily, limits.meter) : limits[limit];
}
