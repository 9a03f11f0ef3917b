/**
 * D42, D43 with `fleet-hours serve` as a real process on an embedded database: started with
 * `FLEET_HOURS_TELEMETRY_RETENTION_DAYS`, its maintenance drops at once the monthly partition of
 * points older than the horizon (logged), keeps the device's hours, and every ingestion route it
 * serves refuses an older point with 409 `beyond_retention`.
 *
 * D45: the horizon then belongs to the data: `import telemetry` (which has no retention setting)
 * refuses a point of the dropped month naming FILE:LINE, and so does a server started without the
 * setting (409); the hours stay as they were.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { jsonLines, runCli, runCliJson, startServe } from '../support/cli.js';

const work = mkdtempSync(join(tmpdir(), 'fleet-hours-e2e-retention-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('serve with a telemetry retention (D43, D45)', { timeout: 240_000 }, () => {
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

    // D45: the lone point inside the dropped month, by the CLI, which has no retention setting.
    const lateTime = new Date((start + 630) * 1000).toISOString();
    writeFileSync(join(work, 'late.ndjson'), `${JSON.stringify({ time: lateTime, ignition: true, speed_kmh: 3 })}\n`);
    const imported = await runCli(['import', 'telemetry', '--device', String(device.id), 'late.ndjson', '--data-dir', 'data'], {
      cwd: work,
    });
    expect([imported.code, imported.stderr]).toEqual([
      1,
      expect.stringMatching(
        new RegExp(
          `^late\\.ndjson:1: Field time ${lateTime.replace('.000Z', 'Z')} is older than the retention horizon \\d{4}-\\d\\d-01T00:00:00Z`,
        ),
      ),
    ]);
    // And by a server started without the setting.
    const plain = await startServe(['--data-dir', 'data'], { cwd: work });
    try {
      const refused = await fetch(`${plain.url}/ingest/v1/telemetry`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/x-ndjson' },
        body: JSON.stringify({ imei: device.imei, time: lateTime, ignition: true, speed_kmh: 3 }),
      });
      expect(refused.status).toBe(409);
      expect(((await refused.json()) as { error: { code: string; message: string } }).error).toMatchObject({
        code: 'beyond_retention',
        message: expect.stringContaining('line 1: time '),
      });
    } finally {
      await plain.stop();
    }
    expect(await cli<{ engine_seconds: number }>(['meter', '--device', String(device.id)])).toMatchObject({ engine_seconds: 3_900 });
  });
});
