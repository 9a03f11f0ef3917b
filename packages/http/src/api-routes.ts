import type { RateLimits } from '@fleet-hours/core';

/** The base path of version 1 of the API. */
export const API_BASE = '/api/v1';

/** A data route of the API: its OpenAPI template, its Hono path and the budget it counts against (D13). */
export interface ApiRoute {
  /** The route template as the OpenAPI document and the access log name it, e.g. `/api/v1/devices/{id}/hours`. */
  readonly template: string;
  /** The same path in Hono's syntax. */
  readonly honoPath: string;
  /** Which limit of {@link RateLimits} applies. */
  readonly limit: keyof Omit<RateLimits, 'unauthenticated'>;
}

/** The four data routes, all GET (and HEAD) only (D17). */
export const API_ROUTES = {
  devices: { template: `${API_BASE}/devices`, honoPath: `${API_BASE}/devices`, limit: 'devices' },
  hours: { template: `${API_BASE}/devices/{id}/hours`, honoPath: `${API_BASE}/devices/:id/hours`, limit: 'hours' },
  daily: { template: `${API_BASE}/devices/{id}/hours/daily`, honoPath: `${API_BASE}/devices/:id/hours/daily`, limit: 'daily' },
  meter: { template: `${API_BASE}/devices/{id}/meter`, honoPath: `${API_BASE}/devices/:id/meter`, limit: 'meter' },
} as const satisfies Record<string, ApiRoute>;

/** The template the access log and the rate limiter use for a path under /api/v1 that is no route, or a method that is not served. */
export const UNMATCHED_TEMPLATE = `${API_BASE}/*`;

/** The path of the OpenAPI document. */
export const OPENAPI_PATH = `${API_BASE}/openapi.json`;

/** The path of the interactive reference page. */
export const DOCS_PATH = '/docs';

/** The methods served under /api/v1 (D17), as the `Allow` header lists them. */
export const ALLOWED_METHODS = 'GET, HEAD';
