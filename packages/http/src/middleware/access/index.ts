import type { FleetHours, RateLimits, RateLimitStore } from '@fleet-hours/core';
import { admitRequest, rateLimitHeaders, routeLimit, type RoutePolicy } from '@fleet-hours/core/adapter';
import type { Context, MiddlewareHandler } from 'hono';
import type { FleetHoursEnv } from '../../app-env.js';

/** Options of {@link access}. */
export interface AccessOptions {
  /** The route's policy: its template, the credential it needs and its budget (core's `ROUTE_POLICIES`). */
  readonly policy: RoutePolicy;
  /** Checks a credential against the store (a `FleetHours` service's `authenticate`). */
  readonly authenticate: FleetHours['authenticate'];
  /**
   * The credential check that also counts the request when the counters can, in one round trip (a
   * `FleetHours` service's `authenticateAndCount`); core's `admitRequest` decides whether its count
   * stands. Optional: without it the check and the count are two calls.
   */
  readonly authenticateAndCount?: FleetHours['authenticateAndCount'] | undefined;
  /** Where the counters live (in memory, or shared in the database: D15). */
  readonly rateLimitStore: RateLimitStore;
  /** The limits in force. */
  readonly rateLimits: RateLimits;
  /** The clock, epoch milliseconds. */
  readonly now: () => number;
  /** How to find the client address. */
  readonly clientAddress: (c: Context<FleetHoursEnv>) => string;
  /**
   * The bound on requests in flight (D28, the `inFlightLimit` middleware), run once the route's
   * headers are set and before the credential check: a request it refuses carries the route's
   * limit and Remaining 0 like any failure before counting (P15), and costs no database call.
   * Omitted for routes that never reach the database.
   */
  readonly inFlightLimit?: MiddlewareHandler<FleetHoursEnv> | undefined;
}

/**
 * The one access middleware: hands the request to core's `admitRequest` — which checks the
 * credential, counts the request and decides 401, 403 or 429 (D10–D15, D24, P12–P15, P21–P23) —
 * and carries out what it decided. It decides nothing itself: it sets the headers it is given
 * (the route's limit with nothing remaining until the request is counted, P15) and throws the
 * refusal it is given, for the app's error handler to answer (D16).
 *
 * @param options The route's policy, the credential check, the counters, limits, clock and client address.
 * @returns The middleware.
 */
export function access(options: AccessOptions): MiddlewareHandler<FleetHoursEnv> {
  const { policy } = options;
  const uncounted = policy.limit === null ? {} : rateLimitHeaders(routeLimit(policy.limit, options.rateLimits), null);
  const bound = options.inFlightLimit;
  const admit: MiddlewareHandler<FleetHoursEnv> = async (c, next) => {
    const admission = await admitRequest({
      policy,
      authorization: c.req.header('Authorization'),
      // OsmAnd trackers carry their ingest token as the path's `{token}` (D24); the policy says so.
      pathCredential: policy.credentialFrom === 'path' ? c.req.param('token') : undefined,
      clientAddress: options.clientAddress(c),
      authenticate: options.authenticate,
      ...(options.authenticateAndCount ? { authenticateAndCount: options.authenticateAndCount } : {}),
      rateLimitStore: options.rateLimitStore,
      rateLimits: options.rateLimits,
      now: options.now() / 1000,
    });
    c.set('admission', admission);
    _setHeaders(c, admission.headers);
    if (!admission.admitted) throw admission.refusal;
    await next();
  };
  return async function access(c, next) {
    c.set('route', policy);
    _setHeaders(c, uncounted);
    if (bound) {
      await bound(c, async () => {
        await admit(c, next);
      });
    } else await admit(c, next);
  };
}

function _setHeaders(c: Context, headers: Readonly<Record<string, string>>): void {
  for (const [name, value] of Object.entries(headers)) c.header(name, value);
}
