import { ROUTE_POLICIES } from '@fleet-hours/core/adapter';
import type { ApiRoute } from '../routes/api-routes.js';

/** The base path of telemetry ingestion (`docs/ingestion.md`), outside `/api/v1`. */
export const INGEST_BASE = '/ingest';

/**
 * The ingestion routes (`docs/ingestion.md`), each with its policy from core's `ROUTE_POLICIES`:
 * an ingest token (D24), one budget per token. OsmAnd's token is the last path segment, any text
 * but a slash, so that every token reaches the route and an unknown one is its 401.
 */
export const INGEST_ROUTES = {
  telemetry: { honoPath: `${INGEST_BASE}/v1/telemetry`, policy: ROUTE_POLICIES.ingestTelemetry },
  traccar: { honoPath: `${INGEST_BASE}/traccar`, policy: ROUTE_POLICIES.ingestTraccar },
  osmand: { honoPath: `${INGEST_BASE}/osmand/:token{[^/]*}`, policy: ROUTE_POLICIES.ingestOsmand },
  unmatched: { honoPath: `${INGEST_BASE}/*`, policy: ROUTE_POLICIES.ingestUnmatched },
} as const satisfies Record<string, ApiRoute>;
