/**
 * P137 through real processes: `fleet-hours aemp-sources create|list|update|remove|poll` on an
 * embedded data directory. The secret comes from a file (never an argument) and is never printed;
 * a refusal names the option; `poll` polls a mock OEM feed on 127.0.0.1 now and prints the record
 * it stored.
 */
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, runCliJson } from '../support/cli.js';

describe('P137: fleet-hours aemp-sources', () => {
  const work = mkdtempSync(join(tmpdir(), 'fleet-hours-e2e-cli-aemp-'));
  let feed: Server | null = null;
  afterAll(() => {
    feed?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('creates, lists, changes, polls and removes a source; the secret is read from a file and never shown', async () => {
    const db = ['--data-dir', join(work, 'data')];
    const cli = <T>(argv: readonly string[]) => runCliJson<T>([...argv, ...db], { cwd: work });
    const account = await cli<{ id: number }>(['accounts', 'create', '--name', 'Acme']);
    const acme = ['--account', String(account.id)];
    await cli([
      ...['devices', 'create', ...acme, '--name', 'Dozer', '--imei', '356307042441013', '--model', 'D6'],
      '--timezone',
      'UTC',
      '--pin',
      'PIN-1',
    ]);
    const readAt = new Date(Date.now() - 7_200_000).toISOString().replace(/\.\d+Z$/, 'Z');
    feed = createServer((request, response) => {
      const ok = request.headers.authorization === 'Bearer tok-SECRET-42';
      response.writeHead(ok ? 200 : 401, { 'Content-Type': 'application/json' });
      response.end(
        ok
          ? JSON.stringify({
              Links: [{ rel: 'self', href: request.url }],
              Equipment: [{ EquipmentHeader: { PIN: 'PIN-1' }, CumulativeOperatingHours: { datetime: readAt, Hour: 10 } }],
            })
          : '',
      );
    }).listen(0, '127.0.0.1');
    await once(feed, 'listening');
    const url = `http://127.0.0.1:${(feed.address() as AddressInfo).port}/Fleet/1`;
    writeFileSync(join(work, 'secret.txt'), 'tok-SECRET-42\n');

    const missing = await runCli(['aemp-sources', 'create', ...acme, '--name', 'Feed', '--url', url, '--auth', 'bearer', ...db], {
      cwd: work,
    });
    expect([missing.code, missing.stderr]).toEqual([2, expect.stringContaining('--secret-file')]);
    const slow = await runCli(
      [
        'aemp-sources',
        'create',
        ...acme,
        '--name',
        'Feed',
        '--url',
        url,
        '--auth',
        'bearer',
        '--secret-file',
        'secret.txt',
        '--poll-every',
        '10',
        ...db,
      ],
      { cwd: work },
    );
    expect(slow.code).not.toBe(0);
    expect(slow.stderr).toContain('--poll-every');

    const created = await cli<{ id: number; auth: unknown; enabled: boolean }>([
      ...['aemp-sources', 'create', ...acme, '--name', 'Feed', '--url', url, '--auth', 'bearer'],
      ...['--secret-file', 'secret.txt', '--min-interval-per-url', '0'],
    ]);
    expect(created).toMatchObject({ auth: { kind: 'bearer', has_secret: true }, enabled: true });
    const source = ['--id', String(created.id)];
    const listed = await runCli(['aemp-sources', 'list', ...acme, ...db], { cwd: work });
    expect([listed.code, listed.stdout]).toEqual([0, expect.stringContaining('Feed')]);
    const disabled = await cli<{ enabled: boolean; version: number }>(['aemp-sources', 'update', ...acme, ...source, '--disable']);
    expect(disabled).toMatchObject({ enabled: false, version: 2 });

    const polled = await runCli(['aemp-sources', 'poll', ...acme, ...source, '--aemp-allow-private-addresses', 'on', '--json', ...db], {
      cwd: work,
    });
    expect(polled.code).toBe(0);
    expect(JSON.parse(polled.stdout)).toMatchObject({ source_id: created.id, pages: 1, matched: 1, readings_stored: 1, error: null });
    const refused = await runCli(['aemp-sources', 'poll', ...acme, ...source, '--json', ...db], { cwd: work });
    // Without the allowing setting a loopback feed is refused, and the record says so (exit 1).
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout)).toMatchObject({ pages: 0, error: { status: null } });

    const removed = await runCli(['aemp-sources', 'remove', ...acme, ...source, ...db], { cwd: work });
    expect(removed.code).toBe(0);
    const audit = await runCli(['audit', 'list', ...acme, '--json', ...db], { cwd: work });
    for (const text of [created, disabled].map((one) => JSON.stringify(one)).concat([listed.stdout, polled.stdout, audit.stdout]))
      expect(text).not.toContain('SECRET-42');
    expect(audit.stdout).toContain('aemp_source.create');
  }, 180_000);
});
