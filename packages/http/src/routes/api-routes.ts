import { API_V1, ROUTE_POLICIES, type RoutePolicy } from '@fleet-hours/core/adapter';

/** The base path of version 1 of the API. */
export const API_BASE = API_V1;

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
 * A template of core's table (`/api/v1/devices/{id}/hours`) in Hono's syntax: the device id
 * segment takes any text, even empty (D11, P9, P24).
 */
export function honoPath(template: string): string {
  // Other ids of a path (`{schedule_id}`, P76; `{event_id}`, P80) take any text too: their handlers answer a bad one.
  return template.replace('{id}', DEVICE_ID).replace(/\{([A-Za-z_]+)\}/g, ':$1{[^/]*}');
}

/** The path of the OpenAPI document. */
export const OPENAPI_PATH = ROUTE_POLICIES.openApi.template;

/** The path of the interactive reference page. */
export const DOCS_PATH = ROUTE_POLICIES.docs.template;

/** The methods served under /api/v1 (D17), as the `Allow` header lists them. */
export const ALLOWED_METHODS = 'GET, HEAD';
