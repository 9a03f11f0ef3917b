import {
  formatInstant,
  givenInstantRangeMessage,
  isGivenInstantInRange,
  parseInstant,
  parseLocalDate,
  startOfLocalDay,
} from '@fleet-hours/core';
import { EXIT_CODES, UsageError } from '../cli/cli-errors.js';
import type { CliIo } from '../cli/cli-io.js';
import { formatCount, formatTable } from '../cli/format-table.js';
import { readId, readNumber, readText, readTimeZone } from '../cli/option-values.js';
import type { GlobalFlags } from '../cli/parse-cli-args.js';
import {
  INGEST_PROTOCOLS,
  runSimulation,
  type IngestProtocol,
  type SimulationOptions,
  type SimulationSummary,
  type SimulationTiming,
} from '../simulate/run-simulation.js';
import type { SimulatedDevice } from '../simulate/telemetry-payloads.js';

/** The tracker ids `simulate` makes up without `--imeis`: this prefix, then the vehicle's number, 15 digits in all. */
export const DEFAULT_IMEI_PREFIX = '35630704250';

type Options = Readonly<Record<string, string | boolean | undefined>>;

/**
 * `simulate`: drives simulated vehicles against a running server through one ingestion protocol
 * and prints what happened. It talks HTTP only, so it takes no database options. Runs until its
 * `--duration`, `--count` or backfill span is done, or until Ctrl+C (it then finishes the requests
 * in flight and prints the summary). Exit code 1 when any request failed or the run was stopped
 * by the server (a refused token, no server at the URL).
 */
export async function simulateCommand(input: {
  readonly io: CliIo;
  readonly global: GlobalFlags;
  readonly options: Options;
}): Promise<number> {
  const { io, global } = input;
  if (global.databaseUrl !== undefined || global.dataDir !== undefined) {
    throw new UsageError('simulate talks to a server over HTTP: --database-url and --data-dir are not used (give --url)', 'simulate');
  }
  const settings = readSimulateOptions(input.options, io);
  const stop = new AbortController();
  void io.waitForStop().then(() => stop.abort());
  const say = (text: string) => io.stderr.write(text);

  const { timing } = settings;
  say(
    `Simulating ${settings.devices.length} vehicle${settings.devices.length === 1 ? '' : 's'} over ${settings.protocol} to ${settings.url}, ` +
      (timing.kind === 'realtime'
        ? `live, a report every ${settings.intervalSeconds} s while the engine runs`
        : `backfilling ${formatInstant(timing.from, 'UTC')} to ${formatInstant(timing.to, 'UTC')}`) +
      `${settings.durationSeconds === undefined && settings.count === undefined && timing.kind === 'realtime' ? ' until Ctrl+C' : ''}…\n`,
  );
  const summary = await runSimulation({
    ...settings,
    signal: stop.signal,
    now: io.now,
    ...(io.stderrIsTTY
      ? {
          onProgress: (progress) =>
            say(
              `  ${progress.elapsedSeconds.toFixed(0)} s: ${formatCount(progress.sent)} sent, ${formatCount(progress.accepted)} accepted, ${progress.failedRequests} failed requests\n`,
            ),
        }
      : {}),
  });
  io.stdout.write(global.json ? `${JSON.stringify(summaryJson(summary, settings.url))}\n` : formatSummary(summary, settings.url));
  const failed = summary.responses.clientErrors + summary.responses.serverErrors + summary.responses.network;
  return failed > 0 || (summary.stoppedBecause !== null && summary.stoppedBecause !== 'Interrupted') ? EXIT_CODES.failure : EXIT_CODES.ok;
}

/**
 * Reads the options of `simulate` into the options of `runSimulation` (without the clock and the
 * stop signal).
 *
 * @throws {UsageError} For a bad value or a combination that cannot work.
 */
export function readSimulateOptions(options: Options, io: Pick<CliIo, 'env' | 'now'>): SimulationOptions {
  const text = (name: string) => (typeof options[name] === 'string' ? (options[name] as string) : undefined);
  const whole = (name: string, { positive = true } = {}) => {
    const value = text(name);
    return value === undefined ? undefined : readNumber(value, `--${name}`, { positive, integer: true });
  };
  const fraction = (name: string) => {
    const value = text(name);
    if (value === undefined) return 0;
    const number = readNumber(value, `--${name}`);
    if (number > 1) throw new UsageError(`--${name} must be a fraction from 0 to 1, got "${value}"`, 'simulate');
    return number;
  };

  const protocol = (text('protocol') ?? 'native').trim().toLowerCase() as IngestProtocol;
  if (!INGEST_PROTOCOLS.includes(protocol))
    throw new UsageError(`Unknown protocol "${text('protocol')}": use ${INGEST_PROTOCOLS.join(', ')}`, 'simulate');
  const token = readText(text('token') ?? io.env.FLEET_HOURS_INGEST_TOKEN ?? '', '--token (or FLEET_HOURS_INGEST_TOKEN)');
  const url = readUrl(text('url') ?? 'http://127.0.0.1:8080');
  const timeZone = text('timezone') === undefined ? 'UTC' : readTimeZone(text('timezone')!);
  const devices = readDevices(options, protocol, whole('vehicles'));

  const backfill = text('backfill');
  if (backfill !== undefined && options.realtime === true) throw new UsageError('Give --realtime or --backfill, not both', 'simulate');
  const nowSeconds = Math.floor(io.now() / 1000);
  const timing: SimulationTiming = backfill === undefined ? { kind: 'realtime' } : readBackfill(backfill, timeZone, nowSeconds);

  const rateText = text('rate');
  const rate = rateText === undefined ? undefined : readNumber(rateText, '--rate', { positive: true });
  // Live, a vehicle reports at most once a second (D21): without --interval, --rate sets it.
  const intervalSeconds =
    whole('interval') ?? (rate !== undefined && timing.kind === 'realtime' ? Math.max(1, Math.ceil(devices.length / rate)) : 10);
  const durationText = text('duration');
  const durationSeconds = durationText === undefined ? undefined : readNumber(durationText, '--duration', { positive: true });
  const count = whole('count');
  const shiftStart = (text('shift-start') ?? (timing.kind === 'realtime' ? 'now' : 'schedule')).trim();
  if (shiftStart !== 'now' && shiftStart !== 'schedule')
    throw new UsageError(`--shift-start must be "now" or "schedule", got "${shiftStart}"`, 'simulate');
  const method = (text('method') ?? 'GET').trim().toUpperCase();
  if (method !== 'GET' && method !== 'POST') throw new UsageError(`--method must be GET or POST, got "${text('method')}"`, 'simulate');
  if (text('method') !== undefined && protocol !== 'osmand') throw new UsageError('--method is for --protocol osmand only', 'simulate');
  const batchSize = whole('batch-size');
  if (batchSize !== undefined && batchSize > 10_000)
    throw new UsageError(`--batch-size must be at most 10000 (the server's limit per batch), got "${text('batch-size')}"`, 'simulate');
  const seed = whole('seed', { positive: false });
  const parkedIntervalSeconds = whole('parked-interval');
  const concurrency = whole('concurrency');

  return {
    url,
    token,
    protocol,
    devices,
    seed: seed ?? 1,
    timing,
    intervalSeconds,
    timeZone,
    shiftStart,
    shuffle: fraction('shuffle'),
    resend: fraction('resend'),
    osmandMethod: method,
    ...(parkedIntervalSeconds === undefined ? {} : { parkedIntervalSeconds }),
    ...(rate === undefined ? {} : { rate }),
    ...(durationSeconds === undefined ? {} : { durationSeconds }),
    ...(count === undefined ? {} : { count }),
    ...(concurrency === undefined ? {} : { concurrency }),
    ...(batchSize === undefined ? {} : { batchSize }),
  };
}

function readUrl(text: string): string {
  try {
    const url = new URL(text.trim());
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError('not http');
    return url.toString().replace(/\/+$/, '');
  } catch {
    throw new UsageError(`--url must be an http:// or https:// URL, got "${text}"`, 'simulate');
  }
}

function readDevices(options: Options, protocol: IngestProtocol, vehicles: number | undefined): SimulatedDevice[] {
  const list = (name: string) =>
    typeof options[name] === 'string'
      ? (options[name] as string)
          .split(',')
          .map((entry) => entry.trim())
          .filter((entry) => entry !== '')
      : undefined;
  const imeis = list('imeis');
  const deviceIds = list('device-ids');
  const prefix = typeof options['imei-prefix'] === 'string' ? options['imei-prefix'].trim() : undefined;
  const given = [imeis && '--imeis', deviceIds && '--device-ids', prefix !== undefined && '--imei-prefix'].filter(Boolean);
  if (given.length > 1) throw new UsageError(`Give one of --imeis, --device-ids and --imei-prefix, not ${given.join(' and ')}`, 'simulate');
  const checkCount = (count: number, what: string) => {
    if (vehicles !== undefined && vehicles !== count)
      throw new UsageError(`--vehicles ${vehicles} does not match the ${count} ${what} given`, 'simulate');
  };

  if (deviceIds) {
    if (protocol !== 'native')
      throw new UsageError(`--device-ids works with --protocol native only: ${protocol} names devices by IMEI (give --imeis)`, 'simulate');
    checkCount(deviceIds.length, 'device ids');
    return deviceIds.map((id) => ({ name: `Simulated ${id}`, imei: null, deviceId: readId(id, '--device-ids') }));
  }
  if (imeis) {
    checkCount(imeis.length, 'IMEIs');
    return imeis.map((imei, index) => ({ name: `Simulated ${index + 1}`, imei, deviceId: null }));
  }
  const stem = prefix ?? DEFAULT_IMEI_PREFIX;
  if (!/^\d{1,14}$/.test(stem)) throw new UsageError(`--imei-prefix must be 1 to 14 digits, got "${stem}"`, 'simulate');
  const count = vehicles ?? 3;
  const digits = Math.max(15 - stem.length, String(count).length);
  return Array.from({ length: count }, (_, index) => ({
    name: `Simulated ${index + 1}`,
    imei: `${stem}${String(index + 1).padStart(digits, '0')}`,
    deviceId: null,
  }));
}

/** `FROM..TO`: dates (local days of `timeZone`, both included) or ISO instants with an offset; TO is capped at now. */
/** What `--backfill` takes, for its messages and its help line alike. */
const BACKFILL_FORMS = 'dates YYYY-MM-DD or YYYY/MM/DD (local days of --timezone, both included) or ISO 8601 instants with an offset';

function readBackfill(text: string, timeZone: string, nowSeconds: number): SimulationTiming {
  const parts = text.split('..');
  const example = 'e.g. 2026-11-16..2026-11-20 or 2026-11-16T06:00:00Z..2026-11-16T18:00:00Z';
  if (parts.length !== 2) throw new UsageError(`--backfill must be FROM..TO, ${BACKFILL_FORMS}, ${example}; got "${text}"`, 'simulate');
  const edge = (part: string, end: boolean) => {
    const trimmed = part.trim();
    if (/^\d{4}([-/])\d{2}\1\d{2}$/.test(trimmed)) {
      try {
        const date = parseLocalDate('--backfill', trimmed.replaceAll('/', '-'));
        return startOfLocalDay(end ? date.add({ days: 1 }) : date, timeZone);
      } catch (error) {
        throw new UsageError(`--backfill: ${(error as Error).message}`, 'simulate');
      }
    }
    try {
      const seconds = parseInstant(trimmed);
      // D50: the one range of every instant a person gives.
      if (!isGivenInstantInRange(seconds)) throw new UsageError(givenInstantRangeMessage('--backfill', `"${trimmed}"`), 'simulate');
      return seconds;
    } catch (error) {
      if (error instanceof UsageError) throw error;
      throw new UsageError(
        `--backfill: "${trimmed}" is neither a date nor an instant: FROM and TO are ${BACKFILL_FORMS}, ${example}`,
        'simulate',
      );
    }
  };
  const from = edge(parts[0]!, false);
  const to = Math.min(edge(parts[1]!, true), nowSeconds);
  if (from >= to) throw new UsageError(`--backfill must span some time before now, got "${text}"`, 'simulate');
  return { kind: 'backfill', from, to };
}

function summaryJson(summary: SimulationSummary, url: string): Record<string, unknown> {
  const iso = (seconds: number | null) => (seconds === null ? null : formatInstant(seconds, 'UTC'));
  return {
    url,
    protocol: summary.protocol,
    mode: summary.timing.kind,
    from: iso(summary.from),
    ...(summary.timing.kind === 'backfill' ? { to: iso(summary.timing.to) } : {}),
    generated: summary.generated,
    sent: summary.sent,
    late: summary.late,
    repeats: summary.repeats,
    requests: summary.requests,
    accepted: summary.accepted,
    duplicates: summary.duplicates,
    ignored: summary.ignored,
    responses: {
      '2xx': summary.responses.ok,
      '4xx': summary.responses.clientErrors,
      '5xx': summary.responses.serverErrors,
      network: summary.responses.network,
    },
    retries: summary.retries,
    errors: summary.errors,
    stopped_because: summary.stoppedBecause,
    elapsed_seconds: Math.round(summary.elapsedSeconds * 1000) / 1000,
    positions_per_second: Math.round(summary.positionsPerSecond * 10) / 10,
    latency_ms: summary.latencyMs,
    devices:
      summary.devices?.map((device) => ({
        name: device.name,
        imei: device.imei,
        device_id: device.deviceId,
        points: device.points,
        engine_seconds: device.engineSeconds,
        moving_seconds: device.movingSeconds,
        idle_seconds: device.idleSeconds,
        first_point: iso(device.firstPoint),
        last_point: iso(device.lastPoint),
      })) ?? null,
  };
}

function formatSummary(summary: SimulationSummary, url: string): string {
  const { responses } = summary;
  const lines = [
    '',
    `Simulation over ${summary.protocol} to ${url}: ${summary.timing.kind}, ${summary.elapsedSeconds.toFixed(1)} s`,
    '',
    `  Sent        ${formatCount(summary.sent)} positions in ${formatCount(summary.requests)} requests (${formatCount(summary.late)} late, ${formatCount(summary.repeats)} repeated), ${summary.positionsPerSecond.toFixed(1)} positions/s`,
    `  Accepted    ${formatCount(summary.accepted)}, duplicates ${formatCount(summary.duplicates)}${summary.ignored > 0 ? `, ignored ${formatCount(summary.ignored)}` : ''}`,
    `  Answers     ${formatCount(responses.ok)} 2xx, ${formatCount(responses.clientErrors)} 4xx, ${formatCount(responses.serverErrors)} 5xx, ${formatCount(responses.network)} without an answer; ${formatCount(summary.retries)} retried after 429/503`,
    `  Latency     ${summary.latencyMs === null ? 'no requests' : `p50 ${summary.latencyMs.p50} ms, p99 ${summary.latencyMs.p99} ms`}`,
  ];
  for (const error of summary.errors)
    lines.push(`  Error       ${error.count} × ${error.status ?? 'no answer'} ${error.code}: ${error.message}`);
  if (summary.stoppedBecause !== null) lines.push(`  Stopped     ${summary.stoppedBecause}`);
  if (summary.devices !== null) {
    const hours = (seconds: number) => `${(seconds / 3600).toFixed(2)} h`;
    lines.push('', 'What the server should now hold from this run (engine time of the confirmed points):', '');
    lines.push(
      formatTable(
        [
          { header: 'VEHICLE' },
          { header: 'IMEI' },
          { header: 'DEVICE' },
          { header: 'POINTS', align: 'right' },
          { header: 'ENGINE', align: 'right' },
          { header: 'MOVING', align: 'right' },
          { header: 'IDLE', align: 'right' },
        ],
        summary.devices.map((device) => [
          device.name,
          device.imei,
          device.deviceId,
          formatCount(device.points),
          hours(device.engineSeconds),
          hours(device.movingSeconds),
          hours(device.idleSeconds),
        ]),
      ).trimEnd(),
    );
  }
  return `${lines.join('\n')}\n`;
}
