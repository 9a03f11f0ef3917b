/**
 * The Fleet Hours domain: engine time split into moving and idle, over windows and local days in a
 * vehicle's own time zone, exact to the second. Pure: no I/O, no clock, no environment. The storage
 * port ({@link FleetHoursStore}) is filled by adapters such as `@fleet-hours/storage-kysely`, built
 * from the helpers of `@fleet-hours/core/adapter`.
 *
 * @module
 */
export * from './types.js';
export * from './error-codes.js';
export * from './errors.js';
export * from './time-zone.js';
export * from './local-date.js';
export * from './format-instant.js';
export * from './parse-instant.js';
export * from './parse-window-query.js';
export type { FleetEndpoint } from './parse-page-query.js';
export * from './resolve-window.js';
export * from './day-buckets.js';
export { InvalidTelemetryPointError, type TelemetryPoint, type TelemetryPointField } from './telemetry-point.js';
export * from './telemetry-to-segments.js';
export * from './api-key.js';
export * from './credential-state.js';
export { DEFAULT_API_PLANS, type AccessDenial, type AccessResult, type CredentialKind } from './access-policy.js';
export {
  createMemoryRateLimitStore,
  DEFAULT_RATE_LIMITS,
  resolveRateLimits,
  type RateLimitCount,
  type RateLimitDecision,
  type RateLimits,
  type RateLimitStore,
} from './rate-limit.js';
export type * from './storage-port.js';
export * from './memory-store.js';
export * from './create-fleet-hours.js';
