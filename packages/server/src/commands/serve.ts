import { DEFAULT_RATE_LIMITS, idempotentRequests, type RateLimits } from '@fleet-hours/core';
import type { KyselyFleetHoursStore } from '@fleet-hours/storage-kysely';
import { EXIT_CODES } from '../cli/cli-errors.js';
import type { TextSink } from '../cli/cli-io.js';
import {
  LOG_LEVELS,
  readServerSettings,
  SERVER_SETTINGS,
  type LogLevel,
  type ServerSettingName,
  type ServerSettings,
} from '../cli/server-settings.js';
import { describeDatabaseTarget, redactUrl, type DatabaseTarget } from '../database/database-target.js';
import type { OpenedDatabase } from '../database/open-database.js';
import { startServer, type StartedServer } from '../server/start-server.js';
import type { ServingCommandInput } from './command-context.js';
import { removeOldAuditEntries } from './maintenance.js';

/**
 * `serve [settings…]`: reads every setting from its flag or `FLEET_HOURS_…` variable (D30, P29),
 * migrates, serves, logs JSON lines on stdout — a failed start too (P31) — and on SIGTERM/SIGINT
 * stops accepting connections, finishes open requests, closes the database and returns 0.
 *
 * @returns The exit code: 0 after a graceful stop, 1 when the start failed, 2 for a bad setting.
 */
export async function serveCommand(input: ServingCommandInput & { readonly target: DatabaseTarget }): Promise<number> {
  const { io, target } = input;
  let log = _jsonLineLogger(io.stdout, io.now, 'info');
  let settings: ServerSettings;
  try {
    settings = readServerSettings(input.options, io.env);
  } catch (error) {
    log({ level: 'error', msg: 'startup failed', error: (error as Error).message });
    return EXIT_CODES.usage;
  }
  log = _jsonLineLogger(io.stdout, io.now, settings.logLevel);
  const stop = io.waitForStop();
  const { rateLimits, settingsShown } = _splitSettings(settings);

  log({ msg: 'starting', database: describeDatabaseTarget(target), settings: settingsShown });
  let database: OpenedDatabase | undefined;
  let server: StartedServer;
  try {
    database = await input.openDatabase(target, {
      migrate: true,
      ...(settings.queryTimeout === null ? {} : { queryTimeout: settings.queryTimeout }),
      ...(settings.poolSize === null ? {} : { poolSize: settings.poolSize }),
    });
    server = await startServer({
      database,
      port: settings.port,
      host: settings.host,
      log,
      now: io.now,
      rateLimits,
      trustedProxyHops: settings.trustedProxyHops,
      maxInFlight: settings.maxInFlight,
      ingest: {
        maxPoints: settings.ingestMaxPoints,
        maxBodyBytes: settings.ingestMaxBodyBytes,
        bodyTimeoutMs: Math.round(settings.ingestBodyTimeout * 1000),
      },
      telemetryRetentionDays: settings.telemetryRetentionDays,
      maxHeaderBytes: settings.maxHeaderBytes,
      headersTimeoutMs: Math.round(settings.headersTimeout * 1000),
      shutdownTimeoutMs: Math.round(settings.shutdownTimeout * 1000),
      ...(settings.metricsPort === null ? {} : { metricsPort: settings.metricsPort, metricsHost: settings.metricsHost }),
      logEvent: log,
      aempPolling: settings.aempPolling
        ? { intervalMs: Math.round(settings.aempPollInterval * 1000), allowPrivateAddresses: settings.aempAllowPrivateAddresses }
        : null,
      webhooks: settings.webhooks
        ? {
            retrySchedule: settings.webhookRetrySchedule,
            timeoutMs: Math.round(settings.webhookTimeout * 1000),
            allowPrivateAddresses: settings.webhookAllowPrivateAddresses,
            concurrency: settings.webhookConcurrency,
            perEndpoint: settings.webhookPerEndpoint,
            checkIntervalMs: Math.round(settings.eventCheckInterval * 1000),
          }
        : null,
    });
  } catch (error) {
    await database?.close().catch(() => {});
    const stack = io.env.FLEET_HOURS_DEBUG && error instanceof Error && error.stack ? { stack: redactUrl(error.stack) } : {};
    log({ level: 'error', msg: 'startup failed', error: redactUrl(error instanceof Error ? error.message : String(error)), ...stack });
    return EXIT_CODES.failure;
  }
  log({
    msg: 'listening',
    url: server.url,
    port: server.port,
    host: settings.host,
    database: describeDatabaseTarget(target),
    ...(server.metricsUrl === null ? {} : { metrics_url: server.metricsUrl }),
  });

  const maintenance = _startMaintenance(database, settings.telemetryRetentionDays, io.now, log, settings.auditRetentionDays);
  const signal = await stop;
  log({ msg: 'stopping', signal });
  await maintenance.stop();
  try {
    await server.close();
  } finally {
    await database.close();
  }
  log({ msg: 'stopped' });
  return EXIT_CODES.ok;
}

/** How often a running server creates telemetry partitions ahead and drops those past the retention (D42, D43). */
const MAINTENANCE_INTERVAL_MS = 60 * 60 * 1000;

/**
 * The server's upkeep (D42, D43, D53): `maintainTelemetryPartitions` at once and then every
 * hour — the partitions of this month and the next ones, and with a retention the whole
 * partitions older than the horizon dropped, outside the request deadline (its own database
 * session, D46) — and then the keys of idempotent POSTs past their 24 hours removed. Several instances may run it at once: one drops, the others skip. A run that
 * fails is logged (`warn`, its reason without SQL or URL) and tried again at the next hour; the
 * API keeps serving meanwhile, and a write that finds no partition for its month creates it.
 * A store without a database (a test's memory store) has nothing to keep.
 */
function _startMaintenance(
  database: OpenedDatabase,
  retentionDays: number,
  now: () => number,
  log: (entry: object) => void,
  auditRetentionDays = 0,
): { stop(): Promise<void> } {
  const db = (database.store as Partial<Pick<KyselyFleetHoursStore, 'db'>>).db;
  if (db === undefined) return { stop: async () => {} };
  let running: Promise<void> = Promise.resolve();
  const run = () => {
    running = (async () => {
      // D55, P89: the change log's entries past --audit-retention-days; a failure is logged and tried again next hour.
      try {
        const audit = await removeOldAuditEntries(database.store, Math.floor(now() / 1000), auditRetentionDays);
        if (audit.removed > 0) log({ level: 'info', msg: 'audit maintenance', removed: audit.removed });
      } catch (error) {
        log({ level: 'warn', msg: 'audit maintenance failed', error: redactUrl(error instanceof Error ? error.message : String(error)) });
      }
      try {
        const { maintainTelemetryPartitions } = await import('@fleet-hours/storage-kysely');
        const done = await maintainTelemetryPartitions(db, { now: Math.floor(now() / 1000), retentionDays });
        const changed = done.created.length > 0 || done.dropped.length > 0 || done.pending.length > 0;
        log({
          level: changed ? 'info' : 'debug',
          msg: 'telemetry maintenance',
          created: done.created,
          dropped: done.dropped,
          // D46: left to the next run (transactions still read the table); `busy`: another run held the lock.
          pending: done.pending,
          busy: done.busy,
          horizon: done.horizon === null ? null : new Date(done.horizon * 1000).toISOString(),
        });
      } catch (error) {
        log({
          level: 'warn',
          msg: 'telemetry maintenance failed',
          error: redactUrl(error instanceof Error ? error.message : String(error)),
        });
      }
      // D53: the keys of idempotent POSTs past their 24 hours, in the same hourly run.
      try {
        const removed = await idempotentRequests(database.store, () => Math.floor(now() / 1000)).removeExpired();
        log({ level: removed > 0 ? 'info' : 'debug', msg: 'idempotency keys removed', removed });
      } catch (error) {
        log({
          level: 'warn',
          msg: 'idempotency key upkeep failed',
          error: redactUrl(error instanceof Error ? error.message : String(error)),
        });
      }
    })();
  };
  run();
  const timer = setInterval(run, MAINTENANCE_INTERVAL_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}

/** The rate limits as `startServer` takes them, and every setting as the `starting` line shows it. */
function _splitSettings(settings: ServerSettings): { rateLimits: RateLimits; settingsShown: Record<string, unknown> } {
  const rateLimits = Object.fromEntries(
    Object.keys(DEFAULT_RATE_LIMITS).map((name) => [name, settings[name as keyof RateLimits]]),
  ) as unknown as RateLimits;
  const settingsShown = Object.fromEntries(
    Object.entries(SERVER_SETTINGS).map(([name, setting]) => [setting.flag, settings[name as ServerSettingName]]),
  );
  return { rateLimits, settingsShown };
}

/** The level of a line: its own, else `error` for a 5xx, `debug` for a probe that succeeded, `info` otherwise (P27, P31). */
function _levelOf(entry: object): LogLevel {
  const { level, status, route } = entry as { level?: unknown; status?: unknown; route?: unknown };
  if (typeof level === 'string' && (LOG_LEVELS as readonly string[]).includes(level)) return level as LogLevel;
  if (typeof status === 'number' && status >= 500) return 'error';
  if ((route === '/healthz' || route === '/readyz') && typeof status === 'number' && status < 400) return 'debug';
  return 'info';
}

/** Writes one JSON object per line at `minimum` and above: the server's own messages, and the access log (`msg: 'request'`). */
function _jsonLineLogger(sink: TextSink, now: () => number, minimum: LogLevel): (entry: object) => void {
  const threshold = LOG_LEVELS.indexOf(minimum);
  return (entry) => {
    const level = _levelOf(entry);
    if (LOG_LEVELS.indexOf(level) < threshold) return;
    sink.write(
      `${JSON.stringify({ time: new Date(now()).toISOString(), level, ...('method' in entry ? { msg: 'request' } : {}), ...entry })}\n`,
    );
  };
}
