/**
 * D41 across processes: two `fleet-hours serve` processes on one PostgreSQL database share the
 * outbox. 1,000 events are written to it (through the store, as a write would) and both servers
 * deliver them to one receiver that verifies every request: each event arrives, none is lost, and
 * no event is ever being sent by both servers at once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKyselyStore, createPostgresDatabase } from '@fleet-hours/storage-kysely';
import { webhookBody } from '@fleet-hours/core';
import { afterAll, expect, it } from 'vitest';
import { createTestDatabase, runCliJson, startServe, type CliServer, type TestDatabase } from '../support/cli.js';
import { describeWithPostgres } from '../support/postgres.js';
import { startWebhookReceiver, waitFor } from '../support/webhook-receiver.js';

const EVENTS = 1_000;

describeWithPostgres('D41 two serve processes on one database', () => {
  const work = mkdtempSync(join(tmpdir(), 'fleet-hours-e2e-webhooks-two-'));
  let database: TestDatabase | null = null;
  const servers: CliServer[] = [];
  const closers: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const server of servers) await server.stop('SIGKILL');
    for (const close of closers) await close();
    await database?.drop();
    rmSync(work, { recursive: true, force: true });
  });

  it('D41: deliver 1,000 events, none lost, none sent by both at once', async () => {
    database = await createTestDatabase(process.env.DATABASE_URL!);
    const args = ['--database-url', database.url];
    const receiver = await startWebhookReceiver({ answers: { '/in': () => ({ status: 200 }) } });
    closers.push(receiver.close);
    const account = await runCliJson<{ id: number }>(['accounts', 'create', '--name', 'Acme', ...args], { cwd: work });
    const created = await runCliJson<{ secret: string }>(
      ['webhooks', 'create', '--account', String(account.id), '--url', receiver.url('/in'), ...args],
      {
        cwd: work,
      },
    );
    receiver.trust('/in', created.secret);
    const settings = ['--webhook-allow-private-addresses', 'on', '--webhook-concurrency', '16', '--webhook-retry-schedule', '1s,1s,1s'];
    servers.push(await startServe([...args, ...settings], { cwd: work }), await startServe([...args, ...settings], { cwd: work }));

    const db = createPostgresDatabase({ connectionString: database.url });
    closers.push(() => db.destroy());
    const store = createKyselyStore(db);
    const now = Math.floor(Date.now() / 1000);
    const events = Array.from({ length: EVENTS }, (_, index) => ({
      id: `evt_load_${index}`,
      accountId: account.id,
      type: 'device.silent' as const,
      deviceId: index,
      body: webhookBody({ type: 'device.silent', raisedAt: now, data: { device_id: index } }),
      raisedAt: now,
    }));
    for (let first = 0; first < EVENTS; first += 100) await store.raiseEvents({ events: events.slice(first, first + 100), now });

    await waitFor(() => new Set(receiver.received.map((one) => one.id)).size === EVENTS, `${EVENTS} events delivered`, 60_000);
    await waitFor(async () => (await store.webhookBacklog()).pending === 0, 'an empty backlog');
    expect(receiver.overlaps).toEqual([]);
    expect(receiver.received.every((one) => one.verified)).toBe(true);
    expect(new Set(receiver.received.map((one) => one.id))).toEqual(new Set(events.map((event) => event.id)));
    for (const server of servers.splice(0)) expect((await server.stop('SIGTERM')).code).toBe(0);
  }, 120_000);
});
