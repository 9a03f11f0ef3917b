/**
 * D40 and D41 through real processes: `fleet-hours serve` (on the PostgreSQL server of
 * DATABASE_URL when it is set, else on an embedded data directory) raises the events of an overdue
 * schedule by its periodic check and delivers them to a receiver that verifies every request with
 * the Standard Webhooks reference library — retried after a 500 under the same webhook-id, after a
 * 429 no sooner than its Retry-After, an endpoint disabled by a 410, a timeout recorded — and a
 * replay sends the same id again. An event written before a SIGKILL is delivered after the restart.
 * Short settings keep it fast: a check every second, retries after 1 s, a 1 s timeout.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, jsonLines, runCli, runCliJson, startServe, type CliServer, type TestDatabase } from '../support/cli.js';
import { startWebhookReceiver, waitFor, type ReceivedWebhook } from '../support/webhook-receiver.js';

const adminUrl = process.env.DATABASE_URL;
const FAST = [
  '--event-check-interval',
  '1',
  '--webhook-retry-schedule',
  '1s,1s,1s,1s',
  '--webhook-timeout',
  '1',
  '--webhook-allow-private-addresses',
  'on',
];

describe(`D40, D41 webhooks from serve processes (${adminUrl ? 'PostgreSQL server' : 'embedded PGlite'})`, () => {
  const work = mkdtempSync(join(tmpdir(), 'fleet-hours-e2e-webhooks-'));
  let database: TestDatabase | null = null;
  const servers: CliServer[] = [];
  const closers: (() => Promise<void>)[] = [];

  afterAll(async () => {
    for (const server of servers) await server.stop('SIGKILL');
    for (const close of closers) await close();
    await database?.drop();
    rmSync(work, { recursive: true, force: true });
  });

  /** A database with an account and a device whose schedule is overdue by the calendar (due soon and overdue at once). */
  const seed = async (name: string) => {
    const args = database ? ['--database-url', database.url] : ['--data-dir', join(work, name)];
    const cliJson = <T>(argv: readonly string[]) => runCliJson<T>([...argv, ...args], { cwd: work });
    const account = await cliJson<{ id: number }>(['accounts', 'create', '--name', 'Acme']);
    const device = await cliJson<{ id: number }>([
      'devices',
      'create',
      '--account',
      String(account.id),
      '--name',
      'Loader 7',
      '--imei',
      '356307042441013',
      '--model',
      'M',
      '--timezone',
      'UTC',
    ]);
    const lastDone = new Date(Date.now() - 3 * 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const schedule = await cliJson<{ id: number }>([
      'service',
      'create',
      '--device',
      String(device.id),
      '--name',
      'Oil',
      '--every',
      '250h',
      '--every-days',
      '1',
      '--last-done-at',
      lastDone,
      '--last-done-hours',
      '0',
    ]);
    return { args, cliJson, account, device, schedule };
  };
  /** The server's log lines of webhook attempts (a failed attempt is logged at warn). */
  const attemptLines = (server: CliServer) =>
    jsonLines(server.stdout().slice(0, server.stdout().lastIndexOf('\n') + 1)).filter((line) => line.msg === 'webhook attempt');
  const endpoint = async (cliJson: <T>(argv: readonly string[]) => Promise<T>, accountId: number, url: string) =>
    cliJson<{ id: number; secret: string }>(['webhooks', 'create', '--account', String(accountId), '--url', url]);

  it('D40, D41: signed events, retried under the same id, Retry-After honoured, 410 disables, a timeout recorded, a replay sends the same id', async () => {
    database = adminUrl ? await createTestDatabase(adminUrl) : null;
    const { args, cliJson, account, schedule } = await seed('main');
    const receiver = await startWebhookReceiver({
      answers: {
        '/ok': () => ({ status: 204 }),
        '/flaky': (_, seen) => ({ status: seen === 0 ? 500 : 200 }),
        '/busy': (_, seen) => (seen === 0 ? { status: 429, headers: { 'retry-after': '3' } } : { status: 200 }),
        '/gone': () => ({ status: 410 }),
        '/hang': () => null,
      },
    });
    closers.push(receiver.close);
    const ids: Record<string, number> = {};
    for (const path of ['/ok', '/flaky', '/busy', '/gone', '/hang']) {
      const created = await endpoint(cliJson, account.id, receiver.url(path));
      receiver.trust(path, created.secret);
      ids[path] = created.id;
    }
    const server = await startServe([...args, ...FAST], { cwd: work });
    servers.push(server);
    const at = (path: string) => receiver.received.filter((one) => one.path === path);
    const delivered = (path: string) => new Set(at(path).map((one) => one.id)).size === 2;
    await waitFor(
      () => delivered('/ok') && at('/flaky').length >= 4 && at('/busy').length >= 4 && at('/gone').length >= 1,
      'the deliveries',
    );
    await waitFor(
      () => attemptLines(server).some((line) => line.endpoint_id === ids['/hang'] && line.error === 'no answer within 1000 ms'),
      'a timeout logged',
    );
    expect((await servers.pop()!.stop('SIGTERM')).code).toBe(0);

    const overdue = `evt_overdue_s${schedule.id}_c`;
    expect(
      at('/ok')
        .map((one) => one.type)
        .sort(),
    ).toEqual(['service.due_soon', 'service.overdue']);
    expect(
      at('/ok')
        .find((one) => one.type === 'service.overdue')!
        .id.startsWith(overdue),
    ).toBe(true);
    expect(receiver.received.every((one: ReceivedWebhook) => one.verified && !one.verifiedWithWrongSecret)).toBe(true);
    for (const id of new Set(at('/flaky').map((one) => one.id))) expect(at('/flaky').filter((one) => one.id === id)).toHaveLength(2);
    for (const id of new Set(at('/busy').map((one) => one.id))) {
      const [first, second] = at('/busy').filter((one) => one.id === id);
      expect(second!.at - first!.at).toBeGreaterThanOrEqual(2_000);
    }
    const listed = await cliJson<{ data: { id: number; enabled: boolean; disabled_reason: string | null }[] }>([
      'webhooks',
      'list',
      '--account',
      String(account.id),
    ]);
    expect(listed.data.find((one) => one.id === ids['/gone'])).toMatchObject({ enabled: false, disabled_reason: 'gone' });
    const hung = await cliJson<{ data: { status: number | null; error: string | null }[] }>([
      'webhooks',
      'deliveries',
      '--id',
      String(ids['/hang']),
    ]);
    expect(hung.data[hung.data.length - 1]).toMatchObject({ status: null, error: 'no answer within 1000 ms' });

    const overdueId = at('/ok').find((one) => one.type === 'service.overdue')!.id;
    const before = at('/ok').length;
    expect((await runCli(['webhooks', 'replay', '--event', overdueId, ...args], { cwd: work })).code).toBe(0);
    servers.push(await startServe([...args, ...FAST], { cwd: work }));
    await waitFor(
      () =>
        at('/ok')
          .slice(before)
          .some((one) => one.id === overdueId),
      'the replay, under the same id',
    );
    expect((await servers.pop()!.stop('SIGTERM')).code).toBe(0);
  }, 120_000);

  it('D41: an event written before a SIGKILL is delivered after the restart, under its id', async () => {
    // A receiver that is not there yet: the server writes the events and fails to deliver them.
    const probe = await startWebhookReceiver({ answers: {} });
    const port = probe.port;
    await probe.close();
    const name = 'killed';
    if (database) {
      await database.drop();
      database = await createTestDatabase(adminUrl!);
    }
    const { args, cliJson, account } = await seed(name);
    const created = await endpoint(cliJson, account.id, `http://127.0.0.1:${port}/in`);
    const server = await startServe([...args, ...FAST, '--webhook-retry-schedule', '2s,2s,2s,2s,2s,2s,2s,2s'], { cwd: work });
    servers.push(server);
    await waitFor(() => new Set(attemptLines(server).map((line) => line.event_id)).size === 2, 'two events attempted and failed');
    await server.stop('SIGKILL');
    servers.pop();
    const receiver = await startWebhookReceiver({ port, answers: { '/in': () => ({ status: 200 }) } });
    closers.push(receiver.close);
    receiver.trust('/in', created.secret);
    servers.push(await startServe([...args, ...FAST], { cwd: work }));
    await waitFor(() => new Set(receiver.received.map((one) => one.id)).size === 2, 'both events after the restart');
    expect(receiver.received.every((one) => one.verified)).toBe(true);
    expect(receiver.received.map((one) => one.type).sort()).toEqual(['service.due_soon', 'service.overdue']);
  }, 120_000);

  it('D40: a write that makes a schedule overdue raises its events at once, without waiting for the periodic check', async () => {
    if (database) {
      await database.drop();
      database = await createTestDatabase(adminUrl!);
    }
    const args = database ? ['--database-url', database.url] : ['--data-dir', join(work, 'written')];
    const cliJson = <T>(argv: readonly string[]) => runCliJson<T>([...argv, ...args], { cwd: work });
    const account = await cliJson<{ id: number }>(['accounts', 'create', '--name', 'Acme']);
    const device = await cliJson<{ id: number }>([
      'devices',
      'create',
      '--account',
      String(account.id),
      '--name',
      'Loader 9',
      '--imei',
      '356307042441021',
      '--model',
      'M',
      '--timezone',
      'UTC',
    ]);
    const start = Math.floor(Date.now() / 1000) - 7_300;
    const lastDone = new Date(start * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
    const schedule = await cliJson<{ id: number }>([
      'service',
      'create',
      '--device',
      String(device.id),
      '--name',
      'Greasing',
      '--every',
      '1h',
      '--last-done-at',
      lastDone,
      '--last-done-hours',
      '0',
    ]);
    const { token } = await cliJson<{ token: string }>(['ingest-tokens', 'create', '--account', String(account.id)]);
    const receiver = await startWebhookReceiver({ answers: { '/in': () => ({ status: 200 }) } });
    closers.push(receiver.close);
    const created = await endpoint(cliJson, account.id, receiver.url('/in'));
    receiver.trust('/in', created.secret);
    // The periodic check runs once, at the start, when the schedule is still ok.
    const server = await startServe([...args, ...FAST, '--event-check-interval', '3600'], { cwd: work });
    servers.push(server);
    const points = Array.from({ length: 121 }, (_, index) => ({
      device_id: device.id,
      time: start + 100 + index * 60,
      ignition: true,
      speed_kmh: 20,
    }));
    const response = await fetch(`${server.url}/ingest/v1/telemetry`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(points),
    });
    expect(response.status).toBe(200);
    await waitFor(() => receiver.received.length >= 2, 'the events of the write');
    expect(receiver.received.map((one) => one.id).sort()).toEqual([
      `evt_due_soon_s${schedule.id}_c${start}`,
      `evt_overdue_s${schedule.id}_c${start}`,
    ]);
    expect(receiver.received.every((one) => one.verified)).toBe(true);
    expect((await servers.pop()!.stop('SIGTERM')).code).toBe(0);
  }, 120_000);
});
