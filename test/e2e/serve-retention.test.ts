/**
 * D42, D43 with `fleet-hours serve` as a real process on an embedded database: started with
 * `FLEET_HOURS_TELEMETRY_RETENTION_DAYS`, its maintenance drops at once the monthly partition of
 * points older than the horizon (logged), keeps the device's hours, and every ingestion route it
 * serves refuses an older point with 409 `beyond_retention`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { jsonLines, runCliJson, startServe } from '../support/cli.js';

const work = mkdtempSync(join(tmpdir(), 'fleet-hours-e2e-retention-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('serve with a telemetry retention (D43)', { timeout: 180_000 }, () => {
  it('drops the old month in its maintenance, keeps the hours, and refuses an older point with 409', async () => {
    const cli = <T>(args: readonly string[]) => runCliJson<T>([...args, '--data-dir', 'data'], { cwd: work });
    const account = await cli<{ id: number }>(['accounts', 'create', '--name', 'Acme']);
    const device = await cli<{ id: number; imei: string }>([
      'devices',
      'create',
      '--account',
      String(account.id),
      '--name',
      'Truck',
      '--imei',
      '356307042441013',
      '--model',
      'FMB920',
      '--timezone',
      'UTC',
    ]);
    const { token } = await cli<{ token: string }>(['ingest-tokens', 'create', '--account', String(account.id)]);
    // An hour of engine time a year ago, as points of one month.
    const start = Date.UTC(new Date().getUTCFullYear() - 1, new Date().getUTCMonth(), 10, 8) / 1000;
    const month = new Date(start * 1000).toISOString().slice(0, 7).replace('-', '');
    const lines = Array.from({ length: 61 }, (_, index) =>
      JSON.stringify({ time: new Date((start + index * 60) * 1000).toISOString(), ignition: true, speed_kmh: 30 }),
    );
    writeFileSync(join(work, 'old.ndjson'), `${lines.join('\n')}\n`);
    await cli(['import', 'telemetry', '--device', String(device.id), 'old.ndjson']);
    const meter = await cli<{ engine_seconds: number }>(['meter', '--device', String(device.id)]);
    // The newest point counts for up to 300 s more (D22).
    expect(meter.engine_seconds).toBe(3_900);

    const server = await startServe(['--data-dir', 'data'], { cwd: work, env: { FLEET_HOURS_TELEMETRY_RETENTION_DAYS: '90' } });
    try {
      await expect
        .poll(() => jsonLines(server.stdout()).find((line) => line.msg === 'telemetry maintenance')?.dropped, { timeout: 30_000 })
        .toEqual([`telemetry_points_p${month}`]);
      const old = await fetch(`${server.url}/ingest/v1/telemetry`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/x-ndjson' },
        body: JSON.stringify({ imei: device.imei, time: new Date((start + 7_200) * 1000).toISOString(), ignition: true, speed_kmh: 3 }),
      });
      expect(old.status).toBe(409);
      expect(((await old.json()) as { error: { code: string; message: string } }).error).toMatchObject({
        code: 'beyond_retention',
        message: expect.stringContaining('is older than the retention horizon'),
      });
    } finally {
      await server.stop();
    }
    // The hours stay: the meter reads segments and totals, not points.
    expect(await cli<{ engine_seconds: number }>(['meter', '--device', String(device.id)])).toMatchObject({ engine_seconds: 3_900 });
  });
});
