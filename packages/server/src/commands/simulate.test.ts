import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliHarness } from '../testing/cli-harness.js';
import { readSimulateOptions } from './simulate.js';

/** A real socket that answers every ingestion request 200 (or 401 for another token) and keeps what it got. */
let server: Server;
let url: string;
const received: { method: string; path: string; body: string; authorization: string | undefined }[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      received.push({ method: request.method!, path: request.url!, body, authorization: request.headers.authorization });
      const token = request.url!.startsWith('/ingest/osmand/')
        ? request.url!.split('/')[3]!.split('?')[0]
        : request.headers.authorization?.slice('Bearer '.length);
      if (token !== 'fhi_good') {
        response
          .writeHead(401, { 'Content-Type': 'application/json' })
          .end(JSON.stringify({ error: { status: 401, code: 'unknown_ingest_token', message: 'Unknown ingest token' } }));
        return;
      }
      const points = request.url!.startsWith('/ingest/v1/') ? body.split('\n').filter((line) => line !== '').length : 1;
      response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ accepted: points, duplicates: 0, devices: [] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

// The harness's clock is 2026-03-15T12:00:00Z: the backfills below are in its past.
const cli = createCliHarness();

describe('fleet-hours simulate', () => {
  it('backfills over a real socket and prints one JSON summary with what the server should hold', async () => {
    received.length = 0;
    const result = await cli.run([
      'simulate',
      '--url',
      url,
      '--token',
      'fhi_good',
      '--protocol',
      'traccar',
      '--vehicles',
      '2',
      '--backfill',
      '2026-03-10T07:00:00Z..2026-03-10T08:00:00Z',
      '--shift-start',
      'now',
      '--interval',
      '30',
      '--json',
    ]);
    expect(result.stderr).toContain('Simulating 2 vehicles over traccar');
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.stdout) as Record<string, unknown> & { devices: Record<string, unknown>[] };
    expect(summary).toMatchObject({
      protocol: 'traccar',
      mode: 'backfill',
      from: '2026-03-10T07:00:00+00:00',
      to: '2026-03-10T08:00:00+00:00',
      errors: [],
      stopped_because: null,
    });
    expect(summary.sent).toBe(received.length);
    expect(summary.accepted).toBe(received.length);
    expect(summary.devices.map((device) => device.imei)).toEqual(['356307042500001', '356307042500002']);
    expect(summary.devices[0]!.engine_seconds as number).toBeGreaterThan(1800);
    expect(
      received.every(
        (request) => request.method === 'POST' && request.path === '/ingest/traccar' && request.authorization === 'Bearer fhi_good',
      ),
    ).toBe(true);
  });

  it('prints a readable summary without --json, and exits 1 when the token is refused', async () => {
    const result = await cli.run([
      'simulate',
      '--url',
      url,
      '--token',
      'fhi_bad',
      '--protocol',
      'osmand',
      '--backfill',
      '2026-03-09..2026-03-09',
      '--concurrency',
      '1',
    ]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('Stopped     The server refused the ingest token (401 unknown_ingest_token): Unknown ingest token');
    expect(result.stdout).toMatch(/Error\s+1 × 401 unknown_ingest_token/);
  });

  it('takes the token from FLEET_HOURS_INGEST_TOKEN', async () => {
    const result = await cli.run(
      ['simulate', '--url', url, '--count', '5', '--backfill', '2026-03-10T07:00:00Z..2026-03-10T08:00:00Z', '--json'],
      {
        env: { FLEET_HOURS_INGEST_TOKEN: 'fhi_good' },
      },
    );
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ generated: 5, accepted: 5 });
  });

  it.each([
    [['--database-url', 'postgres://x@127.0.0.1/y'], 'simulate talks to a server over HTTP'],
    [['--protocol', 'mqtt'], 'Unknown protocol "mqtt": use native, traccar, osmand'],
    [['--protocol', 'osmand', '--device-ids', '3,4'], '--device-ids works with --protocol native only'],
    [['--vehicles', '3', '--imeis', '1,2'], '--vehicles 3 does not match the 2 IMEIs given'],
    [['--backfill', '2026-03-10'], '--backfill must be FROM..TO'],
    [['--backfill', '2026-03-20..2026-03-21'], '--backfill must span some time before now'],
    [['--realtime', '--backfill', '2026-03-01..2026-03-02'], 'Give --realtime or --backfill, not both'],
    [['--shuffle', '1.5'], '--shuffle must be a fraction from 0 to 1, got "1.5"'],
    [['--interval', '0.5'], '--interval must be a whole number > 0, got "0.5"'],
    [['--batch-size', '20000'], '--batch-size must be at most 10000'],
    [['--method', 'POST'], '--method is for --protocol osmand only'],
  ])('refuses %j with exit code 2', async (args, message) => {
    const result = await cli.run(['simulate', '--token', 'fhi_good', ...args]);
    expect(result.stderr).toContain(message);
    expect(result.code).toBe(2);
  });

  it('needs a token', async () => {
    const result = await cli.run(['simulate', '--url', url]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--token (or FLEET_HOURS_INGEST_TOKEN) must not be empty');
  });
});

describe('readSimulateOptions()', () => {
  const io = { env: {}, now: () => Date.UTC(2026, 10, 23, 12) };
  it('gives each vehicle a 15-digit IMEI from the prefix, and live --rate sets the interval (one report per vehicle and second at most, D21)', () => {
    const options = readSimulateOptions({ token: 'fhi_x', vehicles: '20', rate: '4', 'imei-prefix': '8615850408' }, io);
    expect(options.devices.map((device) => device.imei)).toContain('861585040800020');
    expect(options.devices.every((device) => device.imei!.length === 15)).toBe(true);
    expect(options.intervalSeconds).toBe(5);
    expect(options.timing).toEqual({ kind: 'realtime' });
    expect(options.shiftStart).toBe('now');
    expect(readSimulateOptions({ token: 'fhi_x', vehicles: '2', rate: '1000' }, io).intervalSeconds).toBe(1);
  });

  it('reads a backfill of local dates in --timezone, both included, capped at now', () => {
    const options = readSimulateOptions({ token: 'fhi_x', backfill: '2026-11-16..2026-11-30', timezone: 'Europe/Berlin' }, io);
    expect(options.timing).toEqual({ kind: 'backfill', from: Date.UTC(2026, 10, 15, 23) / 1000, to: Date.UTC(2026, 10, 23, 12) / 1000 });
    expect(options.shiftStart).toBe('schedule');
  });

  it('reads a backfill of dates written with slashes, as its help allows', () => {
    const slashed = readSimulateOptions({ token: 'fhi_x', backfill: '2026/11/16..2026/11/20', timezone: 'Europe/Berlin' }, io);
    expect(slashed.timing).toEqual(
      readSimulateOptions({ token: 'fhi_x', backfill: '2026-11-16..2026-11-20', timezone: 'Europe/Berlin' }, io).timing,
    );
    expect(slashed.timing).toEqual({ kind: 'backfill', from: Date.UTC(2026, 10, 15, 23) / 1000, to: Date.UTC(2026, 10, 20, 23) / 1000 });
  });
});

describe('simulate --backfill: its message and its help name the same forms', () => {
  const cli = createCliHarness({ now: Date.UTC(2026, 10, 23, 12) });
  const forms = 'dates YYYY-MM-DD or YYYY/MM/DD (local days of --timezone, both included) or ISO 8601 instants with an offset';

  it('refuses what is neither a date nor an instant, naming the forms the help names', async () => {
    const refused = await cli.run(['simulate', '--token', 'fhi_x', '--backfill', '16.11.2026..20.11.2026']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`--backfill: "16.11.2026" is neither a date nor an instant: FROM and TO are ${forms}`);
    expect(refused.stderr).not.toContain('must be an ISO 8601 instant');
    const help = await cli.run(['simulate', '--help']);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain(
      `--backfill FROM..TO Historic reports, sent as fast as allowed: FROM and TO are ${forms}`,
    );
  });
});
