import {
  createFleetHours,
  createMemoryStore,
  fingerprintApiKey,
  generateApiKey,
  generateIngestToken,
  telemetryToSegments,
  type TelemetryPoint,
} from '@fleet-hours/core';
import { parseTelemetryPoint } from '@fleet-hours/core/adapter';
import { summarizeSegments } from '@fleet-hours/core/adapter';
import { createFleetHoursApp } from '@fleet-hours/http';
import { Hono, type Context } from 'hono';
import { describe, expect, it } from 'vitest';
import { runSimulation, type SimulationOptions } from './run-simulation.js';
import type { SimulatedDevice } from './telemetry-payloads.js';
import { simulateVehicle } from './vehicle-model.js';

const TOKEN = 'fhi_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG';
const FROM = Date.UTC(2026, 10, 17, 7) / 1000; // a Tuesday morning
const TO = FROM + 2 * 3600;
const DEVICES: SimulatedDevice[] = [
  { name: 'Sim 1', imei: '356307042500001', deviceId: null },
  { name: 'Sim 2', imei: '356307042500002', deviceId: null },
  { name: 'Sim 3', imei: '356307042500003', deviceId: null },
];

interface StubOptions {
  /** The server clock for D26, epoch seconds; default the real one. */
  readonly now?: () => number;
  /** How far ahead of the clock a point may be; default 300 s (D26). */
  readonly maxAheadSeconds?: number;
  /** Answer this many requests 429 first. */
  readonly throttle?: number;
  /** Tracker ids that name no device of the token's account: 422 `unknown_device`. */
  readonly unknownImeis?: readonly string[];
}

/**
 * A stand-in for the ingestion endpoints of `docs/ingestion.md`: it checks every request against
 * the contract (the problems it finds fail the test), keeps one point per device and second
 * (D21) and answers as the contract says.
 */
function stubServer(options: StubOptions = {}) {
  const app = new Hono();
  const stored = new Map<string, Map<number, TelemetryPoint>>();
  const problems: string[] = [];
  const requests: { method: string; path: string; points: number }[] = [];
  let throttle = options.throttle ?? 0;
  const clock = () => options.now?.() ?? Math.floor(Date.now() / 1000);
  const parse = (raw: { time?: unknown; ignition?: unknown; speed_kmh?: unknown }) =>
    parseTelemetryPoint(raw, {
      now: clock(),
      ...(options.maxAheadSeconds === undefined ? {} : { maxAheadSeconds: options.maxAheadSeconds }),
    });
  const error = (c: Context, status: 400 | 401 | 422 | 429, code: string, message: string) =>
    c.json({ error: { status, code, message } }, status);
  const write = (c: Context, points: readonly { device: string; point: TelemetryPoint }[]) => {
    for (const { device } of points) {
      if (options.unknownImeis?.includes(device)) return error(c, 422, 'unknown_device', `line 1: no active device "${device}"`);
    }
    let accepted = 0;
    let duplicates = 0;
    for (const { device, point } of points) {
      const byTime = stored.get(device) ?? new Map<number, TelemetryPoint>();
      stored.set(device, byTime);
      const previous = byTime.get(point.time);
      const merged = previous
        ? { time: point.time, ignition: previous.ignition || point.ignition, speedKmh: Math.max(previous.speedKmh, point.speedKmh) }
        : point;
      if (previous && previous.ignition === merged.ignition && previous.speedKmh === merged.speedKmh) duplicates += 1;
      else accepted += 1;
      byTime.set(point.time, merged);
    }
    return c.json({ accepted, duplicates, devices: [] });
  };

  app.use('/ingest/*', async (c, next) => {
    if (throttle > 0) {
      throttle -= 1;
      c.header('Retry-After', '2');
      return error(c, 429, 'rate_limited', 'Too many requests');
    }
    const osmand = c.req.path.startsWith('/ingest/osmand/');
    const authorization = c.req.header('Authorization');
    if (osmand && authorization !== undefined) problems.push('an OsmAnd request carries an Authorization header');
    const token = osmand ? decodeURIComponent(c.req.path.split('/').pop()!) : authorization?.replace(/^Bearer /, '');
    if (token !== TOKEN) return error(c, 401, 'unknown_ingest_token', 'Unknown ingest token');
    await next();
  });

  app.post('/ingest/v1/telemetry', async (c) => {
    if (c.req.header('Content-Type') !== 'application/x-ndjson') problems.push(`native Content-Type ${c.req.header('Content-Type')}`);
    const lines = (await c.req.text()).split('\n').filter((line) => line.trim() !== '');
    if (lines.length > 10_000) problems.push(`a batch of ${lines.length} points`);
    const points = lines.map((line) => {
      const raw = JSON.parse(line) as Record<string, unknown>;
      const keys = Object.keys(raw).sort().join(',');
      if (keys !== 'ignition,imei,speed_kmh,time' && keys !== 'device_id,ignition,speed_kmh,time') problems.push(`native fields ${keys}`);
      if (typeof raw.time !== 'string' || !raw.time.endsWith('Z')) problems.push(`native time ${String(raw.time)}`);
      return { device: String(raw.imei ?? `id:${String(raw.device_id)}`), point: parse(raw) };
    });
    requests.push({ method: 'POST', path: c.req.path, points: points.length });
    return write(c, points);
  });

  app.post('/ingest/traccar', async (c) => {
    if (c.req.header('Content-Type') !== 'application/json') problems.push(`Traccar Content-Type ${c.req.header('Content-Type')}`);
    const body = (await c.req.json()) as {
      position?: {
        deviceTime?: string;
        fixTime?: string;
        speed?: number;
        attributes?: { ignition?: boolean; motion?: boolean };
        latitude?: number;
      };
      device?: { uniqueId?: string; name?: string };
    };
    const { position, device } = body;
    const traccarTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/;
    if (!position || !device) problems.push('Traccar body without position or device');
    if (!traccarTime.test(position?.deviceTime ?? '') || !traccarTime.test(position?.fixTime ?? ''))
      problems.push(`Traccar times ${position?.deviceTime} ${position?.fixTime}`);
    if (typeof position?.latitude !== 'number' || typeof device?.name !== 'string')
      problems.push('Traccar position without latitude or device name');
    if (typeof position?.attributes?.motion !== 'boolean') problems.push('Traccar attributes without motion');
    const point = parse({
      time: position?.deviceTime ?? position?.fixTime,
      ignition: position?.attributes?.ignition,
      speed_kmh: (position?.speed ?? NaN) * 1.852,
    });
    requests.push({ method: 'POST', path: c.req.path, points: 1 });
    return write(c, [{ device: String(device?.uniqueId), point }]);
  });

  app.on(['GET', 'POST'], '/ingest/osmand/:token', async (c) => {
    const parameters: Record<string, unknown> = c.req.method === 'GET' ? c.req.query() : await c.req.parseBody();
    for (const name of ['id', 'timestamp', 'lat', 'lon', 'speed', 'ignition']) {
      if (typeof parameters[name] !== 'string') problems.push(`OsmAnd without ${name}`);
    }
    const timestamp = Number(parameters.timestamp);
    if (!(timestamp >= 1e10)) problems.push(`OsmAnd timestamp ${String(parameters.timestamp)} is not in milliseconds`);
    const point = parse({ time: timestamp / 1000, ignition: parameters.ignition === 'true', speed_kmh: Number(parameters.speed) * 1.852 });
    requests.push({ method: c.req.method, path: '/ingest/osmand/{token}', points: 1 });
    return write(c, [{ device: String(parameters.id), point }]);
  });

  return {
    fetch: async (url: string, init: RequestInit) => app.request(url, init),
    problems,
    requests,
    points: (device: string) => [...(stored.get(device)?.values() ?? [])].sort((a, b) => a.time - b.time),
  };
}

const base = (stub: ReturnType<typeof stubServer>, overrides: Partial<SimulationOptions> = {}): SimulationOptions => ({
  url: 'http://fleet.test/',
  token: TOKEN,
  protocol: 'native',
  devices: DEVICES,
  seed: 7,
  timing: { kind: 'backfill', from: FROM, to: TO },
  intervalSeconds: 20,
  shiftStart: 'now',
  fetch: stub.fetch,
  ...overrides,
});

/** What the model makes for the run's vehicles, as the server stores it. */
const modelPoints = (options: SimulationOptions, vehicle: number) =>
  [
    ...simulateVehicle({
      seed: options.seed,
      vehicle,
      from: FROM,
      until: TO,
      intervalSeconds: options.intervalSeconds,
      shiftStart: options.shiftStart,
    }),
  ].map(({ time, ignition, speedKmh }) => ({ time, ignition, speedKmh }));

const engineOf = (points: readonly TelemetryPoint[], now: number) => {
  const { movingSeconds, idleSeconds } = summarizeSegments(telemetryToSegments(points), now);
  return movingSeconds + idleSeconds;
};

describe('runSimulation() against a stub of the ingestion contract', () => {
  it('native: NDJSON batches by IMEI; every report arrives, and shuffling and resending change nothing stored (D20, D21)', async () => {
    const stub = stubServer();
    const options = base(stub, { shuffle: 0.2, resend: 0.1, batchSize: 50 });
    const summary = await runSimulation(options);
    expect(stub.problems).toEqual([]);
    expect(summary.stoppedBecause).toBeNull();
    expect(summary.late).toBeGreaterThan(0);
    expect(summary.repeats).toBeGreaterThan(0);
    expect(summary.sent).toBe(summary.generated + summary.repeats);
    expect(summary.accepted).toBe(summary.generated);
    expect(summary.duplicates).toBe(summary.repeats);
    expect(summary.requests).toBe(Math.ceil(summary.sent / 50));
    expect(summary.responses).toEqual({ ok: summary.requests, clientErrors: 0, serverErrors: 0, network: 0 });
    expect(summary.latencyMs!.p50).toBeLessThanOrEqual(summary.latencyMs!.p99);
    for (const [vehicle, device] of DEVICES.entries()) {
      const stored = stub.points(device.imei!);
      expect(stored).toEqual(modelPoints(options, vehicle));
      const result = summary.devices![vehicle]!;
      expect(result.points).toBe(stored.length);
      // The run is in the past: the live tail of the newest point (D22) is over, so this is what /meter gains.
      expect(result.engineSeconds).toBe(engineOf(stored, TO + 3600));
      expect(result.engineSeconds).toBeGreaterThan(3600);
      expect(result.movingSeconds + result.idleSeconds).toBe(result.engineSeconds);
    }
  });

  it('native: names devices by device_id when they have one', async () => {
    const stub = stubServer();
    const devices = [{ name: 'By id', imei: null, deviceId: 42 }];
    const summary = await runSimulation(base(stub, { devices, count: 30 }));
    expect(stub.problems).toEqual([]);
    expect(summary.generated).toBe(30);
    expect(stub.points('id:42')).toHaveLength(30);
  });

  it('traccar: one forwarded position per request, speed in knots, time from deviceTime', async () => {
    const stub = stubServer();
    const options = base(stub, { protocol: 'traccar', resend: 0.05, devices: DEVICES.slice(0, 2) });
    const summary = await runSimulation(options);
    expect(stub.problems).toEqual([]);
    expect(summary.requests).toBe(summary.sent);
    expect(stub.requests.every((request) => request.path === '/ingest/traccar' && request.points === 1)).toBe(true);
    expect(summary.duplicates).toBe(summary.repeats);
    for (const [vehicle, device] of DEVICES.slice(0, 2).entries()) {
      const stored = stub.points(device.imei!);
      const model = modelPoints(options, vehicle);
      expect(stored.map((point) => point.time)).toEqual(model.map((point) => point.time));
      // Knots to four decimals and back: within 0.0002 km/h, never across the moving threshold.
      stored.forEach((point, index) => expect(Math.abs(point.speedKmh - model[index]!.speedKmh)).toBeLessThan(0.0002));
      expect(telemetryToSegments(stored)).toEqual(telemetryToSegments(model));
      expect(summary.devices![vehicle]!.engineSeconds).toBe(engineOf(stored, TO + 3600));
    }
  });

  it.each(['GET', 'POST'] as const)('osmand %s: the token in the path, no header, timestamp in milliseconds', async (method) => {
    const stub = stubServer();
    const summary = await runSimulation(base(stub, { protocol: 'osmand', osmandMethod: method, count: 40 }));
    expect(stub.problems).toEqual([]);
    expect(summary.accepted).toBe(40);
    expect(stub.requests).toHaveLength(40);
    expect(stub.requests.every((request) => request.method === method && request.path === '/ingest/osmand/{token}')).toBe(true);
  });

  it('waits out 429 Retry-After and sends the same request again', async () => {
    const stub = stubServer({ throttle: 3 });
    const waits: number[] = [];
    const summary = await runSimulation(base(stub, { concurrency: 1, count: 20, sleep: async (ms) => void waits.push(ms) }));
    expect(waits).toEqual([2000, 2000, 2000]);
    expect(summary.retries).toBe(3);
    expect(summary.accepted).toBe(20);
    expect(summary.errors).toEqual([]);
  });

  it('counts 4xx answers by code and leaves their points out of what the server holds', async () => {
    const stub = stubServer({ unknownImeis: [DEVICES[1]!.imei!] });
    const summary = await runSimulation(base(stub, { protocol: 'osmand', count: 60 }));
    const refused = stub.requests.length === 0 ? 0 : summary.responses.clientErrors;
    expect(refused).toBeGreaterThan(0);
    expect(summary.errors).toEqual([
      { status: 422, code: 'unknown_device', message: expect.stringContaining('356307042500002'), count: refused },
    ]);
    expect(summary.devices![1]).toMatchObject({ points: 0, engineSeconds: 0, firstPoint: null });
    expect(summary.accepted + refused).toBe(60);
  });

  it('stops at the first 401: the token is wrong for every request', async () => {
    const stub = stubServer();
    const summary = await runSimulation(base(stub, { token: 'fhi_wrong', concurrency: 1 }));
    expect(summary.stoppedBecause).toBe('The server refused the ingest token (401 unknown_ingest_token): Unknown ingest token');
    expect(summary.requests).toBe(1);
  });

  it('stops when the server cannot be reached at all', async () => {
    const summary = await runSimulation(
      base(stubServer(), {
        concurrency: 1,
        fetch: async () => {
          throw new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:9') });
        },
      }),
    );
    expect(summary.stoppedBecause).toBe('Cannot reach http://fleet.test: connect ECONNREFUSED 127.0.0.1:9');
    expect(summary.responses.network).toBe(1);
  });

  it('realtime: reports are stamped with the clock and sent when they happen, never ahead of it (D26)', async () => {
    let clock = Date.UTC(2026, 10, 23, 3, 0, 0, 250); // a night hour: the shift starts with the run
    const stub = stubServer({ now: () => Math.floor(clock / 1000), maxAheadSeconds: 0 });
    const summary = await runSimulation(
      base(stub, {
        timing: { kind: 'realtime' },
        durationSeconds: 60,
        intervalSeconds: 10,
        gapProbability: 0,
        devices: DEVICES.slice(0, 2),
        now: () => clock,
        sleep: async (ms) => void (clock += ms),
      }),
    );
    expect(stub.problems).toEqual([]);
    const start = Date.UTC(2026, 10, 23, 3) / 1000;
    for (const device of DEVICES.slice(0, 2)) {
      expect(stub.points(device.imei!).map((point) => point.time)).toEqual([0, 10, 20, 30, 40, 50].map((offset) => start + offset));
      expect(stub.points(device.imei!).every((point) => point.ignition)).toBe(true);
    }
    // One native batch per moment: both vehicles report in the same second.
    expect(stub.requests.map((request) => request.points)).toEqual([2, 2, 2, 2, 2, 2]);
    expect(summary.from).toBe(start);
  });

  it('--rate caps the positions sent per second, all vehicles together', async () => {
    let clock = 1_000_000;
    const stub = stubServer();
    const summary = await runSimulation(
      base(stub, { protocol: 'traccar', count: 200, rate: 50, concurrency: 1, now: () => clock, sleep: async (ms) => void (clock += ms) }),
    );
    expect(summary.sent).toBe(200);
    // The 200th position may go 199 / 50 s after the start, not earlier.
    expect(summary.elapsedSeconds).toBeGreaterThanOrEqual(199 / 50);
    expect(summary.positionsPerSecond).toBeLessThanOrEqual(50.5);
  });

  it('refuses Traccar or OsmAnd for a device without an IMEI', async () => {
    const stub = stubServer();
    await expect(
      runSimulation(base(stub, { protocol: 'osmand', devices: [{ name: 'No IMEI', imei: null, deviceId: 3 }] })),
    ).rejects.toThrow('Device "No IMEI" has no IMEI: the osmand protocol names devices by their tracker id');
  });
});

describe('runSimulation() against the real ingestion endpoints (the HTTP app in-process, memory store)', () => {
  const setUp = async () => {
    const store = createMemoryStore();
    const fleetHours = createFleetHours({ store, now: () => Date.now() });
    const app = createFleetHoursApp({ fleetHours, logger: () => {} });
    const account = await store.createAccount({ name: 'Sim', plan: 'business', now: FROM - 86_400 });
    const devices: { id: number; imei: string }[] = [];
    for (const [index, protocol] of ['native', 'traccar', 'osmand-get', 'osmand-post'].entries()) {
      const imei = `35630704260000${index}`;
      const device = (await store.createDevice({
        accountId: account.id,
        name: `Sim ${protocol}`,
        imei,
        registration: null,
        model: 'Sim',
        timeZone: 'UTC',
      }))!;
      devices.push({ id: device.id, imei });
    }
    const key = generateApiKey();
    await store.createApiKey({
      accountId: account.id,
      fingerprint: await fingerprintApiKey(key),
      label: null,
      expiresAt: null,
      now: FROM - 86_400,
    });
    const token = generateIngestToken();
    await store.createIngestToken({
      accountId: account.id,
      fingerprint: await fingerprintApiKey(token),
      label: null,
      expiresAt: null,
      now: FROM - 86_400,
    });
    const meter = async (deviceId: number) => {
      const response = await app.request(`/api/v1/devices/${deviceId}/meter`, { headers: { Authorization: `Bearer ${key}` } });
      expect(response.status).toBe(200);
      return (await response.json()) as { engine_seconds: number; moving_seconds: number; idle_seconds: number };
    };
    return { app, devices, token, meter, fetch: async (url: string, init: RequestInit) => app.request(url, init) };
  };

  it.each([
    ['native', {}],
    ['traccar', {}],
    ['osmand', { osmandMethod: 'GET' }],
    ['osmand', { osmandMethod: 'POST' }],
  ] as const)(
    '%s %j: /meter gains exactly the engine time of what the simulator sent, shuffled and resent (D20–D22)',
    async (protocol, extra) => {
      const setup = await setUp();
      const slot =
        protocol === 'native' ? 0 : protocol === 'traccar' ? 1 : 'osmandMethod' in extra && extra.osmandMethod === 'POST' ? 3 : 2;
      const device = setup.devices[slot]!;
      const summary = await runSimulation({
        url: 'http://fleet.test',
        token: setup.token,
        protocol,
        devices: [{ name: 'Sim', imei: device.imei, deviceId: null }],
        seed: 3,
        timing: { kind: 'backfill', from: FROM, to: FROM + 3600 },
        intervalSeconds: 30,
        shiftStart: 'now',
        shuffle: 0.1,
        resend: 0.1,
        batchSize: 20,
        fetch: setup.fetch,
        ...extra,
      });
      expect(summary.errors).toEqual([]);
      // A repeat in the same native batch as its first sending is counted new, like it (merge-points.ts).
      expect(summary.accepted + summary.duplicates).toBe(summary.sent);
      expect(summary.accepted).toBeGreaterThanOrEqual(summary.generated);
      expect(summary.duplicates).toBeGreaterThan(0);
      const expected = summary.devices![0]!;
      expect(expected.engineSeconds).toBeGreaterThan(1800);
      expect(await setup.meter(device.id)).toMatchObject({
        engine_seconds: expected.engineSeconds,
        moving_seconds: expected.movingSeconds,
        idle_seconds: expected.idleSeconds,
      });
    },
  );
});
