/**
 * D37, the wire's edges, over real TCP sockets against the reference server as `fleet-hours serve`
 * starts it (`startServer`), on embedded PostgreSQL (PGlite): text PostgreSQL cannot store, a token
 * in the path, headers that never finish, a complete request followed by a half-close or by bytes
 * that are not a request, points before the read API's first date and speeds that are not finite.
 */
import { connect } from 'node:net';
import { fingerprintApiKey, generateApiKey, generateIngestToken } from '@fleet-hours/core';
import type { AccessLogEntry } from '@fleet-hours/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type OpenedDatabase } from '../database/open-database.js';
import { startServer, type StartedServer } from './start-server.js';

/** The server's clock: 2026-12-01T12:00:00Z. */
const NOW_MS = Date.UTC(2026, 11, 1, 12);
const NOW = NOW_MS / 1000;

/** One HTTP/1.1 response read off the wire. */
interface WireResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** What came back on one connection, and how long the connection stayed open. */
interface Exchange {
  readonly raw: string;
  readonly responses: readonly WireResponse[];
  readonly elapsedMs: number;
}

/**
 * Opens a TCP connection, writes `request` (then half-closes with `halfClose`), and reads until
 * the server closes the connection; after `timeoutMs` the client gives up and closes it.
 */
function exchange(
  port: number,
  request: string | Buffer,
  options: { readonly halfClose?: boolean; readonly timeoutMs?: number } = {},
): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = connect(port, '127.0.0.1', () => {
      if (options.halfClose) socket.end(request);
      else if (request.length > 0) socket.write(request);
    });
    const received: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(), options.timeoutMs ?? 5_000);
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(timer);
      const raw = Buffer.concat(received).toString('utf8');
      resolve({ raw, responses: parseResponses(raw), elapsedMs: performance.now() - started });
    });
  });
}

/** Splits a stream of responses, each body as long as its Content-Length says. */
function parseResponses(raw: string): WireResponse[] {
  const responses: WireResponse[] = [];
  let rest = Buffer.from(raw, 'utf8');
  while (rest.length > 0) {
    const split = rest.indexOf('\r\n\r\n');
    if (split === -1) throw new Error(`Not an HTTP response: ${JSON.stringify(rest.toString('utf8'))}`);
    const [statusLine, ...lines] = rest.subarray(0, split).toString('utf8').split('\r\n');
    const headers = Object.fromEntries(
      lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
    );
    const length = Number(headers['content-length'] ?? 0);
    const body = rest.subarray(split + 4, split + 4 + length).toString('utf8');
    responses.push({ status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(statusLine!)?.[1]), headers, body });
    rest = rest.subarray(split + 4 + length);
  }
  return responses;
}

/** The D16 error of a response. */
const errorOf = (response: WireResponse | undefined) =>
  (JSON.parse(response!.body) as { error: { status: number; code: string; message: string } }).error;

describe("the reference server at the wire's edges (D37)", () => {
  let database: OpenedDatabase;
  let server: StartedServer;
  const logged: AccessLogEntry[] = [];
  let token: string;
  let apiKey: string;
  let device: { readonly id: number; readonly imei: string };
  /** A second device, for the tests that must find it without points. */
  let spare: { readonly id: number; readonly imei: string };

  beforeAll(async () => {
    database = await openDatabase({ kind: 'pglite-memory' }, { migrate: true });
    const { store } = database;
    const account = await store.createAccount({ name: 'Acme', plan: 'business', now: NOW - 86_400 });
    const newDevice = async (name: string, imei: string) => {
      const created = (await store.createDevice({
        accountId: account.id,
        name,
        imei,
        model: 'FMB920',
        registration: null,
        timeZone: 'America/New_York',
      }))!;
      return { id: created.id, imei: created.imei };
    };
    device = await newDevice('Truck', '356307042441013');
    spare = await newDevice('Spare', '356307042441099');
    token = generateIngestToken();
    await store.createIngestToken({
      accountId: account.id,
      fingerprint: await fingerprintApiKey(token),
      label: 'test',
      expiresAt: null,
      now: NOW - 86_400,
    });
    apiKey = generateApiKey();
    await store.createApiKey({
      accountId: account.id,
      fingerprint: await fingerprintApiKey(apiKey),
      label: null,
      expiresAt: null,
      now: NOW - 86_400,
    });
    server = await startServer({ database, port: 0, now: () => NOW_MS, log: (entry) => logged.push(entry) });
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await database?.close();
  });

  const pointsOf = (deviceId: number) => database.store.listTelemetryPoints({ deviceId });
  const post = (path: string, body: string, contentType: string, extra: readonly string[] = []) =>
    [
      `POST ${path} HTTP/1.1`,
      'Host: 127.0.0.1',
      `Authorization: Bearer ${token}`,
      `Content-Type: ${contentType}`,
      `Content-Length: ${Buffer.byteLength(body)}`,
      ...extra,
      '',
      body,
    ].join('\r\n');
  const get = (target: string, extra: readonly string[] = []) =>
    [`GET ${target} HTTP/1.1`, 'Host: 127.0.0.1', ...extra, '', ''].join('\r\n');
  const traccar = (uniqueId: unknown, time: number, speed: unknown = 5) =>
    `{"position": {"deviceTime": "${new Date(time * 1000).toISOString()}", "speed": ${String(speed)}, "attributes": {"ignition": true}}, "device": {"uniqueId": ${JSON.stringify(uniqueId)}}}`;
  const osmand = (query: string) => get(`/ingest/osmand/${token}?${query}`, ['Connection: close']);

  describe('text PostgreSQL cannot store is 400 naming the field, never 500', () => {
    it('a NUL or an unpaired surrogate in a native imei, a Traccar device.uniqueId or an OsmAnd id or deviceid', async () => {
      const point = (imei: string) => JSON.stringify({ imei, time: NOW - 60, ignition: true, speed_kmh: 3 });
      const cases: readonly [request: string, message: string][] = [
        [
          post('/ingest/v1/telemetry', point('3563070\u000042441013'), 'application/x-ndjson', ['Connection: close']),
          'line 1: imei must be text without NUL characters or unpaired surrogates, got "3563070\\u000042441013"',
        ],
        [
          post('/ingest/v1/telemetry', `[${point(device.imei)}, ${point('\u0000')}]`, 'application/json', ['Connection: close']),
          'index 1: imei must be text without NUL characters or unpaired surrogates, got "\\u0000"',
        ],
        [
          post(
            '/ingest/v1/telemetry',
            `{"imei": "35630\\ud83d", "time": ${NOW - 60}, "ignition": true, "speed_kmh": 3}`,
            'application/x-ndjson',
            ['Connection: close'],
          ),
          'line 1: imei must be text without NUL characters or unpaired surrogates, got "35630\\ud83d"',
        ],
        [
          post('/ingest/traccar', traccar(`${device.imei}\u0000`, NOW - 60), 'application/json', ['Connection: close']),
          `device.uniqueId must be text without NUL characters or unpaired surrogates, got "${device.imei}\\u0000"`,
        ],
        [
          post('/ingest/traccar', traccar('\udc00', NOW - 60), 'application/json', ['Connection: close']),
          'device.uniqueId must be text without NUL characters or unpaired surrogates, got "\\udc00"',
        ],
        [
          osmand(`id=${device.imei}%00&speed=1&ignition=true`),
          `id must be text without NUL characters or unpaired surrogates, got "${device.imei}\\u0000"`,
        ],
        [
          osmand(`deviceid=%00&speed=1&ignition=true`),
          'deviceid must be text without NUL characters or unpaired surrogates, got "\\u0000"',
        ],
      ];
      for (const [request, message] of cases) {
        const { responses } = await exchange(server.port, request);
        expect(
          responses.map((response) => response.status),
          message,
        ).toEqual([400]);
        expect(errorOf(responses[0])).toEqual({ status: 400, code: 'invalid_body', message });
      }
      expect(await pointsOf(device.id)).toEqual([]);
      expect(logged.filter((entry) => entry.status >= 500)).toEqual([]);
    });

    it("a NUL in the read API's path, query or headers is a 4xx too", async () => {
      const auth = `Authorization: Bearer ${apiKey}`;
      const cases: readonly [target: string, extra: readonly string[], status: number][] = [
        [`/api/v1/devices/${device.id}%00/hours`, [auth], 404],
        [`/api/v1/devices/${device.id}/hours?from=2026-11-01%00`, [auth], 400],
        [`/api/v1/hours?cursor=%00`, [auth], 400],
        [`/api/v1/devices/${device.id}/meter`, [`Authorization: Bearer ${apiKey}%00`], 401],
        [`/api/v1/devices/${device.id}/meter`, [auth, 'X-Request-Id: a\u0000b'], 400],
      ];
      for (const [target, extra, status] of cases) {
        const { responses } = await exchange(server.port, get(target, [...extra, 'Connection: close']));
        expect([target, responses.map((response) => response.status)]).toEqual([target, [status]]);
        expect(errorOf(responses[0]).status).toBe(status);
      }
      expect(logged.filter((entry) => entry.status >= 500)).toEqual([]);
    });
  });

  describe('an OsmAnd token in the path never appears in a response or a log line', () => {
    it('whatever the error: a backslash, bad percent-encoding, a path too long, a wrong method, a NUL, a path that is not served', async () => {
      const secret = token.slice('fhi_'.length);
      const requests = [
        `GET /ingest/osmand/${token}\\?id=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
        `GET /ingest\\osmand\\${token}?id=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
        get(`/ingest/osmand/${token}%ZZ?id=1&speed=1&ignition=true`, ['Connection: close']),
        get(`/ingest/osmand/${token}?id=%ZZ&speed=%ZZ&ignition=true`, ['Connection: close']),
        get(`/ingest/osmand/${token}?id=${'1'.repeat(20_000)}`, ['Connection: close']),
        `PUT /ingest/osmand/${token}?id=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
        `DELETE /ingest/osmand/${token} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
        `GET /ingest/osmand/${token}\u0000?id=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
        get(`/ingest/osmand/${token}%00?id=1&speed=1&ignition=true`, ['Connection: close']),
        get(`//ingest/osmand/${token}?id=1`, ['Connection: close']),
        get(`/INGEST/OsmAnd/${token}?id=1`, ['Connection: close']),
        get(`/ingest/osmand/${token}/more?id=1`, ['Connection: close']),
        get(`/api/v1/${token}`, ['Connection: close']),
        `GET http://127.0.0.1/x/${token} HTTP/1.1\r\nHost: [bad\r\nConnection: close\r\n\r\n`,
        `GET /ingest/osmand/${token} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\nNOT HTTP\r\n\r\n`,
      ];
      const before = logged.length;
      const statuses: number[] = [];
      for (const request of requests) {
        const { raw, responses } = await exchange(server.port, request);
        expect(raw, request.slice(0, 80)).not.toContain(secret);
        expect(responses.length, request.slice(0, 80)).toBeGreaterThan(0);
        statuses.push(...responses.map((response) => response.status));
      }
      // Every one answered, and with a 4xx: none of them reached a 500 either.
      expect(statuses.every((status) => status >= 400 && status < 500)).toBe(true);
      expect(statuses).toEqual(expect.arrayContaining([400, 401, 404, 405, 431]));
      const lines = logged.slice(before).map((entry) => JSON.stringify(entry));
      expect(lines.length).toBeGreaterThanOrEqual(requests.length);
      for (const line of lines) expect(line).not.toContain(secret);
    });

    it('the path is still quoted, without the token: a backslash names the path with "…" for it', async () => {
      const { responses } = await exchange(
        server.port,
        `GET /ingest/osmand/${token}\\?id=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
      );
      expect(errorOf(responses[0])).toEqual({
        status: 400,
        code: 'bad_request',
        message: 'The request path "/ingest/osmand/…\\\\?id=1" holds a backslash: use "/"',
      });
      const notFound = await exchange(server.port, get(`//ingest/osmand/${token}?id=1`, ['Connection: close']));
      expect(errorOf(notFound.responses[0])).toEqual({ status: 404, code: 'not_found', message: 'No such endpoint: //ingest/osmand/…' });
    });
  });

  describe('headers that never finish are answered 408 within the configured deadline', () => {
    let quick: StartedServer;
    beforeAll(async () => {
      quick = await startServer({ database, port: 0, now: () => NOW_MS, log: (entry) => logged.push(entry), headersTimeoutMs: 1_000 });
    });
    afterAll(() => quick?.close());

    it('a connection that sends only blank lines, part of its headers, or nothing: 408 request_timeout JSON, then closed', async () => {
      const answers = await Promise.all(
        ['\r\n\r\n', 'POST /ingest/v1/telemetry HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Le', ''].map((request) =>
          exchange(quick.port, request, { timeoutMs: 8_000 }),
        ),
      );
      for (const { responses, elapsedMs } of answers) {
        expect(responses.map((response) => response.status)).toEqual([408]);
        expect(responses[0]!.headers['content-type']).toBe('application/json; charset=UTF-8');
        expect(responses[0]!.headers.connection).toBe('close');
        expect(errorOf(responses[0]).code).toBe('request_timeout');
        // Answered at the deadline, not before and not long after it (Node's own check ran every 30 s on a 60 s deadline).
        expect(elapsedMs).toBeGreaterThanOrEqual(900);
        expect(elapsedMs).toBeLessThan(2_500);
      }
      expect(logged.filter((entry) => entry.status === 408 && entry.route === null).length).toBeGreaterThanOrEqual(3);
    });

    it('a request whose headers arrive within the deadline is served as ever', async () => {
      const socket = connect(quick.port, '127.0.0.1');
      const received: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => received.push(chunk));
      const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      await new Promise((resolve) => setTimeout(resolve, 500));
      socket.write('Connection: close\r\n\r\n');
      await closed;
      expect(parseResponses(Buffer.concat(received).toString('utf8')).map((response) => response.status)).toEqual([200]);
    });
  });

  describe('a complete request is answered first, whatever follows it on its connection', () => {
    const nativePoint = (deviceId: number, time: number) => JSON.stringify({ device_id: deviceId, time, ignition: true, speed_kmh: 7 });

    it('bytes that are not a request after a native batch, a Traccar and an OsmAnd position: 200, then 400, and each point stored', async () => {
      const garbage = 'NOT HTTP\r\n\r\n';
      const requests = [
        post('/ingest/v1/telemetry', nativePoint(spare.id, NOW - 300), 'application/x-ndjson') + garbage,
        post('/ingest/traccar', traccar(spare.imei, NOW - 240), 'application/json') + garbage,
        get(`/ingest/osmand/${token}?id=${spare.imei}&timestamp=${NOW - 180}&speed=2&ignition=true`) + garbage,
      ];
      for (const request of requests) {
        const { responses } = await exchange(server.port, request);
        expect(responses.map((response) => response.status)).toEqual([200, 400]);
        expect(JSON.parse(responses[0]!.body)).toMatchObject({ accepted: 1, duplicates: 0 });
        expect(errorOf(responses[1]).code).toBe('bad_request');
      }
      expect((await pointsOf(spare.id)).map((point) => point.time)).toEqual([NOW - 300, NOW - 240, NOW - 180]);
    });

    it('a body longer than its Content-Length: the request as framed is answered 200, the extra bytes 400', async () => {
      const body = nativePoint(spare.id, NOW - 120);
      const request = [
        `POST /ingest/v1/telemetry HTTP/1.1`,
        'Host: 127.0.0.1',
        `Authorization: Bearer ${token}`,
        'Content-Type: application/x-ndjson',
        `Content-Length: ${body.length}`,
        '',
        `${body}\n${nativePoint(spare.id, NOW - 110)}`,
      ].join('\r\n');
      const { responses } = await exchange(server.port, request);
      expect(responses.map((response) => response.status)).toEqual([200, 400]);
      expect((await pointsOf(spare.id)).map((point) => point.time)).toContain(NOW - 120);
      expect((await pointsOf(spare.id)).map((point) => point.time)).not.toContain(NOW - 110);
    });

    it('a client that half-closes after its request still gets the answer, then the connection closes', async () => {
      // Writes that take a moment, as on a PostgreSQL server: the client's FIN arrives while the request is in the store.
      const slowStore = new Proxy(database.store, {
        get(target, property, receiver) {
          const value = Reflect.get(target, property, receiver) as unknown;
          if (property !== 'writeTelemetry' || typeof value !== 'function') return value;
          return async (...args: unknown[]) => {
            await new Promise((resolve) => setTimeout(resolve, 100));
            return (value as (...callArgs: unknown[]) => unknown).apply(target, args);
          };
        },
      });
      const slow = await startServer({
        database: { ...database, store: slowStore, close: async () => {} },
        port: 0,
        now: () => NOW_MS,
        log: () => {},
      });
      try {
        await halfClosing(slow.port);
      } finally {
        await slow.close();
      }
    });

    const halfClosing = async (port: number) => {
      const requests = [
        post('/ingest/v1/telemetry', nativePoint(spare.id, NOW - 100), 'application/x-ndjson'),
        post('/ingest/traccar', traccar(spare.imei, NOW - 90), 'application/json'),
        get(`/ingest/osmand/${token}?id=${spare.imei}&timestamp=${NOW - 80}&speed=2&ignition=true`),
        post(
          `/ingest/osmand/${token}`,
          `id=${spare.imei}&timestamp=${NOW - 70}&speed=2&ignition=true`,
          'application/x-www-form-urlencoded',
        ),
      ];
      for (const request of requests) {
        const { responses, elapsedMs } = await exchange(port, request, { halfClose: true });
        expect(responses.map((response) => response.status)).toEqual([200]);
        expect(JSON.parse(responses[0]!.body)).toMatchObject({ accepted: 1 });
        // Closed with the answer, not after the keep-alive timeout (5 s) or the client's (5 s).
        expect(elapsedMs).toBeLessThan(3_000);
      }
      expect((await pointsOf(spare.id)).map((point) => point.time).slice(-4)).toEqual([NOW - 100, NOW - 90, NOW - 80, NOW - 70]);
    };

    it('two complete requests then garbage, half-closed: both answered in order, then 400', async () => {
      const request = `${post('/ingest/v1/telemetry', nativePoint(spare.id, NOW - 60), 'application/x-ndjson') + get('/healthz')}NOT HTTP\r\n\r\n`;
      const { responses } = await exchange(server.port, request, { halfClose: true });
      expect(responses.map((response) => response.status)).toEqual([200, 200, 400]);
    });
  });

  describe("a point before the read API's first date, or with a speed that is not finite, is 400", () => {
    it('0001-01-01T00:00:00Z names time (native) or timestamp (OsmAnd), and /meter still has no since', async () => {
      const native = await exchange(
        server.port,
        post(
          '/ingest/v1/telemetry',
          JSON.stringify({ device_id: device.id, time: '0001-01-01T00:00:00Z', ignition: true, speed_kmh: 3 }),
          'application/x-ndjson',
          ['Connection: close'],
        ),
      );
      expect(errorOf(native.responses[0])).toEqual({
        status: 400,
        code: 'invalid_body',
        message: 'line 1: time must be an instant from 0001-01-02T00:00:00Z to 9999-12-30T23:59:59Z, got "0001-01-01T00:00:00Z"',
      });
      const epoch = await exchange(
        server.port,
        post(
          '/ingest/v1/telemetry',
          `[${JSON.stringify({ device_id: device.id, time: -62_135_596_800, ignition: true, speed_kmh: 3 })}]`,
          'application/json',
          ['Connection: close'],
        ),
      );
      expect(errorOf(epoch.responses[0]).message).toMatch(/^index 0: time must be an instant from 0001-01-02T00:00:00Z/);
      const traccarEarly = await exchange(
        server.port,
        post('/ingest/traccar', traccar(device.imei, -62_135_596_800), 'application/json', ['Connection: close']),
      );
      expect(errorOf(traccarEarly.responses[0]).message).toMatch(/^position\.deviceTime must be an instant from 0001-01-02T00:00:00Z/);
      const osmandEarly = await exchange(server.port, osmand(`id=${device.imei}&timestamp=0001-01-01T12:00:00Z&speed=1&ignition=true`));
      expect(errorOf(osmandEarly.responses[0])).toMatchObject({
        status: 400,
        message: expect.stringMatching(/^timestamp must be an instant from 0001-01-02T00:00:00Z/),
      });

      const meter = await exchange(
        server.port,
        get(`/api/v1/devices/${device.id}/meter`, [`Authorization: Bearer ${apiKey}`, 'Connection: close']),
      );
      expect(JSON.parse(meter.responses[0]!.body)).toMatchObject({ since: null, engine_seconds: 0 });
      expect(await pointsOf(device.id)).toEqual([]);
    });

    it('speed=Infinity, NaN or 1e400 on OsmAnd, and 1e400 knots from Traccar, name the speed field', async () => {
      for (const speed of ['Infinity', 'NaN', '1e400', '-Infinity']) {
        const { responses } = await exchange(server.port, osmand(`id=${device.imei}&timestamp=${NOW - 60}&speed=${speed}&ignition=true`));
        expect(errorOf(responses[0])).toEqual({
          status: 400,
          code: 'invalid_body',
          message: `speed must be a number of knots ≥ 0, got "${speed}"`,
        });
      }
      const { responses } = await exchange(
        server.port,
        post('/ingest/traccar', traccar(device.imei, NOW - 60, '1e400'), 'application/json', ['Connection: close']),
      );
      expect(errorOf(responses[0])).toEqual({
        status: 400,
        code: 'invalid_body',
        message: 'position.speed must be a number of knots ≥ 0, got Infinity',
      });
      const native = await exchange(
        server.port,
        post(
          '/ingest/v1/telemetry',
          `{"device_id": ${device.id}, "time": ${NOW - 60}, "ignition": true, "speed_kmh": -1e400}`,
          'application/x-ndjson',
          ['Connection: close'],
        ),
      );
      expect(errorOf(native.responses[0])).toEqual({
        status: 400,
        code: 'invalid_body',
        message: 'line 1: speed_kmh must be a number ≥ 0, got -Infinity',
      });
      expect(await pointsOf(device.id)).toEqual([]);
    });
  });
});
