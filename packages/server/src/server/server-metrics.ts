import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AccessLogEntry } from '@fleet-hours/http';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { DeliveryMetrics } from '../webhooks/event-delivery.js';

/** The methods a request may be labelled with; any other is `other`, so clients cannot grow the label set. */
const _KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Latency buckets in seconds: from a cached read to the database deadline and beyond. */
const _DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The reference server's Prometheus metrics (D30), on a registry of their own:
 *
 * - `fleet_hours_http_requests_total{method,route,status}` and
 *   `fleet_hours_http_request_duration_seconds{method,route,status}`, by route template (never the
 *   raw path: the label set stays bounded), from the access log;
 * - `fleet_hours_http_requests_in_flight`, the requests the app is working on;
 * - `fleet_hours_ingest_points_total{outcome}`, points written by ingestion, `accepted` or
 *   `duplicate` (D21), and positions `ignored` (no ignition: not stored), through
 *   {@link ServerMetrics.recordIngest}, which `startServer` connects to the app's `onIngest`;
 * - Node's process metrics (`process_…`, `nodejs_…`: CPU, memory, event-loop lag).
 */
export interface ServerMetrics extends DeliveryMetrics {
  readonly registry: Registry;
  /** Counts a finished request from its access-log entry. */
  observeRequest(entry: AccessLogEntry): void;
  /** Marks a request as started; call the returned function once it is answered. */
  requestStarted(): () => void;
  /** Counts the points of one ingestion request: those that were new or changed a point, the duplicates (D21), and the positions ignored. */
  recordIngest(input: { readonly accepted: number; readonly duplicates: number; readonly ignored?: number }): void;
}

/**
 * Creates the metrics of one server process.
 *
 * @returns The registry and the hooks that feed it.
 */
export function createServerMetrics(): ServerMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({
    name: 'fleet_hours_http_requests_total',
    help: 'HTTP requests answered, by route template and status',
    labelNames,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'fleet_hours_http_request_duration_seconds',
    help: 'Time from a request reaching the app to its response being ready, by route template and status',
    labelNames,
    buckets: _DURATION_BUCKETS,
    registers: [registry],
  });
  const inFlight = new Gauge({
    name: 'fleet_hours_http_requests_in_flight',
    help: 'Requests the app is working on',
    registers: [registry],
  });
  const ingested = new Counter({
    name: 'fleet_hours_ingest_points_total',
    help: 'Telemetry points written by ingestion: accepted (new or changed) and duplicate (already stored); ignored: positions without ignition, not stored',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  // Present from the start, so a dashboard shows 0 rather than no series.
  ingested.inc({ outcome: 'accepted' }, 0);
  ingested.inc({ outcome: 'duplicate' }, 0);
  ingested.inc({ outcome: 'ignored' }, 0);

  const webhookAttempts = new Counter({
    name: 'fleet_hours_webhook_attempts_total',
    help: 'Webhook attempts, by what became of the delivery: delivered (2xx), retry (pending again) or failed (schedule spent, or 410)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  for (const outcome of ['delivered', 'retry', 'failed']) webhookAttempts.inc({ outcome }, 0);
  let backlog: { read: () => Promise<{ readonly pending: number; readonly oldestRaisedAt: number | null }>; now: () => number } | null =
    null;
  const readBacklog = async () =>
    backlog === null ? { pending: 0, oldestRaisedAt: null } : backlog.read().catch(() => ({ pending: 0, oldestRaisedAt: null }));
  new Gauge({
    name: 'fleet_hours_webhook_pending',
    help: 'Webhook deliveries waiting to be sent (due or waiting for a retry), every instance together',
    registers: [registry],
    async collect() {
      this.set((await readBacklog()).pending);
    },
  });
  new Gauge({
    name: 'fleet_hours_webhook_oldest_pending_seconds',
    help: 'Age of the oldest event with a delivery still pending, in seconds; 0 when none',
    registers: [registry],
    async collect() {
      const { oldestRaisedAt } = await readBacklog();
      this.set(oldestRaisedAt === null || backlog === null ? 0 : Math.max(0, backlog.now() / 1000 - oldestRaisedAt));
    },
  });

  return {
    registry,
    recordWebhookAttempt(outcome) {
      webhookAttempts.inc({ outcome });
    },
    watchWebhookBacklog(read, now) {
      backlog = { read, now };
    },
    observeRequest(entry) {
      const labels = {
        method: _KNOWN_METHODS.has(entry.method) ? entry.method : 'other',
        route: entry.route ?? 'none',
        status: String(entry.status),
      };
      requests.inc(labels);
      duration.observe(labels, entry.duration_ms / 1000);
    },
    requestStarted() {
      inFlight.inc();
      let done = false;
      return () => {
        if (done) return;
        done = true;
        inFlight.dec();
      };
    },
    recordIngest({ accepted, duplicates, ignored = 0 }) {
      if (accepted > 0) ingested.inc({ outcome: 'accepted' }, accepted);
      if (duplicates > 0) ingested.inc({ outcome: 'duplicate' }, duplicates);
      if (ignored > 0) ingested.inc({ outcome: 'ignored' }, ignored);
    },
  };
}

/** A running metrics endpoint. */
export interface MetricsEndpoint {
  /** e.g. `http://127.0.0.1:9464/metrics`. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Serves `GET /metrics` (the Prometheus text format) on a port of its own, so that the API's port
 * never exposes it; any other path is a JSON 404.
 *
 * @param options The metrics, the port (0: a free one) and the address.
 * @returns Once listening: its URL and `close()`.
 * @throws When the port cannot be bound (the socket error, e.g. `EADDRINUSE`).
 */
export function serveMetrics(options: {
  readonly metrics: ServerMetrics;
  readonly port: number;
  readonly host: string;
}): Promise<MetricsEndpoint> {
  const { registry } = options.metrics;
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'Content-Type': 'application/json; charset=UTF-8' });
      response.end(JSON.stringify({ error: { status: 404, code: 'not_found', message: 'No such endpoint: metrics are at GET /metrics' } }));
      return;
    }
    registry.metrics().then(
      (text) => {
        response.writeHead(200, { 'Content-Type': registry.contentType, 'Cache-Control': 'no-store' });
        response.end(request.method === 'HEAD' ? undefined : text);
      },
      () => {
        response.writeHead(500, { 'Content-Type': 'application/json; charset=UTF-8' });
        response.end(JSON.stringify({ error: { status: 500, code: 'internal_error', message: 'Internal error: it has been logged' } }));
      },
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      const { address, port } = server.address() as AddressInfo;
      resolve({
        url: `http://${address.includes(':') ? `[${address}]` : address}:${port}/metrics`,
        close: () =>
          new Promise<void>((closed) => {
            server.close(() => closed());
            server.closeAllConnections();
          }),
      });
    });
  });
}
