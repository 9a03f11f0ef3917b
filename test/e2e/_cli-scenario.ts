/**
 * The end-to-end scenario of the operator CLI and the reference server, run against one backend
 * (embedded PGlite, or the PostgreSQL server): set up accounts, keys and devices with the CLI,
 * import files, serve, and check every endpoint over HTTP. Steps run in order and share state.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonLines, runCli, runCliJson, startServe, type CliServer } from '../support/cli.js';

/** How a scenario reaches its database. */
export interface ScenarioBackend {
  /** Global options that select the database, e.g. `['--data-dir', dir]`. */
  readonly args: readonly string[];
  /** Whether a second process may use the database while `serve` runs (PostgreSQL, not PGlite). */
  readonly sharedWhileServing: boolean;
  readonly cleanup: () => Promise<void>;
}

interface Account {
  id: number;
  name: string;
  plan: string;
}
interface Key {
  id: number;
  key: string;
  fingerprint: string;
  label: string | null;
  expires_at: string | null;
}
interface Device {
  id: number;
  name: string;
  timezone: string;
  last_reported_at: string | null;
}

const segment = (started_at: string, ended_at: string | null, state: 'moving' | 'idle') => JSON.stringify({ started_at, ended_at, state });

/** New York truck: a 23-hour day (2025-03-09) and a 25-hour day (2025-11-02), with exact seconds. */
const NEW_YORK_SEGMENTS = [
  segment('2025-03-08T22:30:00-05:00', '2025-03-09T00:30:00-05:00', 'moving'), // 5400 s on 03-08, 1800 s on 03-09
  segment('2025-03-09T01:30:00-05:00', '2025-03-09T03:30:00-04:00', 'idle'), // across the gap: 3600 s
  '',
  segment('2025-03-09T23:00:00-04:00', '2025-03-10T01:00:00-04:00', 'moving'), // 3600 s on 03-09, 3600 s on 03-10
  segment('2025-11-02T00:30:00-04:00', '2025-11-02T01:30:00-05:00', 'idle'), // across the repeated hour: 7200 s
].join('\n');

/** Berlin van, CSV: spring forward on 2025-03-30 (a 23-hour day). */
const BERLIN_SEGMENTS_CSV = [
  'started_at,ended_at,state',
  '2025-03-30T01:00:00+01:00,2025-03-30T03:30:00+02:00,moving', // 5400 s
  '"2025-03-30T04:00:00+02:00","2025-03-30T04:10:00+02:00","idle"', // 600 s
  '',
].join('\r\n');

/**
 * Kathmandu tractor (+05:45), telemetry stored as points and turned into segments by D2: 600 s
 * moving, 840 s idle. A point covers the time until the next one, but 300 s at most: no hours
 * across data loss; the newest point runs live, up to 300 s (D22).
 */
const KATHMANDU_TELEMETRY_CSV = [
  'time,ignition,speed_kmh',
  '2025-03-10T06:00:00+05:45,true,0', // idle 240 s
  '2025-03-10T06:04:00+05:45,true,32.5', // moving: 16 min to the next point, 300 s counted
  '2025-03-10T06:20:00+05:45,true,4.9', // idle below 5 km/h: 300 s counted
  '2025-03-10T06:40:00+05:45,true,60', // moving: 300 s counted
  '2025-03-10T06:50:00+05:45,false,0',
  '2025-03-10T07:30:00+05:45,true,0', // the newest point: idle, 300 s (D22)
].join('\n');

export function describeCliEndToEnd(name: string, makeBackend: () => Promise<ScenarioBackend>): void {
  // Each step starts several processes (about a second each on PGlite): generous for a busy CI machine.
  describe(`fleet-hours CLI and server end to end: ${name}`, { timeout: 120_000 }, () => {
    let backend: ScenarioBackend;
    let work: string;
    const cli = (args: readonly string[], input?: string) =>
      runCli([...args, ...backend.args], { cwd: work, ...(input === undefined ? {} : { input }) });
    const cliJson = <T>(args: readonly string[]) => runCliJson<T>([...args, ...backend.args], { cwd: work });
    const file = (fileName: string, text: string) => {
      writeFileSync(join(work, fileName), text);
      return fileName;
    };

    let business: Account;
    let starter: Account;
    let other: Account;
    const keys: Record<'main' | 'revoked' | 'expired' | 'starter' | 'other', Key> = {} as never;
    const devices: Record<'newYork' | 'berlin' | 'kathmandu' | 'othersTruck', Device> = {} as never;
    let server: CliServer | null = null;
    let listedBeforeServing: Device[] = [];

    beforeAll(async () => {
      backend = await makeBackend();
      work = mkdtempSync(join(tmpdir(), 'fleet-hours-e2e-'));
    });
    afterAll(async () => {
      await server?.stop('SIGKILL');
      await backend?.cleanup();
      if (work) rmSync(work, { recursive: true, force: true });
    });

    it('migrate creates the schema, and running it again is harmless', async () => {
      expect(await cliJson(['migrate'])).toMatchObject({ migrated: true });
      const again = await cli(['migrate']);
      expect(again).toMatchObject({ code: 0, stderr: '' });
      expect(again.stdout).toMatch(/^The schema of .* is up to date\.\n$/);
    });

    it('accounts create prints { id, name, plan }; accounts list shows them', async () => {
      business = await cliJson<Account>(['accounts', 'create', '--name', 'Acme Haulage']);
      expect(business).toEqual({ id: expect.any(Number), name: 'Acme Haulage', plan: 'business' });
      starter = await cliJson<Account>(['accounts', 'create', '--name', 'Corner Café', '--plan', 'starter']);
      other = await cliJson<Account>(['accounts', 'create', '--name', 'Rival Freight', '--plan', 'business']);
      const list = await cli(['accounts', 'list']);
      expect(list.code).toBe(0);
      expect(list.stdout).toBe(
        [
          'ID  NAME           PLAN',
          `${String(business.id).padStart(2)}  Acme Haulage   business`,
          `${String(starter.id).padStart(2)}  Corner Café    starter`,
          `${String(other.id).padStart(2)}  Rival Freight  business`,
          '',
        ].join('\n'),
      );
    });

    it('keys create shows each key once; keys list never shows one; keys revoke revokes', async () => {
      keys.main = await cliJson<Key>(['keys', 'create', '--account', String(business.id), '--label', 'dashboard']);
      expect(Object.keys(keys.main)).toEqual(['id', 'key', 'fingerprint', 'label', 'scope', 'expires_at']);
      expect(keys.main.key).toMatch(/^fh_[0-9A-Za-z]{43}$/);
      keys.revoked = await cliJson<Key>(['keys', 'create', '--account', String(business.id), '--label', 'old laptop']);
      keys.expired = await cliJson<Key>(['keys', 'create', '--account', String(business.id), '--expires-at', '2020-01-01T00:00:00Z']);
      expect(keys.expired.expires_at).toBe('2020-01-01T00:00:00+00:00');
      keys.starter = await cliJson<Key>(['keys', 'create', '--account', String(starter.id)]);
      keys.other = await cliJson<Key>(['keys', 'create', '--account', String(other.id)]);

      const revoked = await cliJson<{ state: string }>(['keys', 'revoke', String(keys.revoked.id)]);
      expect(revoked.state).toBe('revoked');

      const list = await cli(['keys', 'list', '--account', String(business.id), '--json']);
      const listed = JSON.parse(list.stdout) as { data: { id: number; state: string; fingerprint: string }[] };
      expect(listed.data.map((key) => [key.id, key.state])).toEqual([
        [keys.main.id, 'active'],
        [keys.revoked.id, 'revoked'],
        [keys.expired.id, 'expired'],
      ]);
      for (const key of Object.values(keys)) expect(list.stdout).not.toContain(key.key);
      expect(listed.data[0]!.fingerprint).toBe(keys.main.fingerprint);
    });

    it('devices create prints the device as the API shows it and refuses an unknown zone', async () => {
      const create = (account: Account, deviceName: string, timeZone: string, extra: string[] = []) =>
        cliJson<Device>([
          'devices',
          'create',
          '--account',
          String(account.id),
          '--name',
          deviceName,
          '--imei',
          `35630704244${Math.floor(Math.random() * 1e4)}`,
          '--model',
          'FMB920',
          '--timezone',
          timeZone,
          ...extra,
        ]);
      devices.newYork = await create(business, 'Truck 14', 'America/New_York', ['--registration', 'NY 4821']);
      expect(devices.newYork).toEqual({
        id: expect.any(Number),
        name: 'Truck 14',
        imei: expect.stringMatching(/^35630704244/),
        registration: 'NY 4821',
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
      devices.berlin = await create(business, 'Van 3', 'europe/berlin');
      expect(devices.berlin.timezone).toBe('Europe/Berlin');
      devices.kathmandu = await create(business, 'Tractor', 'Asia/Kathmandu');
      devices.othersTruck = await create(other, 'Rival truck', 'UTC');

      const refused = await cli([
        'devices',
        'create',
        '--account',
        String(business.id),
        '--name',
        'X',
        '--imei',
        '1',
        '--model',
        'M',
        '--timezone',
        'Europe/Atlantis',
      ]);
      expect(refused).toMatchObject({ code: 2, stdout: '' });
      expect(refused.stderr).toContain('Unknown time zone "Europe/Atlantis"');
    });

    it('devices update changes a device', async () => {
      const updated = await cliJson<Device & { status: string }>([
        'devices',
        'update',
        String(devices.kathmandu.id),
        '--name',
        'Valley tractor',
        '--status',
        'active',
      ]);
      expect(updated).toMatchObject({ id: devices.kathmandu.id, name: 'Valley tractor', timezone: 'Asia/Kathmandu', status: 'active' });
    });

    it('import segments reads NDJSON and CSV (CRLF, quoted) in one batch each; re-importing skips', async () => {
      const newYork = await cliJson<Record<string, unknown>>([
        'import',
        'segments',
        '--device',
        String(devices.newYork.id),
        file('new-york.ndjson', NEW_YORK_SEGMENTS),
      ]);
      expect(newYork).toMatchObject({ device_id: devices.newYork.id, format: 'ndjson', records: 4, inserted: 4, closed: 0, skipped: 0 });
      const again = await cli(['import', 'segments', '--device', String(devices.newYork.id), 'new-york.ndjson']);
      expect(again.code).toBe(0);
      expect(again.stdout).toMatch(/0 inserted, 0 closed, 4 skipped/);

      const fromStdin = await runCli(
        ['import', 'segments', '--device', String(devices.berlin.id), '--format', 'csv', '-', '--json', ...backend.args],
        { cwd: work, input: BERLIN_SEGMENTS_CSV },
      );
      expect(fromStdin.code).toBe(0);
      expect(JSON.parse(fromStdin.stdout)).toMatchObject({ file: 'stdin', format: 'csv', records: 2, inserted: 2 });
    });

    it('import telemetry stores the points, and D2 makes segments of them (D20, D23)', async () => {
      const report = await cliJson<Record<string, unknown>>([
        'import',
        'telemetry',
        '--device',
        String(devices.kathmandu.id),
        file('tractor.csv', KATHMANDU_TELEMETRY_CSV),
      ]);
      expect(report).toMatchObject({ format: 'csv', records: 6, accepted: 6, duplicates: 0, batches: 1 });
    });

    it('bad import files fail with FILE:LINE, exit 1, and write nothing', async () => {
      const before = await cliJson<{ data: Device[] }>(['devices', 'list', '--account', String(business.id)]);
      const device = String(devices.newYork.id);
      const cases: [string, string, RegExp][] = [
        [
          'malformed.ndjson',
          [segment('2025-04-01T08:00:00Z', '2025-04-01T09:00:00Z', 'moving'), '{"started_at": "2025-04-01T10:00:00Z", "ended_at": '].join(
            '\n',
          ),
          /^malformed\.ndjson:2: Not valid JSON/m,
        ],
        [
          'bad-header.csv',
          'start,end,state\n2025-04-01T08:00:00Z,2025-04-01T09:00:00Z,moving\n',
          /^bad-header\.csv:1: The CSV header must name the columns started_at,ended_at,state/m,
        ],
        [
          'bad-time.csv',
          'started_at,ended_at,state\n2025-04-01T08:00:00Z,2025-04-01T09:00:00Z,moving\n2025-04-01 10:00,2025-04-01T11:00:00Z,idle\n',
          /^bad-time\.csv:3: Field started_at "2025-04-01 10:00" is not an ISO 8601 instant with an offset/m,
        ],
        [
          'overlap.ndjson',
          [
            segment('2025-04-02T08:00:00Z', '2025-04-02T09:00:00Z', 'moving'),
            segment('2025-03-09T07:00:00Z', '2025-03-09T07:10:00Z', 'idle'),
          ].join('\n'),
          /^overlap\.ndjson:2: Overlaps the stored segment 2025-03-09T06:30:00\+00:00 – 2025-03-09T07:30:00\+00:00 \(idle\)/m,
        ],
      ];
      for (const [fileName, text, expected] of cases) {
        const result = await cli(['import', 'segments', '--device', device, file(fileName, text)]);
        expect(result.code, fileName).toBe(1);
        expect(result.stdout, fileName).toBe('');
        expect(result.stderr, fileName).toMatch(expected);
        expect(result.stderr, fileName).toMatch(/(nothing was imported|nothing was written)\n$/);
      }
      const after = await cliJson<{ data: Device[] }>(['devices', 'list', '--account', String(business.id)]);
      expect(after).toEqual(before);
      listedBeforeServing = after.data;
    });

    // The read commands' answers, taken before serving (a second process cannot open the embedded database while it serves).
    const readCommands: { args: string[]; path: string; body: Record<string, unknown> }[] = [];
    it('hours, daily and meter read a device without a server; an unknown device exits 1, a bad date 2', async () => {
      const reads = [
        {
          args: ['hours', '--device', String(devices.newYork.id), '--from', '2025-03-09', '--to', '2025-03-09'],
          path: `/api/v1/devices/${devices.newYork.id}/hours?from=2025-03-09&to=2025-03-09`,
        },
        {
          args: ['hours', '--device', String(devices.kathmandu.id), '--from', '2025-03-01', '--to', '2025-03-31'],
          path: `/api/v1/devices/${devices.kathmandu.id}/hours?from=2025-03-01&to=2025-03-31`,
        },
        {
          args: ['daily', '--device', String(devices.newYork.id), '--from', '2025-11-01', '--to', '2025-11-03'],
          path: `/api/v1/devices/${devices.newYork.id}/hours/daily?from=2025-11-01&to=2025-11-03`,
        },
        { args: ['meter', '--device', String(devices.newYork.id)], path: `/api/v1/devices/${devices.newYork.id}/meter` },
        { args: ['meter', '--device', String(devices.kathmandu.id)], path: `/api/v1/devices/${devices.kathmandu.id}/meter` },
      ];
      for (const read of reads) readCommands.push({ ...read, body: await cliJson<Record<string, unknown>>(read.args) });

      const daily = await cli(['daily', '--device', String(devices.newYork.id), '--from', '2025-11-01', '--to', '2025-11-03']);
      expect(daily).toMatchObject({ code: 0, stderr: '' });
      expect(daily.stdout).toContain('2025-11-02  2:00:00  0:00:00  2:00:00\n');
      const unknown = await cli(['meter', '--device', '999999']);
      expect(unknown).toMatchObject({ code: 1, stdout: '', stderr: 'fleet-hours: No device with id 999999\n' });
      const badDate = await cli(['hours', '--device', String(devices.newYork.id), '--to', '2025-13-01']);
      expect(badDate).toMatchObject({ code: 2, stdout: '' });
      expect(badDate.stderr).toContain('Cannot parse --to "2025-13-01"');
    });

    it('serve starts on a free port and logs JSON lines', async () => {
      server = await startServe(backend.args, { cwd: work });
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    });

    const api = async (path: string, key: Key | null = keys.main) => {
      const response = await fetch(`${server!.url}${path}`, key ? { headers: { Authorization: `Bearer ${key.key}` } } : {});
      return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
    };

    it("GET /api/v1/devices lists the account's devices by id, exactly as devices list --json shows them", async () => {
      const response = await api('/api/v1/devices');
      expect(response.status).toBe(200);
      expect(response.headers.get('x-ratelimit-limit')).toBe('120');
      expect(response.headers.get('x-ratelimit-remaining')).toBe('119');
      const data = response.body.data as Device[];
      expect(data.map((device) => device.id)).toEqual([devices.newYork.id, devices.berlin.id, devices.kathmandu.id]);
      expect(data[0]).toEqual({ ...devices.newYork, last_reported_at: '2025-11-02T01:30:00-05:00' });
      expect(data).toEqual(listedBeforeServing);
    });

    it('GET /hours counts a 23-hour and a 25-hour New York day to the second', async () => {
      const spring = await api(`/api/v1/devices/${devices.newYork.id}/hours?from=2025-03-09&to=2025-03-09`);
      expect(spring.status).toBe(200);
      expect(response(spring)).toEqual({
        device_id: devices.newYork.id,
        from: '2025-03-09T00:00:00-05:00',
        to: '2025-03-09T23:59:59-04:00',
        timezone: 'America/New_York',
        engine_seconds: 9000,
        moving_seconds: 5400,
        idle_seconds: 3600,
      });
      expect(spring.headers.get('x-ratelimit-limit')).toBe('30');
      const fall = await api(`/api/v1/devices/${devices.newYork.id}/hours?from=2025-11-02&to=2025-11-02`);
      expect(response(fall)).toMatchObject({
        from: '2025-11-02T00:00:00-04:00',
        to: '2025-11-02T23:59:59-05:00',
        engine_seconds: 7200,
        moving_seconds: 0,
        idle_seconds: 7200,
      });
      const berlin = await api(`/api/v1/devices/${devices.berlin.id}/hours?from=2025-03-30&to=2025-03-30`);
      expect(response(berlin)).toMatchObject({
        from: '2025-03-30T00:00:00+01:00',
        to: '2025-03-30T23:59:59+02:00',
        engine_seconds: 6000,
        moving_seconds: 5400,
        idle_seconds: 600,
      });
      const tractor = await api(`/api/v1/devices/${devices.kathmandu.id}/hours?from=2025-03-10&to=2025-03-10`);
      expect(response(tractor)).toMatchObject({
        from: '2025-03-10T00:00:00+05:45',
        timezone: 'Asia/Kathmandu',
        engine_seconds: 1440,
        moving_seconds: 600,
        idle_seconds: 840,
      });
    });

    it('GET /hours/daily splits at local midnight, one entry per day', async () => {
      const daily = await api(`/api/v1/devices/${devices.newYork.id}/hours/daily?from=2025-03-08&to=2025-03-10`);
      expect(daily.status).toBe(200);
      expect(daily.body).toMatchObject({ device_id: devices.newYork.id, timezone: 'America/New_York' });
      expect(daily.body.data).toEqual([
        // D59: the 23-hour day's length; no calendar, so every engine second is outside one.
        expect.objectContaining({ date: '2025-03-08', engine_seconds: 5400, moving_seconds: 5400, idle_seconds: 0, day_seconds: 86_400 }),
        expect.objectContaining({
          date: '2025-03-09',
          engine_seconds: 9000,
          moving_seconds: 5400,
          idle_seconds: 3600,
          day_seconds: 82_800,
        }),
        expect.objectContaining({ date: '2025-03-10', engine_seconds: 3600, engine_outside_schedule_seconds: 3600, day_seconds: 86_400 }),
      ]);
    });

    it('GET /meter is the total since the first segment', async () => {
      const meter = await api(`/api/v1/devices/${devices.newYork.id}/meter`);
      expect(meter.status).toBe(200);
      expect(meter.body).toMatchObject({
        device_id: devices.newYork.id,
        timezone: 'America/New_York',
        since: '2025-03-08T22:30:00-05:00',
        engine_seconds: 25200,
        moving_seconds: 14400,
        idle_seconds: 10800,
      });
    });

    it('hours, daily and meter --json print what the API answers for the same device', async () => {
      expect(readCommands).toHaveLength(5);
      for (const read of readCommands) {
        const answer = await api(read.path);
        expect(answer.status, read.path).toBe(200);
        // as_of is each reader's own now; everything else is the same figure.
        expect(read.body, read.args.join(' ')).toEqual(
          read.args[0] === 'meter' ? { ...answer.body, as_of: expect.any(String) } : answer.body,
        );
      }
    });

    it("answers 401 for a missing, unknown, revoked and expired key, 403 for a starter plan, 404 for another account's device", async () => {
      const code = (result: { body: Record<string, unknown> }) => (result.body.error as { code: string }).code;
      const missing = await api('/api/v1/devices', null);
      expect([missing.status, code(missing)]).toEqual([401, 'missing_api_key']);
      const unknown = await api('/api/v1/devices', { ...keys.main, key: 'fh_0000000000000000000000000000000000000000000' });
      expect([unknown.status, code(unknown)]).toEqual([401, 'unknown_api_key']);
      const revoked = await api('/api/v1/devices', keys.revoked);
      expect([revoked.status, code(revoked)]).toEqual([401, 'revoked_api_key']);
      const expired = await api('/api/v1/devices', keys.expired);
      expect([expired.status, code(expired)]).toEqual([401, 'expired_api_key']);
      const starterPlan = await api('/api/v1/devices', keys.starter);
      expect([starterPlan.status, code(starterPlan)]).toEqual([403, 'plan_without_api_access']);
      const othersDevice = await api(`/api/v1/devices/${devices.othersTruck.id}/meter`);
      expect([othersDevice.status, code(othersDevice)]).toEqual([404, 'device_not_found']);
      const ownDevice = await api(`/api/v1/devices/${devices.othersTruck.id}/meter`, keys.other);
      expect(ownDevice.status).toBe(200);
    });

    if (name.includes('PostgreSQL')) {
      it('a key revoked and a plan changed by the CLI while the server runs take effect on the next request (D10)', async () => {
        const fresh = await cliJson<Key>(['keys', 'create', '--account', String(business.id)]);
        expect((await api('/api/v1/devices', fresh)).status).toBe(200);
        await cliJson(['keys', 'revoke', String(fresh.id)]);
        expect((await api('/api/v1/devices', fresh)).status).toBe(401);
        await cliJson(['accounts', 'set-plan', String(starter.id), 'business']);
        expect((await api('/api/v1/devices', keys.starter)).status).toBe(200);
      });
    } else {
      it('a second process on the embedded database is refused clearly while the server runs', async () => {
        const refused = await cli(['accounts', 'list']);
        expect(refused.code).toBe(1);
        expect(refused.stderr).toMatch(/is in use by process \d+ .*use a PostgreSQL server with --database-url/);
      });
    }

    it('SIGTERM stops the server cleanly with exit code 0, every log line JSON', async () => {
      const result = await server!.stop('SIGTERM');
      server = null;
      expect(result.code).toBe(0);
      const entries = jsonLines(result.stdout);
      expect(entries.map((entry) => entry.msg).filter((message) => message !== 'request')).toEqual([
        'starting',
        'listening',
        'stopping',
        'stopped',
      ]);
      const requests = entries.filter((entry) => entry.msg === 'request');
      expect(requests.length).toBeGreaterThanOrEqual(10);
      for (const key of Object.values(keys)) expect(result.stdout).not.toContain(key.key);
    });
  });
}

function response(result: { body: Record<string, unknown> }): Record<string, unknown> {
  return result.body;
}
