import { DEFAULT_RATE_LIMITS, DEFAULT_RETRY_SCHEDULE_SECONDS, parseRetrySchedule, type RateLimits } from '@fleet-hours/core';
import { MANAGE_ENDPOINTS, READ_ENDPOINTS, type ReadEndpointName } from '@fleet-hours/core/adapter';
import { DEFAULT_INGEST_LIMITS, DEFAULT_MAX_IN_FLIGHT } from '@fleet-hours/http';
import { UsageError } from './cli-errors.js';

/** How much `serve` logs: each level shows itself and the levels after it (P31). */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;

/** A log level. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** One operational setting of `serve` (D30): its flag, its variable, its default and how to read it. */
export interface ServerSetting<Value> {
  /** The flag without `--`, e.g. `rate-limit-hours`; the variable is {@link settingEnvName} of it. */
  readonly flag: string;
  /** Shown after the flag in help, e.g. `N`. */
  readonly placeholder: string;
  /** What it does, one sentence without a trailing period. */
  readonly description: string;
  /** The value when neither the flag nor the variable is given. */
  readonly defaultValue: Value;
  /** The default as help and docs show it. */
  readonly shownDefault: string;
  /**
   * Reads a value as typed; throws an `Error` whose message says what is expected, e.g.
   * `must be a whole number from 0 to 65535`.
   */
  readonly read: (text: string) => Value;
}

const _setting = <Value>(setting: ServerSetting<Value>): ServerSetting<Value> => setting;

function _wholeNumber(min: number, max = Number.MAX_SAFE_INTEGER): (text: string) => number {
  return (text) => {
    const value = Number(text);
    if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < min || value > max) {
      throw new Error(max === Number.MAX_SAFE_INTEGER ? `must be a whole number ≥ ${min}` : `must be a whole number from ${min} to ${max}`);
    }
    return value;
  };
}

function _seconds(text: string): number {
  const value = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || !Number.isFinite(value)) throw new Error('must be a number of seconds ≥ 0');
  return value;
}

/** Seconds > 0, at least a millisecond. */
function _positiveSeconds(text: string): number {
  const value = _seconds(text);
  if (value < 0.001) throw new Error('must be a number of seconds > 0');
  return value;
}

const _port = _wholeNumber(0, 65_535);

/** `on`/`off` (also `true`/`false`, `yes`/`no`, `1`/`0`). */
function _onOff(text: string): boolean {
  const value = text.toLowerCase();
  if (['on', 'true', 'yes', '1'].includes(value)) return true;
  if (['off', 'false', 'no', '0'].includes(value)) return false;
  throw new Error('must be on or off');
}

/** A retry delay as help shows it: `5s`, `5m`, `2h`. */
const _shownDelay = (seconds: number) =>
  seconds % 3600 === 0 ? `${seconds / 3600}h` : seconds % 60 === 0 ? `${seconds / 60}m` : `${seconds}s`;
const _positive = _wholeNumber(1);

/** Retry delays, each with its unit: a bare number is refused here, as every duration a person gives is. */
function _retrySchedule(text: string): readonly number[] {
  const bare = text
    .split(',')
    .map((delay) => delay.trim())
    .find((delay) => /^\d+(?:\.\d+)?$/.test(delay));
  if (bare !== undefined) throw new Error(`must give each delay a unit (${bare}: give ${bare}s, ${bare}m or ${bare}h)`);
  return parseRetrySchedule(text);
}

/**
 * The request budgets, per minute (D13, D14, D33, ingestion): one setting per limit of core's
 * `RateLimits` — one per row of `READ_ENDPOINTS`, its flag the row's name in kebab case, and the
 * two shared budgets.
 */
const _RATE_LIMIT_SETTINGS: { readonly [Name in keyof RateLimits]: readonly [flag: string, description: string] } = {
  ...(Object.fromEntries(
    READ_ENDPOINTS.map((endpoint) => [
      endpoint.name,
      [
        `rate-limit-${endpoint.name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`,
        `Requests per minute per API key to ${'paging' in endpoint ? 'the fleet endpoint ' : ''}GET ${endpoint.template}`,
      ],
    ]),
  ) as unknown as { readonly [Name in ReadEndpointName]: readonly [flag: string, description: string] }),
  ingest: ['rate-limit-ingest', 'Requests per minute per ingest token to the ingestion endpoints, all together'],
  unauthenticated: ['rate-limit-unauthenticated', 'Requests per minute per client address without a valid credential, every 401'],
  writes: [
    'rate-limit-writes',
    `Requests per minute per API key to the write routes, all together: ${MANAGE_ENDPOINTS.filter((row) => row.method !== 'GET')
      .map((row) => `${row.method} ${row.template}`)
      .join(', ')}`,
  ],
  // P88: the GET routes of a manage key (the change log, D55), apart from the writes.
  manageReads: [
    'rate-limit-manage-reads',
    `Requests per minute per API key to the reads that need a manage key, all together: ${MANAGE_ENDPOINTS.filter(
      (row) => row.method === 'GET',
    )
      .map((row) => `GET ${row.template}`)
      .join(', ')}`,
  ],
};

const _rateLimitSettings = Object.fromEntries(
  (Object.keys(_RATE_LIMIT_SETTINGS) as (keyof RateLimits)[]).map((name) => {
    const [flag, description] = _RATE_LIMIT_SETTINGS[name];
    const defaultValue = DEFAULT_RATE_LIMITS[name];
    return [name, _setting({ flag, placeholder: 'N', description, defaultValue, shownDefault: String(defaultValue), read: _positive })];
  }),
) as { readonly [Name in keyof RateLimits]: ServerSetting<number> };

/**
 * Every operational setting of the reference server (D30), in the order `serve --help` and
 * `docs/operations.md` list them: the one place that gives each its flag, its `FLEET_HOURS_…`
 * variable, its default and its help (P29). The database itself is chosen by the options every
 * command takes (`--database-url` / `DATABASE_URL`, `--data-dir` / `FLEET_HOURS_DATA_DIR`).
 */
export const SERVER_SETTINGS = {
  port: _setting({
    flag: 'port',
    placeholder: 'PORT',
    description: 'TCP port of the API; 0 picks a free one',
    defaultValue: 8080,
    shownDefault: '8080',
    read: _port,
  }),
  host: _setting({
    flag: 'host',
    placeholder: 'HOST',
    description: 'Address to listen on; 0.0.0.0 (or ::) accepts other machines',
    defaultValue: '127.0.0.1',
    shownDefault: '127.0.0.1',
    read: (text) => text,
  }),
  ..._rateLimitSettings,
  trustedProxyHops: _setting({
    flag: 'trusted-proxy-hops',
    placeholder: 'N',
    description:
      'Reverse proxies in front of the server that append to X-Forwarded-For: the client address of the per-address budget is the N-th entry from the right (one entry per proxy); 0 uses the socket address',
    defaultValue: 0,
    shownDefault: '0',
    read: _wholeNumber(0, 32),
  }),
  queryTimeout: _setting<number | null>({
    flag: 'query-timeout',
    placeholder: 'SECONDS',
    description:
      'How long every database call may take before the request answers 503 service_unavailable with Retry-After; 0 turns the deadline off',
    // The storage's own default (createPostgresDatabase / openStore `queryTimeout`) applies when unset.
    defaultValue: null,
    shownDefault: '5',
    read: _seconds,
  }),
  poolSize: _setting<number | null>({
    flag: 'pool-size',
    placeholder: 'N',
    description: 'Connections of this process to the PostgreSQL server at most',
    // The storage's own default (`poolSize` of openStore) applies when unset.
    defaultValue: null,
    shownDefault: '10',
    read: _positive,
  }),
  maxInFlight: _setting({
    flag: 'max-in-flight',
    placeholder: 'N',
    description: 'Requests served at the same time; beyond it the server answers 503 service_unavailable with Retry-After at once',
    defaultValue: DEFAULT_MAX_IN_FLIGHT,
    shownDefault: String(DEFAULT_MAX_IN_FLIGHT),
    read: _positive,
  }),
  // Telemetry ingestion (docs/ingestion.md): the limits of one request, `createFleetHoursApp({ ingest })`.
  ingestMaxPoints: _setting({
    flag: 'ingest-max-points',
    placeholder: 'N',
    description: 'Points per request to POST /ingest/v1/telemetry at most; more are answered 413 payload_too_large',
    defaultValue: DEFAULT_INGEST_LIMITS.maxPoints,
    shownDefault: String(DEFAULT_INGEST_LIMITS.maxPoints),
    read: _positive,
  }),
  ingestMaxBodyBytes: _setting({
    flag: 'ingest-max-body-bytes',
    placeholder: 'BYTES',
    description:
      'Bytes per ingestion request body at most; a larger body is answered 413 payload_too_large as soon as it grows past it, never buffered',
    defaultValue: DEFAULT_INGEST_LIMITS.maxBodyBytes,
    shownDefault: String(DEFAULT_INGEST_LIMITS.maxBodyBytes),
    read: _positive,
  }),
  ingestBodyTimeout: _setting({
    flag: 'ingest-body-timeout',
    placeholder: 'SECONDS',
    description: 'How long an ingestion request body may take to arrive; a client that stops sending is answered 408 request_timeout',
    defaultValue: DEFAULT_INGEST_LIMITS.bodyTimeoutMs / 1000,
    shownDefault: String(DEFAULT_INGEST_LIMITS.bodyTimeoutMs / 1000),
    read: _positiveSeconds,
  }),
  // D43: how long raw telemetry points are kept (`createFleetHoursApp({ telemetryRetentionDays })` and the maintenance).
  telemetryRetentionDays: _setting({
    flag: 'telemetry-retention-days',
    placeholder: 'DAYS',
    description:
      'Days of raw telemetry points kept: the hourly maintenance drops whole monthly partitions older than that and ingestion answers an older point 409 beyond_retention; segments, daily figures and meters are kept forever; 0 keeps every point',
    defaultValue: 0,
    shownDefault: '0',
    read: _wholeNumber(0, 36_500),
  }),
  // D55, P89: how long the change log is kept (the hourly maintenance, and `maintenance`, remove older entries).
  auditRetentionDays: _setting({
    flag: 'audit-retention-days',
    placeholder: 'DAYS',
    description:
      'Days the change log (GET /api/v1/audit, audit list) keeps an entry: the hourly maintenance removes older ones; 0 keeps every entry',
    defaultValue: 365,
    shownDefault: '365',
    read: _wholeNumber(0, 36_500),
  }),
  maxHeaderBytes: _setting({
    flag: 'max-header-bytes',
    placeholder: 'BYTES',
    description: 'Largest request line and headers accepted; larger ones are answered 431 headers_too_large',
    defaultValue: 16_384,
    shownDefault: '16384',
    read: _wholeNumber(1_024, 1_048_576),
  }),
  headersTimeout: _setting({
    flag: 'headers-timeout',
    placeholder: 'SECONDS',
    description:
      'How long a connection may take to send a complete request line and headers; one that has not is answered 408 request_timeout and closed',
    defaultValue: 10,
    shownDefault: '10',
    read: _positiveSeconds,
  }),
  shutdownTimeout: _setting({
    flag: 'shutdown-timeout',
    placeholder: 'SECONDS',
    description: 'On SIGTERM or SIGINT, how long open requests may take before their connections are cut',
    defaultValue: 10,
    shownDefault: '10',
    read: _seconds,
  }),
  logLevel: _setting<LogLevel>({
    flag: 'log-level',
    placeholder: 'LEVEL',
    description: `Lowest level of the JSON log lines on stdout: ${LOG_LEVELS.join(', ')}`,
    defaultValue: 'info',
    shownDefault: 'info',
    read: (text) => {
      const level = text.toLowerCase();
      if (!(LOG_LEVELS as readonly string[]).includes(level)) throw new Error(`must be one of ${LOG_LEVELS.join(', ')}`);
      return level as LogLevel;
    },
  }),
  metricsPort: _setting<number | null>({
    flag: 'metrics-port',
    placeholder: 'PORT',
    description: 'Serve Prometheus metrics at GET /metrics on this port (0 picks a free one); off when not given',
    defaultValue: null,
    shownDefault: 'off',
    read: _port,
  }),
  metricsHost: _setting({
    flag: 'metrics-host',
    placeholder: 'HOST',
    description: 'Address the metrics port listens on',
    defaultValue: '127.0.0.1',
    shownDefault: '127.0.0.1',
    read: (text) => text,
  }),
  // Events and webhooks (D40, D41).
  webhooks: _setting({
    flag: 'webhooks',
    placeholder: 'on/off',
    description: 'Deliver webhooks from the outbox and run the periodic event check in this process; off leaves both to other instances',
    defaultValue: true,
    shownDefault: 'on',
    read: _onOff,
  }),
  webhookRetrySchedule: _setting<readonly number[]>({
    flag: 'webhook-retry-schedule',
    placeholder: 'DELAYS',
    description:
      'Delays between the attempts of a webhook delivery, separated by commas, each with its unit (5s, 5m, 2h); after the last one the event is marked failed',
    defaultValue: DEFAULT_RETRY_SCHEDULE_SECONDS,
    shownDefault: DEFAULT_RETRY_SCHEDULE_SECONDS.map(_shownDelay).join(','),
    read: _retrySchedule,
  }),
  webhookTimeout: _setting({
    flag: 'webhook-timeout',
    placeholder: 'SECONDS',
    description: 'How long a webhook request may take before the attempt counts as failed and is retried',
    defaultValue: 15,
    shownDefault: '15',
    read: _positiveSeconds,
  }),
  webhookAllowPrivateAddresses: _setting({
    flag: 'webhook-allow-private-addresses',
    placeholder: 'on/off',
    description:
      'Let webhooks reach addresses that are not public (loopback, private and every other special-purpose address: a receiver on this host or network); off refuses them',
    defaultValue: false,
    shownDefault: 'off',
    read: _onOff,
  }),
  webhookConcurrency: _setting({
    flag: 'webhook-concurrency',
    placeholder: 'N',
    description: 'Webhook requests this process sends at the same time',
    defaultValue: 32,
    shownDefault: '32',
    read: _wholeNumber(1, 1000),
  }),
  webhookPerEndpoint: _setting({
    flag: 'webhook-per-endpoint',
    placeholder: 'N',
    description:
      'Webhook requests this process sends to one endpoint at the same time, so a slow or hanging receiver never delays the events of the others',
    defaultValue: 4,
    shownDefault: '4',
    read: _wholeNumber(1, 1000),
  }),
  eventCheckInterval: _setting({
    flag: 'event-check-interval',
    placeholder: 'SECONDS',
    description: 'How often the periodic check raises the events of calendar intervals, statuses reached and silent devices',
    defaultValue: 60,
    shownDefault: '60',
    read: _positiveSeconds,
  }),
  aempPolling: _setting({
    flag: 'aemp-polling',
    placeholder: 'on/off',
    description: 'Poll the AEMP sources that are due in this process; off leaves them to other instances',
    defaultValue: true,
    shownDefault: 'on',
    read: _onOff,
  }),
  aempPollInterval: _setting({
    flag: 'aemp-poll-interval',
    placeholder: 'SECONDS',
    description: 'How often this process looks for AEMP sources that are due (each source is polled at its own pace)',
    defaultValue: 30,
    shownDefault: '30',
    read: _positiveSeconds,
  }),
  aempAllowPrivateAddresses: _setting({
    flag: 'aemp-allow-private-addresses',
    placeholder: 'on/off',
    description:
      'Let AEMP polls reach addresses that are not public, and http on the loopback address (a test feed on this host or network); off refuses them',
    defaultValue: false,
    shownDefault: 'off',
    read: _onOff,
  }),
} as const;

/** The name of a setting: a key of {@link SERVER_SETTINGS}. */
export type ServerSettingName = keyof typeof SERVER_SETTINGS;

/** Every setting's value, read by {@link readServerSettings}. */
export type ServerSettings = {
  readonly [Name in ServerSettingName]: (typeof SERVER_SETTINGS)[Name] extends ServerSetting<infer Value> ? Value : never;
};

/**
 * The environment variable of a setting: `FLEET_HOURS_` and its flag in upper case, `-` as `_`
 * (`rate-limit-hours` → `FLEET_HOURS_RATE_LIMIT_HOURS`).
 */
export function settingEnvName(setting: { readonly flag: string }): string {
  return `FLEET_HOURS_${setting.flag.toUpperCase().replace(/-/g, '_')}`;
}

/**
 * Reads every setting: the flag when given, else its environment variable when set and not empty,
 * else the default (P29).
 *
 * @param options The parsed command-line options, by flag.
 * @param env The environment.
 * @returns Every setting's value.
 * @throws {UsageError} For a bad value, naming the flag or the variable it came from.
 */
export function readServerSettings(
  options: Readonly<Record<string, string | boolean | undefined>>,
  env: Readonly<Record<string, string | undefined>>,
): ServerSettings {
  const values: Record<string, unknown> = {};
  for (const name of Object.keys(SERVER_SETTINGS) as ServerSettingName[]) values[name] = readServerSetting(name, options, env);
  return values as ServerSettings;
}

/**
 * Reads one setting as {@link readServerSettings} does (the flag, else the variable, else the
 * default): for a command that takes a setting of `serve`, e.g. `maintenance --telemetry-retention-days`.
 *
 * @throws {UsageError} For a bad value, naming the flag or the variable it came from.
 */
export function readServerSetting<Name extends ServerSettingName>(
  name: Name,
  options: Readonly<Record<string, string | boolean | undefined>>,
  env: Readonly<Record<string, string | undefined>>,
  command = 'serve',
): ServerSettings[Name] {
  const setting = SERVER_SETTINGS[name] as ServerSetting<unknown>;
  const flagValue = options[setting.flag];
  const envName = settingEnvName(setting);
  const envValue = env[envName];
  let source: string;
  let text: string;
  if (typeof flagValue === 'string') [source, text] = [`--${setting.flag}`, flagValue];
  else if (envValue !== undefined && envValue.trim() !== '') [source, text] = [envName, envValue];
  else return setting.defaultValue as ServerSettings[Name];
  const trimmed = text.trim();
  try {
    if (trimmed === '') throw new Error('must not be empty');
    return setting.read(trimmed) as ServerSettings[Name];
  } catch (error) {
    throw new UsageError(`${source} ${(error as Error).message}, got "${text}"`, command);
  }
}
