/**
 * D15 with real processes: two `fleet-hours serve` processes of the built CLI on one PostgreSQL
 * database share every limit, because the counters live in the database. (test/shared-rate-limit.test.ts
 * shows the same with two app instances in one process.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCliJson, startServe, type CliServer } from '../support/cli.js';
import { createTestSchema, describeWithPostgres, type TestPostgres } from '../support/postgres.js';

describeWithPostgres('two serve processes on one PostgreSQL database (D15)', () => {
  let database: TestPostgres;
  let work: string;
  const servers: CliServer[] = [];
  let key: string;
  let deviceId: number;

  beforeAll(async () => {
    database = await createTestSchema();
    work = mkdtempSync(join(tmpdir(), 'fleet-hours-e2e-shared-'));
    const options = { cwd: work, env: { DATABASE_URL: database.url } };
    const account = await runCliJson<{ id: number }>(['accounts', 'create', '--name', 'Acme Haulage'], options);
    key = (await runCliJson<{ key: string }>(['keys', 'create', '--account', String(account.id)], options)).key;
    deviceId = (
      await runCliJson<{ id: number }>(
        [
          'devices',
          'create',
          '--account',
          String(account.id),
          '--name',
          'Truck 1',
          '--imei',
          '350000000000001',
          '--model',
          'FMB920',
          '--timezone',
          'Europe/Berlin',
        ],
        options,
      )
    ).id;
    // Both with a small /hours budget, set the way an operator would: one by flag, one by variable.
    servers.push(await startServe(['--rate-limit-hours', '4'], options));
    servers.push(await startServe([], { ...options, env: { ...options.env, FLEET_HOURS_RATE_LIMIT_HOURS: '4' } }));
  }, 120_000);

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await database?.drop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('4 /hours requests a minute for one key in total: split across both processes, the 5th is 429 on either', {
    timeout: 120_000,
  }, async () => {
    const hours = (server: CliServer) =>
      fetch(`${server.url}/api/v1/devices/${deviceId}/hours`, { headers: { Authorization: `Bearer ${key}` } });
    // The windows are whole minutes (D13): start early in one, so that all requests fall in it.
    const second = new Date().getUTCSeconds();
    if (second > 40) await new Promise((resolve) => setTimeout(resolve, (61 - second) * 1000));

    const remaining: (string | null)[] = [];
    for (let request = 0; request < 4; request += 1) {
      const response = await hours(servers[request % 2]!);
      expect(response.status).toBe(200);
      remaining.push(response.headers.get('X-RateLimit-Remaining'));
    }
    expect(remaining).toEqual(['3', '2', '1', '0']);
    for (const server of servers) {
      const refused = await hours(server);
      expect(refused.status).toBe(429);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
      expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThanOrEqual(1);
    }
    // Per endpoint (D13): /meter has its own budget, on either process.
    expect(
      (await fetch(`${servers[1]!.url}/api/v1/devices/${deviceId}/meter`, { headers: { Authorization: `Bearer ${key}` } })).status,
    ).toBe(200);
  });
});
