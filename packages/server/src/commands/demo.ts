import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdtempSync, type WriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { checkWebhookEventTypes, checkWebhookUrl, type FleetHoursStore } from '@fleet-hours/core';
import type { AccessLogEntry, RunningServer } from '@fleet-hours/http';
import { CommandError, UsageError } from '../cli/cli-errors.js';
import type { CliIo } from '../cli/cli-io.js';
import { readHost, readPort } from '../cli/option-values.js';
import type { GlobalFlags } from '../cli/parse-cli-args.js';
import { readServerSetting } from '../cli/server-settings.js';
import type { DatabaseTarget } from '../database/database-target.js';
import type { OpenedDatabase } from '../database/open-database.js';
import { demoExamples, formatDemoBanner, liveExamples } from '../demo/demo-banner.js';
import { DEMO_VEHICLES } from '../demo/demo-fleet.js';
import { LIVE_VEHICLES, seedLiveVehicles, startLiveFeed, type LiveFeed } from '../demo/live-vehicles.js';
import { seedDemo } from '../demo/seed-demo.js';
import { startServer, type StartServerOptions } from '../server/start-server.js';
import { _withOptionNames } from './_option-refusal.js';
import type { ServingCommandInput } from './command-context.js';

/** The port the demo tries first; when it is taken and no --port was given, any free port. */
export const DEMO_PORT = 8080;

/**
 * `demo [--port] [--host] [--data-dir]`: a fresh embedded database (in memory, or a new directory),
 * seeded with the demo fleet, served; prints the URL, a working key and curl lines. Two live
 * vehicles report through the real ingestion endpoint while it runs (the simulator, in-process,
 * over HTTP to the demo's own URL), so their meters count up. stdout holds only the banner (or,
 * with `--json`, one JSON document). The request log goes to a file the banner names: the live
 * vehicles alone make a request every few seconds, which on a terminal would scroll the banner,
 * with its key and curl lines, off screen within a minute. stderr gets only the answers a person
 * must see at once, server errors (5xx), besides the demo's own progress lines.
 *
 * `--webhook-url URL` adds an endpoint for every event type to the demo account (its secret in the
 * banner) and sends the demo's webhooks there; `--webhook-allow-private-addresses on` lets them
 * reach a receiver on this machine (D48: the setting its refusals name). Failed attempts go to
 * stderr too, so a refusal is seen.
 */
export async function demoCommand(input: ServingCommandInput & { readonly global: GlobalFlags }): Promise<number> {
  const { io, global } = input;
  if (global.databaseUrl !== undefined) {
    throw new UsageError('demo always uses a fresh embedded database: --database-url is not accepted (DATABASE_URL is ignored)', 'demo');
  }
  const explicitPort = typeof input.options.port === 'string' ? readPort(input.options.port) : undefined;
  const host = readHost(input.options.host);
  const webhooks = _readWebhookOptions(input.options, io.env);
  const dataDir = global.dataDir === undefined ? null : resolve(io.cwd, global.dataDir);
  if (dataDir !== null && existsSync(join(dataDir, 'PG_VERSION'))) {
    throw new CommandError(
      `${dataDir} already holds a database; the demo needs a fresh one: name a new directory, or leave out --data-dir to keep it in memory`,
    );
  }
  const target: DatabaseTarget = dataDir === null ? { kind: 'pglite-memory' } : { kind: 'pglite', dataDir };
  const stop = io.waitForStop();
  const say = (text: string) => io.stderr.write(text);

  const started = performance.now();
  say(`Creating a fresh embedded database${dataDir === null ? ' in memory' : ` in ${dataDir}`}…\n`);
  const database = await input.openDatabase(target, { migrate: true });
  const requestLog = openRequestLog();
  let server: RunningServer | null = null;
  let feed: LiveFeed | null = null;
  try {
    say(`Seeding the demo fleet: ${DEMO_VEHICLES.length} vehicles, a year of shifts, and ${LIVE_VEHICLES.length} live vehicles…\n`);
    const now = Math.floor(io.now() / 1000);
    const seed = await seedDemo(database.store, { now });
    const live = await seedLiveVehicles(database.store, { account: seed.account, now });
    const webhook = webhooks && (await _createDemoEndpoint(database.store, seed.account.id, webhooks.url, now));
    const delivery: Partial<StartServerOptions> = webhooks
      ? { webhooks: { allowPrivateAddresses: webhooks.allowPrivateAddresses }, logEvent: _eventLogger(io, requestLog.stream) }
      : {};
    server = await listen(database, host, explicitPort, io, requestLog.stream, delivery);
    // The live vehicles report over HTTP to the demo's own URL, through the real ingestion endpoint.
    feed = startLiveFeed({ url: server.url, ingestToken: live.ingestToken, devices: live.devices, now: io.now });
    say(`Ready in ${((performance.now() - started) / 1000).toFixed(1)} s.\n`);

    const examples = demoExamples({ url: server.url, seed, now });
    const liveLines = liveExamples({ url: server.url, key: seed.key, live, now });
    if (global.json) {
      io.stdout.write(
        `${JSON.stringify({
          url: server.url,
          key: seed.key,
          manage_key: seed.manageKey,
          account: { id: seed.account.id, name: seed.account.name, plan: seed.account.plan },
          starter_key: seed.starterKey,
          starter_account: { id: seed.starterAccount.id, name: seed.starterAccount.name, plan: seed.starterAccount.plan },
          devices: seed.devices.map((device) => ({ id: device.id, name: device.name, timezone: device.timeZone })),
          segments: seed.segmentCount,
          data_dir: dataDir,
          request_log: requestLog.path,
          examples: examples.map((example) => ({ title: example.title, command: example.command })),
          ingest_token: live.ingestToken,
          live_devices: live.devices.map((device) => ({ id: device.id, name: device.name, imei: device.imei, timezone: device.timeZone })),
          live_examples: liveLines.map((example) => ({ title: example.title, command: example.command })),
          webhook,
        })}\n`,
      );
    } else {
      io.stdout.write(
        formatDemoBanner({
          url: server.url,
          seed,
          examples,
          dataDir,
          requestLog: requestLog.path,
          live: { seed: live, examples: liveLines },
          webhook,
        }),
      );
    }

    const signal = await stop;
    say(`Received ${signal}: stopping the demo.\n`);
    const fed = await feed.stop();
    feed = null;
    say(
      `The live vehicles sent ${fed.sent} point${fed.sent === 1 ? '' : 's'} in ${fed.requests} request${fed.requests === 1 ? '' : 's'} (${fed.errors.length === 0 ? 'no errors' : `errors: ${fed.errors.map((error) => `${error.count} × ${error.status ?? 'no answer'} ${error.code}`).join(', ')}`}).\n`,
    );
    return 0;
  } finally {
    try {
      await feed?.stop();
      await server?.close();
    } finally {
      await new Promise((done) => requestLog.stream.end(done));
      await database.close();
    }
  }
}

/** A fresh file for the request log, in a directory of its own under the system's temporary directory. */
function openRequestLog(): { readonly path: string; readonly stream: WriteStream } {
  const path = join(mkdtempSync(join(tmpdir(), 'fleet-hours-demo-')), 'requests.log');
  return { path, stream: createWriteStream(path, { flags: 'a' }) };
}

async function listen(
  database: OpenedDatabase,
  host: string,
  explicitPort: number | undefined,
  io: CliIo,
  requestLog: WriteStream,
  delivery: Partial<StartServerOptions>,
): Promise<RunningServer> {
  const log = compactLogger(io, requestLog);
  try {
    return await startServer({ ...delivery, database, host, port: explicitPort ?? DEMO_PORT, log, now: io.now });
  } catch (error) {
    const inUse = error instanceof CommandError && (error.cause as { code?: unknown } | undefined)?.code === 'EADDRINUSE';
    if (explicitPort !== undefined || !inUse) throw error;
    io.stderr.write(`Port ${DEMO_PORT} is in use; using a free port instead.\n`);
    return startServer({ ...delivery, database, host, port: 0, log, now: io.now });
  }
}

/** Request log lines for a person (`GET /api/v1/devices → 200 (3 ms)`) to the file; a server error to stderr as well. */
function compactLogger(io: CliIo, requestLog: WriteStream): (entry: AccessLogEntry) => void {
  return (entry) => {
    const code = entry.error_code === undefined ? '' : ` ${entry.error_code}`;
    const line = `${entry.method} ${entry.route ?? '(no route)'} → ${entry.status}${code} (${Math.round(entry.duration_ms)} ms)\n`;
    requestLog.write(line);
    if (entry.status >= 500) io.stderr.write(line);
  };
}

/** `--webhook-url` (checked as `webhooks create` checks it) and `--webhook-allow-private-addresses` (read as `serve` reads it); `null` without a URL. */
function _readWebhookOptions(
  options: Readonly<Record<string, string | boolean | undefined>>,
  env: Readonly<Record<string, string | undefined>>,
): { readonly url: string; readonly allowPrivateAddresses: boolean } | null {
  const allowPrivateAddresses = readServerSetting('webhookAllowPrivateAddresses', options, env, 'demo');
  const text = options['webhook-url'];
  if (typeof text !== 'string') return null;
  return { url: _withOptionNames({ url: '--webhook-url' }, () => checkWebhookUrl(text)), allowPrivateAddresses };
}

/** The demo account's endpoint for every event type, with a fresh secret (D41: `whsec_` and 32 random bytes). */
async function _createDemoEndpoint(store: FleetHoursStore, accountId: number, url: string, now: number) {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const endpoint = await store.createWebhookEndpoint({ accountId, url, eventTypes: checkWebhookEventTypes(undefined), secret, now });
  if (!endpoint) throw new CommandError('The demo account could not take a webhook endpoint');
  return { id: endpoint.id, url: endpoint.url, events: endpoint.eventTypes, secret };
}

/** Webhook attempts (D41) to the request log; a failed one (a refusal included, with the setting that allows it) to stderr too. */
function _eventLogger(io: CliIo, requestLog: WriteStream): (entry: object) => void {
  return (entry) => {
    const { level, event_type, event_id, status, error } = entry as Record<string, unknown>;
    const line = `Webhook ${event_type ?? ''} ${event_id ?? ''}: ${error ?? (status === undefined ? 'sent' : `HTTP ${status}`)}\n`;
    requestLog.write(line);
    if (level === 'warn' || level === 'error') io.stderr.write(line);
  };
}
