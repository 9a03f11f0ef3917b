import type { MiddlewareHandler } from 'hono';
import type { FleetHoursEnv, RouteInfo } from '../../app-env.js';

/** Options of {@link routeInfo}: the route a handler chain serves. */
export type RouteInfoOptions = RouteInfo;

/**
 * Names the route a request reached — its template and its limit — for the rate limiter (D13
 * counts per route template, not per device id) and the access log (which logs templates, never
 * raw paths). The first middleware of every route of the app.
 *
 * @param options The route template and its limit.
 * @returns The middleware.
 */
export function routeInfo(options: RouteInfoOptions): MiddlewareHandler<FleetHoursEnv> {
  const route: RouteInfo = { template: options.template, limit: options.limit };
  return async function routeInfo(c, next) {
    c.set('route', route);
    await next();
  };
}
