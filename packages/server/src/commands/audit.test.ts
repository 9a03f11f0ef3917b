import { createFleetHours, createMemoryStore } from '@fleet-hours/core';
import { withFailingAudit } from '@fleet-hours/core/testing';
import { createFleetHoursApp } from '@fleet-hours/http';
import { describe, expect, it } from 'vitest';
import { createCliHarness } from '../testing/cli-harness.js';

interface Entry {
  readonly id: number;
  readonly at: string;
  readonly actor: { readonly kind: string; readonly label: string | null; readonly fingerprint_prefix: string | null };
  readonly request_id: string | null;
  readonly action: string;
  readonly resource: { readonly type: string; readonly id: string };
  readonly changes: Record<string, [unknown, unknown]>;
}
interface Page {
  readonly data: Entry[];
  readonly next_cursor: string | null;
}

/** One store served by the CLI and by the API, an account and a manage key made by the CLI. */
async function both() {
  const store = createMemoryStore();
  const cli = createCliHarness({ store });
  const account = await cli.json<{ id: number }>(['accounts', 'create', '--name', 'Acme']);
  const accountId = String(account.id);
  const created = await cli.json<{ id: number; key: string; fingerprint: string }>([
    ...['keys', 'create', '--account', accountId, '--scope', 'manage', '--label', 'ops'],
  ]);
  const app = createFleetHoursApp({ fleetHours: createFleetHours({ store, now: Date.now }), logger: () => {} });
  const api = (path: string, init: RequestInit = {}) =>
    app.request(path, { ...init, headers: { Authorization: `Bearer ${created.key}`, 'Content-Type': 'application/json' } });
  return { cli, api, accountId, key: created };
}

describe('fleet-hours audit list (D55)', () => {
  it('D55: a devices update by the CLI appears with actor cli in audit list and in GET /api/v1/audit, as one entry', async () => {
    const { cli, api, accountId } = await both();
    const device = await cli.json<{ id: number }>([
      ...['devices', 'create', '--account', accountId, '--name', 'Loader', '--imei', '490154203237518'],
      ...['--model', 'FMC130', '--timezone', 'Europe/Berlin'],
    ]);
    await cli.json(['devices', 'update', String(device.id), '--name', 'Loader 2', '--status', 'inactive']);

    const listed = await cli.json<Page>(['audit', 'list', '--account', accountId]);
    const update = {
      id: expect.any(Number),
      at: '2026-03-15T12:00:00+00:00',
      actor: { kind: 'cli', label: null, fingerprint_prefix: null },
      request_id: null,
      action: 'device.update',
      resource: { type: 'device', id: String(device.id) },
      changes: { name: ['Loader', 'Loader 2'], status: ['active', 'inactive'] },
    };
    expect(listed.data[0]).toEqual(update);
    expect(listed.data.map((entry) => entry.action)).toEqual(['device.update', 'device.create', 'api_key.create']);
    const served = (await (await api('/api/v1/audit')).json()) as Page;
    expect(served).toEqual(listed);

    const text = await cli.run(['audit', 'list', '--account', accountId]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^ *ID {2}AT +BY +REQUEST +ACTION +RESOURCE +CHANGES$/m);
    expect(text.stdout).toMatch(/cli +- +device\.update +device \d+ +name: "Loader" → "Loader 2"; status: "active" → "inactive"$/m);
  });

  it('D55, P89: keys created and revoked by the CLI are recorded with the fingerprint prefix, never the key', async () => {
    const { cli, api, accountId, key } = await both();
    const second = await cli.json<{ id: number; key: string; fingerprint: string }>(['keys', 'create', '--account', accountId]);
    await cli.json(['keys', 'revoke', String(second.id)]);
    // A second revocation, a minute later, changes nothing, and records nothing.
    await createCliHarness({ store: cli.store, now: Date.UTC(2026, 2, 15, 12, 1, 0) }).json(['keys', 'revoke', String(second.id)]);
    const page = (await (await api('/api/v1/audit')).json()) as Page;
    expect(page.data.map((entry) => [entry.action, entry.resource])).toEqual([
      ['api_key.revoke', { type: 'api_key', id: String(second.id) }],
      ['api_key.create', { type: 'api_key', id: String(second.id) }],
      ['api_key.create', { type: 'api_key', id: String(key.id) }],
    ]);
    expect(page.data[0]!.changes).toEqual({ revoked_at: [null, '2026-03-15T12:00:00+00:00'] });
    expect(page.data[2]!.changes).toEqual({
      id: [null, key.id],
      label: [null, 'ops'],
      scope: [null, 'manage'],
      fingerprint_prefix: [null, key.fingerprint.slice(0, 8)],
    });
    const everything = JSON.stringify(page);
    for (const secret of [key.key, second.key, key.fingerprint, second.fingerprint]) expect(everything).not.toContain(secret);
  });

  it('D55, P89: a plan changed by accounts set-plan is recorded as account.update', async () => {
    const { cli, accountId } = await both();
    await cli.json(['accounts', 'set-plan', accountId, 'starter']);
    const page = await cli.json<Page>(['audit', 'list', '--account', accountId, '--limit', '1']);
    expect(page.data).toEqual([
      expect.objectContaining({
        action: 'account.update',
        resource: { type: 'account', id: accountId },
        changes: { plan: ['business', 'starter'] },
      }),
    ]);
  });

  it('P87: --limit and --cursor walk the log a page at a time; a bad limit or a foreign cursor is exit 2 naming the option', async () => {
    const { cli, accountId } = await both();
    const other = await cli.json<{ id: number }>(['accounts', 'create', '--name', 'Other']);
    for (const plan of ['starter', 'business', 'starter']) await cli.json(['accounts', 'set-plan', accountId, plan]);
    const first = await cli.json<Page>(['audit', 'list', '--account', accountId, '--limit', '2']);
    expect(first.data.map((entry) => entry.changes.plan?.[1])).toEqual(['starter', 'business']);
    const text = await cli.run(['audit', 'list', '--account', accountId, '--limit', '2']);
    expect(text.stdout).toContain(`More: fleet-hours audit list --account ${accountId} --limit 2 --cursor ${first.next_cursor}`);
    const second = await cli.json<Page>(['audit', 'list', '--account', accountId, '--limit', '2', '--cursor', first.next_cursor!]);
    expect(second.data.map((entry) => entry.action)).toEqual(['account.update', 'api_key.create']);
    expect(second.next_cursor).toBeNull();

    const tooMany = await cli.run(['audit', 'list', '--account', accountId, '--limit', '501']);
    expect([tooMany.code, tooMany.stderr]).toEqual([2, expect.stringContaining('--limit "501" is out of range')]);
    const foreign = await cli.run(['audit', 'list', '--account', String(other.id), '--cursor', first.next_cursor!]);
    expect([foreign.code, foreign.stderr]).toEqual([2, expect.stringContaining('--cursor belongs to another account')]);
    const none = await cli.run(['audit', 'list', '--account', String(other.id)]);
    expect([none.code, none.stdout]).toEqual([0, `Account ${other.id} has no changes recorded.\n`]);
  });
});

describe("the CLI's changes and their entries (P102)", () => {
  it('P102: a key created or revoked, or a plan changed, whose entry cannot be written is not kept, and the command fails', async () => {
    const store = createMemoryStore();
    const cli = createCliHarness({ store });
    const account = await cli.json<{ id: number }>(['accounts', 'create', '--name', 'Acme']);
    const key = await cli.json<{ id: number }>(['keys', 'create', '--account', String(account.id)]);
    const failing = createCliHarness({ store: withFailingAudit(store) });
    const before = {
      keys: await store.listApiKeys({ accountId: account.id }),
      account: await store.findAccount({ accountId: account.id }),
    };

    for (const args of [
      ['keys', 'create', '--account', String(account.id), '--label', 'ops'],
      ['keys', 'revoke', String(key.id)],
      ['accounts', 'set-plan', String(account.id), 'starter'],
    ]) {
      expect((await failing.run(args)).code).not.toBe(0);
      expect({
        keys: await store.listApiKeys({ accountId: account.id }),
        account: await store.findAccount({ accountId: account.id }),
      }).toEqual(before);
    }
    expect((await store.listAuditEntries({ accountId: account.id, limit: 10 })).map((entry) => entry.action)).toEqual(['api_key.create']);
  });
});
