/**
 * The building blocks for adapter authors: a store that fills the storage port
 * (`@fleet-hours/core`'s `FleetHoursStore`) and an HTTP layer that admits requests. Stores apply
 * imports and telemetry through the same planning functions, so every store follows one rule for
 * each of D1, D20–D23 and P6; HTTP layers admit requests through `admitRequest` and the route table
 * (D10–D14), parse query parameters and wire formats (`parsePageQuery`, `parseTelemetryPoint`,
 * `parseSegmentRecord`), and answer errors through `errorAnswer` (D16). Embedders need none of this: the
 * package's main entry point is enough to serve and read engine hours.
 *
 * @module
 */
export * from './time/assert-epoch-seconds.js';
export * from './engine/sum-by-bucket.js';
export * from './engine/summarize-segments.js';
export { assertDevicePage } from './store/device-page.js';
export * from './engine/daily-figures.js';
export * from './engine/plan-segment-import.js';
export * from './telemetry/merge-points.js';
export * from './telemetry/rederive-span.js';
export * from './telemetry/plan-telemetry-write.js';
export { isNewerPosition, newestPosition } from './telemetry/newest-position.js';
export * from './access/access-policy.js';
export * from './access/route-policy.js';
export {
  allowedMethods,
  AEMP_V2,
  API_V1,
  DEFAULT_WRITE_RATE_LIMIT,
  DEFAULT_MANAGE_READ_RATE_LIMIT,
  MANAGE_ENDPOINTS,
  PAGED_ENDPOINTS,
  READ_ENDPOINTS,
  type FleetPaging,
  type ManageEndpoint,
  type ManageEndpointName,
  type PagedEndpoint,
  type ReadEndpoint,
  type ReadEndpointName,
} from './access/read-endpoints.js';
export * from './access/admit-request.js';
export * from './errors/error-answer.js';
export { consumeRateLimit, rateLimitHeaders, type CredentialCounter } from './access/rate-limit.js';
export * from './engine/engine-seconds.js';
export { FLEET_PAGE_SIZES, parsePageQuery, type PageQuery, type PageQueryParameters } from './fleet/parse-page-query.js';
export {
  isStorableText,
  parseTelemetryPoint,
  type ParseTelemetryPointOptions,
  type RawTelemetryPoint,
} from './telemetry/telemetry-point.js';
export * from './telemetry/parse-import-record.js';
export * from './maintenance/service-memo.js';
// P78: what a store compares schedule names by, and its refusal of a name in use.
export { scheduleNameInUse, scheduleNameKey } from './manage/maintenance-bodies.js';
