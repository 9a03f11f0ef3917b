import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createCliHarness } from '../testing/cli-harness.js';
import { DEMO_VEHICLES } from '../demo/demo-fleet.js';
import { LIVE_VEHICLES } from '../demo/live-vehicles.js';
import { COMMAND_GROUPS, COMMANDS } from './command-specs.js';

/** A rule id of docs/rules.md (D11, P12): for the code and its tests, not for the people who run the CLI. */
const RULE_ID = /\b[DP]\d+\b/;

const dir = mkdtempSync(join(tmpdir(), 'fleet-hours-help-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('what the CLI shows its users', () => {
  const cli = createCliHarness({ cwd: dir, now: Date.UTC(2026, 10, 23, 12) });

  it('--help of the program, of every group and of every command cites no rule id', async () => {
    const topics = [[], ...Object.keys(COMMAND_GROUPS).map((group) => [group]), ...COMMANDS.map((command) => command.name.split(' '))];
    for (const words of topics) {
      const help = await cli.run([...words, '--help']);
      expect(help.code, words.join(' ')).toBe(0);
      expect(help.stdout, words.join(' ')).not.toMatch(RULE_ID);
    }
  });

  it('the common error messages cite no rule id', async () => {
    await cli.json(['accounts', 'create', '--name', 'Acme']);
    await cli.json([
      'devices',
      'create',
      '--account',
      '1',
      '--name',
      'Truck',
      '--imei',
      '356307042441013',
      '--model',
      'M',
      '--timezone',
      'UTC',
    ]);
    writeFileSync(
      join(dir, 'bad.ndjson'),
      '{"started_at": "2026-11-01T08:00:00Z", "ended_at": "2026-11-01T07:00:00Z", "state": "moving"}\n',
    );
    writeFileSync(join(dir, 'bad.csv'), 'time,ignition,speed_kmh\n2026-11-01T08:00:00Z,maybe,12\n');
    const failing = [
      ['lorries'],
      ['keys', 'create'],
      ['keys', 'create', '--account', 'one'],
      ['keys', 'create', '--account', '9'],
      ['keys', 'create', '--account', '1', '--expires-at', 'tomorrow'],
      ['accounts', 'set-plan', '1', 'gold'],
      ['devices', 'create', '--account', '1', '--name', 'Truck', '--imei', '356307042441013', '--model', 'M', '--timezone', 'UTC'],
      ['devices', 'create', '--account', '1', '--name', 'X', '--imei', '1', '--model', 'M', '--timezone', 'Mars/Olympus'],
      ['devices', 'update', '1'],
      ['import', 'segments', '--device', '1', 'bad.ndjson'],
      ['import', 'telemetry', '--device', '1', 'bad.csv'],
      ['import', 'segments', '--device', '1', 'missing.ndjson'],
      ['hours', '--device', '1', '--from', '2026/11/01'],
      ['daily', '--device', '7'],
      ['meter', '--device', '0'],
      ['simulate', '--token', 'fhi_x', '--backfill', 'last week'],
      ['simulate', '--token', 'fhi_x', '--protocol', 'mqtt'],
      ['demo', '--database-url', 'postgres://u@127.0.0.1/x'],
      ['verify', '--device', '9'],
      ['hour-meter', 'set', '--device', '1', '--reading', '12x'],
      ['hour-meter', 'set', '--device', '1', '--reading', '10h', '--at', '2999-01-01T00:00:00Z'],
      ['hour-meter', 'remove', '--device', '1', '--id', '9'],
      ['service', 'create', '--device', '1', '--name', 'Oil', '--every', '0h'],
      ['service', 'create', '--device', '1', '--name', 'Oil', '--every', '10h', '--due-soon', '11h'],
      ['service', 'create', '--device', '1', '--name', 'Oil', '--every', '10h', '--last-done-at', '2026-11-01T08:00:00'],
      ['service', 'list', '--status', 'late'],
      ['service', 'update', '--id', '9', '--name', 'Oil'],
      ['service', 'done', '--id', '9'],
    ];
    for (const argv of failing) {
      const result = await cli.run(argv);
      expect(result.code, argv.join(' ')).not.toBe(0);
      expect(result.stderr, argv.join(' ')).not.toBe('');
      expect(result.stderr, argv.join(' ')).not.toMatch(RULE_ID);
    }
  });

  it('import telemetry --help says that a point covers 300 s at most', async () => {
    const help = (await cli.run(['import', 'telemetry', '--help'])).stdout.replace(/\s+/g, ' ');
    expect(help).toContain("for the time until the device's next point, but for 300 s at most");
  });

  it('demo --help counts the vehicles the demo seeds and its banner counts: all of them, those with a history, the live ones', async () => {
    const help = await cli.run(['demo', '--help']);
    const words = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'];
    const counted = /(\w+) vehicles, (\w+) with a year of shifts and (\w+) live/.exec(help.stdout);
    expect(counted, help.stdout).not.toBeNull();
    expect(counted!.slice(1).map((word) => words.indexOf(word))).toEqual([
      DEMO_VEHICLES.length + LIVE_VEHICLES.length,
      DEMO_VEHICLES.length,
      LIVE_VEHICLES.length,
    ]);
  });
});
