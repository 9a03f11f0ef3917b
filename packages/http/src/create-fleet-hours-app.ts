import { createMemoryRateLimitStore, DEFAULT_RATE_LIMITS, type FleetHours, type RateLimits, type RateLimitStore } from '@fleet-hours/core';
import { getConnInfo } from '@hono/node-server/conninfo';
import { Hono, type Context } from 'hono';
import { ALLOWED_METHODS, API_BASE, API_ROUTES, DOCS_PATH, OPENAPI_PATH, UNMATCHED_TEMPLATE } from './api-routes.js';
import { ApiError } from './api-error.js';
import type { FleetHoursEnv } from './app-env.js';
import { JSON_CONTENT_TYPE } from './json-response.js';
import { createDocsPage, type DocsPage } from './docs-page.js';
import { accessLog, type AccessLogEntry } from './middleware/access-log/index.js';
import { authenticate } from './middleware/authenticate/index.js';
import { rateLimit } from './middleware/rate-limit/index.js';
import { requestId } from './middleware/request-id/index.js';
import { requireAccess } from './middleware/require-access/index.js';
import { routeInfo } from './middleware/route-info/index.js';
import { createOpenApiDocument } from './openapi-document.js';
import { respondWithError } from './respond-with-error.js';
import { dailyRoute } from './routes/daily.js';
import { hoursRoute } from './routes/hours.js';
import { listDevicesRoute } from './routes/list-devices.js';
import { meterRoute } from './routes/meter.js';

/** Options of {@link createFleetHoursApp}. */
export interface FleetHoursAppOptions {
  /** The service to serve, from `createFleetHours({ store, now })`. */
  readonly fleetHours: FleetHours;
  /**
   * Where rate-limit counters live. Default: this process's memory. Pass a shared store (the
   * Kysely store implements `RateLimitStore`) so several instances share the limits (D15).
   */
  readonly rateLimitStore?: RateLimitStore;
  /** Requests per minute; unset fields keep `DEFAULT_RATE_LIMITS` (D13, D14). Each must be a positive integer. */
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
}

/**
 * Creates the Fleet Hours API as a Hono app: `GET /api/v1/devices`, `/devices/{id}/hours`,
 * `/devices/{id}/hours/daily` and `/devices/{id}/meter` (HEAD too), the OpenAPI document at
 * `/api/v1/openapi.json` and a reference page at `/docs`. Serve it alone ({@link serve}) or mount it
 * in an existing Hono app with `app.route('/', fleetHoursApp)`: it claims only `/api/v1/*` and
 * `/docs`, and its middleware never runs for the host app's routes.
 *
 * @param options The service, rate-limit counters and limits, clock, logger and client address.
 * @returns The Hono app.
 * @throws {RangeError} When a rate limit is not a positive integer.
 * @example
 * ```ts
 * import { createFleetHours, createMemoryStore } from '@fleet-hours/core';
 * import { createFleetHoursApp } from '@fleet-hours/http';
 * const fleetHours = createFleetHours({ store: createMemoryStore(), now: Date.now });
 * const app = createFleetHoursApp({ fleetHours });
 * const response = await app.request('/api/v1/devices', { headers: { Authorization: 'Bearer fh_…' } });
 * ```
 */
export function createFleetHoursApp(options: FleetHoursAppOptions): Hono {
  const { fleetHours } = options;
  const limits: RateLimits = { ...DEFAULT_RATE_LIMITS, ..._definedOnly(options.rateLimits ?? {}) };
  for (const [name, limit] of Object.entries(limits)) {
    if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`Rate limit "${name}" must be a positive integer, got ${String(limit)}`);
  }
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

  const app = new Hono<FleetHoursEnv>();
  const withRequestId = requestId();
  const withAccessLog = accessLog({ logger, now, clientAddress });
  const withKey = authenticate({ fleetHours });
  const withinLimit = rateLimit({
    store: options.rateLimitStore ?? createMemoryRateLimitStore(),
    unauthenticatedLimit: limits.unauthenticated,
    now,
    clientAddress,
  });
  const withAccess = requireAccess();

  // Scoped to this app's own paths, so that mounting it never adds middleware to the host's routes.
  app.use(`${API_BASE}/*`, withRequestId, withAccessLog);
  app.use(DOCS_PATH, withRequestId, withAccessLog);

  // The reference needs no key and is not rate limited: it describes the API and serves no data.
  const documentText = JSON.stringify(createOpenApiDocument({ rateLimits: limits }));
  let docsPage: Promise<DocsPage> | undefined;
  const reference = routeInfo({ template: OPENAPI_PATH, limit: null });
  app.get(OPENAPI_PATH, reference, (c) => c.body(documentText, 200, { 'Content-Type': JSON_CONTENT_TYPE, 'Cache-Control': 'no-cache' }));
  app.all(OPENAPI_PATH, reference, _methodNotAllowed);
  const docs = routeInfo({ template: DOCS_PATH, limit: null });
  app.get(DOCS_PATH, docs, async (c) => {
    docsPage ??= createDocsPage(documentText);
    const page = await docsPage;
    return c.body(page.html, 200, {
      'Content-Type': 'text/html; charset=UTF-8',
      'Content-Security-Policy': page.contentSecurityPolicy,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'Cache-Control': 'no-cache',
    });
  });
  app.all(DOCS_PATH, docs, _methodNotAllowed);

  // Data routes, each in the order of D11: 401 → 403 → 429 → 404. The key is checked first, the
  // request is counted, then refused (401/403) or served; in the handler a bad query (400) is
  // checked before the device, so that a device that is not there is the last check.
  const { devices, hours, daily, meter } = API_ROUTES;
  app.get(devices.honoPath, routeInfo({ template: devices.template, limit: limits.devices }), withKey, withinLimit, withAccess, listDevicesRoute({ fleetHours }));
  app.get(hours.honoPath, routeInfo({ template: hours.template, limit: limits.hours }), withKey, withinLimit, withAccess, hoursRoute({ fleetHours }));
  app.get(daily.honoPath, routeInfo({ template: daily.template, limit: limits.daily }), withKey, withinLimit, withAccess, dailyRoute({ fleetHours }));
  app.get(meter.honoPath, routeInfo({ template: meter.template, limit: limits.meter }), withKey, withinLimit, withAccess, meterRoute({ fleetHours }));

  // Anything else under /api/v1 — an unknown path, or a method other than GET/HEAD (D17) — goes
  // through the same checks, counted per key against one budget at the lowest endpoint limit.
  const unmatchedLimit = Math.min(limits.hours, limits.daily, limits.meter);
  app.all(`${API_BASE}/*`, routeInfo({ template: UNMATCHED_TEMPLATE, limit: unmatchedLimit }), withKey, withinLimit, withAccess, (c) => {
    if (c.req.method === 'GET' || c.req.method === 'HEAD') throw new ApiError(404, 'not_found', `No such endpoint: ${c.req.path}`);
    return _methodNotAllowed(c);
  });

  app.onError((error, c) => respondWithError(c, error));
  app.notFound((c) => respondWithError(c, new ApiError(404, 'not_found', `No such endpoint: ${c.req.path}`)));
  // The per-request variables are this app's own business: hosts see a plain Hono app.
  return app as unknown as Hono;
}

function _methodNotAllowed(c: Context<FleetHoursEnv>): never {
  throw new ApiError(405, 'method_not_allowed', `Method ${c.req.method} is not allowed: use GET or HEAD`, { Allow: ALLOWED_METHODS });
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

function _definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as Partial<T>;
}
