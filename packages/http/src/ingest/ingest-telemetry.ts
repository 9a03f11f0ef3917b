import type { Handler } from 'hono';
import type { FleetHoursEnv } from '../app-env.js';
import { jsonResponse } from '../respond/json-response.js';
import { parseTelemetryBatch, telemetryBatchFormat } from './parse-telemetry-batch.js';
import { accountId } from '../routes/account-id.js';
import { readIngestBody, reportWritten, writePoints, type IngestRouteOptions } from './ingest-write.js';

/**
 * `POST /ingest/v1/telemetry`: a native batch (`docs/ingestion.md`, "Native batches"), NDJSON or a JSON array,
 * stored atomically (D20–D26): every point or none. The body is read within the byte limit and
 * deadline, every point is checked before the store is asked anything, and a 2xx is sent only
 * once the store has committed.
 */
export function ingestTelemetryRoute(options: IngestRouteOptions): Handler<FleetHoursEnv> {
  const { fleetHours, limits } = options;
  return async function ingestTelemetry(c) {
    const format = telemetryBatchFormat(c.req.header('Content-Type'));
    const text = await readIngestBody(c, limits);
    const now = Math.floor(options.now() / 1000);
    const batch = parseTelemetryBatch({ text, format, now, maxPoints: limits.maxPoints });
    const answer = await writePoints({
      fleetHours,
      accountId: accountId(c),
      points: batch.points,
      now,
      positionOf: batch.positionOf,
      retentionDays: options.retentionDays,
    });
    reportWritten(options.onIngest, accountId(c), answer);
    return jsonResponse(c, answer);
  };
}
