import {
  createMemoryRateLimitStore,
  csvList,
  FleetHoursError,
  resolveRateLimits,
  type FleetHours,
  type RateLimits,
  type RateLimitStore,
  type SendWebhookEvent,
} from '@fleet-hours/core';
import { AEMP_V2, allowedMethods, ROUTE_POLICIES, type RoutePolicy } from '@fleet-hours/core/adapter';
import { getConnInfo } from '@hono/node-server/conninfo';
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { ALLOWED_METHODS, API_BASE, DOCS_PATH, OPENAPI_PATH } from './routes/api-routes.js';
import { API_ENDPOINTS } from './routes/read-endpoints.js';
import { MANAGE_API_ENDPOINTS } from './routes/manage-endpoints.js';
import { jsonOnly } from './routes/list-route.js';
import type { FleetHoursEnv } from './app-env.js';
import { JSON_CONTENT_TYPE } from './respond/json-response.js';
import { createDocsPage, type DocsPage } from './pages/docs-page.js';
import { createFleetViewPage, FLEET_VIEW_PATH, FLEET_VIEW_POLICY, type FleetViewPage } from './pages/fleet-view-page.js';
import { access } from './middleware/access/index.js';
import { accessLog, type AccessLogEntry } from './middleware/access-log/index.js';
import { inFlightLimit } from './middleware/in-flight-limit/index.js';
import { idempotency } from './middleware/idempotency/index.js';
import { requestId } from './middleware/request-id/index.js';
import { createOpenApiDocument } from './openapi/openapi-document.js';
import { respondWithError } from './respond/respond-with-error.js';
import { FAVICON_PATH, FAVICON_POLICY, faviconRoute } from './pages/favicon.js';
import { HEALTH_PATH, healthRoute, PROBE_POLICIES, READY_PATH, readyRoute } from './routes/probes.js';
import { resolveIngestLimits, type IngestLimits } from './ingest/ingest-limits.js';
import { INGEST_BASE, INGEST_ROUTES } from './ingest/ingest-routes.js';
import { ingestOsmandRoute } from './ingest/ingest-osmand.js';
import { ingestTelemetryRoute } from './ingest/ingest-telemetry.js';
import { ingestTraccarRoute } from './ingest/ingest-traccar.js';
import { redactSecrets } from './respond/redact-secrets.js';

/** Options of {@link createFleetHoursApp}. */
export interface FleetHoursAppOptions {
  /** The service to serve, from `createFleetHours({ store, now })`. */
  readonly fleetHours: FleetHours;
  /**
   * Where rate-limit counters live. Default: this process's memory. Pass a shared store (the
   * Kysely store implements `RateLimitStore`) so several instances share the limits (D15).
   */
  readonly rateLimitStore?: RateLimitStore;
  /** Requests per minute; unset fields keep `DEFAULT_RATE_LIMITS` (D13, D14, D33). Each must be a positive integer. */
  readonly rateLimits?: Partial<RateLimits>;
  /** The clock of the rate-limit windows and of the access log, epoch milliseconds. Default `Date.now`. */
  readonly now?: () => number;
  /** Receives one structured entry per request. Default: one JSON line on stdout. Pass `() => {}` to silence. */
  readonly logger?: (entry: AccessLogEntry) => void;
  /**
   * How to find the client address, which keys the budget of requests without a valid key (D14).
   * Default: the socket's remote address under `@hono/node-server`, else `'unknown'`. Behind a
   * proxy you trust, read its header here (e.g. the first `X-Forwarded-For` entry).
   */
  readonly clientAddress?: (c: Context) => string;
  /**
   * Serve the fleet view at `/`: a page where a fleet manager enters an API key and sees every
   * vehicle's meters and the fleet's engine time per local day, read through this API. Open and not
   * counted, like `/docs` (P14). Default `false`, so that mounted in a host app the app claims no
   * path outside `/api/v1/*` and `/docs`; the reference server turns it on.
   */
  readonly fleetView?: boolean;
  /**
   * Serve the probes `GET /healthz` (the process is up) and `GET /readyz` (the database answers:
   * 503 `service_unavailable` when not), open and not counted (D30, P27). Default `false`, so that
   * mounted in a host app the app claims no more paths; the reference server turns them on.
   */
  readonly probes?: boolean;
  /**
   * Requests served at the same time, at most (D28): beyond it a request is refused at once with
   * 503 `service_unavailable` and `Retry-After: 1`, instead of queueing without limit; it carries
   * the route's rate-limit headers with Remaining 0 (P15) and is not counted. Routes that never
   * reach the database — the reference, the docs page, the fleet view, the probes — are not
   * bounded. Default {@link DEFAULT_MAX_IN_FLIGHT}; a positive integer.
   */
  readonly maxInFlight?: number;
  /**
   * Telemetry ingestion under `/ingest` (`docs/ingestion.md`): `POST /ingest/v1/telemetry`,
   * `POST /ingest/traccar` and `GET`/`POST /ingest/osmand/{token}`, with an ingest token (D24),
   * counted per token against `rateLimits.ingest`. The limits of one request: unset fields keep
   * {@link DEFAULT_INGEST_LIMITS} (10,000 points, 5 MiB, 30 s for the body to arrive). `false`
   * serves no ingestion routes (a host app that takes telemetry elsewhere). Default: served.
   */
  readonly ingest?: Partial<IngestLimits> | false;
  /**
   * Told of every ingestion request answered 200, once its points are committed: the points
   * `accepted` and `duplicates` (D21), and the positions `ignored` (Traccar or OsmAnd without
   * ignition, not stored). For counting, e.g. Prometheus metrics; a hook that throws does not fail
   * the request. Default: none.
   */
  readonly onIngest?: (outcome: {
    readonly accepted: number;
    readonly duplicates: number;
    readonly ignored: number;
    /** The account and the devices a stored write named, for a check of their events (D40). */
    readonly accountId?: number;
    readonly deviceIds?: readonly number[];
  }) => void;
  /**
   * D43: days of telemetry the server keeps (the `--telemetry-retention-days` of `serve`). A point
   * older than that before now is refused on every ingestion route with 409 `beyond_retention`
   * naming the horizon, and nothing of its request is written. 0 (the default) keeps every point.
   */
  readonly telemetryRetentionDays?: number;
  /**
   * Sends one event of the outbox now and tells the attempt (P83): what `POST
   * /api/v1/webhooks/{id}/test` sends its `webhook.test` event with. The reference server passes its
   * webhook sender's; without one, a test answers 503 `service_unavailable` saying the server sends
   * no webhooks (the event is not raised).
   */
  readonly sendWebhookEvent?: SendWebhookEvent;
}

/**
 * Requests in flight at most by default (D28): enough to keep a pool of 10 database connections
 * busy with several requests queued behind each, few enough that a request that waits does so for
 * a bounded number of others — and each of those has a deadline.
 */
export const DEFAULT_MAX_IN_FLIGHT = 64;

/**
 * Creates the Fleet Hours API as a Hono app: `GET /api/v1/devices`, `/devices/{id}/hours`,
 * `/devices/{id}/hours/daily`, `/devices/{id}/meter` and `/devices/{id}/service` (D39), the same
 * for the whole fleet a page at a time at `/hours`, `/hours/daily`, `/meter` and `/service` (D32)
 * (HEAD too), the OpenAPI document at
 * `/api/v1/openapi.json` and a reference page at `/docs`. Serve it alone ({@link serve}) or mount it
 * in an existing Hono app with `app.route('/', fleetHoursApp)`: it claims only `/api/v1/*` and
 * `/docs`, and its middleware never runs for the host app's routes. Served alone, it answers
 * `/favicon.ico` with its icon (open, not counted) and every other path with the JSON 404, counted
 * per client address like any response (D31, P23). Mounted
 * under a prefix (`host.route('/fleet', fleetHoursApp)`), the OpenAPI document it serves names that
 * prefix as its server, so that clients generated from it call the right URLs.
 *
 * Who may call which route, and against which budget, is each route's policy in core's
 * `ROUTE_POLICIES`, applied by one access middleware through `admitRequest`.
 *
 * @param options The service, rate-limit counters and limits, clock, logger and client address.
 * @returns The Hono app.
 * @throws {RangeError} When a rate limit or `maxInFlight` is not a positive integer.
 * @example
 * ```ts
 * import { createFleetHours, createMemoryStore } from '@fleet-hours/core';
 * import { createFleetHoursApp } from '@fleet-hours/http';
 * const fleetHours = createFleetHours({ store: createMemoryStore(), now: Date.now });
 * const app = createFleetHoursApp({ fleetHours });
 * const response = await app.request('/api/v1/devices', { headers: { Authorization: 'Bearer fh_example' } }); // 401: no such key
 * ```
 */
export function createFleetHoursApp(options: FleetHoursAppOptions): Hono {
  const { fleetHours } = options;
  const limits: RateLimits = resolveRateLimits(options.rateLimits);
  const now = options.now ?? Date.now;
  const logger = options.logger ?? _writeJsonLine;
  const findAddress = options.clientAddress ?? _socketAddress;
  const clientAddress = (c: Context<FleetHoursEnv>): string => {
    let address = c.get('clientAddress');
    if (address === undefined) {
      address = findAddress(c as unknown as Context) || 'unknown';
      c.set('clientAddress', address);
    }
    return address;
  };

  const withRequestId = requestId();
  const withAccessLog = accessLog({ logger, now, clientAddress });
  const rateLimitStore = options.rateLimitStore ?? createMemoryRateLimitStore();
  // One bound for every route that reaches the database (D28); open, uncounted routes never do.
  const bound = inFlightLimit({ maxInFlight: options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT });
  const reachesStore = (policy: RoutePolicy) => policy.credential !== null || policy.limit !== null;
  // Every route's access rules are its policy (core's ROUTE_POLICIES): one middleware applies them.
  const guard = (policy: RoutePolicy) =>
    access({
      policy,
      authenticate: fleetHours.authenticate,
      authenticateAndCount: fleetHours.authenticateAndCount,
      rateLimitStore,
      rateLimits: limits,
      now,
      clientAddress,
      inFlightLimit: reachesStore(policy) ? bound : undefined,
    });

  const ingestLimits = options.ingest === false ? null : resolveIngestLimits(options.ingest);
  const retentionDays = _retentionDays(options.telemetryRetentionDays);

  const app = new Hono<FleetHoursEnv>();
  // Scoped to this app's own paths, so that mounting it never adds middleware to the host's routes.
  app.use(`${API_BASE}/*`, withRequestId, withAccessLog);
  app.use(`${AEMP_V2}/*`, withRequestId, withAccessLog);
  app.use(DOCS_PATH, withRequestId, withAccessLog);
  if (ingestLimits) app.use(`${INGEST_BASE}/*`, withRequestId, withAccessLog);

  // The reference needs no key and is not rate limited: it describes the API and serves no data (P14).
  // Its server URL is the path the app is mounted at, read from the request: one document per prefix.
  const referenceFor = _referenceByPrefix(limits);
  const reference = guard(ROUTE_POLICIES.openApi);
  app.get(OPENAPI_PATH, reference, (c) =>
    c.body(referenceFor(_mountPrefix(c.req.path, OPENAPI_PATH)).documentText, 200, {
      'Content-Type': JSON_CONTENT_TYPE,
      'Cache-Control': 'no-cache',
    }),
  );
  app.all(OPENAPI_PATH, reference, _methodNotAllowed);
  const docs = guard(ROUTE_POLICIES.docs);
  app.get(DOCS_PATH, docs, async (c) => {
    return _pageResponse(c, await referenceFor(_mountPrefix(c.req.path, DOCS_PATH)).docsPage());
  });
  app.all(DOCS_PATH, docs, _methodNotAllowed);

  if (options.fleetView === true) {
    let fleetViewPage: Promise<FleetViewPage> | undefined;
    const view = guard(FLEET_VIEW_POLICY);
    app.use(FLEET_VIEW_PATH, withRequestId, withAccessLog);
    app.get(FLEET_VIEW_PATH, view, async (c) => {
      fleetViewPage ??= createFleetViewPage();
      return _pageResponse(c, await fleetViewPage);
    });
    app.all(FLEET_VIEW_PATH, view, _methodNotAllowed);
  }

  if (options.probes === true) _probes(app, fleetHours, guard, [withRequestId, withAccessLog]);

  // Data routes: admitted first (401 → 403 → 429, D11), then in the handler a bad query (400) is
  // checked before the device, so that a device that is not there is the last check (P11).
  // One route per endpoint of the read API (core's READ_ENDPOINTS), each on its own budget (D13, D33).
  // D62: the lists (core's CSV_LISTS) answer CSV on request; every other route is JSON only (406, P116).
  for (const endpoint of API_ENDPOINTS)
    app.get(
      endpoint.honoPath,
      guard(endpoint.policy),
      ...(csvList(endpoint.endpoint.name) ? [] : [jsonOnly]),
      endpoint.handler(fleetHours, now),
    );
  // One route per write route (core's MANAGE_ENDPOINTS): a manage key (D51), the key's budget of writes (D52).
  // Every POST among them takes an Idempotency-Key once admitted (D53): a row added to the table gets it too.
  const idempotent = idempotency({ fleetHours });
  for (const endpoint of MANAGE_API_ENDPOINTS)
    app.on(
      endpoint.endpoint.method,
      endpoint.honoPath,
      guard(endpoint.policy),
      ...(csvList(endpoint.endpoint.name) ? [] : [jsonOnly]),
      // P80: an answer that shows a secret once is kept without it.
      ...(endpoint.endpoint.method === 'POST'
        ? [endpoint.secretFields.length === 0 ? idempotent : idempotency({ fleetHours, secretFields: endpoint.secretFields })]
        : []),
      endpoint.handler(fleetHours, { now, sendWebhookEvent: options.sendWebhookEvent }),
    );

  // Anything else under /api/v1 — an unknown path, or a method other than GET/HEAD (D17) — is
  // admitted like a data route, against its own budget (P12), then refused.
  const refuseUnmatched = (c: Context<FleetHoursEnv>) => {
    // The methods of the path's routes (D17, D52): GET and HEAD on reads, the write routes' own.
    const base = c.req.path.includes(`${AEMP_V2}/`) ? AEMP_V2 : API_BASE;
    const allow = allowedMethods(c.req.path.slice(Math.max(0, c.req.path.indexOf(base))));
    if ((c.req.method === 'GET' || c.req.method === 'HEAD') && allow.includes('GET')) return _notFound(c);
    throw new FleetHoursError('method_not_allowed', {
      message: `Method ${c.req.method} is not allowed: use ${allow.slice(0, -1).join(', ')}${allow.length > 1 ? ' or ' : ''}${allow.at(-1)}`,
      headers: { Allow: allow.join(', ') },
    });
  };
  app.all(`${API_BASE}/*`, guard(ROUTE_POLICIES.unmatched), refuseUnmatched);

  // D64: the same under /aemp/v2 (D11: 401 before 404).
  app.all(`${AEMP_V2}/*`, guard(ROUTE_POLICIES.unmatched), refuseUnmatched);

  if (ingestLimits) _mountIngestion(app, guard, { fleetHours, limits: ingestLimits, now, onIngest: options.onIngest, retentionDays });
  const outside = _outsideApp(guard, [withRequestId, withAccessLog]);
  app.onError((error, c) => respondWithError(c, error));
  app.notFound((c) => outside.fetch(c.req.raw, c.env));
  // The per-request variables are this app's own business: hosts see a plain Hono app.
  return app as unknown as Hono;
}

/** The OpenAPI document of one mount prefix, as served, and the reference page built on it. */
interface _Reference {
  readonly documentText: string;
  docsPage(): Promise<DocsPage>;
}

/**
 * At most this many mount prefixes keep their reference cached; past that (a host route with a
 * parameter in its prefix) each request builds its own, so that requests cannot grow the cache.
 */
const _MAX_CACHED_PREFIXES = 16;

function _referenceByPrefix(limits: RateLimits): (prefix: string) => _Reference {
  const cache = new Map<string, _Reference>();
  return (prefix) => {
    let reference = cache.get(prefix);
    if (!reference) {
      const documentText = JSON.stringify(createOpenApiDocument({ rateLimits: limits, serverUrl: prefix === '' ? '/' : prefix }));
      let page: Promise<DocsPage> | undefined;
      reference = { documentText, docsPage: () => (page ??= createDocsPage(documentText)) };
      if (cache.size < _MAX_CACHED_PREFIXES) cache.set(prefix, reference);
    }
    return reference;
  };
}

/** The path the app is mounted at, from the request path of one of its routes: `''` when served alone, `/fleet` under `host.route('/fleet', app)`. */
/** A self-contained page (the reference, the fleet view), sent with the policy that admits exactly its inline script and style. */
function _pageResponse(c: Context<FleetHoursEnv>, page: DocsPage | FleetViewPage): Response {
  return c.body(page.html, 200, {
    'Content-Type': 'text/html; charset=UTF-8',
    'Content-Security-Policy': page.contentSecurityPolicy,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-cache',
  });
}

function _mountPrefix(path: string, route: string): string {
  return path.endsWith(route) ? path.slice(0, path.length - route.length) : '';
}

function _notFound(c: Context<FleetHoursEnv>): never {
  // D37: a path may hold a token (an OsmAnd URL with a slip in it): it is shown without it.
  throw new FleetHoursError('not_found', { message: `No such endpoint: ${redactSecrets(c.req.path)}` });
}

function _methodNotAllowed(c: Context<FleetHoursEnv>): never {
  throw new FleetHoursError('method_not_allowed', {
    message: `Method ${c.req.method} is not allowed: use GET or HEAD`,
    headers: { Allow: ALLOWED_METHODS },
  });
}

/** 405 for a method an ingestion route does not serve, naming the ones it does. */
function _methodNotAllowedBut(allow: string) {
  return (c: Context<FleetHoursEnv>): never => {
    throw new FleetHoursError('method_not_allowed', {
      message: `Method ${c.req.method} is not allowed: use ${allow.replace(', ', ' or ')}`,
      headers: { Allow: allow },
    });
  };
}

function _writeJsonLine(entry: AccessLogEntry): void {
  console.log(JSON.stringify(entry));
}

function _socketAddress(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    // Not running under @hono/node-server (app.request() in tests, another runtime).
    return 'unknown';
  }
}

/** How a route's policy becomes its middleware (`access` over the app's settings). */
type _Guard = (policy: RoutePolicy) => MiddlewareHandler<FleetHoursEnv>;

/**
 * Telemetry ingestion (docs/ingestion.md): an ingest token on each route (D24), one budget per
 * token; OsmAnd's token is its path's last segment, read by the access middleware as its policy
 * says and never logged (the log names the route template).
 */
function _mountIngestion(app: Hono<FleetHoursEnv>, guard: _Guard, ingestOptions: Parameters<typeof ingestTelemetryRoute>[0]): void {
  const { telemetry, traccar, osmand } = INGEST_ROUTES;
  app.post(telemetry.honoPath, guard(telemetry.policy), ingestTelemetryRoute(ingestOptions));
  app.all(telemetry.honoPath, guard(telemetry.policy), _methodNotAllowedBut('POST'));
  app.post(traccar.honoPath, guard(traccar.policy), ingestTraccarRoute(ingestOptions));
  app.all(traccar.honoPath, guard(traccar.policy), _methodNotAllowedBut('POST'));
  const osmandRoute = ingestOsmandRoute(ingestOptions);
  app.on(['GET', 'POST'], osmand.honoPath, guard(osmand.policy), osmandRoute);
  app.all(osmand.honoPath, guard(osmand.policy), _methodNotAllowedBut('GET, POST'));
  // Any other path under /ingest: admitted like an ingestion route, then 404 (without quoting the
  // path, which may hold a token).
  app.all(`${INGEST_BASE}/*`, guard(INGEST_ROUTES.unmatched.policy), () => {
    throw new FleetHoursError('not_found', { message: 'No such ingestion endpoint: see /api/v1/openapi.json' });
  });
}

/**
 * Paths outside the API, when the app is served alone: counted per client address, so that they
 * too carry the rate-limit headers (D31, P23). A separate app answers them from the not-found
 * handler, never from a catch-all route: mounted in a host app, the host's paths stay the host's.
 */
function _outsideApp(guard: _Guard, logged: readonly MiddlewareHandler<FleetHoursEnv>[]): Hono<FleetHoursEnv> {
  const outside = new Hono<FleetHoursEnv>();
  outside.use('*', ...logged);
  // The icon browsers ask for with every page (/docs, the fleet view) is the server's, not a host's.
  const icon = guard(FAVICON_POLICY);
  outside.get(FAVICON_PATH, icon, faviconRoute());
  outside.all(FAVICON_PATH, icon, _methodNotAllowed);
  outside.all('*', guard(ROUTE_POLICIES.notFound), _notFound);
  outside.onError((error, c) => respondWithError(c, error));
  return outside;
}

/** `telemetryRetentionDays` checked: a whole number of days ≥ 0. */
function _retentionDays(days: number | undefined): number {
  if (days === undefined) return 0;
  if (!Number.isSafeInteger(days) || days < 0)
    throw new RangeError(`telemetryRetentionDays must be a whole number ≥ 0, got ${String(days)}`);
  return days;
}

/** The probes (D30): `/health` and `/ready`, each on its own policy, logged like the API. */
function _probes(
  app: Hono<FleetHoursEnv>,
  fleetHours: FleetHoursAppOptions['fleetHours'],
  guard: _Guard,
  logged: readonly MiddlewareHandler<FleetHoursEnv>[],
): void {
  for (const [path, policy, handler] of [
    [HEALTH_PATH, PROBE_POLICIES.health, healthRoute()],
    [READY_PATH, PROBE_POLICIES.ready, readyRoute({ fleetHours })],
  ] as const) {
    const probe = guard(policy);
    app.use(path, ...logged);
    app.get(path, probe, handler);
    app.all(path, probe, _methodNotAllowed);
  }
}
