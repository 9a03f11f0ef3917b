import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { connect } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { createFixture } from '../testing/fixture.js';
import { serve, type RunningServer } from './serve.js';

describe('serve()', () => {
  const running: RunningServer[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((server) => server.close()));
  });

  it('serves the app over a real socket on an ephemeral port of 127.0.0.1, then closes', async () => {
    const { app, keys, logs, devices } = await createFixture();
    let closed = 0;
    const server = await serve({ app, port: 0, hostname: '127.0.0.1', handleSignals: false, onClose: () => void (closed += 1) });
    running.push(server);
    expect(server.port).toBeGreaterThan(0);
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);

    const response = await fetch(`${server.url}/api/v1/devices/${devices.newYork.id}/hours?from=2026-11-01&to=2026-11-01`, {
      headers: { Authorization: `Bearer ${keys.acme.key}`, 'X-Request-Id': 'over-the-wire' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('Content-Type')).toBe('application/json; charset=UTF-8');
    expect(response.headers.get('X-RateLimit-Limit')).toBe('30');
    expect(response.headers.get('X-Request-Id')).toBe('over-the-wire');
    expect(((await response.json()) as { engine_seconds: number }).engine_seconds).toBe(90_000);

    // Without a key, the budget is the socket's address (D14).
    const refused = await fetch(`${server.url}/api/v1/devices`);
    expect(refused.status).toBe(401);
    expect(logs.map((entry) => entry.client_address)).toEqual(['127.0.0.1', '127.0.0.1']);

    const head = await fetch(`${server.url}/api/v1/devices/${devices.newYork.id}/meter`, {
      method: 'HEAD',
      headers: { Authorization: `Bearer ${keys.acme.key}` },
    });
    expect([head.status, await head.text()]).toEqual([200, '']);

    await server.close();
    await server.close();
    expect(closed).toBe(1);
    await expect(fetch(`${server.url}/api/v1/devices`)).rejects.toThrow();
  });

  it('answers two Authorization header lines with 401 multiple_credentials, and a path outside the API with counted headers (P22, D31)', async () => {
    const { app, keys, logs } = await createFixture();
    const server = await serve({ app, port: 0, hostname: '127.0.0.1', handleSignals: false });
    running.push(server);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(server.port, '127.0.0.1', () => {
        socket.end(
          `GET /api/v1/devices HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${keys.acme.key}\r\nAuthorization: Bearer ${keys.other.key}\r\nConnection: close\r\n\r\n`,
        );
      });
      let text = '';
      socket
        .setEncoding('utf8')
        .on('data', (chunk: string) => (text += chunk))
        .on('end', () => resolve(text))
        .on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 401 /);
    expect(raw).toContain('"code":"multiple_credentials"');
    expect(raw).toMatch(/x-ratelimit-remaining: 29\r\n/i);

    const outside = await fetch(`${server.url}/api/v2/devices`, { headers: { Authorization: `Bearer ${keys.acme.key}` } });
    expect([outside.status, outside.headers.get('X-RateLimit-Limit'), outside.headers.get('X-RateLimit-Remaining')]).toEqual([
      404,
      '30',
      '28',
    ]);
    expect(logs.map((entry) => [entry.route, entry.status, entry.client_address])).toEqual([
      ['/api/v1/devices', 401, '127.0.0.1'],
      ['*', 404, '127.0.0.1'],
    ]);
  });

  it('lets a request in flight finish when closing, and refuses new connections', async () => {
    let release!: () => void;
    let arrived!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const arrival = new Promise<void>((resolve) => (arrived = resolve));
    const host = new Hono().get('/slow', async (c) => {
      arrived();
      await gate;
      return c.text('finished');
    });
    const server = await serve({ app: host, port: 0, handleSignals: false, shutdownTimeoutMs: 5_000 });
    running.push(server);

    const inFlight = fetch(`${server.url}/slow`).then(async (response) => [response.status, await response.text()]);
    await arrival;
    let closeDone = false;
    const closing = server.close().then(() => (closeDone = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(closeDone).toBe(false);
    await expect(fetch(`${server.url}/slow`)).rejects.toThrow();
    release();
    expect(await inFlight).toEqual([200, 'finished']);
    await closing;
    expect(closeDone).toBe(true);
  });

  it('cuts connections still busy after shutdownTimeoutMs', async () => {
    const host = new Hono().get('/forever', () => new Promise<Response>(() => {}));
    const server = await serve({ app: host, port: 0, handleSignals: false, shutdownTimeoutMs: 100 });
    const hanging = fetch(`${server.url}/forever`).then(
      () => 'answered',
      () => 'cut',
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    await server.close();
    expect(await hanging).toBe('cut');
  });

  it('answers a connection whose headers never finish 408 request_timeout JSON once the default 10 s have passed, and closes it (D37)', async () => {
    const server = await serve({ app: new Hono(), port: 0, handleSignals: false });
    running.push(server);
    const started = performance.now();
    const raw = await new Promise<string>((resolve, reject) => {
      // Nothing but blank lines: Node waits for a request line, and the headers deadline still runs.
      const socket = connect(server.port, '127.0.0.1', () => socket.write('\r\n\r\n'));
      let text = '';
      socket
        .setEncoding('utf8')
        .on('data', (chunk: string) => (text += chunk))
        .on('close', () => resolve(text))
        .on('error', reject);
    });
    const elapsedMs = performance.now() - started;
    expect(raw).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n[\s\S]*\r\nConnection: close\r\n[\s\S]*"code":"request_timeout"/);
    expect(elapsedMs).toBeGreaterThanOrEqual(9_900);
    expect(elapsedMs).toBeLessThan(11_000);
  }, 20_000);

  it('rejects when the port is taken', async () => {
    const first = await serve({ app: new Hono(), port: 0, handleSignals: false });
    running.push(first);
    await expect(serve({ app: new Hono(), port: first.port, handleSignals: false })).rejects.toMatchObject({ code: 'EADDRINUSE' });
  });

  it('closes gracefully on SIGTERM, runs onClose, and exits with code 0', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'fleet-hours-serve-'));
    try {
      const script = join(directory, 'server.mts');
      const serveModule = fileURLToPath(new URL('./serve.ts', import.meta.url));
      writeFileSync(
        script,
        [
          `import { serve } from ${JSON.stringify(serveModule)};`,
          `const app = { fetch: () => new Response('ok') };`,
          `const server = await serve({ app: app as never, port: 0, onClose: () => { console.log('onClose ran'); } });`,
          `console.log('listening ' + server.url);`,
          `setInterval(() => {}, 1000);`,
        ].join('\n'),
      );
      const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));

      for (let wait = 0; wait < 300 && !output.includes('listening '); wait += 1) await new Promise((resolve) => setTimeout(resolve, 50));
      const url = /listening (\S+)/.exec(output)?.[1];
      expect(url, output).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(await (await fetch(url!)).text()).toBe('ok');

      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(output).toContain('onClose ran');
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
