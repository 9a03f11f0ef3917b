import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { createCliHarness } from '../testing/cli-harness.js';

/**
 * The webhook commands and `accounts update --silent-after` in-process, over a memory store (D40,
 * D41): a secret shown once and never listed, refusals that name the option and write nothing, a
 * test event verified by a real receiver with the reference library, the attempts listed, a
 * replay under the same id.
 */
/** `webhooks create` of an endpoint of account 1. */
const CREATE = ['webhooks', 'create', '--account', '1', '--url', 'https://ops.example.com/hooks'];

describe('fleet-hours webhooks (D40, D41)', () => {
  const setUp = async () => {
    const cli = createCliHarness({ now: Date.now() });
    await cli.json(['accounts', 'create', '--name', 'Acme']);
    return cli;
  };

  it('create prints the secret once; list and update never show it', async () => {
    const cli = await setUp();
    const created = await cli.json<{ id: number; secret: string; events: string[]; enabled: boolean }>([
      ...CREATE,
      '--events',
      'service.overdue,device.silent',
    ]);
    expect(created).toMatchObject({ events: ['service.overdue', 'device.silent'], enabled: true });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const listed = await cli.run(['webhooks', 'list', '--account', '1', '--json']);
    const updated = await cli.run(['webhooks', 'update', '--id', String(created.id), '--disable', '--json']);
    for (const shown of [listed.stdout, updated.stdout]) expect(shown).not.toContain(created.secret.slice(6));
    expect(JSON.parse(updated.stdout)).toMatchObject({ enabled: false, disabled_reason: 'operator' });
    expect(JSON.parse(listed.stdout).data).toHaveLength(1);
    // D55, P80: the CLI's changes land in the account's change log, by the CLI, without the secret.
    const entries = await cli.store.listAuditEntries({ accountId: 1, limit: 10 });
    expect(entries.map((entry) => [entry.action, entry.actor.kind])).toEqual([
      ['webhook.update', 'cli'],
      ['webhook.create', 'cli'],
    ]);
    expect(JSON.stringify(entries)).not.toContain(created.secret.slice(6));
  });

  it('refuses a bad URL, event type or account naming the option, and writes nothing', async () => {
    const cli = await setUp();
    const refused = [
      await cli.run(['webhooks', 'create', '--account', '1', '--url', 'http://ops.example.com/hooks']),
      await cli.run(['webhooks', 'create', '--account', '1', '--url', 'https://ops.example.com/', '--events', 'device.gone']),
      await cli.run(['webhooks', 'create', '--account', '9', '--url', 'https://ops.example.com/']),
    ];
    expect(refused.map((run) => run.code)).toEqual([1, 1, 1]);
    expect(refused[0]!.stderr).toContain('--url must be https');
    expect(refused[1]!.stderr).toContain('--events "device.gone" is not one of');
    expect(refused[2]!.stderr).toContain('No account with id 9');
    expect(await cli.store.listWebhookEndpoints({ accountId: 1 })).toEqual([]);
    const nothing = await cli.run(['webhooks', 'update', '--id', '1']);
    expect(nothing.code).toBe(2);
    expect((await cli.run(['webhooks', 'update', '--id', '1', '--enable', '--disable'])).code).toBe(2);
  });

  it('P99: --description is written by create and update, shown by list, and refused with exit 2 naming the option', async () => {
    const cli = await setUp();
    const created = await cli.json<{ id: number; description: string | null; version: string }>([
      ...CREATE,
      '--description',
      ' Dispatch board ',
    ]);
    expect(created).toMatchObject({ description: 'Dispatch board', version: expect.stringMatching(/^w-[0-9a-f]{16}$/) });
    const created2 = await cli.run(['webhooks', 'create', '--account', '1', '--url', 'https://ops.example.com/other']);
    expect(created2.stdout).toMatch(/^Created webhook endpoint 2 for https:\/\/ops\.example\.com\/other \(/);
    const table = await cli.run(['webhooks', 'list', '--account', '1']);
    expect(table.stdout.split('\n')[0]).toMatch(/ID\s+URL\s+EVENTS\s+STATE\s+DESCRIPTION/);
    expect(table.stdout).toContain('Dispatch board');
    const updated = await cli.run(['webhooks', 'update', '--id', String(created.id), '--description', 'Night shift']);
    expect(updated.stdout).toContain('Webhook endpoint 1: https://ops.example.com/hooks ("Night shift"), ');
    for (const [bad, why] of [
      ['Night\u001b[2Jshift', '--description must be text without control characters'],
      ['x'.repeat(201), '--description must be at most 200 characters'],
    ] as const) {
      for (const argv of [
        ['webhooks', 'update', '--id', String(created.id), '--description', bad],
        ['webhooks', 'create', '--account', '1', '--url', 'https://ops.example.com/x', '--description', bad],
      ]) {
        const refused = await cli.run(argv);
        expect([refused.code, refused.stderr]).toEqual([2, expect.stringContaining(why)]);
      }
    }
    const cleared = await cli.json<{ description: string | null }>(['webhooks', 'update', '--id', String(created.id), '--description', '']);
    expect(cleared.description).toBeNull();
    expect((await cli.store.listWebhookEndpoints({ accountId: 1 })).map((one) => one.description)).toEqual([null, null]);
    const entries = await cli.store.listAuditEntries({ accountId: 1, limit: 10 });
    expect(entries[0]).toMatchObject({ action: 'webhook.update', changes: { description: ['Night shift', null] } });
  });

  it('rotate prints a new secret once; both sign for 24 hours', async () => {
    const cli = await setUp();
    const created = await cli.json<{ id: number; secret: string }>(['webhooks', 'create', '--account', '1', '--url', 'https://a.example/']);
    const rotated = await cli.json<{ secret: string; previous_secret_expires_at: string }>([
      'webhooks',
      'rotate',
      '--id',
      String(created.id),
    ]);
    expect(rotated.secret).not.toBe(created.secret);
    expect(Date.parse(rotated.previous_secret_expires_at) / 1000).toBe(cli.nowSeconds + 86_400);
    expect((await cli.run(['webhooks', 'rotate', '--id', '99'])).stderr).toContain('No webhook endpoint with id 99');
  });

  it('test sends a webhook.test event the receiver verifies, once allowed by the setting its refusal names (D48); deliveries lists the attempt; replay sends it again under the same id', async () => {
    const cli = await setUp();
    const received: { id: string; verified: boolean }[] = [];
    let secret = '';
    const server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => {
        body += chunk.toString('utf8');
      });
      request.on('end', () => {
        let verified = true;
        try {
          new Webhook(secret).verify(body, request.headers as Record<string, string>);
        } catch {
          verified = false;
        }
        received.push({ id: String(request.headers['webhook-id']), verified });
        response.writeHead(received.length === 1 ? 204 : 500).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/in`;
      const created = await cli.json<{ id: number; secret: string }>(['webhooks', 'create', '--account', '1', '--url', url]);
      secret = created.secret;
      const refused = await cli.run(['webhooks', 'test', '--id', String(created.id)]);
      expect(refused.code).toBe(1);
      expect(refused.stdout).toContain('refused: the address 127.0.0.1 is not public');
      // D48: the setting the refusal names is taken by this command, under that name.
      const [, setting] = /allow it with (--[a-z-]+ on)\)/.exec(refused.stdout) ?? [];
      expect(setting).toBe('--webhook-allow-private-addresses on');
      const sent = await cli.run(['webhooks', 'test', '--id', String(created.id), ...setting!.split(' '), '--json']);
      expect(sent.code).toBe(0);
      const outcome = JSON.parse(sent.stdout) as { event_id: string; status: number; delivered: boolean };
      expect(outcome).toMatchObject({ status: 204, delivered: true });
      expect(received).toEqual([{ id: outcome.event_id, verified: true }]);
      const attempts = await cli.json<{ data: { event_id: string; status: number | null }[] }>([
        'webhooks',
        'deliveries',
        '--id',
        String(created.id),
      ]);
      expect(attempts.data.map((attempt) => attempt.status)).toEqual([204, null]);
      expect(attempts.data[0]!.event_id).toBe(outcome.event_id);
      const replayed = await cli.json<{ deliveries: { state: string }[] }>(['webhooks', 'replay', '--event', outcome.event_id]);
      expect(replayed.deliveries).toEqual([expect.objectContaining({ state: 'pending' })]);
      const [claimed] = await cli.store.claimDeliveries({
        claimant: 'x',
        eventId: outcome.event_id,
        limit: 1,
        leaseSeconds: 1,
        now: cli.nowSeconds + 1,
      });
      expect(claimed?.event.id).toBe(outcome.event_id);
      expect((await cli.run(['webhooks', 'replay', '--event', 'evt_none'])).code).toBe(1);
      expect((await cli.run(['webhooks', 'replay', '--event', 'bad id'])).code).toBe(2);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('accounts update --silent-after sets the quiet time; a bad duration names the option', async () => {
    const cli = await setUp();
    expect(await cli.json(['accounts', 'update', '--id', '1', '--silent-after', '45m'])).toMatchObject({
      id: 1,
      silent_after_seconds: 2700,
    });
    expect(await cli.store.findSilentAfter({ accountId: 1 })).toBe(2700);
    const bad = await cli.run(['accounts', 'update', '--id', '1', '--silent-after', '10s']);
    expect([bad.code, bad.stderr]).toEqual([1, expect.stringContaining('--silent-after must be from 1 minute')]);
    expect(await cli.store.findSilentAfter({ accountId: 1 })).toBe(2700);
  });
});
