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
export * from './assert-epoch-seconds.js';
export * from './sum-by-bucket.js';
export * from './summarize-segments.js';
export * from './daily-figures.js';
export * from './plan-segment-import.js';
export * from './merge-points.js';
export * from './rederive-span.js';
export * from './plan-telemetry-write.js';
export * from './access-policy.js';
export * from './route-policy.js';
export * from './admit-request.js';
export * from './error-answer.js';
export { consumeRateLimit, rateLimitHeaders, type CredentialCounter } from './rate-limit.js';
export * from './engine-seconds.js';
export { FLEET_PAGE_SIZES, parsePageQuery, type PageQuery, type PageQueryParameters } from './parse-page-query.js';
export { isStorableText, parseTelemetryPoint, type ParseTelemetryPointOptions, type RawTelemetryPoint } from './telemetry-point.js';
export * from './parse-import-record.js';
