import { describe, expect, it } from 'vitest';
import { createCliHarness } from '../testing/cli-harness.js';

const HOUR = 3600;

/**
 * The hour-meter and service commands in-process, over a memory store with a fixed clock: what the
 * end-to-end test (test/e2e/cli-service.test.ts) leaves to the cheaper run — accounts, keywords,
 * replacing a reading, the texts with nothing to show.
 */
describe('fleet-hours hour-meter and service (D38, D39)', () => {
  // A fresh memory store per test: two accounts, a device in each.
  const setUp = async () => {
    const cli = createCliHarness({ now: Date.UTC(2026, 10, 25, 15) });
    await cli.json(['accounts', 'create', '--name', 'Acme']);
    await cli.json(['accounts', 'create', '--name', 'Rival']);
    const device = (account: number, name: string, imei: string) =>
      cli.json<{ id: number }>([
        'devices',
        'create',
        '--account',
        String(account),
        '--name',
        name,
        '--imei',
        imei,
        '--model',
        'M',
        '--timezone',
        'Europe/Berlin',
      ]);
    return { cli, truck: (await device(1, 'Truck', '356307042441013')).id, rival: (await device(2, 'Rival van', '356307042441021')).id };
  };

  it('D38 a reading at an instant that has one replaces it; the texts say so, and what the hour meter reads now', async () => {
    const { cli, truck } = await setUp();
    expect((await cli.run(['hour-meter', 'list', '--device', String(truck)])).stdout).toBe(
      `Truck (device ${truck}) has no hour-meter readings. Record one with: fleet-hours hour-meter set --help\n` +
        'Hour meter now: 0:00 (no reading yet: the engine time since the first report).\n',
    );
    const set = ['hour-meter', 'set', '--device', String(truck), '--at', '2026-11-20T08:00:00+01:00', '--reading'];
    const first = await cli.json<{ id: number }>([...set, '100h']);
    const again = await cli.run([...set, '120.5h']);
    expect(again).toEqual({
      code: 0,
      stdout:
        `Replaced hour-meter reading ${first.id} of Truck (device ${truck}): 120:30 at 2026-11-20T08:00:00+01:00.\n` +
        'Hour meter now: 120:30 (from the reading at 2026-11-20T08:00:00+01:00).\n',
      stderr: '',
    });
    expect(await cli.json(['hour-meter', 'list', '--device', String(truck)])).toEqual({
      device_id: truck,
      timezone: 'Europe/Berlin',
      data: [
        {
          id: first.id,
          device_id: truck,
          read_at: '2026-11-20T08:00:00+01:00',
          reading_seconds: 120.5 * HOUR,
          // As the API shows it (P76): its source and its version (D54).
          source: 'manual',
          recorded_at: '2026-11-25T16:00:00+01:00',
          version: expect.stringMatching(/^r-[0-9a-f]{16}$/),
        },
      ],
    });
  });

  it('D39 service update: none removes the calendar interval and its margin, default puts a margin back to a tenth', async () => {
    const { cli, truck } = await setUp();
    const created = await cli.json<{ id: number }>([
      'service',
      'create',
      '--device',
      String(truck),
      '--name',
      'Oil',
      '--every',
      '100h',
      '--every-days',
      '90',
      '--due-soon',
      '20h',
      '--due-soon-days',
      '30',
    ]);
    expect(await cli.json(['service', 'update', '--id', String(created.id), '--every-days', 'none'])).toMatchObject({
      interval_days: null,
      due_soon_days: null,
      due_date: null,
      due_soon_seconds: 20 * HOUR,
    });
    expect(await cli.json(['service', 'update', '--id', String(created.id), '--due-soon', 'default', '--every-days', '60'])).toMatchObject({
      interval_days: 60,
      due_soon_seconds: 10 * HOUR,
      due_soon_days: 6,
      due_date: '2027-01-24',
    });
    const refused = await cli.run(['service', 'update', '--id', String(created.id), '--due-soon-days', '61']);
    expect(refused).toEqual({
      code: 1,
      stdout: '',
      stderr: 'fleet-hours: --due-soon-days (61 days) must not be larger than --every-days (60 days)\n',
    });
  });

  it('D39 durations cannot trap: a bare number is refused with the units to choose from, and a refusal answers in the unit typed', async () => {
    const { cli, truck } = await setUp();
    const create = ['service', 'create', '--device', String(truck), '--name', 'Oil'];
    expect(await cli.run([...create, '--every', '250'])).toEqual({
      code: 2,
      stdout: '',
      stderr: expect.stringContaining('--every 250: give a unit: 250h, 250m or 250s'),
    });
    expect(await cli.run([...create, '--every', '250h', '--due-soon', '300h'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'fleet-hours: --due-soon (300h) must not be larger than --every (250h)\n',
    });
    expect((await cli.run([...create, '--every', '90m', '--due-soon', '2h'])).stderr).toBe(
      'fleet-hours: --due-soon (2h) must not be larger than --every (90m)\n',
    );
    const created = await cli.json<{ id: number }>([...create, '--every', '250h', '--due-soon', '1500m']);
    // Only --every is typed: the stored margin (1500 minutes) is said in its unit too.
    expect((await cli.run(['service', 'update', '--id', String(created.id), '--every', '20h'])).stderr).toBe(
      'fleet-hours: --due-soon (25h) must not be larger than --every (20h)\n',
    );
  });

  it('D39 service list reads every account, or --account alone; an unknown account or device is exit 1, both options exit 2', async () => {
    const { cli, truck, rival } = await setUp();
    await cli.json(['service', 'create', '--device', String(rival), '--name', 'Tyres', '--every', '500h']);
    const everyAccount = await cli.json<{ data: { device_id: number }[] }>(['service', 'list']);
    expect(everyAccount.data.map((body) => body.device_id)).toEqual(expect.arrayContaining([truck, rival]));
    const acme = await cli.json<{ data: { device_id: number }[] }>(['service', 'list', '--account', '1']);
    expect(acme.data.map((body) => body.device_id)).not.toContain(rival);
    expect(await cli.run(['service', 'list', '--account', '99'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'fleet-hours: No account with id 99\n',
    });
    expect(await cli.run(['service', 'list', '--account', '1', '--device', String(truck)])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('Give --device or --account, not both'),
    });
    expect((await cli.run(['service', 'list', '--device', String(truck)])).stdout).toBe(
      `Truck (device ${truck}) has no service schedules. Create one with: fleet-hours service create --help\n`,
    );
    expect((await cli.run(['service', 'list', '--status', 'overdue'])).stdout).toBe('No device has a service schedule that is overdue.\n');
  });

  it('D61 service list --tag keeps the devices having the tag, with --status too; refused with --device', async () => {
    const { cli, truck, rival } = await setUp();
    await cli.json(['devices', 'update', String(truck), '--tag', 'north']);
    await cli.json(['service', 'create', '--device', String(rival), '--name', 'Tyres', '--every', '500h']);
    const north = await cli.json<{ data: { device_id: number }[] }>(['service', 'list', '--tag', 'north']);
    expect(north.data.map((body) => body.device_id)).toEqual([truck]);
    const all = await cli.json<{ data: { device_id: number }[] }>(['service', 'list']);
    expect(all.data.map((body) => body.device_id)).toContain(rival);
    expect((await cli.run(['service', 'list', '--tag', 'North'])).stdout).toBe('No device has the tag "North".\n');
    expect((await cli.run(['service', 'list', '--tag', 'north', '--status', 'overdue'])).stdout).toBe(
      'No device has the tag "north" and such a schedule.\n',
    );
    expect(await cli.run(['service', 'list', '--tag', 'north', '--device', String(truck)])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--tag picks devices of a fleet'),
    });
    expect(await cli.run(['service', 'list', '--tag', ''])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--tag: must not be empty'),
    });
  });
});
