import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isGivenInstantInRange, parseInstant } from '@fleet-hours/core';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { createCliHarness } from '../testing/cli-harness.js';

/** Any control character a terminal could act on: C0 but the line break, DEL, C1, the bidirectional controls. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what this pattern looks for (D50).
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/;
const RANGE = 'must be an instant from 0001-01-02T00:00:00Z to 9999-12-30T23:59:59Z';

/**
 * D50 through the CLI, in-process over a memory store: every instant a person types lies within
 * one range or is refused naming the option, a negative number after an option is its value,
 * names with control characters are refused (exit 2), and nothing typed or stored reaches the
 * terminal raw (P67).
 */
describe('fleet-hours: one floor and clean text (D50)', () => {
  const folder = mkdtempSync(join(tmpdir(), 'fleet-hours-d50-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  const setUp = async () => {
    const cli = createCliHarness({ now: Date.UTC(2026, 10, 25, 15) });
    await cli.json(['accounts', 'create', '--name', 'Acme']);
    const truck = await cli.json<{ id: number }>([
      ...['devices', 'create', '--account', '1', '--name', 'Truck', '--imei', '356307042441013'],
      ...['--model', 'M', '--timezone', 'America/New_York'],
    ]);
    return { cli, truck: String(truck.id) };
  };

  it('D50 a reading, a last service, an expiry before 0001-01-02 or after 9999-12-30 is refused naming the option (exit 2)', async () => {
    const { cli, truck } = await setUp();
    const schedule = await cli.json<{ id: number }>(['service', 'create', '--device', truck, '--name', 'Oil', '--every', '250h']);
    const cases: [string[], string, string][] = [
      [['hour-meter', 'set', '--device', truck, '--reading', '10h', '--at'], '--at', '0001-01-01T00:00:00Z'],
      [['hour-meter', 'set', '--device', truck, '--reading', '10h', '--at'], '--at', '0000-12-31T12:00:00Z'],
      [['hour-meter', 'set', '--device', truck, '--reading', '10h', '--at'], '--at', '-000001-06-01T00:00:00Z'],
      [
        ['service', 'create', '--device', truck, '--name', 'Tyres', '--every', '500h', '--last-done-at'],
        '--last-done-at',
        '0001-01-01T00:00:00Z',
      ],
      [['service', 'done', '--id', String(schedule.id), '--at'], '--at', '0001-01-01T23:59:59+00:00'],
      [['keys', 'create', '--account', '1', '--expires-at'], '--expires-at', '9999-12-31T00:00:00Z'],
      [['ingest-tokens', 'create', '--account', '1', '--expires-at'], '--expires-at', '+010000-01-01T00:00:00Z'],
    ];
    for (const [argv, option, instant] of cases) {
      const refused = await cli.run([...argv, instant]);
      expect(refused, `${argv.join(' ')} ${instant}`).toMatchObject({ code: 2, stdout: '' });
      expect(refused.stderr).toContain(`fleet-hours: ${option} ${RANGE}, got "${instant}"\n`);
    }
    expect((await cli.json<{ data: unknown[] }>(['hour-meter', 'list', '--device', truck])).data).toEqual([]);
    expect(await cli.json<{ data: unknown[] }>(['keys', 'list', '--account', '1'])).toMatchObject({ data: [] });
  });

  it('D50 the first instant is taken and shown in the year 0001 in every zone, never 0000', async () => {
    const { cli, truck } = await setUp();
    const reading = await cli.json(['hour-meter', 'set', '--device', truck, '--reading', '10h', '--at', '0001-01-02T00:00:00Z']);
    // New York's local mean time, -4:56:02: the day before in the year 0001.
    expect(reading).toMatchObject({ read_at: '0001-01-01T19:03:58-04:56:02' });
    const created = await cli.json([
      'service',
      'create',
      '--device',
      truck,
      '--name',
      'Oil',
      '--every',
      '250h',
      '--last-done-at',
      '0001-01-02T00:00:00Z',
    ]);
    expect(created).toMatchObject({ last_done_at: '0001-01-01T19:03:58-04:56:02' });
    const listed = await cli.run(['service', 'list', '--device', truck, '--json']);
    expect(listed.stdout).not.toMatch(/"0000-/);
  });

  it('D50 property: any --at a person types is refused naming --at, or shown back as the same instant, never in the year 0000', async () => {
    const { cli, truck } = await setUp();
    const pad = (value: number, width = 2) => String(value).padStart(width, '0');
    const typed = fc
      .record({
        year: fc.oneof(
          fc.constantFrom('0000', '0001', '0002', '2026', '9999', '-000001', '+010000'),
          fc.integer({ min: 0, max: 9999 }).map((year) => pad(year, 4)),
        ),
        month: fc.integer({ min: 1, max: 12 }),
        day: fc.constantFrom(1, 2, 29, 31),
        time: fc.constantFrom('00:00:00', '12:30:15.5', '23:59:59'),
        offset: fc.constantFrom('Z', '+00:00', '+14:00', '-12:00', '+05:45', '-23:59'),
      })
      .map(({ year, month, day, time, offset }) => `${year}-${pad(month)}-${pad(day)}T${time}${offset}`);
    await fc.assert(
      fc.asyncProperty(typed, async (text) => {
        const result = await cli.run(['hour-meter', 'set', '--device', truck, '--reading', '10h', '--at', text, '--json']);
        let seconds: number | null = null;
        try {
          seconds = parseInstant(text);
        } catch {
          // Not an instant: refused below.
        }
        if (result.code !== 0) {
          expect(result.stderr).toMatch(/^fleet-hours: --at /);
          expect(seconds !== null && isGivenInstantInRange(seconds) && seconds <= cli.nowSeconds).toBe(false);
          return;
        }
        const shown = (JSON.parse(result.stdout) as { read_at: string }).read_at;
        expect(shown).toMatch(/^(?!0000)\d{4}-/);
        expect(parseInstant(shown)).toBe(seconds);
      }),
      { numRuns: 60 },
    );
  });

  it("D50 a negative number after an option is its value, refused by the option's own rule; a forgotten value still is not", async () => {
    const { cli, truck } = await setUp();
    const reading = await cli.run(['hour-meter', 'set', '--device', truck, '--reading', '-5h']);
    expect(reading.code).toBe(1);
    expect(reading.stderr).toMatch(/^fleet-hours: --reading must be a duration from 0 to \d+h\n$/);
    const days = await cli.run(['service', 'create', '--device', truck, '--name', 'Oil', '--every', '250h', '--every-days', '-3']);
    expect(days).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^fleet-hours: --every-days must be a whole number of days above 0/),
    });
    const every = await cli.run(['service', 'create', '--device', truck, '--name', 'Oil', '--every', '-1.5h']);
    expect(every).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^fleet-hours: --every must be a duration above 0 and at most \d+h\n$/),
    });
    expect(await cli.run(['keys', 'create', '--account', '1', '--label', '--json'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('Option --label needs a value'),
    });
  });

  it('D50 a name with a control character is refused naming the option (exit 2), quoted escaped, and nothing is stored', async () => {
    const { cli, truck } = await setUp();
    const schedule = await cli.json<{ id: number }>(['service', 'create', '--device', truck, '--name', 'Oil', '--every', '250h']);
    const cases: [string[], string, string, string][] = [
      [['accounts', 'create', '--name'], '--name', 'Acme\u001b[2J', 'U+001B'],
      [
        ['devices', 'create', '--account', '1', '--imei', '356307042441021', '--model', 'M', '--timezone', 'UTC', '--name'],
        '--name',
        'Van\n2',
        'U+000A',
      ],
      [
        ['devices', 'create', '--account', '1', '--imei', '356307042441021', '--name', 'Van', '--timezone', 'UTC', '--model'],
        '--model',
        'FMB\u202e029',
        'U+202E',
      ],
      [
        ['devices', 'create', '--account', '1', '--imei', '35630704244\u00001', '--name', 'Van', '--timezone', 'UTC', '--model'],
        '--imei',
        '35630704244\u00001',
        'U+0000',
      ],
      [['devices', 'update', truck, '--registration'], '--registration', 'NY\u009b31m 4821', 'U+009B'],
      [['devices', 'update', truck, '--name'], '--name', 'Truck\u2066', 'U+2066'],
      [['service', 'create', '--device', truck, '--every', '250h', '--name'], '--name', 'Oil\u202eliO', 'U+202E'],
      [['service', 'update', '--id', String(schedule.id), '--name'], '--name', 'Oil\tfilter', 'U+0009'],
      [['keys', 'create', '--account', '1', '--label'], '--label', 'billing\u0007', 'U+0007'],
      [['ingest-tokens', 'create', '--account', '1', '--label'], '--label', 'traccar\u200f', 'U+200F'],
    ];
    for (const [argv, option, name, codePoint] of cases) {
      // The imei case puts the bad text in --imei; the others end with the option.
      const line = option === '--imei' ? [...argv, 'FMB'] : [...argv, name];
      const refused = await cli.run(line);
      expect(refused, line.join(' ')).toMatchObject({ code: 2, stdout: '' });
      expect(refused.stderr).toContain(`fleet-hours: ${option} must be text without control characters, got "`);
      expect(refused.stderr).toContain(`(${codePoint})\n`);
      expect(refused.stderr).not.toMatch(RAW_CONTROL);
    }
    expect(await cli.json(['accounts', 'list'])).toMatchObject({ data: [{ name: 'Acme' }] });
    expect(await cli.json<{ data: { name: string; registration: string | null }[] }>(['devices', 'list', '--account', '1'])).toMatchObject({
      data: [{ name: 'Truck', registration: null }],
    });
    expect(await cli.json(['service', 'list', '--device', truck])).toMatchObject({ data: [{ name: 'Oil' }] });
  });

  it('P67 names stored raw (by SQL, before the check) are printed escaped in text and JSON, and JSON parses to the stored name', async () => {
    const { cli, truck } = await setUp();
    const raw = 'Evil\u001b]0;owned\u0007\u009b2J\u202etxt.exe';
    await cli.store.createAccount({ name: raw, plan: 'business', now: cli.nowSeconds });
    await cli.store.updateDevice({ deviceId: Number(truck), changes: { name: raw, registration: raw } });
    await cli.store.createServiceSchedule({
      ...{ deviceId: Number(truck), name: raw, intervalSeconds: 3600, intervalDays: null, dueSoonSeconds: null, dueSoonDays: null },
      ...{ lastDoneAt: cli.nowSeconds, lastDoneHourMeterSeconds: null, now: cli.nowSeconds },
    });
    for (const argv of [
      ['accounts', 'list'],
      ['devices', 'list', '--account', '1'],
      ['service', 'list'],
      ['hour-meter', 'list', '--device', truck],
    ]) {
      const text = await cli.run(argv);
      expect(text.code).toBe(0);
      expect(text.stdout, argv.join(' ')).not.toMatch(RAW_CONTROL);
      expect(text.stdout).toContain('Evil\\u001b]0;owned\\u0007\\u009b2J\\u202etxt.exe');
      const json = await cli.run([...argv, '--json']);
      expect(json.stdout).not.toMatch(RAW_CONTROL);
      // The reading list's JSON holds no name; every other one parses back to the stored name.
      if (argv[0] !== 'hour-meter') expect(JSON.stringify(JSON.parse(json.stdout))).toContain(JSON.stringify(raw).slice(1, -1));
    }
    // A schedule whose stored name would be refused today can still be changed in other ways: input only is checked.
    const schedules = await cli.json<{ data: { id: number }[] }>(['service', 'list', '--device', truck]);
    expect(await cli.run(['service', 'update', '--id', String(schedules.data[0]!.id), '--every', '300h'])).toMatchObject({ code: 0 });
  });

  it('D50 an import file with an instant outside the range names FILE:LINE and the field, and imports nothing', async () => {
    const { cli, truck } = await setUp();
    const write = (name: string, text: string) => {
      const path = join(folder, name);
      writeFileSync(path, text);
      return path;
    };
    const segments = write(
      'early.ndjson',
      [
        '{"started_at":"2026-03-05T08:00:00Z","ended_at":"2026-03-05T09:00:00Z","state":"moving"}',
        '{"started_at":"0001-01-01T00:00:00Z","ended_at":"0001-01-01T01:00:00Z","state":"idle"}',
        '{"started_at":"9999-12-30T23:00:00Z","ended_at":"9999-12-31T01:00:00Z","state":"idle"}',
      ].join('\n'),
    );
    const refused = await cli.run(['import', 'segments', '--device', truck, segments]);
    expect(refused).toEqual({
      code: 1,
      stdout: '',
      stderr:
        `${segments}:2: Field started_at ${RANGE}, got "0001-01-01T00:00:00Z"\n` +
        `${segments}:3: Field ended_at ${RANGE}, got "9999-12-31T01:00:00Z"\n` +
        `2 problems in ${segments}: nothing was imported\n`,
    });
    const telemetry = write('late.csv', 'time,ignition,speed_kmh\n2026-03-05T08:00:00Z,true,1\n9999-12-31T00:00:00Z,true,1\n');
    expect(await cli.run(['import', 'telemetry', '--device', truck, telemetry])).toEqual({
      code: 1,
      stdout: '',
      stderr: `${telemetry}:3: Field time ${RANGE}, got "9999-12-31T00:00:00Z"\n1 problem in ${telemetry}: nothing was imported\n`,
    });
    expect(await cli.json(['hours', '--device', truck, '--from', '2026-03-01', '--to', '2026-03-10'])).toMatchObject({ engine_seconds: 0 });
  });
});
