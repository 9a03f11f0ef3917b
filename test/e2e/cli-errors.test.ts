import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';

// Failures that need no database: each of these processes ends before PGlite would start.
const work = mkdtempSync(join(tmpdir(), 'fleet-hours-e2e-errors-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('fleet-hours failures, as real processes', () => {
  it('--help exits 0 with help on stdout; a wrong command line exits 2 with the message on stderr', async () => {
    const help = await runCli(['import', 'telemetry', '--help'], { cwd: work });
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toContain('Usage: fleet-hours import telemetry FILE --device ID [options]');
    const wrong = await runCli(['devices', 'create', '--account', '1'], { cwd: work });
    expect(wrong).toMatchObject({ code: 2, stdout: '' });
    expect(wrong.stderr).toBe('fleet-hours: Missing option --name\nRun "fleet-hours devices create --help" for usage.\n');
  });

  it('an unreachable PostgreSQL server fails with exit 1 and a message without the password', async () => {
    const result = await runCli(['accounts', 'list', '--json'], {
      cwd: work,
      env: { DATABASE_URL: 'postgres://fleet:s3cret@127.0.0.1:1/fleet_hours' },
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^fleet-hours: Cannot open the database \(PostgreSQL postgres:\/\/fleet:\*\*\*@127\.0\.0\.1:1\/fleet_hours\): .*ECONNREFUSED/,
    );
    expect(result.stderr).not.toContain('s3cret');
  });

  it('refuses a --data-dir that holds other files, and a file that is missing', async () => {
    writeFileSync(join(work, 'notes.txt'), 'not a database');
    const foreign = await runCli(['accounts', 'list', '--data-dir', '.'], { cwd: work });
    expect(foreign).toMatchObject({ code: 1, stdout: '' });
    expect(foreign.stderr).toContain('is not empty and holds no embedded database');
    const missing = await runCli(['import', 'segments', '--device', '1', 'nowhere.ndjson', '--data-dir', 'data'], { cwd: work });
    expect(missing).toEqual({ code: 1, signal: null, stdout: '', stderr: 'fleet-hours: Cannot read nowhere.ndjson: no such file\n' });
  });
});
