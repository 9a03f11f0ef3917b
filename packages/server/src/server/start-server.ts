import { createFleetHours, type RateLimits } from '@fleet-hours/core';
import type { AccessLogEntry, IngestLimits, RunningServer } from '@fleet-hours/http';
import { CommandError } from '../cli/cli-errors.js';
import type { DatabaseTarget } from '../database/database-target.js';
import { openDatabase, type OpenedDatabase } from '../database/open-database.js';
import { createServerMetrics, serveMetrics, type MetricsEndpoint, type ServerMetrics } from './server-metrics.js';
import { _nodeFingerprint } from './_node-fingerprint.js';
import { startEventDelivery, type EventDelivery, type EventDeliveryOptions } from '../webhooks/event-delivery.js';
import { sendOneEvent } from '../webhooks/send-one-event.js';
import { startAempPolling } from '../aemp/aemp-polling.js';

/** Options of {@link startServer}. */
export interface StartServerOptions {
  /** An open database (the caller closes it), or where to open one (migrated, closed with the server). */
  readonly database: OpenedDatabase | DatabaseTarget;
  /** Default 8080; 0 picks a free port. */
  readonly port?: number;
  /** Default `127.0.0.1`. */
  readonly host?: string;
  /** Receives one entry per request (the access log). Default: one JSON line per request on stdout. */
  readonly log?: (entry: AccessLogEntry) => void;
  /** The clock, epoch milliseconds. Default `Date.now`. */
  readonly now?: () => number;
  /** Requests per minute; unset ones keep core's `DEFAULT_RATE_LIMITS` (D13, D14, D33). */
  readonly rateLimits?: Partial<RateLimits>;
  /**
   * Reverse proxies in front of the server that append to `X-Forwarded-For`: the per-address
   * budget counts the N-th entry from the right (P30). Default 0: the socket's address (P13).
   */
  readonly trustedProxyHops?: number;
  /** Largest request line and headers, in bytes; larger ones are 431 `headers_too_large` (D29). Default 16 384. */
  readonly maxHeaderBytes?: number;
  /** How long a connection may take to send complete request headers before it is answered 408 and closed, in ms (D37). Default 10 000. */
  readonly headersTimeoutMs?: number;
  /** How long open requests may take on close before their connections are cut, in ms. Default 10 000. */
  readonly shutdownTimeoutMs?: number;
  /**
   * Serve Prometheus metrics at `GET /metrics` on this port (0: a free one), on `metricsHost`
   * (default `127.0.0.1`). Default: no metrics.
   */
  readonly metricsPort?: number;
  readonly metricsHost?: string;
  /**
   * Seconds every database call may take before the request answers 503 (D28), for a database
   * this function opens. Default 5 (the storage's); `0` turns the deadline off.
   */
  readonly queryTimeout?: number;
  /** Connections to the PostgreSQL server at most, for a database this function opens. Default 10 (the storage's). */
  readonly poolSize?: number;
  /** Requests served at the same time; beyond it 503 at once (D28). Default 64 (`DEFAULT_MAX_IN_FLIGHT` of `@fleet-hours/http`). */
  readonly maxInFlight?: number;
  /** The limits of one ingestion request (points, body bytes, body deadline): `createFleetHoursApp`'s `ingest`. */
  readonly ingest?: Partial<IngestLimits>;
  /**
   * Deliver webhooks and run the periodic event check in this process (D40, D41), with these
   * settings (`{}`: the defaults). Default `null`: neither (`fleet-hours serve` turns them on).
   */
  readonly webhooks?: EventDeliveryOptions | null;
  /** Receives the server's own log lines beyond the access log (webhook attempts). Default: one JSON line each on stdout. */
  readonly logEvent?: (entry: object) => void;
  /**
   * Poll the due AEMP sources in this process (D65, P134): a round every `intervalMs`; requests to
   * non-public addresses only with `allowPrivateAddresses` (D48). Default `null`: none (`fleet-hours serve` turns it on).
   */
  readonly aempPolling?: { readonly intervalMs: number; readonly allowPrivateAddresses: boolean } | null;
  /** D43: days of raw telemetry kept; older points are refused (409 `beyond_retention`). 0 or unset: every point. */
  readonly telemetryRetentionDays?: number;
}

/** A server started by {@link startServer}: `serve()`'s, and the metrics endpoint when there is one. */
export interface StartedServer extends RunningServer {
  /** e.g. `http://127.0.0.1:9464/metrics`; `null` without `metricsPort`. */
  readonly metricsUrl: string | null;
  /** The metrics being collected (ingestion is counted through the app's `onIngest`); `null` without `metricsPort`. */
  readonly metrics: ServerMetrics | null;
}

/**
 * Serves the Fleet Hours API over a database: the composition root of the reference server, with
 * the fleet view at `/`, the reference at `/docs`, the probes `/healthz` and `/readyz` (D30) and,
 * with `metricsPort`, Prometheus metrics on a port of their own.
 * Rate-limit counters live in the database, so several instances share them (D15).
 *
 * It installs no signal handlers: the caller decides when to stop (the CLI waits for SIGTERM or
 * SIGINT through `CliIo.waitForStop`) and calls `close()`, which stops accepting connections, lets
 * open requests finish, then closes a database it opened.
 *
 * @param options The database, address and logger.
 * @returns The running server, as `@fleet-hours/http`'s `serve()` describes it.
 * @throws {CommandError} When the address cannot be listened on (e.g. the port is in use; the
 *   socket error, with its `code`, is the `cause`), or the database cannot be opened.
 * @example
 * ```ts
 * import { startServer } from '@fleet-hours/server';
 * // Or { kind: 'postgres', url: process.env.DATABASE_URL! }; port 0 picks a free port.
 * const server = await startServer({ database: { kind: 'pglite-memory' }, port: 0 });
 * console.log(server.url); // e.g. http://127.0.0.1:41213
 * await server.close(); // finishes open requests, then closes the database it opened
 * ```
 */
export async function startServer(options: StartServerOptions): Promise<StartedServer> {
  const ownsDatabase = !('store' in options.database);
  const database =
    'store' in options.database
      ? options.database
      : await openDatabase(options.database, {
          migrate: true,
          ...(options.queryTimeout === undefined ? {} : { queryTimeout: options.queryTimeout }),
          ...(options.poolSize === undefined ? {} : { poolSize: options.poolSize }),
        });
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? 8080;
  const metrics = options.metricsPort === undefined ? null : createServerMetrics();
  let metricsEndpoint: MetricsEndpoint | null = null;
  try {
    const { createFleetHoursApp, forwardedClientAddress, serve } = await import('@fleet-hours/http');
    const now = options.now ?? Date.now;
    const writeLog = options.log;
    const log =
      metrics === null
        ? writeLog
        : (entry: AccessLogEntry) => {
            metrics.observeRequest(entry);
            (writeLog ?? _writeJsonLine)(entry);
          };
    const fleetHoursForEvents = createFleetHours({ store: database.store, now, fingerprint: _nodeFingerprint });
    let delivery: EventDelivery | null = null;
    let aempPolling: { close(): Promise<void> } | null = null;
    const app = createFleetHoursApp({
      // Fingerprints with node:crypto, synchronously: the same digits as core's WebCrypto default.
      fleetHours: createFleetHours({ store: database.store, now, fingerprint: _nodeFingerprint }),
      now,
      // The reference server shows the fleet view at / (issue 12); the library leaves it off by default.
      fleetView: true,
      // D30: the probes of a load balancer or an orchestrator.
      probes: true,
      ...(options.rateLimits ? { rateLimits: options.rateLimits } : {}),
      ...(options.maxInFlight === undefined ? {} : { maxInFlight: options.maxInFlight }),
      ...(options.ingest ? { ingest: options.ingest } : {}),
      ...(options.telemetryRetentionDays ? { telemetryRetentionDays: options.telemetryRetentionDays } : {}),
      ...(options.trustedProxyHops ? { clientAddress: forwardedClientAddress(options.trustedProxyHops) } : {}),
      ...(database.rateLimitStore ? { rateLimitStore: database.rateLimitStore } : {}),
      ...(log ? { logger: log } : {}),
      // P83: `POST /api/v1/webhooks/{id}/test` sends with the delivery settings of this server's sender.
      ...(options.webhooks
        ? {
            sendWebhookEvent: sendOneEvent({
              store: database.store,
              now,
              timeoutMs: options.webhooks.timeoutMs,
              allowPrivateAddresses: options.webhooks.allowPrivateAddresses,
              retrySchedule: options.webhooks.retrySchedule,
            }),
          }
        : {}),
      // D30: what ingestion wrote, by outcome (the app calls it once the points are committed); D40: the events of the devices written.
      ...(metrics === null && !options.webhooks
        ? {}
        : {
            onIngest: (outcome) => {
              metrics?.recordIngest(outcome);
              if (outcome.accountId !== undefined && outcome.deviceIds) delivery?.afterWrite(outcome.accountId, outcome.deviceIds);
            },
          }),
    });
    // The metrics count the requests in flight around the app; everything else comes from the access log.
    const served =
      metrics === null
        ? app
        : {
            fetch: async (request: Request, env: unknown) => {
              const done = metrics.requestStarted();
              try {
                return await app.fetch(request, env);
              } finally {
                done();
              }
            },
          };
    if (metrics !== null) {
      const metricsHost = options.metricsHost ?? '127.0.0.1';
      try {
        metricsEndpoint = await serveMetrics({ metrics, port: options.metricsPort!, host: metricsHost });
      } catch (error) {
        throw _listenError(error, metricsHost, options.metricsPort!, '--metrics-port');
      }
    }
    const endpoint = metricsEndpoint;
    const server = await serve({
      app: served,
      port,
      hostname: host,
      handleSignals: false,
      ...(log ? { logger: log } : {}),
      ...(options.maxHeaderBytes === undefined ? {} : { maxHeaderBytes: options.maxHeaderBytes }),
      ...(options.headersTimeoutMs === undefined ? {} : { headersTimeoutMs: options.headersTimeoutMs }),
      ...(options.shutdownTimeoutMs === undefined ? {} : { shutdownTimeoutMs: options.shutdownTimeoutMs }),
      onClose: async () => {
        // Finishes the webhook requests under way and releases what it claimed, before the database closes.
        await delivery?.close();
        // Finishes the poll under way (its record stored, its claim released).
        await aempPolling?.close();
        await endpoint?.close();
        if (ownsDatabase) await database.close();
      },
    });
    if (options.webhooks) {
      delivery = startEventDelivery({
        ...options.webhooks,
        fleetHours: fleetHoursForEvents,
        now,
        log: options.logEvent ?? _writeJsonLine,
        ...(metrics === null ? {} : { metrics }),
      });
    }
    if (options.aempPolling) {
      aempPolling = startAempPolling({
        ...options.aempPolling,
        fleetHours: fleetHoursForEvents,
        now,
        log: options.logEvent ?? _writeJsonLine,
      });
    }
    return { ...server, close: () => server.close(), metricsUrl: endpoint?.url ?? null, metrics };
  } catch (error) {
    await metricsEndpoint?.close();
    if (ownsDatabase) await database.close();
    throw _listenError(error, host, port);
  }
}

function _writeJsonLine(entry: object): void {
  console.log(JSON.stringify(entry));
}

function _listenError(error: unknown, host: string, port: number, flag = '--port'): unknown {
  if (error instanceof CommandError) return error;
  const reason = _LISTEN_FAILURES.get((error as { code?: unknown } | null)?.code);
  return reason ? new CommandError(`Cannot listen on ${host}:${port}: ${reason.replace('--port', flag)}`, { cause: error }) : error;
}

// By the socket error's code: why an address cannot be listened on.
const _LISTEN_FAILURES: ReadonlyMap<unknown, string> = new Map([
  ['EADDRINUSE', 'the port is in use (choose another with --port)'],
  ['EACCES', 'permission denied (ports below 1024 need privileges)'],
  ['EADDRNOTAVAIL', 'no such local address'],
  ['ENOTFOUND', 'no such local address'],
]);
