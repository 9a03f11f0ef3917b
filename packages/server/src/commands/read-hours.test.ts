import { describe, expect, it } from 'vitest';
import { createCliHarness } from '../testing/cli-harness.js';

const segment = (started_at: string, ended_at: string | null, state: 'moving' | 'idle') => JSON.stringify({ started_at, ended_at, state });

/** A New York truck with engine time on the 25-hour day 2026-11-01 and the day after. */
async function truckFixture() {
  // 2026-11-05T12:00Z: the window's defaults end here.
  const cli = createCliHarness({ now: Date.UTC(2026, 10, 5, 12, 0, 0) });
  await cli.json(['accounts', 'create', '--name', 'Acme']);
  await cli.json([
    'devices',
    'create',
    '--account',
    '1',
    '--name',
    'Truck 14',
    '--imei',
    '356307042441013',
    '--model',
    'FMB920',
    '--timezone',
    'America/New_York',
  ]);
  const segments = [
    segment('2026-11-01T00:30:00-04:00', '2026-11-01T01:30:00-05:00', 'moving'), // 7200 s across the repeated hour
    segment('2026-11-02T08:00:00-05:00', '2026-11-02T08:30:00-05:00', 'idle'), // 1800 s
  ].join('\n');
  const imported = await cli.run(['import', 'segments', '--device', '1', '--format', 'ndjson', '-'], { stdin: segments });
  expect(imported.code).toBe(0);
  return cli;
}

describe('fleet-hours hours, daily and meter', () => {
  it('hours prints the window in the device zone and its seconds; --json is the API body', async () => {
    const cli = await truckFixture();
    const text = await cli.run(['hours', '--device', '1', '--from', '2026-11-01', '--to', '2026-11-01']);
    expect(text).toEqual({
      code: 0,
      stderr: '',
      stdout: [
        'Truck 14 (device 1), local days in America/New_York',
        '  from    2026-11-01T00:00:00-04:00',
        '  to      2026-11-01T23:59:59-05:00',
        '  engine     2:00:00  (7,200 s)',
        '  moving     2:00:00  (7,200 s)',
        '  idle       0:00:00  (0 s)',
        '',
      ].join('\n'),
    });
    expect(await cli.json(['hours', '--device', '1', '--from', '2026-11-01', '--to', '2026-11-02'])).toEqual({
      device_id: 1,
      from: '2026-11-01T00:00:00-04:00',
      to: '2026-11-02T23:59:59-05:00',
      timezone: 'America/New_York',
      engine_seconds: 9000,
      moving_seconds: 7200,
      idle_seconds: 1800,
    });
  });

  it('hours without dates reads the last 7 local days up to now, as the API does', async () => {
    const cli = await truckFixture();
    const body = await cli.json<{ from: string; to: string; engine_seconds: number }>(['hours', '--device', '1']);
    expect(body).toMatchObject({ from: '2026-10-29T00:00:00-04:00', to: '2026-11-05T07:00:00-05:00', engine_seconds: 9000 });
  });

  it('daily prints one table row per local day; --json is the API body', async () => {
    const cli = await truckFixture();
    const text = await cli.run(['daily', '--device', '1', '--from', '2026-10-31', '--to', '2026-11-02']);
    expect(text.code).toBe(0);
    expect(text.stdout).toBe(
      [
        'Truck 14 (device 1), local days in America/New_York from 2026-10-31T00:00:00-04:00 to 2026-11-02T23:59:59-05:00 (h:mm:ss)',
        'DATE         ENGINE   MOVING     IDLE',
        '2026-10-31  0:00:00  0:00:00  0:00:00',
        '2026-11-01  2:00:00  2:00:00  0:00:00',
        '2026-11-02  0:30:00  0:00:00  0:30:00',
        '',
      ].join('\n'),
    );
    const body = await cli.json<{ data: unknown[] }>(['daily', '--device', '1', '--from', '2026-11-01', '--to', '2026-11-01']);
    expect(body).toEqual({
      device_id: 1,
      timezone: 'America/New_York',
      from: '2026-11-01T00:00:00-04:00',
      to: '2026-11-01T23:59:59-05:00',
      // D59: the 25-hour day's length; no calendar, so every engine second is outside one.
      data: [
        expect.objectContaining({
          ...{ date: '2026-11-01', engine_seconds: 7200, moving_seconds: 7200, idle_seconds: 0, day_seconds: 90_000 },
          ...{ scheduled_seconds: 0, engine_in_schedule_seconds: 0, engine_outside_schedule_seconds: 7200 },
        }),
      ],
    });
  });

  it('meter prints the running total since the first segment; --json is the API body, with the hour meter (D38)', async () => {
    const cli = await truckFixture();
    expect(await cli.json(['meter', '--device', '1'])).toEqual({
      device_id: 1,
      timezone: 'America/New_York',
      since: '2026-11-01T00:30:00-04:00',
      as_of: '2026-11-05T07:00:00-05:00',
      engine_seconds: 9000,
      moving_seconds: 7200,
      idle_seconds: 1800,
      // No reading: the hour meter is the meter, uncalibrated.
      hour_meter_seconds: 9000,
      hour_meter_read_at: null,
    });
    const text = await cli.run(['meter', '--device', '1']);
    expect(text.stdout).toContain('  since   2026-11-01T00:30:00-04:00\n');
    expect(text.stdout).toContain('  engine     2:30:00  (9,000 s)\n');
    expect(text.stdout).toContain('  hour meter 2:30 h, uncalibrated (no reading: the meter above)\n');
  });

  it('an unknown device is a failure (exit 1); a bad date is a usage error naming the option (exit 2)', async () => {
    const cli = await truckFixture();
    for (const command of ['hours', 'daily', 'meter']) {
      expect(await cli.run([command, '--device', '99'])).toEqual({ code: 1, stdout: '', stderr: 'fleet-hours: No device with id 99\n' });
    }
    const malformed = await cli.run(['daily', '--device', '1', '--from', '2026/11/01']);
    expect(malformed).toMatchObject({ code: 2, stdout: '' });
    expect(malformed.stderr).toBe(
      'fleet-hours: Cannot parse --from "2026/11/01": expected a date as YYYY-MM-DD\nRun "fleet-hours daily --help" for usage.\n',
    );
    const noSuchDay = await cli.run(['hours', '--device', '1', '--to', '2026-02-30']);
    expect(noSuchDay).toMatchObject({ code: 2, stderr: expect.stringContaining('Cannot parse --to "2026-02-30": no such day') });
    const reversed = await cli.run(['hours', '--device', '1', '--from', '2026-11-03', '--to', '2026-11-01']);
    expect(reversed).toMatchObject({ code: 2, stderr: expect.stringContaining('--from "2026-11-03" is after --to "2026-11-01"') });
    const future = await cli.run(['hours', '--device', '1', '--from', '2026-12-01']);
    expect(future).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--from "2026-12-01" is after today (2026-11-05) in America/New_York'),
    });
  });

  it('a bad date is refused before the database is opened', async () => {
    const cli = createCliHarness();
    expect((await cli.run(['hours', '--device', '1', '--from', 'yesterday'])).code).toBe(2);
    expect(cli.opened).toEqual([]);
  });
});
