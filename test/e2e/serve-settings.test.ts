/**
 * D30, P29, P31: `fleet-hours serve` as a real process — every setting from a flag or a
 * FLEET_HOURS_ variable, listed by --help with its default; the probes; JSON log lines only, a
 * failed start included.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_PATH, cleanEnv, jsonLines, runCli, startServe, type CliServer } from '../support/cli.js';

const work = mkdtempSync(join(tmpdir(), 'fleet-hours-e2e-settings-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A port nothing listens on right now. */
async function freePort(): Promise<number> {
  const probe: Server = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe('fleet-hours serve settings, probes and logs, as real processes', { timeout: 120_000 }, () => {
  it('serve --help lists every setting with its default and its FLEET_HOURS_ variable (D30)', async () => {
    const help = await runCli(['serve', '--help'], { cwd: work });
    expect(help).toMatchObject({ code: 0, stderr: '' });
    const text = help.stdout.replace(/\n {6,}/g, ' ');
    for (const [flag, shown, env] of [
      ['--port PORT', '8080', 'FLEET_HOURS_PORT'],
      ['--host HOST', '127.0.0.1', 'FLEET_HOURS_HOST'],
      ['--rate-limit-devices N', '120', 'FLEET_HOURS_RATE_LIMIT_DEVICES'],
      ['--rate-limit-hours N', '30', 'FLEET_HOURS_RATE_LIMIT_HOURS'],
      ['--rate-limit-fleet-meter N', '60', 'FLEET_HOURS_RATE_LIMIT_FLEET_METER'],
      ['--rate-limit-ingest N', '6000', 'FLEET_HOURS_RATE_LIMIT_INGEST'],
      ['--rate-limit-unauthenticated N', '30', 'FLEET_HOURS_RATE_LIMIT_UNAUTHENTICATED'],
      ['--trusted-proxy-hops N', '0', 'FLEET_HOURS_TRUSTED_PROXY_HOPS'],
      ['--max-header-bytes BYTES', '16384', 'FLEET_HOURS_MAX_HEADER_BYTES'],
      ['--log-level LEVEL', 'info', 'FLEET_HOURS_LOG_LEVEL'],
      ['--metrics-port PORT', 'off', 'FLEET_HOURS_METRICS_PORT'],
      ['--query-timeout SECONDS', '5', 'FLEET_HOURS_QUERY_TIMEOUT'],
      ['--pool-size N', '10', 'FLEET_HOURS_POOL_SIZE'],
      ['--max-in-flight N', '64', 'FLEET_HOURS_MAX_IN_FLIGHT'],
    ] as const) {
      expect(text, flag).toMatch(new RegExp(`\\n  ${flag.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} .*Default ${shown}; env ${env}\\.\\n`));
    }
  });

  describe('a server started with flags and variables', () => {
    let server: CliServer;
    beforeAll(async () => {
      server = await startServe(['--data-dir', 'data', '--rate-limit-unauthenticated', '3', '--trusted-proxy-hops', '1'], {
        cwd: work,
        // The flag wins over its variable; the others come from the environment.
        env: { FLEET_HOURS_RATE_LIMIT_UNAUTHENTICATED: '50', FLEET_HOURS_METRICS_PORT: '0', FLEET_HOURS_LOG_LEVEL: 'debug' },
      });
    });
    afterAll(async () => {
      await server?.stop();
    });

    it('applies them: the limit of the flag, the client address from X-Forwarded-For, metrics on their own port', async () => {
      const refused = await fetch(`${server.url}/api/v1/devices`, { headers: { 'X-Forwarded-For': '6.6.6.6, 203.0.113.9' } });
      expect([refused.status, refused.headers.get('X-RateLimit-Limit'), refused.headers.get('X-RateLimit-Remaining')]).toEqual([
        401,
        '3',
        '2',
      ]);
      const listening = jsonLines(server.stdout()).find((line) => line.msg === 'listening')!;
      expect(listening.metrics_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      const metrics = await (await fetch(String(listening.metrics_url))).text();
      expect(metrics).toContain('fleet_hours_http_requests_total{method="GET",route="/api/v1/devices",status="401"} 1');
      const starting = jsonLines(server.stdout()).find((line) => line.msg === 'starting')!;
      expect(starting.settings).toMatchObject({
        'rate-limit-unauthenticated': 3,
        'trusted-proxy-hops': 1,
        'metrics-port': 0,
        'log-level': 'debug',
        port: 0,
      });
      await expect
        .poll(() =>
          jsonLines(server.stdout())
            .filter((line) => line.msg === 'request')
            .map((line) => line.client_address),
        )
        .toEqual(['203.0.113.9']);
    });

    it('answers the probes without a key, uncounted, logged at debug (D30, P27)', async () => {
      for (const [path, body] of [
        ['/healthz', { status: 'ok' }],
        ['/readyz', { status: 'ready' }],
      ] as const) {
        const response = await fetch(`${server.url}${path}`);
        expect([path, response.status, await response.json(), response.headers.get('X-RateLimit-Remaining')]).toEqual([
          path,
          200,
          body,
          null,
        ]);
      }
      await expect
        .poll(() =>
          jsonLines(server.stdout())
            .filter((line) => line.route === '/healthz' || line.route === '/readyz')
            .map((line) => [line.route, line.level]),
        )
        .toEqual([
          ['/healthz', 'debug'],
          ['/readyz', 'debug'],
        ]);
    });

    it('answers a request Node refuses with the JSON body (D29)', async () => {
      const response = await fetch(`${server.url}/api/v1/devices`, { headers: { 'X-Padding': 'a'.repeat(20_000) } });
      expect(response.status).toBe(431);
      expect(await response.json()).toEqual({
        error: { status: 431, code: 'headers_too_large', message: 'The request line and headers are larger than 16384 bytes' },
      });
    });

    it('prints nothing but JSON lines, each with time, level and msg (P31)', () => {
      const lines = jsonLines(server.stdout());
      expect(lines.length).toBeGreaterThanOrEqual(5);
      for (const line of lines) expect(Object.keys(line).slice(0, 2)).toEqual(['time', 'level']);
      for (const line of lines) expect(typeof line.msg).toBe('string');
      expect(server.stderr()).toBe('');
    });
  });

  it('--log-level warn drops the request lines; the server still answers', async () => {
    // At warn not even the "listening" line is printed: the test picks the port and asks /healthz.
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const child = spawn(process.execPath, [CLI_PATH, 'serve', '--data-dir', 'data', '--port', String(port), '--log-level', 'warn'], {
      cwd: work,
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (output += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (output += text));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    try {
      await expect
        .poll(
          () =>
            fetch(`${url}/healthz`).then(
              (response) => response.status,
              () => 0,
            ),
          { timeout: 60_000, interval: 200 },
        )
        .toBe(200);
      expect((await fetch(`${url}/api/v1/devices`)).status).toBe(401);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(output).toBe('');
  });

  it('a port in use is a JSON error line on stdout and exit 1, nothing on stderr (P31)', async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const result = await runCli(['serve', '--data-dir', 'data'], { cwd: work, env: { FLEET_HOURS_PORT: String(port) } });
      expect([result.code, result.stderr]).toEqual([1, '']);
      const lines = jsonLines(result.stdout);
      expect(lines.at(-1)).toMatchObject({
        level: 'error',
        msg: 'startup failed',
        error: `Cannot listen on 127.0.0.1:${port}: the port is in use (choose another with --port)`,
      });
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('a bad setting is a JSON error line naming its variable, and exit 2 (P29, P31)', async () => {
    const result = await runCli(['serve', '--data-dir', 'data'], { cwd: work, env: { FLEET_HOURS_RATE_LIMIT_HOURS: 'many' } });
    expect([result.code, result.stderr]).toEqual([2, '']);
    expect(jsonLines(result.stdout)).toEqual([
      {
        time: expect.any(String),
        level: 'error',
        msg: 'startup failed',
        error: 'FLEET_HOURS_RATE_LIMIT_HOURS must be a whole number ≥ 1, got "many"',
      },
    ]);
  });
});
