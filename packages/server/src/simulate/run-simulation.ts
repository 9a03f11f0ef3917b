import { telemetryToSegments, type TelemetryPoint } from '@fleet-hours/core';
import { summarizeSegments } from '@fleet-hours/core/adapter';
import { mulberry32 } from '../demo/demo-fleet.js';
import { _mergeByTime } from './_merge-by-time.js';
import { planDeliveries, type Delivery } from './plan-deliveries.js';
import { nativeTelemetryLine, osmandParameters, storedPointOf, traccarForwardBody, type SimulatedDevice } from './telemetry-payloads.js';
import { simulateVehicle, type VehicleReport } from './vehicle-model.js';

/** The three ways telemetry comes in (`docs/ingestion.md`). */
export const INGEST_PROTOCOLS = ['native', 'traccar', 'osmand'] as const;

/** One of {@link INGEST_PROTOCOLS}. */
export type IngestProtocol = (typeof INGEST_PROTOCOLS)[number];

/** When the simulated reports happen. */
export type SimulationTiming =
  /** Timestamps are the clock's: reports are sent as they happen, paced by the clock. */
  | { readonly kind: 'realtime' }
  /** Historic reports in `[from, to)` (epoch seconds), sent as fast as allowed. */
  | { readonly kind: 'backfill'; readonly from: number; readonly to: number };

/** A `fetch` as the simulator calls it: a tiny Hono app's `app.request` fits too. */
export type SimulationFetch = (url: string, init: RequestInit) => Promise<Response>;

/** Options of {@link runSimulation}. */
export interface SimulationOptions {
  /** Base URL of the server, e.g. `http://127.0.0.1:8080`. */
  readonly url: string;
  /** The ingest token (`fhi_…`, D24). */
  readonly token: string;
  readonly protocol: IngestProtocol;
  /** One simulated vehicle per device. */
  readonly devices: readonly SimulatedDevice[];
  /** Seed of every random choice: vehicles, shuffling, resending. */
  readonly seed: number;
  readonly timing: SimulationTiming;
  /** Seconds between a vehicle's reports while its engine runs. */
  readonly intervalSeconds: number;
  /** Seconds between heartbeats while parked; default the vehicle model's. */
  readonly parkedIntervalSeconds?: number;
  /** Zone of the shifts' wall clock; default `UTC`. */
  readonly timeZone?: string;
  /** `'now'`: shifts start with the run; `'schedule'`: on the vehicles' usual hours. */
  readonly shiftStart: 'now' | 'schedule';
  /** Chance per report of a silence of minutes; default the vehicle model's. */
  readonly gapProbability?: number;
  /** Stop after this many reports (each sent at least once). */
  readonly count?: number;
  /** Stop after this many seconds (realtime: of reports; backfill: of sending). */
  readonly durationSeconds?: number;
  /** At most this many positions per second, all vehicles together. Default: no limit. */
  readonly rate?: number;
  /** Requests in flight at once. Default 4. */
  readonly concurrency?: number;
  /** Points per native batch. Default 500. */
  readonly batchSize?: number;
  /** Fraction of reports sent late, out of order. Default 0. */
  readonly shuffle?: number;
  /** Fraction of reports sent twice. Default 0. */
  readonly resend?: number;
  /** How OsmAnd positions are sent: query string (`GET`) or form body (`POST`). Default `GET`. */
  readonly osmandMethod?: 'GET' | 'POST';
  /** Retries of one request answered 429 or 503 with `Retry-After`. Default 10. */
  readonly maxRetries?: number;
  /** Default the global `fetch`. */
  readonly fetch?: SimulationFetch;
  /** The clock, epoch milliseconds. Default `Date.now`. */
  readonly now?: () => number;
  /** Waits `ms` or until `signal` aborts. Default a timer. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Stops the run: no new reports; requests in flight finish. */
  readonly signal?: AbortSignal;
  /** Called about every `progressEveryMs` (default 5000) with the figures so far. */
  readonly onProgress?: (progress: SimulationProgress) => void;
  readonly progressEveryMs?: number;
}

/** The figures of a run so far. */
export interface SimulationProgress {
  readonly elapsedSeconds: number;
  readonly sent: number;
  readonly accepted: number;
  readonly failedRequests: number;
}

/** What the server answered, by error code, with one of its messages. */
export interface SimulationError {
  /** HTTP status, or `null` when no answer came (connection refused, reset). */
  readonly status: number | null;
  readonly code: string;
  readonly message: string;
  readonly count: number;
}

/** What the server should now hold for one simulated device: its stored points, turned into engine time (D20, D22). */
export interface SimulatedDeviceResult {
  readonly name: string;
  readonly imei: string | null;
  readonly deviceId: number | null;
  /** Distinct seconds with a point the server confirmed (2xx). */
  readonly points: number;
  /** Engine time of those points, with the newest one running live (D22) up to the end of the run. */
  readonly engineSeconds: number;
  readonly movingSeconds: number;
  readonly idleSeconds: number;
  /** Epoch seconds of the first and the last confirmed point, or `null`. */
  readonly firstPoint: number | null;
  readonly lastPoint: number | null;
}

/** Everything a run did. */
export interface SimulationSummary {
  readonly protocol: IngestProtocol;
  readonly timing: SimulationTiming;
  /** Epoch seconds of the first report and the end of the reports' span. */
  readonly from: number;
  /** Reports made by the vehicle model (each sent at least once). */
  readonly generated: number;
  /** Positions sent, repeats included (a request that is retried counts once). */
  readonly sent: number;
  readonly late: number;
  readonly repeats: number;
  readonly requests: number;
  /** Summed from the 2xx answers. */
  readonly accepted: number;
  readonly duplicates: number;
  readonly ignored: number;
  /** Final answers by class; `network` is no answer at all. */
  readonly responses: { readonly ok: number; readonly clientErrors: number; readonly serverErrors: number; readonly network: number };
  /** Requests answered 429 or 503 and sent again after `Retry-After`. */
  readonly retries: number;
  readonly errors: readonly SimulationError[];
  /** Why the run ended before its end, or `null`. */
  readonly stoppedBecause: string | null;
  readonly elapsedSeconds: number;
  readonly positionsPerSecond: number;
  /** Per HTTP attempt, in milliseconds; `null` without requests. */
  readonly latencyMs: { readonly p50: number; readonly p99: number } | null;
  /** Per device, or `null` when the run sent more points than are kept to compute it. */
  readonly devices: readonly SimulatedDeviceResult[] | null;
}

/** Points kept to compute what the server should hold; beyond it the per-device figures are left out. */
const _MAX_KEPT_POINTS = 2_000_000;

/**
 * Drives simulated vehicles against a running Fleet Hours server through one ingestion protocol:
 * each vehicle's reports come from the seeded vehicle model, are delivered with the asked share
 * late and repeated, and are sent as native NDJSON batches, Traccar forwarded positions or OsmAnd
 * requests, at most `rate` per second and `concurrency` requests at a time. 429 and 503 answers
 * are retried after their `Retry-After`; a 401 (the token is refused) or a server that never
 * answered stops the run. Realtime runs stamp reports with the clock and send each when it
 * happens; backfill runs send a historic span as fast as allowed.
 *
 * @param options Server, token, protocol, devices, timing and the knobs above.
 * @returns The summary: counts, errors, throughput, latency and, per device, the engine time the
 *   confirmed points make (what `/meter` should have gained).
 * @throws {TypeError} When the protocol is Traccar or OsmAnd and a device has no IMEI.
 */
export async function runSimulation(options: SimulationOptions): Promise<SimulationSummary> {
  const fetchFn: SimulationFetch = options.fetch ?? ((url, init) => fetch(url, init));
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? _sleep;
  const concurrency = options.concurrency ?? 4;
  const batchSize = options.batchSize ?? 500;
  const maxRetries = options.maxRetries ?? 10;
  const progressEveryMs = options.progressEveryMs ?? 5000;
  const base = options.url.replace(/\/+$/, '');
  const { protocol, devices, timing } = options;

  if (protocol !== 'native') {
    const nameless = devices.find((device) => device.imei === null);
    if (nameless) throw new TypeError(`Device "${nameless.name}" has no IMEI: the ${protocol} protocol names devices by their tracker id`);
  }
  const started = now();
  const from = timing.kind === 'realtime' ? Math.floor(started / 1000) : timing.from;
  const until =
    timing.kind === 'realtime' ? (options.durationSeconds === undefined ? undefined : from + Math.ceil(options.durationSeconds)) : timing.to;
  const deadline = timing.kind === 'backfill' && options.durationSeconds !== undefined ? started + options.durationSeconds * 1000 : Infinity;

  const streams = devices.map((_, vehicle) =>
    simulateVehicle({
      seed: options.seed,
      vehicle,
      from,
      ...(until === undefined ? {} : { until }),
      intervalSeconds: options.intervalSeconds,
      ...(options.parkedIntervalSeconds === undefined ? {} : { parkedIntervalSeconds: options.parkedIntervalSeconds }),
      ...(options.timeZone === undefined ? {} : { timeZone: options.timeZone }),
      ...(options.gapProbability === undefined ? {} : { gapProbability: options.gapProbability }),
      shiftStart: options.shiftStart,
    }),
  );

  let stoppedBecause: string | null = null;
  let generated = 0;
  const stopped = () => stoppedBecause !== null || options.signal?.aborted === true;
  function* reports(): Generator<VehicleReport, void, undefined> {
    for (const report of _mergeByTime(streams)) {
      if (stopped() || now() >= deadline || (options.count !== undefined && generated >= options.count)) return;
      generated += 1;
      yield report;
    }
  }
  const deliveries = planDeliveries(reports(), {
    shuffle: options.shuffle ?? 0,
    resend: options.resend ?? 0,
    maxDelay: Math.max(4, devices.length * 10),
    random: mulberry32((options.seed ^ 0x5eed5eed) >>> 0),
  });

  const stats = { sent: 0, late: 0, repeats: 0, requests: 0, accepted: 0, duplicates: 0, ignored: 0, retries: 0 };
  const responses = { ok: 0, clientErrors: 0, serverErrors: 0, network: 0 };
  const errors = new Map<string, { status: number | null; code: string; message: string; count: number }>();
  const latencies: number[] = [];
  const confirmed = devices.map(() => new Map<number, TelemetryPoint>());
  let keptPoints = 0;
  let positionId = 1;
  let reserved = 0;
  let lastProgress = started;

  const recordError = (status: number | null, code: string, message: string) => {
    const key = `${status} ${code}`;
    const entry = errors.get(key);
    if (entry) entry.count += 1;
    else errors.set(key, { status, code, message, count: 1 });
  };

  const confirm = (batch: readonly Delivery<VehicleReport>[]) => {
    for (const { item } of batch) {
      if (keptPoints > _MAX_KEPT_POINTS) return;
      const stored = confirmed[item.vehicle]!;
      const point = storedPointOf(item, protocol);
      const previous = stored.get(point.time);
      if (!previous) keptPoints += 1;
      // D21: points of one second merge (ignition on if either is, the higher speed).
      stored.set(point.time, previous ? { time: point.time, ignition: previous.ignition || point.ignition, speedKmh: Math.max(previous.speedKmh, point.speedKmh) } : point);
    }
  };

  const request = (batch: readonly Delivery<VehicleReport>[]): { url: string; init: RequestInit } => {
    const authorization = { Authorization: `Bearer ${options.token}` };
    if (protocol === 'native') {
      const body = `${batch.map(({ item }) => nativeTelemetryLine(item, devices[item.vehicle]!)).join('\n')}\n`;
      return { url: `${base}/ingest/v1/telemetry`, init: { method: 'POST', headers: { ...authorization, 'Content-Type': 'application/x-ndjson' }, body } };
    }
    const report = batch[0]!.item;
    const device = devices[report.vehicle]!;
    if (protocol === 'traccar') {
      const body = JSON.stringify(traccarForwardBody(report, device, { positionId: positionId++, deviceId: report.vehicle + 1 }));
      return { url: `${base}/ingest/traccar`, init: { method: 'POST', headers: { ...authorization, 'Content-Type': 'application/json' }, body } };
    }
    const parameters = osmandParameters(report, device);
    const path = `${base}/ingest/osmand/${encodeURIComponent(options.token)}`;
    if (options.osmandMethod === 'POST') {
      return { url: path, init: { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: parameters.toString() } };
    }
    return { url: `${path}?${parameters.toString()}`, init: { method: 'GET' } };
  };

  const send = async (batch: readonly Delivery<VehicleReport>[]): Promise<void> => {
    const { url, init } = request(batch);
    for (let attempt = 0; ; attempt += 1) {
      const sentAt = performance.now();
      let response: Response;
      let text: string;
      try {
        response = await fetchFn(url, init);
        text = await response.text();
      } catch (error) {
        latencies.push(performance.now() - sentAt);
        responses.network += 1;
        const message = error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
        recordError(null, 'network_error', message);
        if (responses.ok === 0) stoppedBecause ??= `Cannot reach ${base}: ${message}`;
        return;
      }
      latencies.push(performance.now() - sentAt);
      const { status } = response;
      const retryAfter = response.headers.get('retry-after');
      if ((status === 429 || (status === 503 && retryAfter !== null)) && attempt < maxRetries && !stopped()) {
        stats.retries += 1;
        await sleep(_retryAfterMs(retryAfter, now()), options.signal);
        continue;
      }
      if (status >= 200 && status < 300) {
        responses.ok += 1;
        const body = _json(text);
        const count = (name: string) => (typeof body?.[name] === 'number' ? (body[name] as number) : 0);
        stats.accepted += count('accepted');
        stats.duplicates += count('duplicates');
        stats.ignored += count('ignored');
        if (count('ignored') === 0) confirm(batch);
        return;
      }
      if (status >= 500) responses.serverErrors += 1;
      else responses.clientErrors += 1;
      const error = _json(text)?.error as { code?: unknown; message?: unknown } | undefined;
      const code = typeof error?.code === 'string' ? error.code : `http_${status}`;
      const message = typeof error?.message === 'string' ? error.message : text.slice(0, 200);
      recordError(status, code, message);
      if (status === 401) stoppedBecause ??= `The server refused the ingest token (401 ${code}): ${message}`;
      return;
    }
  };

  const inFlight = new Set<Promise<void>>();
  const dispatch = async (batch: Delivery<VehicleReport>[]) => {
    if (batch.length === 0 || stoppedBecause !== null) return;
    while (inFlight.size >= concurrency) await Promise.race(inFlight);
    if (options.rate !== undefined) {
      const at = started + (reserved / options.rate) * 1000;
      if (at > now()) await sleep(at - now(), options.signal);
      reserved += batch.length;
    }
    // An answer that came in meanwhile may have stopped the run (a refused token).
    if (stoppedBecause !== null) return;
    stats.requests += 1;
    stats.sent += batch.length;
    for (const delivery of batch) {
      if (delivery.late) stats.late += 1;
      if (delivery.repeat) stats.repeats += 1;
    }
    const sending: Promise<void> = send(batch).finally(() => inFlight.delete(sending));
    inFlight.add(sending);
    if (options.onProgress && now() - lastProgress >= progressEveryMs) {
      lastProgress = now();
      options.onProgress({
        elapsedSeconds: (lastProgress - started) / 1000,
        sent: stats.sent,
        accepted: stats.accepted,
        failedRequests: responses.clientErrors + responses.serverErrors + responses.network,
      });
    }
  };

  let batch: Delivery<VehicleReport>[] = [];
  for (const delivery of deliveries) {
    if (stoppedBecause !== null) break;
    if (timing.kind === 'realtime') {
      const dueMs = delivery.item.time * 1000;
      if (dueMs > now()) {
        await dispatch(batch);
        batch = [];
        await sleep(dueMs - now(), options.signal);
        // Stopped while waiting: this report has not happened yet, so it is not sent.
        if (options.signal?.aborted) break;
      }
    }
    batch.push(delivery);
    if (protocol !== 'native' || batch.length >= batchSize) {
      await dispatch(batch);
      batch = [];
    }
  }
  await dispatch(batch);
  await Promise.all(inFlight);
  if (stoppedBecause === null && options.signal?.aborted) stoppedBecause = 'Interrupted';

  const ended = now();
  const elapsedSeconds = (ended - started) / 1000;
  return {
    protocol,
    timing,
    from,
    generated,
    ...stats,
    responses,
    errors: [...errors.values()],
    stoppedBecause,
    elapsedSeconds,
    positionsPerSecond: elapsedSeconds > 0 ? stats.sent / elapsedSeconds : 0,
    latencyMs: latencies.length === 0 ? null : { p50: _percentile(latencies, 0.5), p99: _percentile(latencies, 0.99) },
    devices:
      keptPoints > _MAX_KEPT_POINTS
        ? null
        : devices.map((device, vehicle) => _deviceResult(device, [...confirmed[vehicle]!.values()], Math.floor(ended / 1000))),
  };
}

function _deviceResult(device: SimulatedDevice, points: readonly TelemetryPoint[], nowSeconds: number): SimulatedDeviceResult {
  const segments = telemetryToSegments(points);
  const { movingSeconds, idleSeconds } = summarizeSegments(segments, nowSeconds);
  let firstPoint: number | null = null;
  let lastPoint: number | null = null;
  for (const point of points) {
    if (firstPoint === null || point.time < firstPoint) firstPoint = point.time;
    if (lastPoint === null || point.time > lastPoint) lastPoint = point.time;
  }
  return {
    name: device.name,
    imei: device.imei,
    deviceId: device.deviceId,
    points: points.length,
    engineSeconds: movingSeconds + idleSeconds,
    movingSeconds,
    idleSeconds,
    firstPoint,
    lastPoint,
  };
}

/** Nearest-rank percentile. */
function _percentile(values: readonly number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil(fraction * sorted.length));
  return Math.round(sorted[rank - 1]! * 100) / 100;
}

/** `Retry-After` in seconds or as an HTTP date; 1 s when absent or unreadable, at most 60 s. */
function _retryAfterMs(header: string | null, nowMs: number): number {
  if (header === null) return 1000;
  const seconds = Number(header);
  const ms = /^\s*\d+\s*$/.test(header) ? seconds * 1000 : Date.parse(header) - nowMs;
  return Number.isFinite(ms) ? Math.min(60_000, Math.max(0, ms)) : 1000;
}

function _json(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function _sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted || ms <= 0) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
