/**
 * A typed client of the Fleet Hours API, generated from its OpenAPI document: every route typed
 * by openapi-fetch, walks over every paged route, and retries of 429 and 503 after `Retry-After`.
 *
 * @module
 */
export { createFleetHoursClient, type FleetHoursClient, type FleetHoursClientOptions } from './create-fleet-hours-client.js';
export { type ApiErrorBody, FleetHoursApiError } from './fleet-hours-api-error.js';
export type { components, operations, paths } from './generated/api.js';
export type { Page, PagedPath, PageInit, PageItem } from './paged-paths.js';
export { DEFAULT_RETRY_OPTIONS, parseRetryAfter, type RetryOptions, retryingFetch } from './retrying-fetch.js';
