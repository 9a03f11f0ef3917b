/**
 * D58 (P114) as an operator manages work calendars, as real processes: `calendar set` of an
 * account's default and of a device's own from a JSON file, `calendar show` (text and `--json`,
 * the API's body), `calendar remove`; every bad file refused with its name, the field's path and
 * exit 1, a wrong command line with exit 2, nothing written; each change in the change log with
 * actor `cli` (D55).
 *
 * One database for the file (a PostgreSQL server with DATABASE_URL, else an embedded data directory).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, runCli, runCliJson, type CliResult } from '../support/cli.js';

const DAY = [['07:00', '17:00']];
const WEEKLY = { mon: DAY, tue: DAY, wed: DAY, thu: DAY, fri: DAY, sat: [['07:00', '12:00']], sun: [] };
const NIGHTS = { ...WEEKLY, fri: [['22:00', '06:00']] };
const adminUrl = process.env.DATABASE_URL;

describe(`D58 fleet-hours calendar: ${adminUrl ? 'PostgreSQL server' : 'embedded PGlite'}`, { timeout: 240_000 }, () => {
  let args: readonly string[];
  let cleanup: () => Promise<void>;
  let work: string;
  let account: number;
  let truck: number;
  const cli = (command: readonly string[]): Promise<CliResult> => runCli([...command, ...args], { cwd: work });
  const cliJson = <T>(command: readonly string[]): Promise<T> => runCliJson<T>([...command, ...args], { cwd: work });
  const file = (name: string, body: unknown) => {
    writeFileSync(join(work, name), typeof body === 'string' ? body : JSON.stringify(body));
    return name;
  };

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'fleet-hours-e2e-calendar-'));
    if (adminUrl) {
      const database = await createTestDatabase(adminUrl);
      args = ['--database-url', database.url];
      cleanup = () => database.drop();
    } else {
      args = ['--data-dir', join(work, 'data')];
      cleanup = async () => {};
    }
    account = (await cliJson<{ id: number }>(['accounts', 'create', '--name', 'Acme'])).id;
    truck = (
      await cliJson<{ id: number }>([
        'devices',
        'create',
        '--account',
        String(account),
        '--name',
        'Truck 14',
        '--imei',
        '356307042441013',
        '--model',
        'FMB920',
        '--timezone',
        'America/New_York',
      ])
    ).id;
  }, 240_000);
  afterAll(async () => {
    await cleanup?.();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('P114: set the default, show it on a device, set its own, remove it: text and --json as the API answers', async () => {
    const none = await cli(['calendar', 'show', '--device', String(truck)]);
    expect([none.code, none.stdout]).toEqual([
      0,
      'Work calendar of Truck 14 (device ' +
        `${truck}): none, in America/New_York.\nSet one with: fleet-hours calendar set --device ID --file FILE\n`,
    ]);
    const set = await cli(['calendar', 'set', '--account', String(account), '--file', file('weekdays.json', { weekly: WEEKLY })]);
    expect([set.code, set.stderr]).toEqual([0, '']);
    expect(set.stdout).toBe(
      `Set the work calendar of the default of account ${account} (version 1).\n` +
        `Work calendar of the default of account ${account}: set.\n` +
        '  mon  07:00-17:00\n  tue  07:00-17:00\n  wed  07:00-17:00\n  thu  07:00-17:00\n  fri  07:00-17:00\n  sat  07:00-12:00\n  sun  no work\n',
    );
    expect(await cliJson(['calendar', 'show', '--device', String(truck)])).toEqual({
      source: 'account',
      timezone: 'America/New_York',
      weekly: WEEKLY,
      exceptions: [],
      version: 0,
    });
    const own = { weekly: NIGHTS, exceptions: [{ date: '2026-12-25', windows: [] }] };
    expect(await cliJson(['calendar', 'set', '--device', String(truck), '--file', file('nights.json', own)])).toEqual({
      source: 'device',
      timezone: 'America/New_York',
      ...own,
      version: 1,
    });
    const shown = await cli(['calendar', 'show', '--device', String(truck)]);
    expect(shown.stdout).toContain(`Work calendar of Truck 14 (device ${truck}): its own, in America/New_York.\n`);
    expect(shown.stdout).toContain('  fri  22:00-06:00 (next day)\n');
    expect(shown.stdout).toContain('Exceptions:\n  2026-12-25  no work\n');
    expect(await cliJson(['calendar', 'remove', '--device', String(truck)])).toEqual({
      source: 'account',
      timezone: 'America/New_York',
      weekly: WEEKLY,
      exceptions: [],
      version: 2,
    });
    const audit = await cliJson<{ data: { actor: unknown; action: string; resource: unknown }[] }>([
      'audit',
      'list',
      '--account',
      String(account),
    ]);
    expect(audit.data.slice(0, 3).map(({ actor, action, resource }) => ({ actor, action, resource }))).toEqual([
      {
        actor: { kind: 'cli', label: null, fingerprint_prefix: null },
        action: 'work_calendar.delete',
        resource: { type: 'work_calendar', id: String(truck) },
      },
      {
        actor: { kind: 'cli', label: null, fingerprint_prefix: null },
        action: 'work_calendar.update',
        resource: { type: 'work_calendar', id: String(truck) },
      },
      {
        actor: { kind: 'cli', label: null, fingerprint_prefix: null },
        action: 'work_calendar.update',
        resource: { type: 'work_calendar', id: 'default' },
      },
    ]);
  });

  it('P114: a bad file is refused with its name and the field, exit 1, nothing written; a wrong command line exit 2', async () => {
    const set = (name: string) => cli(['calendar', 'set', '--device', String(truck), '--file', name]);
    const refusals: [string, RegExp][] = [
      [
        file('overlap.json', {
          weekly: {
            ...WEEKLY,
            mon: [
              ['07:00', '12:00'],
              ['11:00', '13:00'],
            ],
          },
        }),
        /^fleet-hours: overlap\.json: weekly\.mon\[1\] overlaps weekly\.mon\[0\]/,
      ],
      [file('missing-day.json', { weekly: { ...WEEKLY, sun: undefined } }), /^fleet-hours: missing-day\.json: weekly\.sun is required/],
      [
        file('bad-date.json', { weekly: WEEKLY, exceptions: [{ date: '2026-02-30', windows: [] }] }),
        /^fleet-hours: bad-date\.json: exceptions\[0\]\.date/,
      ],
      [file('zone.json', { weekly: WEEKLY, timezone: 'Europe/Berlin' }), /^fleet-hours: zone\.json: timezone is read-only/],
      [file('broken.json', '{"weekly":'), /^fleet-hours: broken\.json: not JSON/],
      ['absent.json', /^fleet-hours: Cannot read absent\.json: no such file/],
    ];
    const results = await Promise.all(refusals.map(([name]) => set(name)));
    for (const [index, [, message]] of refusals.entries()) {
      expect([results[index]!.code, results[index]!.stdout]).toEqual([1, '']);
      expect(results[index]!.stderr).toMatch(message);
    }
    const both = await cli(['calendar', 'show', '--device', String(truck), '--account', String(account)]);
    expect([both.code, both.stderr]).toEqual([2, expect.stringContaining('Give either --device ID')]);
    const neither = await cli(['calendar', 'remove']);
    expect(neither.code).toBe(2);
    const missing = await cli(['calendar', 'show', '--device', '999999']);
    expect([missing.code, missing.stderr]).toEqual([1, 'fleet-hours: No device with id 999999\n']);
    expect(await cliJson(['calendar', 'show', '--device', String(truck)])).toMatchObject({ source: 'account', version: 2 });
  });
});
