/**
 * D60 (P144) as an operator reads utilization, as real processes: `fleet-hours utilization` of a
 * device, of an account's every device and per tag, as a table, as the API's JSON and as its CSV;
 * the figures of one week checked against a count by hand of the segments and the calendar; a
 * wrong command line refused naming the option, exit 2.
 *
 * One database for the file (a PostgreSQL server with DATABASE_URL, else an embedded data directory).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, runCli, runCliJson, type CliResult } from '../support/cli.js';

const DAY = [['07:00', '17:00']];
const HOUR = 3600;
const adminUrl = process.env.DATABASE_URL;
const WEEK = ['--from', '2026-11-02', '--to', '2026-11-08', '--group-by', 'week'];

const segment = (started_at: string, ended_at: string, state: 'moving' | 'idle') => JSON.stringify({ started_at, ended_at, state });

describe(`D60 fleet-hours utilization: ${adminUrl ? 'PostgreSQL server' : 'embedded PGlite'}`, { timeout: 240_000 }, () => {
  let args: readonly string[];
  let cleanup: () => Promise<void>;
  let work: string;
  let account: number;
  let berlin: number;
  let london: number;
  const cli = (command: readonly string[], input?: string): Promise<CliResult> =>
    runCli([...command, ...args], { cwd: work, ...(input === undefined ? {} : { input }) });
  const cliJson = <T>(command: readonly string[]): Promise<T> => runCliJson<T>([...command, ...args], { cwd: work });
  const device = async (name: string, imei: string, timeZone: string, tags: string) =>
    (
      await cliJson<{ id: number }>([
        ...['devices', 'create', '--account', String(account), '--name', name, '--imei', imei],
        ...['--model', 'FMB920', '--timezone', timeZone, '--tags', tags],
      ])
    ).id;
  const importSegments = async (id: number, lines: string[]) => {
    const imported = await cli(['import', 'segments', '--device', String(id), '--format', 'ndjson', '-'], lines.join('\n'));
    expect([imported.code, imported.stderr]).toEqual([0, '']);
  };

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'fleet-hours-e2e-utilization-'));
    if (adminUrl) {
      const database = await createTestDatabase(adminUrl);
      args = ['--database-url', database.url];
      cleanup = () => database.drop();
    } else {
      args = ['--data-dir', join(work, 'data')];
      cleanup = async () => {};
    }
    account = (await cliJson<{ id: number }>(['accounts', 'create', '--name', 'Acme'])).id;
    berlin = await device('Loader 1', '356307042441013', 'Europe/Berlin', 'north');
    london = await device('Truck 2', '356307042441021', 'UTC', 'north,=yard');
    // Week 2026-W45 in Berlin (UTC+1): Monday 06:00–09:00 moving, Tuesday 16:00–20:00 idle, Saturday 10:00–11:00 moving.
    await importSegments(berlin, [
      segment('2026-11-02T06:00:00+01:00', '2026-11-02T09:00:00+01:00', 'moving'),
      segment('2026-11-03T16:00:00+01:00', '2026-11-03T20:00:00+01:00', 'idle'),
      segment('2026-11-07T10:00:00+01:00', '2026-11-07T11:00:00+01:00', 'moving'),
    ]);
    // Wednesday 08:00–10:00 UTC moving, all inside the calendar.
    await importSegments(london, [segment('2026-11-04T08:00:00Z', '2026-11-04T10:00:00Z', 'moving')]);
    const calendar = join(work, 'weekdays.json');
    writeFileSync(calendar, JSON.stringify({ weekly: { mon: DAY, tue: DAY, wed: DAY, thu: DAY, fri: DAY, sat: [], sun: [] } }));
    const set = await cli(['calendar', 'set', '--account', String(account), '--file', calendar]);
    expect([set.code, set.stderr]).toEqual([0, '']);
  }, 240_000);
  afterAll(async () => {
    await cleanup?.();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("P144: a device's week as a table, its figures those counted by hand from the segments and the calendar; --json is the API's body", async () => {
    // By hand: Monday 3 h (07:00–09:00 inside, 06:00–07:00 outside), Tuesday 4 h idle (16:00–17:00 inside), Saturday 1 h
    // outside; scheduled five days of 10 h. Utilization 3 h / 50 h = 6 %, idle share 4 h / 8 h = 50 %.
    const oracle = { engine: 8 * HOUR, inside: 3 * HOUR, outside: 5 * HOUR, scheduled: 50 * HOUR, idle: 4 * HOUR, days: 3 };
    const text = await cli(['utilization', '--device', String(berlin), ...WEEK]);
    expect([text.code, text.stderr]).toEqual([0, '']);
    expect(text.stdout).toBe(
      [
        `Loader 1 (device ${berlin}), local days in Europe/Berlin from 2026-11-02T00:00:00+01:00 to 2026-11-08T23:59:59+01:00, by week`,
        'PERIOD    FROM        TO           ENGINE  IN SCHEDULE  OUTSIDE  SCHEDULED  DAYS USED  UTILIZATION  IDLE SHARE',
        '2026-W45  2026-11-02  2026-11-08  8:00:00      3:00:00  5:00:00   50:00:00          3         6.0%       50.0%',
        '',
      ].join('\n'),
    );
    const body = await cliJson<{ data: Record<string, unknown>[] }>(['utilization', '--device', String(berlin), ...WEEK]);
    expect(body).toMatchObject({ device_id: berlin, timezone: 'Europe/Berlin', group_by: 'week' });
    expect(body.data).toEqual([
      {
        ...{ period: '2026-W45', from: '2026-11-02', to: '2026-11-08', engine_seconds: oracle.engine },
        ...{ moving_seconds: oracle.engine - oracle.idle, idle_seconds: oracle.idle, scheduled_seconds: oracle.scheduled },
        ...{ engine_in_schedule_seconds: oracle.inside, engine_outside_schedule_seconds: oracle.outside, days_used: oracle.days },
        ...{ utilization: oracle.inside / oracle.scheduled, idle_share: oracle.idle / oracle.engine },
      },
    ]);
    // --format json prints the same document.
    const formatted = await cli(['utilization', '--device', String(berlin), ...WEEK, '--format', 'json']);
    expect(JSON.parse(formatted.stdout)).toEqual(body);
  });

  it('P144, P146: the account as CSV (CRLF kept as pairs), one row per device per period with the API columns; per tag, a tag beginning with "=" guarded', async () => {
    const fleet = await cli(['utilization', '--account', String(account), ...WEEK, '--format', 'csv']);
    expect([fleet.code, fleet.stderr]).toEqual([0, '']);
    const lines = fleet.stdout.split('\r\n');
    expect(lines).toEqual([
      'device_id,timezone,from,to,group_by,data.period,data.from,data.to,data.engine_seconds,data.moving_seconds,data.idle_seconds,' +
        'data.scheduled_seconds,data.engine_in_schedule_seconds,data.engine_outside_schedule_seconds,data.days_used,data.utilization,data.idle_share',
      `${berlin},Europe/Berlin,2026-11-02T00:00:00+01:00,2026-11-08T23:59:59+01:00,week,2026-W45,2026-11-02,2026-11-08,28800,14400,14400,180000,10800,18000,3,0.06,0.5`,
      `${london},UTC,2026-11-02T00:00:00+00:00,2026-11-08T23:59:59+00:00,week,2026-W45,2026-11-02,2026-11-08,7200,7200,0,180000,7200,0,1,0.04,0`,
      '',
    ]);
    const byTag = await cli(['utilization', '--account', String(account), '--by', 'tag', ...WEEK, '--format', 'csv']);
    expect(byTag.stdout.split('\r\n').slice(1)).toEqual([
      "'=yard,1,week,2026-W45,2026-11-02,2026-11-08,7200,7200,0,180000,7200,0,1,0.04,0",
      'north,2,week,2026-W45,2026-11-02,2026-11-08,36000,21600,14400,360000,18000,18000,4,0.05,0.4',
      '',
    ]);
    const table = await cli(['utilization', '--account', String(account), '--tag', '=yard', ...WEEK]);
    expect(table.stdout.split('\n').slice(0, 3)).toEqual([
      `Utilization per device, account ${account}, tag =yard, by week`,
      'DEVICE  ZONE  PERIOD    FROM        TO           ENGINE  IN SCHEDULE  OUTSIDE  SCHEDULED  DAYS USED  UTILIZATION  IDLE SHARE',
      `${String(london).padStart(6)}  UTC   2026-W45  2026-11-02  2026-11-08  2:00:00      2:00:00  0:00:00   50:00:00          1         4.0%        0.0%`,
    ]);
  });

  it('P144: a missing or bad option is refused naming it, exit 2; an unknown device exit 1', async () => {
    for (const [command, message] of [
      [['utilization', ...WEEK], 'Give either --device ID'],
      [['utilization', '--device', String(berlin), '--account', String(account)], 'Give either --device ID'],
      [['utilization', '--device', String(berlin), '--group-by', 'year'], '--group-by "year" must be one of day, week, month'],
      [['utilization', '--account', String(account), '--by', 'vehicle'], '--by "vehicle" must be one of device, tag'],
      [['utilization', '--device', String(berlin), '--by', 'tag'], '--by applies to --account'],
      [['utilization', '--device', String(berlin), '--format', 'xml'], '--format "xml" must be one of table, json, csv'],
      [['utilization', '--device', String(berlin), '--from', '2026-02-30'], '--from'],
    ] as const) {
      const refused = await cli(command);
      expect([command, refused.code, refused.stdout]).toEqual([command, 2, '']);
      expect(refused.stderr).toContain(message);
    }
    const missing = await cli(['utilization', '--device', '999', ...WEEK]);
    expect([missing.code, missing.stderr]).toEqual([1, 'fleet-hours: No device with id 999\n']);
  });
});
