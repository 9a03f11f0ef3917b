import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { readLimitedBody } from './read-limited-body.js';
import { serve, type RunningServer } from '../node-server/serve.js';
import { createIngestFixture } from '../testing/ingest-fixture.js';
import { createFleetHoursApp } from '../create-fleet-hours-app.js';

const refusalOf = async (promise: Promise<unknown>) => {
  try {
    await promise;
    return null;
  } catch (error) {
    const refusal = error as { code: string; status: number; headers: Record<string, string> };
    return { code: refusal.code, status: refusal.status, connection: refusal.headers['Connection'] };
  }
};

describe('readLimitedBody()', () => {
  it('reads a body within the limit as UTF-8 text', async () => {
    const request = new Request('http://x/', { method: 'POST', body: 'Zürich ✓' });
    expect(await readLimitedBody(request, { maxBytes: 100, timeoutMs: 1000 })).toBe('Zürich ✓');
    expect(await readLimitedBody(new Request('http://x/'), { maxBytes: 1, timeoutMs: 1000 })).toBe('');
  });

  it('refuses a body one byte over the limit with 413 and Connection: close', async () => {
    const exactly = new Request('http://x/', { method: 'POST', body: 'x'.repeat(10) });
    expect(await readLimitedBody(exactly, { maxBytes: 10, timeoutMs: 1000 })).toHaveLength(10);
    const over = new Request('http://x/', { method: 'POST', body: 'x'.repeat(11) });
    expect(await refusalOf(readLimitedBody(over, { maxBytes: 10, timeoutMs: 1000 }))).toEqual({
      code: 'payload_too_large',
      status: 413,
      connection: 'close',
    });
  });

  it('stops reading a body that never ends once it passes the limit', async () => {
    let pulls = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls += 1;
        controller.enqueue(new Uint8Array(1000));
      },
    });
    const request = new Request('http://x/', { method: 'POST', body, duplex: 'half' } as RequestInit);
    expect((await refusalOf(readLimitedBody(request, { maxBytes: 10_000, timeoutMs: 5000 })))?.code).toBe('payload_too_large');
    expect(pulls).toBeLessThan(20);
  });

  it('answers a body that breaks off (the client went away) 400, not a server failure', async () => {
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.error(new Error('aborted'));
      },
    });
    const request = new Request('http://x/', { method: 'POST', body, duplex: 'half' } as RequestInit);
    expect(await refusalOf(readLimitedBody(request, { maxBytes: 10_000, timeoutMs: 5000 }))).toEqual({
      code: 'invalid_body',
      status: 400,
      connection: 'close',
    });
  });

  it('answers 408 when the body stops arriving before the deadline', async () => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"device_id": 1,'));
      },
    });
    const request = new Request('http://x/', { method: 'POST', body, duplex: 'half' } as RequestInit);
    expect(await refusalOf(readLimitedBody(request, { maxBytes: 10_000, timeoutMs: 50 }))).toEqual({
      code: 'request_timeout',
      status: 408,
      connection: 'close',
    });
  });
});

describe("bodies over a real socket (read from the request's own Node stream)", () => {
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  /** Sends raw HTTP in parts (with a pause between them), then reads until the server closes or `until` matches. */
  const exchange = async (
    port: number,
    parts: readonly (string | Uint8Array)[],
    options: { until?: RegExp; closeAfter?: boolean } = {},
  ) => {
    const socket = connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    for (const part of parts) {
      socket.write(part);
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
    if (options.closeAfter) socket.destroy();
    else if (options.until) {
      const until = options.until;
      while (!until.test(Buffer.concat(received).toString('utf8'))) await new Promise((resolve) => setTimeout(resolve, 10));
      socket.destroy();
    }
    await closed;
    return Buffer.concat(received).toString('utf8');
  };
  const head = (token: string, extra: string[]) =>
    [
      'POST /ingest/v1/telemetry HTTP/1.1',
      'Host: 127.0.0.1',
      `Authorization: Bearer ${token}`,
      'Content-Type: application/x-ndjson',
      ...extra,
      '',
      '',
    ].join('\r\n');

  it('reads a body that arrives in several parts, a character split between them, and stores it', async () => {
    const fixture = await createIngestFixture();
    const app = createFleetHoursApp({ fleetHours: fixture.fleetHours, now: fixture.now, logger: () => {} });
    server = await serve({ app, port: 0, handleSignals: false });
    const time = fixture.nowSeconds - 60;
    const body = Buffer.from(
      `{"device_id": ${fixture.devices.idle.id}, "time": ${time}, "ignition": true, "speed_kmh": 12, "note": "Zürich"}`,
    );
    const split = body.indexOf(Buffer.from('ü')) + 1; // inside the two bytes of "ü"
    // Sent as bytes, in writes a moment apart: the last starts inside the character.
    const answer = await exchange(server.port, [
      head(fixture.tokens.acme.token, [`Content-Length: ${body.length}`, 'Connection: close']),
      body.subarray(0, split),
      body.subarray(split),
    ]);
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect((await fixture.pointsOf(fixture.devices.idle.id)).map((point) => point.time)).toEqual([time]);
  });

  it('refuses a streamed body (no Content-Length) the moment it passes the limit: 413, Connection: close, nothing stored', async () => {
    const fixture = await createIngestFixture();
    const app = createFleetHoursApp({ fleetHours: fixture.fleetHours, now: fixture.now, logger: () => {}, ingest: { maxBodyBytes: 1000 } });
    server = await serve({ app, port: 0, handleSignals: false });
    const line = `{"device_id": ${fixture.devices.idle.id}, "time": ${fixture.nowSeconds - 60}, "ignition": true, "speed_kmh": 12}\n`;
    const chunk = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;
    // 20 lines of about 90 bytes, in chunks, never ended: the server must answer without the rest.
    const answer = await exchange(
      server.port,
      [head(fixture.tokens.acme.token, ['Transfer-Encoding: chunked']), ...Array.from({ length: 20 }, () => chunk(line))],
      { until: /"code":"payload_too_large"/ },
    );
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer.toLowerCase()).toContain('connection: close');
    expect(await fixture.pointsOf(fixture.devices.idle.id)).toEqual([]);
  });

  it('a client that closes the connection mid-body writes nothing, and the server goes on answering', async () => {
    const fixture = await createIngestFixture();
    const app = createFleetHoursApp({ fleetHours: fixture.fleetHours, now: fixture.now, logger: () => {} });
    server = await serve({ app, port: 0, handleSignals: false });
    const partial = `{"device_id": ${fixture.devices.idle.id}, "time": ${fixture.nowSeconds - 60}, "ignition": true,`;
    await exchange(server.port, [head(fixture.tokens.acme.token, ['Content-Length: 1000']), partial], { closeAfter: true });
    expect(await fixture.pointsOf(fixture.devices.idle.id)).toEqual([]);
    const response = await fetch(`http://127.0.0.1:${server.port}/ingest/v1/telemetry`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${fixture.tokens.acme.token}`, 'Content-Type': 'application/x-ndjson' },
      body: `{"device_id": ${fixture.devices.idle.id}, "time": ${fixture.nowSeconds - 30}, "ignition": true, "speed_kmh": 3}`,
    });
    expect(response.status).toBe(200);
    expect((await fixture.pointsOf(fixture.devices.idle.id)).map((point) => point.time)).toEqual([fixture.nowSeconds - 30]);
  });

  it('is answered 408 request_timeout once the body deadline passes, and the connection is closed', async () => {
    const fixture = await createIngestFixture();
    const app = createFleetHoursApp({ fleetHours: fixture.fleetHours, now: fixture.now, logger: () => {}, ingest: { bodyTimeoutMs: 300 } });
    server = await serve({ app, port: 0, handleSignals: false });
    const socket = connect(server.port, '127.0.0.1');
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    const partial = `{"device_id": ${fixture.devices.idle.id}, "time": `;
    socket.write(
      [
        'POST /ingest/v1/telemetry HTTP/1.1',
        'Host: 127.0.0.1',
        `Authorization: Bearer ${fixture.tokens.acme.token}`,
        'Content-Type: application/x-ndjson',
        'Content-Length: 1000',
        '',
        partial,
      ].join('\r\n'),
    );
    // The client sends nothing more and keeps the socket open: the server must answer and close.
    await closed;
    const answer = Buffer.concat(received).toString('utf8');
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer.toLowerCase()).toContain('connection: close');
    expect(answer).toContain('"code":"request_timeout"');
    expect(await fixture.pointsOf(fixture.devices.idle.id)).toEqual([]);
  });
});
