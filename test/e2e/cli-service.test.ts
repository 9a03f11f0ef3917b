/**
 * D38 and D39 as an operator manages them, as real processes: hour-meter readings (a lower one
 * stored with a note), service schedules created, serviced, changed, listed with a status filter
 * and removed, every `--json` document parsed and checked to the second; and every bad input
 * refused with its exit code and a message naming the option, with nothing written.
 *
 * One database for the file (a PostgreSQL server with DATABASE_URL, else an embedded data
 * directory), and few processes: each that opens the database costs about a second (PGlite:
 * several). The refusals that need no database run a few at a time.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, runCli, runCliJson, type CliResult } from '../support/cli.js';

/** Truck 14's engine time, New York in January (-05:00): 27,000 s in four segments. */
const SEGMENTS = [
  { started_at: '2025-01-10T08:00:00-05:00', ended_at: '2025-01-10T10:00:00-05:00', state: 'moving' }, // 7200 s
  { started_at: '2025-01-10T10:00:00-05:00', ended_at: '2025-01-10T10:30:00-05:00', state: 'idle' }, // 1800 s
  { started_at: '2025-01-12T08:00:00-05:00', ended_at: '2025-01-12T12:00:00-05:00', state: 'moving' }, // 14,400 s
  { started_at: '2025-01-14T08:00:00-05:00', ended_at: '2025-01-14T09:00:00-05:00', state: 'idle' }, // 3600 s
]
  .map((segment) => JSON.stringify(segment))
  .join('\n');

const HOUR = 3600;

interface Reading {
  id: number;
  device_id: number;
  read_at: string;
  reading_seconds: number;
  recorded_at: string;
}
interface Schedule {
  id: number;
  name: string;
  last_done_at: string;
  [field: string]: unknown;
}
interface ServiceBody {
  device_id: number;
  timezone: string;
  as_of: string;
  hour_meter_seconds: number;
  data: Schedule[];
}

const adminUrl = process.env.DATABASE_URL;

/** A schedule as the service body lists it: `service create|update` print its device too. */
function withoutDevice({ device_id: _, ...schedule }: Schedule): Omit<Schedule, 'device_id'> {
  return schedule;
}

describe(`D38 D39 fleet-hours hour-meter and service: ${adminUrl ? 'PostgreSQL server' : 'embedded PGlite'}`, { timeout: 240_000 }, () => {
  let args: readonly string[];
  let cleanup: () => Promise<void>;
  let work: string;
  const cli = (command: readonly string[]): Promise<CliResult> => runCli([...command, ...args], { cwd: work });
  const cliJson = <T>(command: readonly string[]): Promise<T> => runCliJson<T>([...command, ...args], { cwd: work });

  let truck: number;
  let van: number;
  let first: Reading;
  let oil: Schedule;
  let filter: Schedule;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'fleet-hours-e2e-service-'));
    if (adminUrl) {
      const database = await createTestDatabase(adminUrl);
      args = ['--database-url', database.url];
      cleanup = () => database.drop();
    } else {
      args = ['--data-dir', join(work, 'data')];
      cleanup = async () => {};
    }
    const account = await cliJson<{ id: number }>(['accounts', 'create', '--name', 'Acme']);
    const device = (name: string, imei: string, zone: string) =>
      cliJson<{ id: number }>([
        'devices',
        'create',
        '--account',
        String(account.id),
        '--name',
        name,
        '--imei',
        imei,
        '--model',
        'FMB920',
        '--timezone',
        zone,
      ]);
    truck = (await device('Truck 14', '356307042441013', 'America/New_York')).id;
    van = (await device('Van 3', '356307042441021', 'Europe/Berlin')).id;
    writeFileSync(join(work, 'truck.ndjson'), SEGMENTS);
    expect((await cli(['import', 'segments', '--device', String(truck), 'truck.ndjson'])).code).toBe(0);
  }, 240_000);
  afterAll(async () => {
    await cleanup?.();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('D38 hour-meter set stores a reading in the device zone; a lower one than the reading before it is stored with a note (exit 0)', async () => {
    first = await cliJson<Reading>(['hour-meter', 'set', '--device', String(truck), '--reading', '1000h', '--at', '2025-01-09T17:00:00Z']);
    expect(first).toEqual({
      id: expect.any(Number),
      device_id: truck,
      read_at: '2025-01-09T12:00:00-05:00',
      reading_seconds: 1000 * HOUR,
      // As the API shows it (P76): its source and its version (D54).
      source: 'manual',
      recorded_at: expect.stringMatching(/-0[45]:00$/),
      version: expect.stringMatching(/^r-[0-9a-f]{16}$/),
    });
    const lower = await cli(['hour-meter', 'set', '--device', String(truck), '--reading', '990h', '--at', '2025-01-13T12:00:00-05:00']);
    expect(lower.code).toBe(0);
    expect(lower.stdout).toMatch(
      new RegExp(`^Recorded hour-meter reading \\d+ of Truck 14 \\(device ${truck}\\): 990:00 at 2025-01-13T12:00:00-05:00\\.\\n`),
    );
    // 990 h at the reading, then the last segment's hour.
    expect(lower.stdout).toContain('Hour meter now: 991:00 (from the reading at 2025-01-13T12:00:00-05:00).');
    expect(lower.stderr).toBe(
      'Note: 990:00 at 2025-01-13T12:00:00-05:00 is lower than the reading before it, 1,000:00 at 2025-01-09T12:00:00-05:00 ' +
        '(a replaced hour meter?): from this instant on the hour meter counts from the new reading.\n',
    );
  });

  it('D39 service create: the last service given (hour meter too) or now (its hour meter computed); defaults a tenth of each interval', async () => {
    oil = await cliJson<Schedule>([
      'service',
      'create',
      '--device',
      String(truck),
      '--name',
      'Engine oil',
      '--every',
      '250h',
      '--every-days',
      '30',
      '--due-soon',
      '10h',
      '--due-soon-days',
      '5',
      '--last-done-at',
      '2025-01-09T12:00:00-05:00',
      '--last-done-hours',
      '800h',
    ]);
    expect(oil).toEqual({
      device_id: truck,
      id: expect.any(Number),
      name: 'Engine oil',
      interval_seconds: 250 * HOUR,
      interval_days: 30,
      due_soon_seconds: 10 * HOUR,
      due_soon_days: 5,
      last_done_at: '2025-01-09T12:00:00-05:00',
      last_done_hour_meter_seconds: 800 * HOUR,
      due_hour_meter_seconds: 1050 * HOUR,
      due_date: '2025-02-08',
      remaining_seconds: 59 * HOUR,
      remaining_days: expect.any(Number),
      status: 'overdue',
      // P101: its version, as the API's writes and /service show it.
      version: expect.stringMatching(/^s-[0-9a-f]{16}$/),
    });
    expect(oil.remaining_days).toBeLessThan(-600);
    filter = await cliJson<Schedule>(['service', 'create', '--device', String(truck), '--name', 'Air filter', '--every', '1.5h']);
    expect(filter).toMatchObject({
      interval_seconds: 5400,
      interval_days: null,
      due_soon_seconds: 540,
      due_soon_days: null,
      last_done_hour_meter_seconds: 991 * HOUR,
      due_hour_meter_seconds: 991 * HOUR + 5400,
      remaining_seconds: 5400,
      status: 'ok',
    });
  });

  it('D38 hour-meter list shows the readings newest first; remove takes one away and the hour meter counts from the one before', async () => {
    const listed = await cliJson<{ device_id: number; timezone: string; data: Reading[] }>([
      'hour-meter',
      'list',
      '--device',
      String(truck),
    ]);
    expect(listed.timezone).toBe('America/New_York');
    expect(listed.data.map(({ read_at, reading_seconds }) => [read_at, reading_seconds])).toEqual([
      ['2025-01-13T12:00:00-05:00', 990 * HOUR],
      ['2025-01-09T12:00:00-05:00', 1000 * HOUR],
    ]);
    expect(listed.data[1]).toEqual(first);
    const removed = await cliJson<Reading>(['hour-meter', 'remove', '--device', String(truck), '--id', String(listed.data[0]!.id)]);
    expect(removed).toEqual(listed.data[0]);
  });

  it('D39 service done takes the hour meter at that instant; update changes the intervals; every value is computed at read time', async () => {
    // 1000 h at the reading, then 2 h moving, 30 min idle and 2 h of the third segment.
    const done = await cli(['service', 'done', '--id', String(oil.id), '--at', '2025-01-12T10:00:00-05:00']);
    expect(done).toMatchObject({ code: 0, stderr: '' });
    expect(done.stdout).toMatch(
      new RegExp(
        `^Recorded a service at 2025-01-12T10:00:00-05:00: the hour meter then read 1,004:30\\.\\n` +
          `Service schedule ${oil.id} "Engine oil" of Truck 14 \\(device ${truck}\\): overdue\\n`,
      ),
    );
    expect(done.stdout).toContain('  due        at 1,254:30 or on 2025-02-11\n');
    const updated = await cliJson<Schedule>(['service', 'update', '--id', String(filter.id), '--every', '7h', '--due-soon', '420m']);
    // The reading removed above: the filter's last service (at its creation) now reads 1000 h + all 27,000 s.
    expect(updated).toEqual({
      ...filter,
      interval_seconds: 7 * HOUR,
      due_soon_seconds: 7 * HOUR,
      last_done_hour_meter_seconds: 1000 * HOUR + 27_000,
      due_hour_meter_seconds: 1007 * HOUR + 27_000,
      remaining_seconds: 7 * HOUR,
      status: 'due_soon',
      // P101: a change of the schedule is a new version.
      version: expect.not.stringMatching(`^${filter.version}$`),
    });
    filter = updated;
  });

  let before: { service: { data: ServiceBody[] }; readings: unknown };
  it('D39 service list: every device, or those with a schedule in --status; text as a table in h:mm and days', async () => {
    const truckBody = {
      device_id: truck,
      timezone: 'America/New_York',
      as_of: expect.stringMatching(/-0[45]:00$/),
      hour_meter_seconds: 1000 * HOUR + 27_000,
      data: [
        {
          ...withoutDevice(oil),
          last_done_at: '2025-01-12T10:00:00-05:00',
          last_done_hour_meter_seconds: 1000 * HOUR + 16_200,
          due_hour_meter_seconds: 1250 * HOUR + 16_200,
          due_date: '2025-02-11',
          remaining_seconds: 247 * HOUR,
          remaining_days: expect.any(Number),
          // P101: the service recorded is a change of the schedule: a new version.
          version: expect.not.stringMatching(`^${oil.version}$`),
        },
        withoutDevice(filter),
      ],
    };
    const dueSoon = await cliJson<{ data: ServiceBody[] }>(['service', 'list', '--status', 'due_soon, overdue']);
    expect(dueSoon).toEqual({ data: [truckBody] });

    const all = await cliJson<{ data: ServiceBody[] }>(['service', 'list']);
    expect(all.data.map((body) => [body.device_id, body.timezone, body.data.length])).toEqual([
      [truck, 'America/New_York', 2],
      [van, 'Europe/Berlin', 0],
    ]);
    expect(all.data[0]).toEqual(truckBody);

    const table = await cli(['service', 'list', '--status', 'overdue']);
    expect(table).toMatchObject({ code: 0, stderr: '' });
    const lines = table.stdout.split('\n');
    expect(lines[1]).toMatch(/^DEVICE +VEHICLE +HOUR METER +ID +SCHEDULE +STATUS +DUE AT +REMAINING +DUE DATE +DAYS LEFT$/);
    expect(lines[2]).toMatch(
      new RegExp(` *${truck} +Truck 14 +1,007:30 +${oil.id} +Engine oil +overdue +1,254:30 +247:00 +2025-02-11 +-\\d{3,}$`),
    );
    expect(lines[3]).toMatch(new RegExp(` *${truck} +Truck 14 +1,007:30 +${filter.id} +Air filter +due_soon +1,014:30 +7:00 +- +-$`));
    before = { service: all, readings: await cliJson(['hour-meter', 'list', '--device', String(truck)]) };
  });

  it('every bad input exits 1 (a refused value) or 2 (a malformed one) with a message naming the option, and writes nothing', async () => {
    const truckId = String(truck);
    const create = ['service', 'create', '--device', truckId, '--name', 'Oil'];
    // Refused before the database is opened: these run a few at a time.
    const early: [string[], number, RegExp][] = [
      [
        ['hour-meter', 'set', '--device', truckId, '--reading', '12x'],
        2,
        /--reading must be a duration such as 250h, 90m or 3600s, got "12x"/,
      ],
      [
        ['hour-meter', 'set', '--device', truckId, '--reading', '10h', '--at', '2025-01-09T12:00:00'],
        2,
        /--at "2025-01-09T12:00:00" has no offset/,
      ],
      [
        ['hour-meter', 'set', '--device', truckId, '--reading', '10h', '--at', '2999-01-01T00:00:00Z'],
        1,
        /--at must be an instant that is not in the future/,
      ],
      [['hour-meter', 'set', '--device', truckId, '--reading=-5h'], 1, /--reading must be a duration from 0 to \d+h\n/],
      [[...create, '--every', '0h'], 1, /--every must be a duration above 0 and at most \d+h\n/],
      [[...create, '--every=-250h'], 1, /--every must be a duration above 0 and at most \d+h\n/],
      [[...create, '--every', '250'], 2, /--every 250: give a unit: 250h, 250m or 250s/],
      [[...create, '--every', '250m', '--due-soon', '300'], 2, /--due-soon 300: give a unit: 300h, 300m or 300s/],
      [[...create, '--every', '10h', '--due-soon', '11h'], 1, /--due-soon \(11h\) must not be larger than --every \(10h\)/],
      [[...create, '--every', '600m', '--due-soon', '11h'], 1, /--due-soon \(11h\) must not be larger than --every \(600m\)/],
      [[...create, '--every', '10h', '--due-soon-days', '3'], 1, /--due-soon-days needs a calendar interval \(--every-days\)/],
      [[...create, '--every', '10h', '--every-days', '0'], 1, /--every-days must be a whole number of days above 0/],
      [
        [...create, '--every', '10h', '--last-done-at', '2999-01-01T00:00:00Z'],
        1,
        /--last-done-at must be an instant that is not in the future/,
      ],
      [[...create, '--every', '10h', '--last-done-hours', '800h'], 2, /--last-done-hours needs --last-done-at/],
      [[...create, '--every', '10h', '--last-done-at', '2025-01-09'], 2, /--last-done-at "2025-01-09" has no offset/],
      [[...create, '--every', '0.5s'], 2, /--every must come to whole seconds, got "0.5s"/],
      [['service', 'create', '--device', truckId, '--name', '  ', '--every', '10h'], 1, /--name must be between 1 and 200 characters/],
      [['service', 'list', '--status', 'late'], 2, /--status "late" is not one of ok, due_soon, overdue/],
      [['service', 'list', '--device', truckId, '--status', 'overdue'], 2, /--status picks devices of a fleet: give it without --device/],
      [['service', 'update', '--id', String(oil.id)], 2, /Nothing to change: give at least one of --name, --every/],
      [['service', 'done', '--id', String(oil.id), '--at', 'yesterday'], 2, /--at must be an ISO 8601 instant with an offset/],
    ];
    // Refused once the stored data is read: one at a time (an embedded database has one process at a time).
    const late: [string[], number, RegExp][] = [
      [[...create, '--every', '10h'].map((arg) => (arg === truckId ? '999999' : arg)), 1, /^fleet-hours: No device with id 999999\n$/],
      [
        ['hour-meter', 'remove', '--device', String(van), '--id', String(first.id)],
        1,
        new RegExp(`^fleet-hours: Device ${van} has no hour-meter reading with id ${first.id}\\n$`),
      ],
      [['service', 'update', '--id', '999999', '--name', 'Oil'], 1, /^fleet-hours: No service schedule with id 999999\n$/],
      [
        ['service', 'done', '--id', String(oil.id), '--at', '2999-01-01T00:00:00Z'],
        1,
        /^fleet-hours: --at must be an instant that is not in the future\n$/,
      ],
      [
        ['service', 'update', '--id', String(filter.id), '--every', '5h'],
        1,
        /^fleet-hours: --due-soon \(7h\) must not be larger than --every \(5h\)\n$/,
      ],
    ];
    const check = (result: CliResult, [command, code, message]: [string[], number, RegExp]) => {
      expect({ code: result.code, stdout: result.stdout }, command.join(' ')).toEqual({ code, stdout: '' });
      expect(result.stderr, command.join(' ')).toMatch(message);
      if (code === 2) expect(result.stderr, command.join(' ')).toMatch(/Run "fleet-hours (hour-meter|service) \w+ --help" for usage\.\n$/);
    };
    for (let start = 0; start < early.length; start += 4) {
      const batch = early.slice(start, start + 4);
      const results = await Promise.all(batch.map(([command]) => cli([...command, '--json'])));
      results.forEach((result, index) => check(result, batch[index]!));
    }
    for (const refusal of late) check(await cli([...refusal[0], '--json']), refusal);

    const asOfAside = (list: { data: ServiceBody[] }) => list.data.map((body) => ({ ...body, as_of: undefined }));
    const after = {
      service: await cliJson<{ data: ServiceBody[] }>(['service', 'list']),
      readings: await cliJson(['hour-meter', 'list', '--device', truckId]),
    };
    expect(asOfAside(after.service)).toEqual(asOfAside(before.service));
    expect(after.readings).toEqual(before.readings);
  });

  it('D39 service remove prints the schedule as it stood; service list --device then shows the rest', async () => {
    const removed = await cliJson<Schedule>(['service', 'remove', '--id', String(filter.id)]);
    expect(removed).toMatchObject({ device_id: truck, id: filter.id, name: 'Air filter', status: 'due_soon' });
    const body = await cliJson<ServiceBody>(['service', 'list', '--device', String(truck)]);
    expect(body).toEqual({ ...before.service.data[0], as_of: expect.any(String), data: [before.service.data[0]!.data[0]] });
  });
});
