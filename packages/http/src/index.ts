/**
 * The Fleet Hours API on Hono: {@link createFleetHoursApp} mounts `@fleet-hours/core` over HTTP
 * exactly as the API specification says — routes, snake_case bodies, authentication, rate limits,
 * the JSON error body, the OpenAPI document and a reference page — and {@link serve} runs it on
 * Node with graceful shutdown.
 *
 * @module
 */
export * from './create-fleet-hours-app.js';
export * from './node-server/serve.js';
export { DEFAULT_INGEST_LIMITS, resolveIngestLimits, type IngestLimits } from './ingest/ingest-limits.js';
export { forwardedClientAddress } from './node-server/forwarded-client-address.js';
export { openApiDocument, createOpenApiDocument, type OpenApiDocument } from './openapi/openapi-document.js';
// The error table is core's (one place for every layer, D16); re-exported as part of this package's API.
export { ERROR_CODES, type ErrorCode, type ErrorBody } from '@fleet-hours/core';
export type { AccessLogEntry } from './middleware/access-log/index.js';
export { deviceBodies, deviceBody, type DeviceBody } from './routes/list-devices.js';
export { hoursBody } from './routes/hours.js';
export { dailyBody } from './routes/daily.js';
export { meterBody } from './routes/meter.js';
export { tagUtilizationBody, utilizationBody } from './routes/utilization.js';
export { serviceBody, serviceScheduleBody } from './routes/service.js';
export { auditEntryBody, type AuditEntryBody } from './routes/audit.js';
export { FINGERPRINT_PREFIX_LENGTH } from './routes/change-origin.js';
