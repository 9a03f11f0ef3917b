import { ROUTE_POLICIES, type RoutePolicy } from '@fleet-hours/core/adapter';

/** The base path of version 1 of the API. */
export const API_BASE = '/api/v1';

/** A route of the app: its path in Hono's syntax and the policy (core's `ROUTE_POLICIES`) its access middleware applies. */
export interface ApiRoute {
  /** The path in Hono's syntax. */
  readonly honoPath: string;
  /** Its template, the credential it needs and the budget it counts against (D11, D13). */
  readonly policy: RoutePolicy;
}

/**
 * The device id segment: any text, even empty, so that every device path reaches its route and a
 * bad id answers the same 404 as a missing device (D11, P9, P24), counted on the route's budget.
 */
const DEVICE_ID = ':id{[^/]*}';

/**
 * The data routes, all GET (and HEAD) only (D17): the list, the four per device, and the four for
 * the whole fleet (D32); the service schedules (D39) are the fourth of each.
 */
export const API_ROUTES = {
  devices: { honoPath: `${API_BASE}/devices`, policy: ROUTE_POLICIES.devices },
  hours: { honoPath: `${API_BASE}/devices/${DEVICE_ID}/hours`, policy: ROUTE_POLICIES.hours },
  daily: { honoPath: `${API_BASE}/devices/${DEVICE_ID}/hours/daily`, policy: ROUTE_POLICIES.daily },
  meter: { honoPath: `${API_BASE}/devices/${DEVICE_ID}/meter`, policy: ROUTE_POLICIES.meter },
  service: { honoPath: `${API_BASE}/devices/${DEVICE_ID}/service`, policy: ROUTE_POLICIES.service },
  fleetHours: { honoPath: `${API_BASE}/hours`, policy: ROUTE_POLICIES.fleetHours },
  fleetDaily: { honoPath: `${API_BASE}/hours/daily`, policy: ROUTE_POLICIES.fleetDaily },
  fleetMeter: { honoPath: `${API_BASE}/meter`, policy: ROUTE_POLICIES.fleetMeter },
  fleetService: { honoPath: `${API_BASE}/service`, policy: ROUTE_POLICIES.fleetService },
} as const satisfies Record<string, ApiRoute>;

/** The path of the OpenAPI document. */
export const OPENAPI_PATH = ROUTE_POLICIES.openApi.template;

/** The path of the interactive reference page. */
export const DOCS_PATH = ROUTE_POLICIES.docs.template;

/** The methods served under /api/v1 (D17), as the `Allow` header lists them. */
export const ALLOWED_METHODS = 'GET, HEAD';
