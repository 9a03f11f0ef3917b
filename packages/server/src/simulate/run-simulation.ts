import { telemetryToSegments, type TelemetryPoint } from '@fleet-hours/core';
import { summarizeSegments } from '@fleet-hours/core/adapter';
import { mulberry32 } from './mulberry32.js';
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
  if (options.protocol !== 'native') {
    const nameless = options.devices.find((device) => device.imei === null);
    if (nameless)
      throw new TypeError(`Device "${nameless.name}" has no IMEI: the ${options.protocol} protocol names devices by their tracker id`);
  }
  const run = _startRun(options);
  const span = _span(options, run.started);
  await _deliverAll(run, _plannedDeliveries(run, span));
  if (run.stoppedBecause === null && options.signal?.aborted) run.stoppedBecause = 'Interrupted';
  return _summary(run, span.from);
}

/** What a run counts and keeps while it goes, shared by its parts. */
interface _Run {
  readonly options: SimulationOptions;
  readonly fetch: SimulationFetch;
  readonly now: () => number;
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** The server's URL without a trailing slash. */
  readonly base: string;
  /** Epoch milliseconds. */
  readonly started: number;
  readonly stats: {
    sent: number;
    late: number;
    repeats: number;
    requests: number;
    accepted: number;
    duplicates: number;
    ignored: number;
    retries: number;
  };
  readonly responses: { ok: number; clientErrors: number; serverErrors: number; network: number };
  readonly errors: Map<string, { status: number | null; code: string; message: string; count: number }>;
  readonly latencies: number[];
  /** Per vehicle: the points the server confirmed, by second. */
  readonly confirmed: Map<number, TelemetryPoint>[];
  readonly inFlight: Set<Promise<void>>;
  keptPoints: number;
  /** The next Traccar position id. */
  positionId: number;
  /** Positions given a slot of the --rate budget so far. */
  reserved: number;
  lastProgress: number;
  generated: number;
  stoppedBecause: string | null;
}

function _startRun(options: SimulationOptions): _Run {
  const now = options.now ?? Date.now;
  const started = now();
  return {
    options,
    fetch: options.fetch ?? ((url, init) => fetch(url, init)),
    now,
    sleep: options.sleep ?? _sleep,
    base: options.url.replace(/\/+$/, ''),
    started,
    stats: { sent: 0, late: 0, repeats: 0, requests: 0, accepted: 0, duplicates: 0, ignored: 0, retries: 0 },
    responses: { ok: 0, clientErrors: 0, serverErrors: 0, network: 0 },
    errors: new Map(),
    latencies: [],
    confirmed: options.devices.map(() => new Map<number, TelemetryPoint>()),
    inFlight: new Set(),
    keptPoints: 0,
    positionId: 1,
    reserved: 0,
    lastProgress: started,
    generated: 0,
    stoppedBecause: null,
  };
}

const _stopped = (run: _Run) => run.stoppedBecause !== null || run.options.signal?.aborted === true;

/** The reports' span in epoch seconds (`until` open for a realtime run without a duration) and the sending deadline in ms. */
function _span(
  options: SimulationOptions,
  started: number,
): { readonly from: number; readonly until: number | undefined; readonly deadline: number } {
  const { timing } = options;
  const from = timing.kind === 'realtime' ? Math.floor(started / 1000) : timing.from;
  const until =
    timing.kind === 'realtime'
      ? options.durationSeconds === undefined
        ? undefined
        : from + Math.ceil(options.durationSeconds)
      : timing.to;
  const deadline =
    timing.kind === 'backfill' && options.durationSeconds !== undefined ? started + options.durationSeconds * 1000 : Infinity;
  return { from, until, deadline };
}

/** Every vehicle's reports in time order, up to the count and deadline, as deliveries: some late, some twice. */
function _plannedDeliveries(run: _Run, span: ReturnType<typeof _span>): Iterable<Delivery<VehicleReport>> {
  const { options } = run;
  const streams = options.devices.map((_, vehicle) =>
    simulateVehicle({
      seed: options.seed,
      vehicle,
      from: span.from,
      ...(span.until === undefined ? {} : { until: span.until }),
      intervalSeconds: options.intervalSeconds,
      ...(options.parkedIntervalSeconds === undefined ? {} : { parkedIntervalSeconds: options.parkedIntervalSeconds }),
      ...(options.timeZone === undefined ? {} : { timeZone: options.timeZone }),
      ...(options.gapProbability === undefined ? {} : { gapProbability: options.gapProbability }),
      shiftStart: options.shiftStart,
    }),
  );
  function* reports(): Generator<VehicleReport, void, undefined> {
    for (const report of _mergeByTime(streams)) {
      if (_stopped(run) || run.now() >= span.deadline || (options.count !== undefined && run.generated >= options.count)) return;
      run.generated += 1;
      yield report;
    }
  }
  return planDeliveries(reports(), {
    shuffle: options.shuffle ?? 0,
    resend: options.resend ?? 0,
    maxDelay: Math.max(4, options.devices.length * 10),
    random: mulberry32((options.seed ^ 0x5eed5eed) >>> 0),
  });
}

/** Sends the deliveries in batches (one position per request but for native), a realtime one when it happens, and waits for every answer. */
async function _deliverAll(run: _Run, deliveries: Iterable<Delivery<VehicleReport>>): Promise<void> {
  const { options } = run;
  const batchSize = options.batchSize ?? 500;
  let batch: Delivery<VehicleReport>[] = [];
  for (const delivery of deliveries) {
    if (run.stoppedBecause !== null) break;
    if (options.timing.kind === 'realtime') {
      const dueMs = delivery.item.time * 1000;
      if (dueMs > run.now()) {
        await _dispatch(run, batch);
        batch = [];
        await run.sleep(dueMs - run.now(), options.signal);
        // Stopped while waiting: this report has not happened yet, so it is not sent.
        if (options.signal?.aborted) break;
      }
    }
    batch.push(delivery);
    if (options.protocol !== 'native' || batch.length >= batchSize) {
      await _dispatch(run, batch);
      batch = [];
    }
  }
  await _dispatch(run, batch);
  await Promise.all(run.inFlight);
}

/** Starts sending a batch once a request slot and the --rate budget allow, and reports progress now and then. */
async function _dispatch(run: _Run, batch: readonly Delivery<VehicleReport>[]): Promise<void> {
  const { options, stats, inFlight } = run;
  if (batch.length === 0 || run.stoppedBecause !== null) return;
  while (inFlight.size >= (options.concurrency ?? 4)) await Promise.race(inFlight);
  if (options.rate !== undefined) {
    const at = run.started + (run.reserved / options.rate) * 1000;
    if (at > run.now()) await run.sleep(at - run.now(), options.signal);
    run.reserved += batch.length;
  }
  // An answer that came in meanwhile may have stopped the run (a refused token).
  if (run.stoppedBecause !== null) return;
  stats.requests += 1;
  stats.sent += batch.length;
  for (const delivery of batch) {
    if (delivery.late) stats.late += 1;
    if (delivery.repeat) stats.repeats += 1;
  }
  const sending: Promise<void> = _send(run, batch).finally(() => inFlight.delete(sending));
  inFlight.add(sending);
  if (options.onProgress && run.now() - run.lastProgress >= (options.progressEveryMs ?? 5000)) {
    run.lastProgress = run.now();
    options.onProgress({
      elapsedSeconds: (run.lastProgress - run.started) / 1000,
      sent: stats.sent,
      accepted: stats.accepted,
      failedRequests: run.responses.clientErrors + run.responses.serverErrors + run.responses.network,
    });
  }
}

/** The request of a batch in the run's protocol. */
function _request(run: _Run, batch: readonly Delivery<VehicleReport>[]): { url: string; init: RequestInit } {
  const { options, base } = run;
  const { protocol, devices } = options;
  const authorization = { Authorization: `Bearer ${options.token}` };
  if (protocol === 'native') {
    const body = `${batch.map(({ item }) => nativeTelemetryLine(item, devices[item.vehicle]!)).join('\n')}\n`;
    return {
      url: `${base}/ingest/v1/telemetry`,
      init: { method: 'POST', headers: { ...authorization, 'Content-Type': 'application/x-ndjson' }, body },
    };
  }
  const report = batch[0]!.item;
  const device = devices[report.vehicle]!;
  if (protocol === 'traccar') {
    const body = JSON.stringify(traccarForwardBody(report, device, { positionId: run.positionId++, deviceId: report.vehicle + 1 }));
    return {
      url: `${base}/ingest/traccar`,
      init: { method: 'POST', headers: { ...authorization, 'Content-Type': 'application/json' }, body },
    };
  }
  const parameters = osmandParameters(report, device);
  const path = `${base}/ingest/osmand/${encodeURIComponent(options.token)}`;
  if (options.osmandMethod === 'POST') {
    return {
      url: path,
      init: { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: parameters.toString() },
    };
  }
  return { url: `${path}?${parameters.toString()}`, init: { method: 'GET' } };
}

/** Sends one request, again after `Retry-After` while the server answers 429 or 503 with it, and records the final answer. */
async function _send(run: _Run, batch: readonly Delivery<VehicleReport>[]): Promise<void> {
  const { url, init } = _request(run, batch);
  const maxRetries = run.options.maxRetries ?? 10;
  for (let attempt = 0; ; attempt += 1) {
    const sentAt = performance.now();
    let response: Response;
    let text: string;
    try {
      response = await run.fetch(url, init);
      text = await response.text();
    } catch (error) {
      run.latencies.push(performance.now() - sentAt);
      _recordNoAnswer(run, error);
      return;
    }
    run.latencies.push(performance.now() - sentAt);
    const { status } = response;
    const retryAfter = response.headers.get('retry-after');
    if ((status === 429 || (status === 503 && retryAfter !== null)) && attempt < maxRetries && !_stopped(run)) {
      run.stats.retries += 1;
      await run.sleep(_retryAfterMs(retryAfter, run.now()), run.options.signal);
      continue;
    }
    if (status >= 200 && status < 300) _recordAccepted(run, batch, text);
    else _recordRefused(run, status, text);
    return;
  }
}

function _recordNoAnswer(run: _Run, error: unknown): void {
  run.responses.network += 1;
  const message = error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
  _recordError(run, null, 'network_error', message);
  if (run.responses.ok === 0) run.stoppedBecause ??= `Cannot reach ${run.base}: ${message}`;
}

function _recordAccepted(run: _Run, batch: readonly Delivery<VehicleReport>[], text: string): void {
  run.responses.ok += 1;
  const body = _json(text);
  const count = (name: string) => (typeof body?.[name] === 'number' ? (body[name] as number) : 0);
  run.stats.accepted += count('accepted');
  run.stats.duplicates += count('duplicates');
  run.stats.ignored += count('ignored');
  if (count('ignored') === 0) _confirm(run, batch);
}

/** A 4xx or 5xx answer, by its error code; a 401 (the token is refused) stops the run. */
function _recordRefused(run: _Run, status: number, text: string): void {
  if (status >= 500) run.responses.serverErrors += 1;
  else run.responses.clientErrors += 1;
  const error = _json(text)?.error as { code?: unknown; message?: unknown } | undefined;
  const code = typeof error?.code === 'string' ? error.code : `http_${status}`;
  const message = typeof error?.message === 'string' ? error.message : text.slice(0, 200);
  _recordError(run, status, code, message);
  if (status === 401) run.stoppedBecause ??= `The server refused the ingest token (401 ${code}): ${message}`;
}

function _recordError(run: _Run, status: number | null, code: string, message: string): void {
  const key = `${status} ${code}`;
  const entry = run.errors.get(key);
  if (entry) entry.count += 1;
  else run.errors.set(key, { status, code, message, count: 1 });
}

/** Keeps the points of a confirmed batch as the server stores them, to tell what it should now hold. */
function _confirm(run: _Run, batch: readonly Delivery<VehicleReport>[]): void {
  for (const { item } of batch) {
    if (run.keptPoints > _MAX_KEPT_POINTS) return;
    const stored = run.confirmed[item.vehicle]!;
    const point = storedPointOf(item, run.options.protocol);
    const previous = stored.get(point.time);
    if (!previous) run.keptPoints += 1;
    // D21: points of one second merge (ignition on if either is, the higher speed).
    stored.set(
      point.time,
      previous
        ? { time: point.time, ignition: previous.ignition || point.ignition, speedKmh: Math.max(previous.speedKmh, point.speedKmh) }
        : point,
    );
  }
}

function _summary(run: _Run, from: number): SimulationSummary {
  const { options, stats, latencies } = run;
  const ended = run.now();
  const elapsedSeconds = (ended - run.started) / 1000;
  return {
    protocol: options.protocol,
    timing: options.timing,
    from,
    generated: run.generated,
    ...stats,
    responses: run.responses,
    errors: [...run.errors.values()],
    stoppedBecause: run.stoppedBecause,
    elapsedSeconds,
    positionsPerSecond: elapsedSeconds > 0 ? stats.sent / elapsedSeconds : 0,
    latencyMs: latencies.length === 0 ? null : { p50: _percentile(latencies, 0.5), p99: _percentile(latencies, 0.99) },
    devices:
      run.keptPoints > _MAX_KEPT_POINTS
        ? null
        : options.devices.map((device, vehicle) => _deviceResult(device, [...run.confirmed[vehicle]!.values()], Math.floor(ended / 1000))),
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
