/**
 * D36 `fleet-hours verify [--device ID] [--json] [--repair]` as an operator runs it, as real
 * processes: telemetry imported through the CLI agrees with its sources (exit 0); a telemetry
 * segment deleted and `last_reported_at` moved with SQL behind Fleet Hours' back are named with
 * their seconds (exit 1, text and one JSON document); `--repair` fixes them and verifies again
 * (exit 0); a missing device is exit 1, a malformed id exit 2.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runCliJson } from '../support/cli.js';
import { describeOnEveryDatabase, type SqlTarget } from '../support/sql-targets.js';

/** In UTC: idle 240 s, moving 300 s, idle 300 s, moving 300 s (06:40–06:45), engine off, idle 300 s live (D22): 600 s moving, 840 s idle. */
const TELEMETRY_CSV = [
  'time,ignition,speed_kmh',
  '2025-03-10T06:00:00Z,true,0',
  '2025-03-10T06:04:00Z,true,32.5',
  '2025-03-10T06:20:00Z,true,4.9',
  '2025-03-10T06:40:00Z,true,60',
  '2025-03-10T06:50:00Z,false,0',
  '2025-03-10T07:30:00Z,true,0',
].join('\n');

function describeVerify(name: string, makeBackend: () => Promise<SqlTarget>): void {
  describe(`D36 fleet-hours verify: ${name}`, { timeout: 120_000 }, () => {
    let backend: SqlTarget;
    let work: string;
    let deviceId: number;
    const cli = (args: readonly string[]) => runCli([...args, ...backend.args], { cwd: work });

    beforeAll(async () => {
      backend = await makeBackend();
      work = mkdtempSync(join(tmpdir(), 'fleet-hours-e2e-verify-'));
      const account = await runCliJson<{ id: number }>(['accounts', 'create', '--name', 'Acme', ...backend.args], { cwd: work });
      const device = await runCliJson<{ id: number }>(
        [
          'devices',
          'create',
          '--account',
          String(account.id),
          '--name',
          'Tractor',
          '--imei',
          '356307042441013',
          '--model',
          'FMB920',
          '--timezone',
          'UTC',
          ...backend.args,
        ],
        { cwd: work },
      );
      deviceId = device.id;
      writeFileSync(join(work, 'telemetry.csv'), TELEMETRY_CSV);
      expect((await cli(['import', 'telemetry', '--device', String(deviceId), 'telemetry.csv'])).code).toBe(0);
    });
    afterAll(async () => {
      await backend?.cleanup();
      if (work) rmSync(work, { recursive: true, force: true });
    });

    it('D36: verify exits 0 when every derived datum agrees with its source', async () => {
      expect(await cli(['verify'])).toMatchObject({
        code: 0,
        stderr: '',
        stdout: 'All derived data of 1 device agrees with its sources.\n',
      });
      expect(await runCliJson(['verify', ...backend.args], { cwd: work })).toEqual({ checked: 1, consistent: true, devices: [] });
    });

    it('D36: a telemetry segment deleted and last_reported_at moved with SQL are named with their seconds (exit 1); --repair fixes them (exit 0)', async () => {
      await backend.execute(`delete from engine_segments where started_at = '2025-03-10T06:40:00Z'`);
      await backend.execute(`update device_states set last_reported_at = last_reported_at - interval '1 hour'`);

      const text = await cli(['verify', '--device', String(deviceId)]);
      expect(text).toMatchObject({ code: 1, stderr: '' });
      expect(text.stdout).toContain(`1 of 1 device differ from their sources (4 differences):\n`);
      expect(text.stdout).toContain(
        `  device ${deviceId}, telemetry segments 2025-03-10T06:40:00Z to 2025-03-10T06:45:00Z: points say moving 300 s, idle 0 s, stored moving 0 s, idle 0 s (stored -300 s)\n`,
      );
      expect(text.stdout).toContain(
        `  device ${deviceId}, day from 2025-03-10T00:00:00Z: segments say moving 300 s, idle 840 s, stored moving 600 s, idle 840 s (stored +300 s)\n`,
      );
      expect(text.stdout).toContain(
        `  device ${deviceId}, lifetime totals: segments say moving 300 s, idle 840 s, stored moving 600 s, idle 840 s (stored +300 s)\n`,
      );
      expect(text.stdout).toContain(
        `  device ${deviceId}, last_reported_at 2025-03-10T06:30:00Z, newest point or imported instant 2025-03-10T07:30:00Z (-3600 s)\n`,
      );
      expect(text.stdout).toContain(`Repair with: fleet-hours verify --repair --device ${deviceId}\n`);

      const json = await cli(['verify', '--json']);
      expect(json).toMatchObject({ code: 1, stderr: '' });
      expect(JSON.parse(json.stdout)).toEqual({
        checked: 1,
        consistent: false,
        devices: [
          {
            device_id: deviceId,
            omitted: 0,
            differences: [
              {
                kind: 'telemetry_segments',
                start: '2025-03-10T06:40:00Z',
                end: '2025-03-10T06:45:00Z',
                expected: { moving_seconds: 300, idle_seconds: 0 },
                stored: { moving_seconds: 0, idle_seconds: 0 },
                difference: { moving_seconds: -300, idle_seconds: 0 },
              },
              {
                kind: 'day',
                day_start: '2025-03-10T00:00:00Z',
                expected: { day_start: '2025-03-10T00:00:00Z', day_end: '2025-03-11T00:00:00Z', moving_seconds: 300, idle_seconds: 840 },
                stored: { day_start: '2025-03-10T00:00:00Z', day_end: '2025-03-11T00:00:00Z', moving_seconds: 600, idle_seconds: 840 },
                difference: { moving_seconds: 300, idle_seconds: 0 },
              },
              {
                kind: 'totals',
                expected: { moving_seconds: 300, idle_seconds: 840 },
                stored: { moving_seconds: 600, idle_seconds: 840 },
                difference: { moving_seconds: 300, idle_seconds: 0 },
              },
              { kind: 'last_reported_at', expected: '2025-03-10T07:30:00Z', stored: '2025-03-10T06:30:00Z', difference_seconds: -3600 },
            ],
          },
        ],
      });

      // The segment comes back from the points, so the figures match it again: what was repaired is the segment and the record.
      const repaired = await cli(['verify', '--repair']);
      expect(repaired).toMatchObject({ code: 0, stderr: '' });
      expect(repaired.stdout).toBe(
        [
          `Repaired 1 device of 1 (2 differences):`,
          `  device ${deviceId}, telemetry segments 2025-03-10T06:40:00Z to 2025-03-10T06:45:00Z: points say moving 300 s, idle 0 s, stored moving 0 s, idle 0 s (stored -300 s)`,
          `  device ${deviceId}, last_reported_at 2025-03-10T06:30:00Z, newest point or imported instant 2025-03-10T07:30:00Z (-3600 s)`,
          `All derived data of 1 device agrees with its sources.`,
          '',
        ].join('\n'),
      );
      expect(await cli(['verify'])).toMatchObject({ code: 0 });
      expect(await runCliJson(['verify', '--repair', ...backend.args], { cwd: work })).toEqual({
        checked: 1,
        consistent: true,
        repaired: [],
        devices: [],
      });
    });

    it('D36: the figures commands remain and agree; --device of a missing device is exit 1, a malformed one exit 2', async () => {
      expect(await cli(['figures', 'verify'])).toMatchObject({ code: 0, stdout: 'The daily figures of 1 device match their segments.\n' });
      expect(await cli(['verify', '--device', '999999'])).toMatchObject({
        code: 1,
        stdout: '',
        stderr: 'fleet-hours: No device with id 999999\n',
      });
      expect(await cli(['verify', '--device', '999999', '--repair', '--json'])).toMatchObject({
        code: 1,
        stdout: '',
        stderr: 'fleet-hours: No device with id 999999\n',
      });
      expect((await cli(['verify', '--device', 'x'])).code).toBe(2);
    });
  });
}

describeOnEveryDatabase('D36 fleet-hours verify', describeVerify);
