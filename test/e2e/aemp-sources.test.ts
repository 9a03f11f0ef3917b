/**
 * D65, D66 (P134, P136) through a real process: `fleet-hours serve` (on the PostgreSQL server of
 * DATABASE_URL when it is set, else on an embedded data directory) polls an AEMP source created
 * over HTTP by itself, from a mock OEM feed on 127.0.0.1 (the allow-private setting on): the poll
 * is listed at `/polls`, the matched device's hour meter shows the reading, marked with its
 * source, and the change log names the poller. That two servers never poll one source at once is
 * the claim's contract test (P134: concurrent claims against the serial oracle, PostgreSQL included).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, runCliJson, startServe, type CliServer, type TestDatabase } from '../support/cli.js';
import { waitFor } from '../support/webhook-receiver.js';

const adminUrl = process.env.DATABASE_URL;

describe(`D65 AEMP sources polled by a serve process (${adminUrl ? 'PostgreSQL server' : 'embedded PGlite'})`, () => {
  const work = mkdtempSync(join(tmpdir(), 'fleet-hours-e2e-aemp-'));
  let database: TestDatabase | null = null;
  let server: CliServer | null = null;
  let feed: Server | null = null;

  afterAll(async () => {
    await server?.stop('SIGKILL');
    feed?.close();
    await database?.drop();
    rmSync(work, { recursive: true, force: true });
  });

  it('P134, P136: the server polls a source made over HTTP; the poll is listed and the device shows the reading', async () => {
    if (adminUrl) database = await createTestDatabase(adminUrl);
    const args = database ? ['--database-url', database.url] : ['--data-dir', join(work, 'data')];
    const cli = <T>(argv: readonly string[]) => runCliJson<T>([...argv, ...args], { cwd: work });
    const account = await cli<{ id: number }>(['accounts', 'create', '--name', 'Acme']);
    const device = await cli<{ id: number }>(
      ['devices', 'create', '--account', String(account.id), '--name', 'Dozer 4', '--imei', '356307042441013', '--model', 'D6'].concat([
        '--timezone',
        'UTC',
        '--pin',
        'CAT0D6ABC123',
      ]),
    );
    const { key } = await cli<{ key: string }>(['keys', 'create', '--account', String(account.id), '--scope', 'manage']);

    // The OEM's feed: one page, a matched and an unmatched machine, behind basic auth.
    const readAt = new Date(Date.now() - 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const asked: (string | undefined)[] = [];
    feed = createServer((request, response) => {
      asked.push(request.headers.authorization);
      if (request.headers.authorization !== `Basic ${Buffer.from('fleet:s3cret-pw').toString('base64')}`) {
        response.writeHead(401).end();
        return;
      }
      const machine = (pin: string, hours: number) =>
        `<Equipment><EquipmentHeader><OEMName>CAT</OEMName><PIN>${pin}</PIN></EquipmentHeader><CumulativeOperatingHours datetime="${readAt}"><Hour>${hours}</Hour></CumulativeOperatingHours></Equipment>`;
      response.writeHead(200, { 'Content-Type': 'application/xml' });
      response.end(
        `<Fleet><Links><Rel>self</Rel><href>${request.url}</href></Links>${machine('CAT0D6ABC123', 1234.5)}${machine('UNKNOWN9', 7)}</Fleet>`,
      );
    }).listen(0, '127.0.0.1');
    await once(feed, 'listening');
    const feedUrl = `http://127.0.0.1:${(feed.address() as AddressInfo).port}/aemp/Fleet/1`;

    server = await startServe([...args, '--aemp-poll-interval', '1', '--aemp-allow-private-addresses', 'on', '--webhooks', 'off'], {
      cwd: work,
    });
    const api = async (path: string, init: RequestInit = {}) => {
      const response = await fetch(`${server!.url}${path}`, {
        ...init,
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...init.headers },
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> & { data?: Record<string, unknown>[] } };
    };
    const created = await api('/api/v1/aemp/sources', {
      method: 'POST',
      body: JSON.stringify({
        name: 'Cat',
        url: feedUrl,
        auth: { kind: 'basic', username: 'fleet', password: 's3cret-pw' },
        poll_every_seconds: 3600,
        min_interval_per_url_seconds: 0,
      }),
    });
    expect(created.status).toBe(201);
    const sourceId = created.body.id as number;

    let polls: Record<string, unknown>[] = [];
    await waitFor(async () => {
      polls = (await api(`/api/v1/aemp/sources/${sourceId}/polls`)).body.data ?? [];
      return polls.length > 0;
    }, 'the server polls the source by itself');
    expect(polls[0]).toMatchObject({
      source_id: sourceId,
      pages: 1,
      equipment_seen: 2,
      matched: 1,
      unmatched: [{ pin: 'UNKNOWN9', oem_name: 'CAT', serial_number: null }],
      readings_stored: 1,
      readings_refused: [],
      error: null,
    });
    expect(asked.length).toBeGreaterThan(0);
    // Polled once: the next poll is an hour away.
    const source = (await api(`/api/v1/aemp/sources/${sourceId}`)).body;
    expect(Date.parse(source.next_poll_at as string)).toBeGreaterThan(Date.now() + 3_000_000);

    const readings = (await api(`/api/v1/devices/${device.id}/hour-meter/readings`)).body.data ?? [];
    expect(readings).toEqual([
      expect.objectContaining({ read_at: readAt.replace('Z', '+00:00'), reading_seconds: 4_444_200, source: `aemp:${sourceId}` }),
    ]);
    const meter = (await api(`/api/v1/devices/${device.id}/meter`)).body;
    expect(JSON.stringify(meter)).toContain('4444200');
    const audit = (await api('/api/v1/audit')).body.data ?? [];
    expect(audit.map((entry) => (entry.actor as { kind: string; label: string | null }).label)).toContain(`aemp:${sourceId}`);
    expect(server.stdout()).not.toContain('s3cret-pw');
  }, 180_000);
});
