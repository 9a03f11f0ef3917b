import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryStore, fingerprintApiKey, StorageUnavailableError } from '@fleet-hours/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliHarness } from './testing/cli-harness.js';
import { rmSync } from 'node:fs';

const dir = mkdtempSync(join(tmpdir(), 'fleet-hours-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  writeFileSync(join(dir, name), text);
  return name;
};
const segmentLine = (start: string, end: string | null, state = 'moving') => JSON.stringify({ started_at: start, ended_at: end, state });

describe('runCli() accounts, keys and devices', () => {
  const cli = createCliHarness({ cwd: dir });

  it('accounts create prints { id, name, plan } with --json, and a sentence without', async () => {
    expect(await cli.json(['accounts', 'create', '--name', 'Acme Haulage'])).toEqual({ id: 1, name: 'Acme Haulage', plan: 'business' });
    const text = await cli.run(['accounts', 'create', '--name', 'Corner Shop', '--plan', 'starter']);
    expect(text).toEqual({
      code: 0,
      stdout: expect.stringMatching(/^Created account 2 "Corner Shop" on plan starter \(without API access/),
      stderr: '',
    });
  });

  it('accounts list prints an aligned table, or { data } with --json', async () => {
    const table = await cli.run(['accounts', 'list']);
    expect(table.stdout).toBe('ID  NAME          PLAN\n 1  Acme Haulage  business\n 2  Corner Shop   starter\n');
    expect(await cli.json(['accounts', 'list'])).toEqual({
      data: [
        { id: 1, name: 'Acme Haulage', plan: 'business' },
        { id: 2, name: 'Corner Shop', plan: 'starter' },
      ],
    });
  });

  it('accounts set-plan changes the plan; an unknown plan is a usage error (2), a missing account a failure (1) (P10, P20)', async () => {
    expect(await cli.json(['accounts', 'set-plan', '2', 'business'])).toEqual({ id: 2, name: 'Corner Shop', plan: 'business' });
    expect(await cli.json(['accounts', 'set-plan', '2', 'STARTER'])).toEqual({ id: 2, name: 'Corner Shop', plan: 'starter' });
    const unknownPlan = await cli.run(['accounts', 'set-plan', '2', 'gold']);
    expect(unknownPlan).toEqual({ code: 2, stdout: '', stderr: expect.stringContaining('Unknown plan "gold": use business or starter') });
    expect(unknownPlan.stderr).toContain('Run "fleet-hours accounts set-plan --help" for usage.');
    expect(await cli.run(['accounts', 'set-plan', '99', 'business'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'fleet-hours: No account with id 99\n',
    });
  });

  it('keys create shows the key once and stores only its SHA-256 fingerprint (D10)', async () => {
    const created = await cli.json<{ id: number; key: string; fingerprint: string; label: string; expires_at: string }>([
      'keys',
      'create',
      '--account',
      '1',
      '--label',
      'billing',
      '--expires-at',
      '2027-01-01T01:00:00+01:00',
    ]);
    expect(Object.keys(created)).toEqual(['id', 'key', 'fingerprint', 'label', 'scope', 'expires_at']);
    expect(created.key).toMatch(/^fh_[0-9A-Za-z]{43}$/);
    expect(created.fingerprint).toBe(await fingerprintApiKey(created.key));
    expect(created).toMatchObject({ label: 'billing', scope: 'read', expires_at: '2027-01-01T00:00:00+00:00' });

    const stored = await cli.store.listApiKeys({ accountId: 1 });
    expect(JSON.stringify(stored)).not.toContain(created.key);
    const listed = await cli.run(['keys', 'list', '--account', '1', '--json']);
    expect(listed.stdout).not.toContain(created.key);
    expect(JSON.parse(listed.stdout).data).toEqual([
      expect.objectContaining({ id: created.id, label: 'billing', fingerprint: created.fingerprint, state: 'active', revoked_at: null }),
    ]);
  });

  it('keys create without --json says the key is shown once; a past expiry and a starter plan are noted', async () => {
    await cli.json(['accounts', 'set-plan', '2', 'starter']);
    const text = await cli.run(['keys', 'create', '--account', '2', '--expires-at', '2020-01-01T00:00:00Z']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^Created API key \d+ for account 2 "Corner Shop"\.\n\n {2}fh_\w{43}\n/);
    expect(text.stdout).toContain('This is the only time the key is shown');
    expect(text.stdout).toContain('already expired');
    expect(text.stdout).toContain('plan starter');
  });

  it("keys list shows a key's state; keys revoke revokes a key", async () => {
    const created = await cli.json<{ id: number }>(['keys', 'create', '--account', '1']);
    expect(await cli.json(['keys', 'revoke', String(created.id)])).toMatchObject({
      id: created.id,
      state: 'revoked',
      revoked_at: '2026-03-15T12:00:00+00:00',
    });
    const list = await cli.run(['keys', 'list', '--account', '1']);
    expect(list.stdout.split('\n')[0]).toBe(
      'ID  STATE    LABEL    SCOPE  FINGERPRINT        CREATED                    EXPIRES                    REVOKED',
    );
    expect(list.stdout).toMatch(new RegExp(`\\n\\s*${created.id}  revoked  -        read   `));
    expect(await cli.run(['keys', 'revoke', '999'])).toMatchObject({ code: 1, stderr: 'fleet-hours: No API key with id 999\n' });
    expect(await cli.run(['keys', 'revoke', 'abc'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('KEY-ID must be a positive whole number, got "abc"'),
    });
  });

  it('D51 keys create --scope manage makes a key that may change the fleet; read is the default; another scope is refused', async () => {
    const manage = await cli.json<{ id: number; scope: string }>(['keys', 'create', '--account', '1', '--scope', 'manage']);
    expect(manage.scope).toBe('manage');
    const text = await cli.run(['keys', 'create', '--account', '1']);
    expect(text.stdout).toContain('Scope:       read (reads only)');
    expect((await cli.store.listApiKeys({ accountId: 1 })).map((key) => key.scope).slice(-2)).toEqual(['manage', 'read']);
    const listed = await cli.json<{ data: { id: number; scope: string }[] }>(['keys', 'list', '--account', '1']);
    expect(listed.data.slice(-2)).toMatchObject([{ id: manage.id, scope: 'manage' }, { scope: 'read' }]);
    expect(await cli.run(['keys', 'create', '--account', '1', '--scope', 'admin'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('Unknown scope "admin": use read or manage'),
    });
    // Ingest tokens have no scope.
    expect(await cli.run(['ingest-tokens', 'create', '--account', '1', '--scope', 'manage'])).toMatchObject({ code: 2 });
    expect(Object.keys(await cli.json<object>(['ingest-tokens', 'create', '--account', '1']))).not.toContain('scope');
  });

  it('keys create refuses an expiry without an offset and a missing account', async () => {
    expect((await cli.run(['keys', 'create', '--account', '1', '--expires-at', '2027-01-01T00:00:00'])).stderr).toContain(
      '--expires-at must be an ISO 8601 instant with an offset',
    );
    expect(await cli.run(['keys', 'create', '--account', '42'])).toMatchObject({ code: 1, stderr: 'fleet-hours: No account with id 42\n' });
  });

  it('devices create prints the device as the API shows it, with the zone normalised', async () => {
    const device = await cli.json([
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
      'america/new_york',
    ]);
    expect(device).toEqual({
      id: 1,
      name: 'Truck 14',
      imei: '356307042441013',
      registration: null,
      model: 'FMB920',
      status: 'active',
      timezone: 'America/New_York',
      last_reported_at: null,
      tags: [],
      oem_name: null,
      equipment_model: null,
      serial_number: null,
      pin: null,
      position: null,
      version: expect.stringMatching(/^d-[0-9a-f]{16}$/),
    });
    expect(Object.keys(device)).toEqual([
      'id',
      'name',
      'imei',
      'registration',
      'model',
      'status',
      'timezone',
      'last_reported_at',
      'tags',
      'oem_name',
      'equipment_model',
      'serial_number',
      'pin',
      'position',
      'version',
    ]);
  });

  it('devices create refuses an unknown time zone or an offset, before touching the database', async () => {
    const opened = cli.opened.length;
    const unknown = await cli.run([
      'devices',
      'create',
      '--account',
      '1',
      '--name',
      'X',
      '--imei',
      '1',
      '--model',
      'M',
      '--timezone',
      'Mars/Olympus_Mons',
    ]);
    expect(unknown).toMatchObject({ code: 2, stdout: '', stderr: expect.stringContaining('Unknown time zone "Mars/Olympus_Mons"') });
    const offset = await cli.run([
      'devices',
      'create',
      '--account',
      '1',
      '--name',
      'X',
      '--imei',
      '1',
      '--model',
      'M',
      '--timezone',
      '+05:00',
    ]);
    expect(offset.code).toBe(2);
    expect(cli.opened.length).toBe(opened);
  });

  it('devices update changes the given fields and clears the registration with ""', async () => {
    await cli.json([
      'devices',
      'create',
      '--account',
      '1',
      '--name',
      'Van',
      '--imei',
      '2',
      '--model',
      'M',
      '--timezone',
      'Europe/Berlin',
      '--registration',
      'B-1',
    ]);
    const updated = await cli.json([
      'devices',
      'update',
      '2',
      '--timezone',
      'Asia/Kathmandu',
      '--status',
      'inactive',
      '--registration',
      '',
      '--name',
      'Van 2',
    ]);
    expect(updated).toMatchObject({ id: 2, name: 'Van 2', timezone: 'Asia/Kathmandu', status: 'inactive', registration: null, model: 'M' });
    expect(await cli.run(['devices', 'update', '2'])).toMatchObject({ code: 2, stderr: expect.stringContaining('Nothing to change') });
    expect(await cli.run(['devices', 'update', '77', '--name', 'x'])).toMatchObject({
      code: 1,
      stderr: 'fleet-hours: No device with id 77\n',
    });
    expect(await cli.run(['devices', 'update', '2', '--status', 'Out of order'])).toMatchObject({ code: 2 });
  });

  it('devices list prints a table, or { data } in id order (D19)', async () => {
    const listed = await cli.json<{ data: { id: number }[] }>(['devices', 'list', '--account', '1']);
    expect(listed.data.map((device) => device.id)).toEqual([1, 2]);
    const table = await cli.run(['devices', 'list', '--account', '1']);
    expect(table.stdout).toBe(
      [
        'ID  NAME      IMEI             REGISTRATION  MODEL   STATUS    TIMEZONE          LAST REPORTED  TAGS',
        ' 1  Truck 14  356307042441013  -             FMB920  active    America/New_York  -              -',
        ' 2  Van 2     2                -             M       inactive  Asia/Kathmandu    -              -',
        '',
      ].join('\n'),
    );
    expect(await cli.run(['devices', 'list', '--account', '9'])).toMatchObject({ code: 1, stderr: 'fleet-hours: No account with id 9\n' });
  });

  it('opens the database once per command and closes it, even when the command fails', async () => {
    const before = cli.closeCount();
    await cli.run(['accounts', 'list']);
    await cli.run(['keys', 'revoke', '999']);
    expect(cli.closeCount()).toBe(before + 2);
  });

  it('--json prints exactly one JSON document and nothing on stdout on failure', async () => {
    const ok = await cli.run(['devices', 'list', '--account', '1', '--json']);
    expect(() => JSON.parse(ok.stdout)).not.toThrow();
    const failed = await cli.run(['devices', 'list', '--account', '9', '--json']);
    expect(failed.stdout).toBe('');
  });
});

describe('runCli() imports', () => {
  const cli = createCliHarness({ cwd: dir });
  let deviceId = 0;
  beforeAll(async () => {
    await cli.json(['accounts', 'create', '--name', 'Importers']);
    deviceId = (
      await cli.json<{ id: number }>([
        'devices',
        'create',
        '--account',
        '1',
        '--name',
        'T',
        '--imei',
        '1',
        '--model',
        'M',
        '--timezone',
        'UTC',
      ])
    ).id;
  });
  const segmentsOf = () => cli.store.listSegments({ deviceId });

  it('imports NDJSON segments in one batch and reports inserted, closed and skipped', async () => {
    const name = file(
      'day1.ndjson',
      [segmentLine('2026-03-01T08:00:00Z', '2026-03-01T08:30:00Z'), '', segmentLine('2026-03-01T08:30:00Z', null, 'idle')].join('\n'),
    );
    const report = await cli.json(['import', 'segments', '--device', String(deviceId), name]);
    expect(report).toMatchObject({
      device_id: deviceId,
      file: name,
      format: 'ndjson',
      records: 2,
      segments: 2,
      inserted: 2,
      closed: 0,
      skipped: 0,
    });
    expect(report.segments_per_second).toEqual(expect.any(Number));
    const again = await cli.run(['import', 'segments', '--device', String(deviceId), name]);
    expect(again.stdout).toMatch(
      /^Imported 2 segments from day1\.ndjson into device \d+: 0 inserted, 0 closed, 2 skipped \(already stored\)\.\n/,
    );
    expect(again.stdout).toMatch(/segments\/s\.\n$/);
  });

  it('closes an open segment by importing it with its end (D1), from CSV on stdin', async () => {
    const csv = 'started_at,ended_at,state\n2026-03-01T08:30:00Z,2026-03-01T09:00:00Z,idle\n';
    const report = await cli.json(['import', 'segments', '--device', String(deviceId), '-'], { stdin: csv });
    expect(report).toMatchObject({ file: 'stdin', format: 'csv', inserted: 0, closed: 1, skipped: 0 });
    expect(await segmentsOf()).toHaveLength(2);
  });

  it('a bad line is reported as FILE:LINE, exit 1, and nothing is written', async () => {
    const before = await segmentsOf();
    const name = file(
      'bad.ndjson',
      [
        segmentLine('2026-03-02T08:00:00Z', '2026-03-02T09:00:00Z'),
        '{"started_at": "2026-03-02T09:00:00Z",',
        segmentLine('2026-03-02T10:00:00Z', 'soon'),
      ].join('\n'),
    );
    const result = await cli.run(['import', 'segments', '--device', String(deviceId), name]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^bad\.ndjson:2: Not valid JSON: .*\nbad\.ndjson:3: Field ended_at "soon" is not an ISO 8601 instant with an offset\n2 problems in bad\.ndjson: nothing was imported\n$/,
    );
    expect(await segmentsOf()).toEqual(before);
  });

  it('a segment before the first instant a person may give (0001-01-02) names its FILE:LINE and field, and writes nothing (D1, D50)', async () => {
    const before = await segmentsOf();
    const name = file(
      'too-old.ndjson',
      [segmentLine('2026-03-05T08:00:00Z', '2026-03-05T09:00:00Z'), '', segmentLine('0000-12-31T22:00:00Z', '0000-12-31T23:00:00Z')].join(
        '\n',
      ),
    );
    const result = await cli.run(['import', 'segments', '--device', String(deviceId), name]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^too-old\.ndjson:3: Field started_at must be an instant from 0001-01-02T00:00:00Z to 9999-12-30T23:59:59Z, got "0000-12-31T22:00:00Z"\n1 problem in too-old\.ndjson: nothing was imported\n$/,
    );
    expect(await segmentsOf()).toEqual(before);
  });

  it('an overlap with stored segments or within the file names the file lines, and writes nothing (D1)', async () => {
    const before = await segmentsOf();
    const name = file(
      'overlap.csv',
      [
        'started_at,ended_at,state',
        '2026-03-03T08:00:00Z,2026-03-03T09:00:00Z,moving',
        '',
        '2026-03-01T08:15:00Z,2026-03-01T08:20:00Z,idle',
        '2026-03-03T08:30:00Z,2026-03-03T08:45:00Z,idle',
      ].join('\n'),
    );
    const result = await cli.run(['import', 'segments', '--device', String(deviceId), name]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      [
        'overlap.csv:4: Overlaps the stored segment 2026-03-01T08:00:00+00:00 – 2026-03-01T08:30:00+00:00 (moving); only an identical segment, or the same one closed, can be imported again',
        'overlap.csv:5: Overlaps the segment of line 2 (segments of one device must not overlap)',
        '2 problems in overlap.csv: the import was refused and nothing was written',
        '',
      ].join('\n'),
    );
    expect(await segmentsOf()).toEqual(before);
  });

  it('imports telemetry as points through writeTelemetry, the code of HTTP ingestion (D20, D23); again, every point is a duplicate', async () => {
    const name = file(
      'telemetry.csv',
      [
        'time,ignition,speed_kmh',
        '2026-03-04T08:08:00Z,true,30',
        '2026-03-04T08:00:00Z,true,0',
        '2026-03-04T08:04:00Z,true,3',
        '2026-03-04T08:12:00Z,false,0',
      ].join('\n'),
    );
    const report = await cli.json(['import', 'telemetry', '--device', String(deviceId), name]);
    expect(report).toMatchObject({ device_id: deviceId, format: 'csv', records: 4, accepted: 4, duplicates: 0, batches: 1 });
    const march4 = Date.UTC(2026, 2, 4, 8) / 1000;
    expect(await cli.store.listTelemetryPoints({ deviceId, start: march4 })).toHaveLength(4);
    expect(
      (await cli.store.listSegments({ deviceId, start: march4 })).map(({ startedAt, endedAt, state }) => ({ startedAt, endedAt, state })),
    ).toEqual([
      { startedAt: march4, endedAt: march4 + 480, state: 'idle' },
      { startedAt: march4 + 480, endedAt: march4 + 720, state: 'moving' },
    ]);
    expect(await cli.json(['import', 'telemetry', '--device', String(deviceId), name])).toMatchObject({
      records: 4,
      accepted: 0,
      duplicates: 4,
    });
    const text = await cli.run(['import', 'telemetry', '--device', String(deviceId), name]);
    expect(text.stdout).toMatch(
      /^Imported 4 telemetry points from telemetry\.csv into device \d+: 0 accepted, 4 duplicates \(already stored\)\.\nRead in /,
    );
  });

  it('maps a refusal to FILE:LINE: an overlap with imported segments at the point that covers it (D23), a point from the future (D26)', async () => {
    const before = await segmentsOf();
    const overlap = file(
      'telemetry-overlap.ndjson',
      [
        '{"time":"2026-03-01T07:00:00Z","ignition":false,"speed_kmh":0}',
        '{"time":"2026-03-01T08:02:00Z","ignition":true,"speed_kmh":50}',
        '{"time":"2026-03-01T08:03:00Z","ignition":false,"speed_kmh":0}',
      ].join('\n'),
    );
    const result = await cli.run(['import', 'telemetry', '--device', String(deviceId), overlap]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `telemetry-overlap.ndjson:2: Device ${deviceId}: the telemetry would overlap imported segments at "2026-03-01T08:02:00Z"\n1 problem in telemetry-overlap.ndjson: the import was refused and nothing was written\n`,
    );
    const future = file(
      'telemetry-future.csv',
      ['time,ignition,speed_kmh', '2026-03-05T08:00:00Z,true,1', '2999-01-01T00:00:00Z,true,1'].join('\n'),
    );
    const refused = await cli.run(['import', 'telemetry', '--device', String(deviceId), future]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^telemetry-future\.csv:3: Field time must be at most 300 s ahead of the server clock/);
    expect(await segmentsOf()).toEqual(before);
  });

  it("refuses a point before the read API's first date (0001-01-02) and a speed that is not finite, naming FILE:LINE and nothing written (D37)", async () => {
    const before = await segmentsOf();
    const early = file(
      'telemetry-early.ndjson',
      [
        '{"time":"2026-03-06T08:00:00Z","ignition":true,"speed_kmh":1}',
        '{"time":"0001-01-01T00:00:00Z","ignition":true,"speed_kmh":1}',
      ].join('\n'),
    );
    const refused = await cli.run(['import', 'telemetry', '--device', String(deviceId), early]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      'telemetry-early.ndjson:2: Field time must be an instant from 0001-01-02T00:00:00Z to 9999-12-30T23:59:59Z, got "0001-01-01T00:00:00Z"\n1 problem in telemetry-early.ndjson: nothing was imported\n',
    );
    for (const [name, text] of [
      ['telemetry-infinite.csv', 'time,ignition,speed_kmh\n2026-03-06T08:00:00Z,true,1e400\n'],
      ['telemetry-nan.ndjson', '{"time":"2026-03-06T08:00:00Z","ignition":true,"speed_kmh":1e999}\n'],
    ] as const) {
      const result = await cli.run(['import', 'telemetry', '--device', String(deviceId), file(name, text)]);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(new RegExp(`^${name.replace('.', '\\.')}:\\d: Field speed_kmh must be a number ≥ 0`));
    }
    expect(await segmentsOf()).toEqual(before);
    expect(await cli.store.listTelemetryPoints({ deviceId, start: Date.UTC(2026, 2, 6) / 1000 })).toEqual([]);
  });

  it('refuses bad telemetry options, a missing file, a missing device and a bad --format', async () => {
    expect(await cli.run(['import', 'telemetry', '--device', String(deviceId), '--max-gap-seconds', '0', 'x.csv'])).toMatchObject({
      code: 2,
    });
    expect(await cli.run(['import', 'segments', '--device', String(deviceId), 'nope.csv'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'fleet-hours: Cannot read nope.csv: no such file\n',
    });
    expect(await cli.run(['import', 'segments', '--device', '404', 'day1.ndjson'])).toMatchObject({
      code: 1,
      stderr: 'fleet-hours: No device with id 404\n',
    });
    expect(await cli.run(['import', 'segments', '--device', String(deviceId), '--format', 'xml', 'day1.ndjson'])).toMatchObject({
      code: 2,
    });
  });

  it('an empty file imports nothing and succeeds', async () => {
    expect(await cli.json(['import', 'segments', '--device', String(deviceId), file('empty.csv', '')])).toMatchObject({
      records: 0,
      inserted: 0,
    });
  });

  it('draws progress on stderr only when it is a terminal', async () => {
    const plain = await cli.run(['import', 'segments', '--device', String(deviceId), 'day1.ndjson']);
    expect(plain.stderr).toBe('');
  });
});

describe('runCli() usage', () => {
  const cli = createCliHarness();

  it('--help prints help on stdout with exit 0; no command is a usage error on stderr with exit 2', async () => {
    const help = await cli.run(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: fleet-hours <command> [options]');
    expect(await cli.run([])).toMatchObject({ code: 2, stdout: '', stderr: expect.stringContaining('No command given') });
    expect((await cli.run(['import', 'segments', '--help'])).stdout).toContain('NDJSON: one {"started_at": ISO');
  });

  it('--version prints the package version', async () => {
    expect((await cli.run(['--version'])).stdout).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('refuses --database-url together with --data-dir', async () => {
    expect(await cli.run(['accounts', 'list', '--database-url', 'postgres://x@localhost/db', '--data-dir', 'x'])).toMatchObject({
      code: 2,
    });
  });
});

describe('runCli() errors', () => {
  it('a database that goes away during a command is reported as unreachable, told by the class StorageUnavailableError (D18)', async () => {
    const store = createMemoryStore();
    const cli = createCliHarness({
      store: {
        ...store,
        listAccounts: () =>
          Promise.reject(
            new StorageUnavailableError('Storage is unavailable (ECONNRESET)', {
              cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }),
            }),
          ),
      },
    });
    expect(await cli.run(['accounts', 'list', '--data-dir', '/srv/fleet'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'fleet-hours: Cannot reach the database (embedded PGlite in /srv/fleet): Storage is unavailable (ECONNRESET)\n',
    });
  });

  it('any other error is printed as it is, without a password: its words are never read (connection refused here is not a class)', async () => {
    const store = createMemoryStore();
    const cli = createCliHarness({
      store: { ...store, listAccounts: () => Promise.reject(new Error('connection refused by postgres://fleet:s3cret@db/fh')) },
    });
    expect(await cli.run(['accounts', 'list', '--data-dir', '/srv/fleet'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'fleet-hours: connection refused by postgres://fleet:***@db/fh\n',
    });
  });
});

describe('runCli() ingest tokens and the IMEI rule (D24, D25)', () => {
  const cli = createCliHarness({ cwd: dir });

  it('ingest-tokens create shows the fhi_ token once and stores only its fingerprint; list and revoke as for keys', async () => {
    await cli.json(['accounts', 'create', '--name', 'Acme Haulage']);
    const created = await cli.json<{ id: number; token: string; fingerprint: string; label: string | null; expires_at: string | null }>([
      'ingest-tokens',
      'create',
      '--account',
      '1',
      '--label',
      'forwarder',
    ]);
    expect(created.token).toMatch(/^fhi_[0-9A-Za-z]{43}$/);
    expect(created.fingerprint).toBe(await fingerprintApiKey(created.token));
    expect(JSON.stringify(await cli.store.listIngestTokens({ accountId: 1 }))).not.toContain(created.token);
    const listed = await cli.json<{ data: { id: number; state: string; label: string }[] }>(['ingest-tokens', 'list', '--account', '1']);
    expect(listed.data).toEqual([expect.objectContaining({ id: created.id, state: 'active', label: 'forwarder' })]);
    const revoked = await cli.run(['ingest-tokens', 'revoke', String(created.id)]);
    expect(revoked).toEqual({
      code: 0,
      stdout: `Revoked ingest token ${created.id}; requests with it now answer 401 revoked_ingest_token.\n`,
      stderr: '',
    });
    expect(await cli.run(['ingest-tokens', 'revoke', '99'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'fleet-hours: No ingest token with id 99\n',
    });
    expect(await cli.run(['ingest-tokens', 'list', '--account', '9'])).toMatchObject({ code: 1 });
  });

  it('devices create and update refuse an IMEI that already names an active device, naming the IMEI and the device (exit 1)', async () => {
    const first = await cli.json<{ id: number }>([
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
    const copy = await cli.run([
      'devices',
      'create',
      '--account',
      '1',
      '--name',
      'Copy',
      '--imei',
      '356307042441013',
      '--model',
      'M',
      '--timezone',
      'UTC',
    ]);
    expect(copy.code).toBe(1);
    expect(copy.stderr).toBe(
      `fleet-hours: IMEI "356307042441013" already names active device ${first.id} "Truck" of account 1: an IMEI names at most one active device of an account; ` +
        `make that device inactive first (fleet-hours devices update ${first.id} --status inactive) or use another IMEI\n`,
    );
    const spare = await cli.json<{ id: number }>([
      'devices',
      'create',
      '--account',
      '1',
      '--name',
      'Spare',
      '--imei',
      '356307042441013',
      '--model',
      'M',
      '--timezone',
      'UTC',
      '--status',
      'inactive',
    ]);
    const activated = await cli.run(['devices', 'update', String(spare.id), '--status', 'active']);
    expect(activated.code).toBe(1);
    expect(activated.stderr).toContain(`IMEI "356307042441013" already names active device ${first.id} "Truck" of account 1`);
  });
});
