/**
 * D57, P90, P92: @fleet-hours/client against a real `fleet-hours serve` process (embedded PGlite,
 * or the PostgreSQL server of DATABASE_URL): devices listed, hours and daily figures read, every
 * fleet page walked across several pages, a device created and changed with a manage key; a 503 of
 * the server's in-flight bound waited out and retried, a 429 of its rate limit read.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createFleetHoursClient, parseRetryAfter } from '@fleet-hours/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliServer, createTestDatabase, runCliJson, startServe, type TestDatabase } from '../support/cli.js';

/** A local date `daysAgo` days before today (UTC), as YYYY-MM-DD. */
const dateBefore = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
const DAY = dateBefore(3);
/** The five vehicles of the account, in the order they are created (ids ascending). */
const VEHICLES = [
  ['Truck 1', '356307042441013', 'UTC'],
  ['Truck 2', '356307042441021', 'Europe/Berlin'],
  ['Van 3', '356307042441039', 'America/New_York'],
  ['Loader 4', '356307042441047', 'Asia/Kathmandu'],
  ['Spare 5', '356307042441054', 'UTC'],
] as const;

describe('@fleet-hours/client against fleet-hours serve (D57)', { timeout: 120_000 }, () => {
  let work: string;
  let database: TestDatabase | null = null;
  let server: CliServer;
  let args: string[];
  let keys: { read: string; manage: string };
  let ingestToken: string;
  let ids: number[];
  /** Every request the clients sent, as `METHOD path → status`, with the headers they carried. */
  const sent: { line: string; headers: Headers }[] = [];
  const recordingFetch = async (request: Request) => {
    const response = await fetch(request);
    sent.push({ line: `${request.method} ${new URL(request.url).pathname} → ${response.status}`, headers: request.headers });
    return response;
  };
  const client = (apiKey: string, options: { retries?: number | { maxDelaySeconds: number } } = {}) =>
    createFleetHoursClient({ baseUrl: server.url, apiKey, fetch: recordingFetch, ...options });

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'fleet-hours-e2e-client-'));
    if (process.env.DATABASE_URL) database = await createTestDatabase(process.env.DATABASE_URL);
    args = database ? ['--database-url', database.url] : ['--data-dir', join(work, 'data')];
    const cli = <T>(command: string[], input?: string) =>
      runCliJson<T>([...command, ...args], { cwd: work, ...(input === undefined ? {} : { input }) });
    await cli(['migrate']);
    const account = await cli<{ id: number }>(['accounts', 'create', '--name', 'Acme Haulage']);
    const accountArgs = ['--account', String(account.id)];
    keys = {
      read: (await cli<{ key: string }>(['keys', 'create', ...accountArgs])).key,
      manage: (await cli<{ key: string }>(['keys', 'create', ...accountArgs, '--scope', 'manage'])).key,
    };
    ingestToken = (await cli<{ token: string }>(['ingest-tokens', 'create', ...accountArgs])).token;
    const [name, imei, timezone] = VEHICLES[0];
    const truck = await cli<{ id: number }>([
      'devices',
      'create',
      ...accountArgs,
      '--name',
      name,
      '--imei',
      imei,
      '--model',
      'FMB920',
      '--timezone',
      timezone,
    ]);
    ids = [truck.id];
    // Truck 1 (UTC): idle 08:00–09:00, moving 09:00–11:30 on DAY.
    const segment = (from: string, to: string, state: string) =>
      JSON.stringify({ started_at: `${DAY}T${from}:00Z`, ended_at: `${DAY}T${to}:00Z`, state });
    await cli(
      ['import', 'segments', '-', '--device', String(ids[0]), '--format', 'ndjson'],
      `${segment('08:00', '09:00', 'idle')}\n${segment('09:00', '11:30', 'moving')}\n`,
    );
    // One request at a time, so that a request held open makes the next one a 503; one meter read a minute.
    server = await startServe([...args, '--max-in-flight', '1', '--rate-limit-meter', '1'], { cwd: work });
    // The other vehicles through the client itself (the CLI cannot share an embedded database with serve).
    for (const [name, imei, timezone] of VEHICLES.slice(1)) {
      const created = await client(keys.manage).POST('/api/v1/devices', { body: { name, imei, model: 'FMB920', timezone } });
      ids.push(created.data!.id);
    }
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('lists the devices, and reads the hours and daily figures of one, typed as the document says', async () => {
    const api = client(keys.read);
    const devices = await api.GET('/api/v1/devices');
    expect(devices.data?.data.map((device) => [device.name, device.imei, device.timezone])).toEqual(
      VEHICLES.map((vehicle) => [...vehicle]),
    );
    const window = { from: DAY, to: DAY };
    const hours = await api.GET('/api/v1/devices/{id}/hours', { params: { path: { id: ids[0]! }, query: window } });
    expect(hours.data).toEqual({
      device_id: ids[0],
      from: `${DAY}T00:00:00+00:00`,
      to: `${DAY}T23:59:59+00:00`,
      timezone: 'UTC',
      engine_seconds: 12_600,
      moving_seconds: 9_000,
      idle_seconds: 3_600,
    });
    const daily = await api.GET('/api/v1/devices/{id}/hours/daily', { params: { path: { id: ids[0]! }, query: window } });
    expect(daily.data?.data).toEqual([
      // D59: no calendar, so every engine second is outside one.
      expect.objectContaining({
        date: DAY,
        engine_seconds: 12_600,
        moving_seconds: 9_000,
        idle_seconds: 3_600,
        engine_outside_schedule_seconds: 12_600,
      }),
    ]);
    const missing = await api.GET('/api/v1/devices/{id}/hours', { params: { path: { id: 999_999 } } });
    expect([missing.response.status, missing.error?.error.code]).toEqual([404, 'device_not_found']);
  });

  it('the built package works alike as an ES module and from CommonJS (require)', async () => {
    type Built = typeof import('@fleet-hours/client');
    const dist = fileURLToPath(new URL('../../packages/client/dist/', import.meta.url));
    const builds: Record<string, Built> = {
      esm: (await import(join(dist, 'index.js'))) as Built,
      cjs: createRequire(import.meta.url)(join(dist, 'index.cjs')) as Built,
    };
    for (const [build, { createFleetHoursClient: create }] of Object.entries(builds)) {
      const api = create({ baseUrl: server.url, apiKey: keys.read, fetch: recordingFetch });
      const devices = await api.GET('/api/v1/devices');
      expect([build, devices.response.status, devices.data?.data.length]).toEqual([build, 200, VEHICLES.length]);
      const walked = [];
      for await (const meter of api.items('/api/v1/meter', { params: { query: { limit: 2 } } })) walked.push(meter.device_id);
      expect([build, walked]).toEqual([build, ids]);
    }
  });

  it('walks every fleet page across several pages, each element the single-device body (P92)', async () => {
    const before = sent.length;
    const api = client(keys.read);
    const window = { from: DAY, to: DAY, limit: 2 };
    const pages = [];
    for await (const page of api.pages('/api/v1/hours', { params: { query: window } })) pages.push(page);
    expect(pages.map((page) => [page.data.map((hours) => hours.device_id), page.next_cursor === null])).toEqual([
      [ids.slice(0, 2), false],
      [ids.slice(2, 4), false],
      [ids.slice(4), true],
    ]);
    const single = await api.GET('/api/v1/devices/{id}/hours', { params: { path: { id: ids[0]! }, query: { from: DAY, to: DAY } } });
    expect(pages[0]!.data[0]).toEqual(single.data);

    const walked = async <T>(walk: AsyncIterable<T>) => {
      const found: T[] = [];
      for await (const item of walk) found.push(item);
      return found;
    };
    const daily = await walked(api.items('/api/v1/hours/daily', { params: { query: window } }));
    expect(daily.map((body) => body.device_id)).toEqual(ids);
    expect(daily[0]!.data).toEqual([
      // D59: no calendar, so every engine second is outside one.
      expect.objectContaining({
        date: DAY,
        engine_seconds: 12_600,
        moving_seconds: 9_000,
        idle_seconds: 3_600,
        engine_outside_schedule_seconds: 12_600,
      }),
    ]);
    const meters = await walked(api.items('/api/v1/meter', { params: { query: { limit: 3 } } }));
    expect(meters.map((meter) => [meter.device_id, meter.engine_seconds])).toEqual(ids.map((id, at) => [id, at === 0 ? 12_600 : 0]));
    const service = await walked(api.pages('/api/v1/service', { params: { query: { limit: 4 } } }));
    expect(service.map((page) => page.data.length)).toEqual([4, 1]);
    const fleetCalls = sent
      .slice(before)
      .filter(({ line }) => /^GET \/api\/v1\/(hours|meter|service)/.test(line))
      .map(({ line }) => line);
    expect(fleetCalls).toEqual([
      ...Array(3).fill('GET /api/v1/hours → 200'),
      ...Array(3).fill('GET /api/v1/hours/daily → 200'),
      ...Array(2).fill('GET /api/v1/meter → 200'),
      ...Array(2).fill('GET /api/v1/service → 200'),
    ]);
  });

  it('creates and changes a device with a manage key; the POST carries an Idempotency-Key; a read key is refused', async () => {
    const manager = client(keys.manage);
    const created = await manager.POST('/api/v1/devices', {
      body: { name: 'Excavator 6', imei: '490154203237518', model: 'FMC130', timezone: 'Europe/Berlin' },
    });
    expect([created.response.status, created.data]).toMatchObject([201, { name: 'Excavator 6', status: 'active', last_reported_at: null }]);
    expect(sent.at(-1)!.headers.get('Idempotency-Key')).toMatch(/^[0-9a-f-]{36}$/);
    const changed = await manager.PATCH('/api/v1/devices/{id}', {
      params: { path: { id: created.data!.id }, header: { 'If-Match': created.response.headers.get('ETag')! } },
      body: { status: 'inactive', registration: 'B-EX 6' },
    });
    // D54: a change gives the device a new version, its new ETag without the quotes.
    expect(changed.data).toEqual({
      ...created.data,
      status: 'inactive',
      registration: 'B-EX 6',
      version: changed.response.headers.get('ETag')!.slice(1, -1),
    });
    expect(changed.data!.version).not.toBe(created.data!.version);
    expect(sent.at(-1)!.headers.has('Idempotency-Key')).toBe(false);
    expect((await client(keys.read).GET('/api/v1/devices')).data!.data.at(-1)).toEqual(changed.data);

    const refused = await client(keys.read).POST('/api/v1/devices', { body: { name: 'X', imei: '1', model: 'M', timezone: 'UTC' } });
    expect(refused.error).toMatchObject({ error: { status: 403, code: 'insufficient_scope', scope: 'manage' } });
  });

  it('a 429 of the rate limit carries the Retry-After the client reads; beyond its longest wait it is answered at once (P90)', async () => {
    const api = client(keys.read, { retries: { maxDelaySeconds: 0 } });
    expect((await api.GET('/api/v1/devices/{id}/meter', { params: { path: { id: ids[0]! } } })).response.status).toBe(200);
    const before = sent.length;
    const limited = await api.GET('/api/v1/devices/{id}/meter', { params: { path: { id: ids[0]! } } });
    expect([limited.response.status, limited.error?.error.code]).toEqual([429, 'rate_limited']);
    const wait = parseRetryAfter(limited.response.headers.get('Retry-After'), Date.now());
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60);
    expect(sent.length - before).toBe(1);
  });

  it('a 503 of the in-flight bound is waited out for its Retry-After and sent again (P90)', async () => {
    // A telemetry upload whose body is still arriving holds the server's one slot.
    let finishUpload!: () => void;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(
          new TextEncoder().encode(
            `${JSON.stringify({ imei: VEHICLES[4][1], time: Math.floor(Date.now() / 1000) - 60, ignition: true, speed_kmh: 0 })}\n`,
          ),
        );
        finishUpload = () => controller.close();
      },
    });
    const upload = fetch(`${server.url}/ingest/v1/telemetry`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${ingestToken}`, 'Content-Type': 'application/x-ndjson' },
      body,
      duplex: 'half',
    } as RequestInit);
    // Until the upload holds the slot, requests still pass.
    const deadline = Date.now() + 10_000;
    while ((await fetch(`${server.url}/api/v1/devices`, { headers: { Authorization: `Bearer ${keys.read}` } })).status !== 503) {
      if (Date.now() > deadline) throw new Error('the upload never held the slot');
    }

    const attempts: { status: number; retryAfter: string | null; at: number }[] = [];
    const api = createFleetHoursClient({
      baseUrl: server.url,
      apiKey: keys.read,
      fetch: async (request) => {
        const response = await fetch(request);
        attempts.push({ status: response.status, retryAfter: response.headers.get('Retry-After'), at: performance.now() });
        if (response.status === 503) finishUpload();
        return response;
      },
    });
    const devices = await api.GET('/api/v1/devices');
    expect(devices.response.status).toBe(200);
    expect(devices.data!.data).toHaveLength(VEHICLES.length + 1);
    expect(attempts.map(({ status, retryAfter }) => [status, retryAfter])).toEqual([
      [503, '1'],
      [200, null],
    ]);
    expect(attempts[1]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(990);
    expect(await (await upload).json()).toMatchObject({ accepted: 1 });
  });
});
