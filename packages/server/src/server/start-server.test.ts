import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMemoryRateLimitStore, createMemoryStore, fingerprintApiKey, generateApiKey } from '@fleet-hours/core';
import { describe, expect, it } from 'vitest';
import { CommandError } from '../cli/cli-errors.js';
import type { OpenedDatabase } from '../database/open-database.js';
import { startServer } from './start-server.js';

function memoryDatabase(): OpenedDatabase & { readonly closes: () => number } {
  let closes = 0;
  return {
    target: { kind: 'pglite-memory' },
    store: createMemoryStore(),
    rateLimitStore: createMemoryRateLimitStore(),
    async close() {
      closes += 1;
    },
    closes: () => closes,
  };
}

describe('startServer()', () => {
  it('serves the API over a given database, logs each request, and leaves that database open on close', async () => {
    const database = memoryDatabase();
    const logged: string[] = [];
    const server = await startServer({ database, port: 0, log: (entry) => logged.push(`${entry.method} ${entry.route} ${entry.status}`) });
    try {
      expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
      const response = await fetch(`${server.url}/api/v1/devices`);
      expect(response.status).toBe(401);
      expect(logged).toEqual(['GET /api/v1/devices 401']);
    } finally {
      await server.close();
    }
    expect(database.closes()).toBe(0);
  });

  it('installs no SIGTERM or SIGINT handler: the CLI waits for the signal in one place (CliIo.waitForStop)', async () => {
    const before = [process.listenerCount('SIGTERM'), process.listenerCount('SIGINT')];
    const server = await startServer({ database: memoryDatabase(), port: 0, log: () => {} });
    try {
      expect([process.listenerCount('SIGTERM'), process.listenerCount('SIGINT')]).toEqual(before);
    } finally {
      await server.close();
    }
  });

  it('refuses a port in use with a CommandError whose cause carries the socket code EADDRINUSE', async () => {
    const first = await startServer({ database: memoryDatabase(), port: 0, log: () => {} });
    try {
      const second = startServer({ database: memoryDatabase(), port: first.port, log: () => {} });
      await expect(second).rejects.toBeInstanceOf(CommandError);
      await expect(second).rejects.toMatchObject({
        message: `Cannot listen on 127.0.0.1:${first.port}: the port is in use (choose another with --port)`,
        cause: { code: 'EADDRINUSE' },
      });
    } finally {
      await first.close();
    }
  });

  it('P83: with webhooks on, POST /api/v1/webhooks/{id}/test sends the event now with the server’s delivery settings; without, 503', async () => {
    const received: string[] = [];
    const receiver = createServer((request, response) => {
      received.push(String(request.headers['webhook-id']));
      request.resume();
      response.writeHead(204).end();
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const database = memoryDatabase();
    const account = await database.store.createAccount({ name: 'Acme', plan: 'business', now: 0 });
    const key = generateApiKey();
    await database.store.createApiKey({
      accountId: account.id,
      fingerprint: await fingerprintApiKey(key),
      label: null,
      expiresAt: null,
      now: 0,
      scope: 'manage',
    });
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/in`;
    const endpoint = (await database.store.createWebhookEndpoint({
      accountId: account.id,
      url,
      eventTypes: ['device.silent'],
      secret: `whsec_${'A'.repeat(43)}=`,
      now: 0,
    }))!;
    const test = (server: { url: string }) =>
      fetch(`${server.url}/api/v1/webhooks/${endpoint.id}/test`, { method: 'POST', headers: { Authorization: `Bearer ${key}` } });
    const quiet = await startServer({ database, port: 0, log: () => {} });
    try {
      expect((await test(quiet)).status).toBe(503);
    } finally {
      await quiet.close();
    }
    const server = await startServer({ database, port: 0, log: () => {}, logEvent: () => {}, webhooks: { allowPrivateAddresses: true } });
    try {
      const response = await test(server);
      expect(response.status).toBe(200);
      const body = (await response.json()) as { event_id: string; status: number; delivered: boolean };
      expect(body).toMatchObject({ status: 204, delivered: true, sent: true });
      expect(received).toEqual([body.event_id]);
    } finally {
      await server.close();
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    }
  });
});
