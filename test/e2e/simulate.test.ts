/**
 * `fleet-hours simulate` end to end: the built CLI sets up an account, devices and an ingest token
 * on embedded PGlite, `serve` runs, and `simulate` drives vehicles through each ingestion protocol
 * (`docs/ingestion.md`); each device's `/meter` then holds exactly the engine time of what the
 * simulator says the server confirmed (D20–D22).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runCliJson, startServe, type CliServer } from '../support/cli.js';

interface SimulateSummary {
  protocol: string;
  generated: number;
  sent: number;
  repeats: number;
  accepted: number;
  duplicates: number;
  errors: unknown[];
  stopped_because: string | null;
  responses: Record<string, number>;
  latency_ms: { p50: number; p99: number } | null;
  devices: { imei: string; points: number; engine_seconds: number; moving_seconds: number; idle_seconds: number }[];
}

interface Meter {
  engine_seconds: number;
  moving_seconds: number;
  idle_seconds: number;
}

const work = mkdtempSync(join(tmpdir(), 'fleet-hours-e2e-simulate-'));
const dataDir = join(work, 'data');
const cliJson = <T>(args: readonly string[]) => runCliJson<T>([...args, '--data-dir', dataDir], { cwd: work });

/** One IMEI prefix per case, so every case has fresh devices whose meters start at zero. */
const CASES = [
  { protocol: 'native', prefix: '35630704261', vehicles: 2, extra: ['--batch-size', '25'] },
  { protocol: 'traccar', prefix: '35630704262', vehicles: 1, extra: [] },
  { protocol: 'osmand', prefix: '35630704263', vehicles: 1, extra: ['--method', 'GET'] },
  { protocol: 'osmand', prefix: '35630704264', vehicles: 1, extra: ['--method', 'POST'] },
] as const;
const LIVE_PREFIX = '35630704265';

describe('fleet-hours simulate against fleet-hours serve (PGlite)', { timeout: 240_000 }, () => {
  let server: CliServer;
  let key: string;
  let token: string;
  const deviceIds = new Map<string, number>();

  beforeAll(async () => {
    const account = await cliJson<{ id: number }>(['accounts', 'create', '--name', 'Simulated Haulage']);
    key = (await cliJson<{ key: string }>(['keys', 'create', '--account', String(account.id)])).key;
    const created = await cliJson<Record<string, unknown>>([
      'ingest-tokens',
      'create',
      '--account',
      String(account.id),
      '--label',
      'simulator',
    ]);
    token = String(created.token);
    expect(token).toMatch(/^fhi_/);
    const imeis = [
      ...CASES.flatMap((testCase) =>
        Array.from({ length: testCase.vehicles }, (_, index) => `${testCase.prefix}${String(index + 1).padStart(4, '0')}`),
      ),
      `${LIVE_PREFIX}0001`,
    ];
    for (const imei of imeis) {
      const device = await cliJson<{ id: number }>([
        'devices',
        'create',
        '--account',
        String(account.id),
        '--name',
        `Sim ${imei}`,
        '--imei',
        imei,
        '--model',
        'Sim',
        '--timezone',
        'UTC',
      ]);
      deviceIds.set(imei, device.id);
    }
    // PGlite is one process per data directory (P18): the server starts once the setup is done.
    server = await startServe(['--data-dir', dataDir], { cwd: work });
  }, 240_000); // eight CLI processes, each starting PGlite
  afterAll(async () => {
    await server?.stop('SIGTERM');
    rmSync(work, { recursive: true, force: true });
  });

  const meter = async (imei: string): Promise<Meter> => {
    const response = await fetch(`${server.url}/api/v1/devices/${deviceIds.get(imei)}/meter`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    expect(response.status).toBe(200);
    return (await response.json()) as Meter;
  };

  // Two hours of yesterday (UTC), long past: the newest point's live tail (D22) is over, so the meter is final.
  const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  const window = `${yesterday}T08:00:00Z..${yesterday}T10:00:00Z`;

  it.each(CASES)(
    '$protocol $extra: the meter of every simulated device gains exactly what the simulator sent, shuffled and resent',
    async ({ protocol, prefix, vehicles, extra }) => {
      const args = [
        'simulate',
        '--url',
        server.url,
        '--token',
        token,
        '--protocol',
        protocol,
        '--imei-prefix',
        prefix,
        '--vehicles',
        String(vehicles),
      ];
      const run = await runCli(
        [
          ...args,
          '--backfill',
          window,
          '--shift-start',
          'now',
          '--interval',
          '30',
          '--shuffle',
          '0.1',
          '--resend',
          '0.1',
          '--seed',
          '5',
          ...extra,
          '--json',
        ],
        { cwd: work },
      );
      expect(run.stderr).toContain(`over ${protocol} to ${server.url}`);
      expect(run.code, run.stdout).toBe(0);
      const summary = JSON.parse(run.stdout) as SimulateSummary;
      expect(summary).toMatchObject({ protocol, errors: [], stopped_because: null });
      expect(summary.accepted + summary.duplicates).toBe(summary.sent);
      expect(summary.repeats).toBeGreaterThan(0);
      expect(summary.latency_ms!.p99).toBeGreaterThanOrEqual(summary.latency_ms!.p50);
      expect(summary.devices).toHaveLength(vehicles);
      for (const device of summary.devices) {
        expect(device.engine_seconds).toBeGreaterThan(3600);
        expect(await meter(device.imei)).toMatchObject({
          engine_seconds: device.engine_seconds,
          moving_seconds: device.moving_seconds,
          idle_seconds: device.idle_seconds,
        });
      }

      // The same seed again: every point a duplicate, nothing changes (D20, D21).
      const again = await runCli(
        [...args, '--backfill', window, '--shift-start', 'now', '--interval', '30', '--seed', '5', ...extra, '--json'],
        { cwd: work },
      );
      expect(again.code, again.stdout).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({ accepted: 0, duplicates: summary.generated });
      for (const device of summary.devices) expect((await meter(device.imei)).engine_seconds).toBe(device.engine_seconds);
    },
  );

  it('realtime: points stamped now feed the meter while they arrive (D22)', async () => {
    const imei = `${LIVE_PREFIX}0001`;
    const run = await runCli(
      ['simulate', '--url', server.url, '--token', token, '--imeis', imei, '--interval', '1', '--duration', '3', '--json'],
      { cwd: work },
    );
    expect(run.code, run.stdout).toBe(0);
    const summary = JSON.parse(run.stdout) as SimulateSummary;
    expect(summary.accepted).toBeGreaterThanOrEqual(3);
    // Read after the run: at least what the run saw at its end, and the live tail caps the rest at 300 s.
    const engine = (await meter(imei)).engine_seconds;
    expect(engine).toBeGreaterThanOrEqual(summary.devices[0]!.engine_seconds);
    expect(engine).toBeLessThanOrEqual(summary.devices[0]!.engine_seconds + 300);
  });

  it('exits 1 and says why when the token is refused', async () => {
    const run = await runCli(['simulate', '--url', server.url, '--token', 'fhi_not_a_token', '--count', '5', '--backfill', window], {
      cwd: work,
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/Stopped\s+The server refused the ingest token \(401 unknown_ingest_token\)/);
  });
});
