/**
 * `fleet-hours figures verify` and `figures rebuild` (D27) as an operator runs them, as real
 * processes: the figures Fleet Hours keeps match after an import; a change to engine_segments made
 * with SQL behind its back is reported (exit 1) and fixed by a rebuild (exit 0).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runCliJson } from '../support/cli.js';
import { describeOnEveryDatabase, type SqlTarget } from '../support/sql-targets.js';

const SEGMENTS = [
  { started_at: '2018-11-03T23:00:00-03:00', ended_at: '2018-11-04T02:00:00-02:00', state: 'moving' }, // across the skipped midnight
  { started_at: '2018-11-04T09:00:00-02:00', ended_at: '2018-11-04T09:30:00-02:00', state: 'idle' },
]
  .map((segment) => JSON.stringify(segment))
  .join('\n');

function describeFigures(name: string, makeBackend: () => Promise<SqlTarget>): void {
  describe(`fleet-hours figures verify / rebuild: ${name}`, { timeout: 120_000 }, () => {
    let backend: SqlTarget;
    let work: string;
    let deviceId: number;
    const cli = (args: readonly string[]) => runCli([...args, ...backend.args], { cwd: work });

    beforeAll(async () => {
      backend = await makeBackend();
      work = mkdtempSync(join(tmpdir(), 'fleet-hours-e2e-figures-'));
      const account = await runCliJson<{ id: number }>(['accounts', 'create', '--name', 'Acme', ...backend.args], { cwd: work });
      const device = await runCliJson<{ id: number }>(
        [
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
          'America/Sao_Paulo',
          ...backend.args,
        ],
        { cwd: work },
      );
      deviceId = device.id;
      writeFileSync(join(work, 'segments.ndjson'), SEGMENTS);
      expect((await cli(['import', 'segments', '--device', String(deviceId), 'segments.ndjson'])).code).toBe(0);
    });
    afterAll(async () => {
      await backend?.cleanup();
      if (work) rmSync(work, { recursive: true, force: true });
    });

    it('verify: the figures kept by the import match the segments (exit 0)', async () => {
      const result = await cli(['figures', 'verify']);
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(result.stdout).toBe('The daily figures of 1 device match their segments.\n');
    });

    it('verify reports a change made to engine_segments with SQL (exit 1), rebuild fixes it (exit 0), verify is clean again', async () => {
      await backend.execute(`update engine_segments set ended_at = ended_at + interval '1 hour' where state = 'idle'`);
      const text = await cli(['figures', 'verify', '--device', String(deviceId)]);
      expect(text.code).toBe(1);
      expect(text.stdout).toContain(
        `device ${deviceId}, day from 2018-11-04T03:00:00Z: segments say moving 3600 s, idle 5400 s, stored moving 3600 s, idle 1800 s`,
      );
      expect(text.stdout).toContain(`Fix them with: fleet-hours figures rebuild --device ${deviceId}`);
      const json = await cli(['figures', 'verify', '--json']);
      expect(json.code).toBe(1);
      expect(JSON.parse(json.stdout)).toMatchObject({
        checked: [deviceId],
        mismatches: expect.arrayContaining([
          {
            device_id: deviceId,
            kind: 'totals',
            expected: { moving_seconds: 7200, idle_seconds: 5400 },
            stored: { moving_seconds: 7200, idle_seconds: 1800 },
          },
        ]),
      });

      const rebuilt = await cli(['figures', 'rebuild', '--device', String(deviceId)]);
      expect(rebuilt).toMatchObject({ code: 0, stderr: '', stdout: `Rebuilt the daily figures of 1 device (${deviceId}).\n` });
      expect((await cli(['figures', 'verify'])).code).toBe(0);
      expect(await runCliJson(['figures', 'rebuild', ...backend.args], { cwd: work })).toEqual({ rebuilt: [deviceId] });
    });

    it('a device that does not exist is exit 1; a malformed id is exit 2', async () => {
      expect(await cli(['figures', 'verify', '--device', '999999'])).toMatchObject({
        code: 1,
        stderr: 'fleet-hours: No device with id 999999\n',
      });
      expect((await cli(['figures', 'rebuild', '--device', 'x'])).code).toBe(2);
    });
  });
}

describeOnEveryDatabase('fleet-hours figures verify / rebuild', describeFigures);
