import { createMemoryRateLimitStore, createMemoryStore } from '@fleet-hours/core';
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
});
