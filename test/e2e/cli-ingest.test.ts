/**
 * Live telemetry end to end, with the built CLI as real processes (docs/ingestion.md, D20–D25):
 * ingest tokens created, listed and revoked by the operator; a file imported with
 * `import telemetry` gives the same meter as the same points sent over HTTP; an IMEI that already
 * names an active device is refused by `devices create`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, runCli, runCliJson, startServe, type CliServer, type TestDatabase } from '../support/cli.js';

const adminUrl = process.env.DATABASE_URL;

describe(`fleet-hours live telemetry end to end (${adminUrl ? 'PostgreSQL server' : 'embedded PGlite'})`, () => {
  const work = mkdtempSync(join(tmpdir(), 'fleet-hours-e2e-ingest-'));
  let database: TestDatabase | null = null;
  let args: string[] = [];
  let server: CliServer | null = null;

  beforeAll(async () => {
    if (adminUrl) {
      database = await createTestDatabase(adminUrl);
      args = ['--database-url', database.url];
    } else args = ['--data-dir', join(work, 'data')];
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await database?.drop();
    rmSync(work, { recursive: true, force: true });
  });

  const cli = (argv: readonly string[]) => runCli([...argv, ...args], { cwd: work });
  const cliJson = <T = Record<string, unknown>>(argv: readonly string[]) => runCliJson<T>([...argv, ...args], { cwd: work });

  it('creates, lists and revokes ingest tokens; import telemetry and HTTP ingestion of the same points give the same meter (D20, D23, D24)', async () => {
    const account = await cliJson<{ id: number }>(['accounts', 'create', '--name', 'Acme Haulage']);
    const device = (name: string, imei: string) =>
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
        'Europe/Berlin',
      ]);
    const imported = await device('Imported', '356307042441013');
    const sent = await device('Sent', '356307042441021');
    const key = await cliJson<{ key: string }>(['keys', 'create', '--account', String(account.id)]);

    const created = await cliJson<{ id: number; token: string; fingerprint: string; label: string | null; expires_at: string | null }>([
      'ingest-tokens',
      'create',
      '--account',
      String(account.id),
      '--label',
      'traccar forwarder',
    ]);
    expect(Object.keys(created)).toEqual(['id', 'token', 'fingerprint', 'label', 'expires_at']);
    expect(created.token).toMatch(/^fhi_[0-9A-Za-z]{43}$/);
    const listed = await cli(['ingest-tokens', 'list', '--account', String(account.id)]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('traccar forwarder');
    expect(listed.stdout).toMatch(/ 1 +active /);
    expect(listed.stdout).not.toContain(created.token);

    // Three hours of a working morning, a point every 30 s, ending two days ago with the engine off.
    const end = Math.floor(Date.now() / 1000 / 60) * 60 - 2 * 86_400;
    const points = Array.from({ length: 360 }, (_, index) => {
      const time = end - (359 - index) * 30;
      const phase = Math.floor(index / 40) % 3;
      return { time: new Date(time * 1000).toISOString(), ignition: index !== 359 && phase !== 2, speed_kmh: phase === 0 ? 42.5 : 1.5 };
    });
    // Shuffled in the file: the order of points never matters (D20).
    const shuffled = [...points.filter((_, index) => index % 2 === 1), ...points.filter((_, index) => index % 2 === 0).reverse()];
    writeFileSync(join(work, 'morning.ndjson'), shuffled.map((point) => JSON.stringify(point)).join('\n'));
    const report = await cliJson<Record<string, unknown>>(['import', 'telemetry', '--device', String(imported.id), 'morning.ndjson']);
    expect(report).toMatchObject({ records: 360, accepted: 360, duplicates: 0, batches: 1 });

    server = await startServe(args, { cwd: work });
    const ingest = (body: string, token = created.token) =>
      fetch(`${server!.url}/ingest/v1/telemetry`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/x-ndjson' },
        body,
      });
    const answer = await ingest(points.map((point) => JSON.stringify({ device_id: sent.id, ...point })).join('\n'));
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ accepted: 360, duplicates: 0, devices: [{ device_id: sent.id }] });

    const meter = async (id: number) => {
      const response = await fetch(`${server!.url}/api/v1/devices/${id}/meter`, { headers: { Authorization: `Bearer ${key.key}` } });
      const body = (await response.json()) as Record<string, unknown>;
      return { since: body.since, engine: body.engine_seconds, moving: body.moving_seconds, idle: body.idle_seconds };
    };
    const viaImport = await meter(imported.id);
    expect(viaImport.engine).toBeGreaterThan(0);
    expect(viaImport).toEqual(await meter(sent.id));

    // Revoked on the command line, refused on the next request (D24): by the running server on
    // PostgreSQL; the embedded database takes one process at a time (P18), so there the server restarts.
    if (!adminUrl) {
      await server.stop();
      server = null;
    }
    const revoked = await cliJson<{ state: string }>(['ingest-tokens', 'revoke', String(created.id)]);
    expect(revoked.state).toBe('revoked');
    server ??= await startServe(args, { cwd: work });
    const refused = await ingest(JSON.stringify({ device_id: sent.id, ...points[0] }));
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('revoked_ingest_token');
    await server.stop();
    server = null;
  }, 180_000);

  it('devices create refuses an IMEI that already names an active device of the account, naming it (D25)', async () => {
    const result = await cli([
      'devices',
      'create',
      '--account',
      '1',
      '--name',
      'Copy',
      '--imei',
      '356307042441013',
      '--model',
      'FMB920',
      '--timezone',
      'UTC',
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^fleet-hours: IMEI "356307042441013" already names active device 1 "Imported" of account 1: an IMEI names at most one active device of an account/,
    );
    const spare = await cliJson<{ id: number }>([
      'devices',
      'create',
      '--account',
      '1',
      '--name',
      'Spare',
      '--imei',
      '356307042441013',
      '--model',
      'FMB920',
      '--timezone',
      'UTC',
      '--status',
      'inactive',
    ]);
    const activated = await cli(['devices', 'update', String(spare.id), '--status', 'active']);
    expect(activated.code).toBe(1);
    expect(activated.stderr).toContain('IMEI "356307042441013" already names active device 1 "Imported" of account 1');
    expect(activated.stderr).toContain('fleet-hours devices update 1 --status inactive');
  }, 60_000);
});
