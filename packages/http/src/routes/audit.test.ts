import { fingerprintApiKey, generateApiKey } from '@fleet-hours/core';
import { describe, expect, it } from 'vitest';
import { createFixture, type Fixture } from '../testing/fixture.js';
import type { AuditEntryBody } from './audit.js';

const JSON_TYPE = { 'Content-Type': 'application/json' };
const NEW_DEVICE = { name: 'Excavator 4', imei: '490154203237518', model: 'FMC130', timezone: 'Europe/Berlin' };

/** A manage key of the account with a label, and its fingerprint. */
async function labelledManageKey(fixture: Fixture, accountId: number, label: string) {
  const key = generateApiKey();
  const fingerprint = await fingerprintApiKey(key);
  await fixture.store.createApiKey({ accountId, fingerprint, label, expiresAt: null, now: 1, scope: 'manage' });
  return { key, fingerprint };
}

async function auditPage(fixture: Fixture, key: string, query = '') {
  const response = await fixture.request(`/api/v1/audit${query}`, key);
  return { response, body: (await response.json()) as { data: AuditEntryBody[]; next_cursor: string | null } };
}

describe('GET /api/v1/audit (D55)', () => {
  it('D55: a device change by the API appears newest first: the key by label and fingerprint prefix, the answer’s X-Request-Id, the fields changed', async () => {
    const fixture = await createFixture();
    const { key, fingerprint } = await labelledManageKey(fixture, fixture.accounts.acme.id, 'dispatch');
    const created = await fixture.request('/api/v1/devices', key, { method: 'POST', headers: JSON_TYPE, body: JSON.stringify(NEW_DEVICE) });
    const device = (await created.json()) as { id: number };
    fixture.clock.advance(90_000);
    const changed = await fixture.request(`/api/v1/devices/${device.id}`, key, {
      method: 'PATCH',
      headers: JSON_TYPE,
      body: JSON.stringify({ name: 'Excavator 5', registration: 'B-EX 5' }),
    });
    expect(changed.status).toBe(200);

    const { response, body } = await auditPage(fixture, key);
    expect(response.status).toBe(200);
    expect(response.headers.get('X-RateLimit-Limit')).toBe('120');
    expect(body.next_cursor).toBeNull();
    const actor = { kind: 'api_key', label: 'dispatch', fingerprint_prefix: fingerprint.slice(0, 8) };
    expect(body.data).toEqual([
      {
        id: expect.any(Number),
        at: new Date(fixture.now()).toISOString().replace(/\.\d{3}Z$/, '+00:00'),
        actor,
        request_id: changed.headers.get('X-Request-Id'),
        action: 'device.update',
        resource: { type: 'device', id: String(device.id) },
        changes: { name: ['Excavator 4', 'Excavator 5'], registration: [null, 'B-EX 5'] },
      },
      {
        id: expect.any(Number),
        at: expect.any(String),
        actor,
        request_id: created.headers.get('X-Request-Id'),
        action: 'device.create',
        resource: { type: 'device', id: String(device.id) },
        changes: {
          id: [null, device.id],
          name: [null, 'Excavator 4'],
          imei: [null, NEW_DEVICE.imei],
          model: [null, 'FMC130'],
          status: [null, 'active'],
          timezone: [null, 'Europe/Berlin'],
          // D61: no tags (the identity fields of D63, null before and after, are no change).
          tags: [null, []],
        },
      },
    ]);
    expect(body.data[0]!.request_id).toMatch(/\S/);
    expect(body.data[0]!.id).toBeGreaterThan(body.data[1]!.id);
  });

  it('D51: a read key is refused with 403 insufficient_scope; no key 401', async () => {
    const fixture = await createFixture();
    const { response, body } = await auditPage(fixture, fixture.keys.acme.key);
    expect(response.status).toBe(403);
    expect(body).toEqual({
      error: { status: 403, code: 'insufficient_scope', message: expect.stringContaining('"manage"'), scope: 'manage' },
    });
    expect((await fixture.request('/api/v1/audit')).status).toBe(401);
  });

  it('D55: another account sees none of the changes, and cannot read on with this account’s cursor', async () => {
    const fixture = await createFixture();
    for (const imei of ['490154203237518', '490154203237519', '490154203237520'])
      await fixture.request('/api/v1/devices', fixture.keys.acmeManage.key, {
        method: 'POST',
        headers: JSON_TYPE,
        body: JSON.stringify({ ...NEW_DEVICE, imei }),
      });
    expect((await auditPage(fixture, fixture.keys.otherManage.key)).body).toEqual({ data: [], next_cursor: null });
    const first = await auditPage(fixture, fixture.keys.acmeManage.key, '?limit=2');
    expect(first.body.data).toHaveLength(2);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const foreign = await auditPage(fixture, fixture.keys.otherManage.key, `?cursor=${first.body.next_cursor}`);
    expect(foreign.response.status).toBe(400);
    expect(foreign.body).toMatchObject({ error: { code: 'invalid_parameter', message: expect.stringContaining('cursor') } });
  });

  it('P87: pages by limit and cursor walk every change once, newest first; a bad limit is 400 naming it', async () => {
    const fixture = await createFixture();
    for (let index = 0; index < 5; index += 1)
      await fixture.request(`/api/v1/devices/${fixture.devices.idle.id}`, fixture.keys.acmeManage.key, {
        method: 'PATCH',
        headers: JSON_TYPE,
        body: JSON.stringify({ name: `Spare ${index}` }),
      });
    const names: unknown[] = [];
    let query = '?limit=2';
    for (;;) {
      const { body } = await auditPage(fixture, fixture.keys.acmeManage.key, query);
      names.push(...body.data.map((entry) => entry.changes.name?.[1]));
      if (body.next_cursor === null) break;
      query = `?limit=2&cursor=${body.next_cursor}`;
    }
    expect(names).toEqual(['Spare 4', 'Spare 3', 'Spare 2', 'Spare 1', 'Spare 0']);
    for (const limit of ['0', '501', 'ten']) {
      const { response, body } = await auditPage(fixture, fixture.keys.acmeManage.key, `?limit=${limit}`);
      expect(response.status).toBe(400);
      expect(body).toMatchObject({ error: { code: 'invalid_parameter', message: expect.stringContaining('limit') } });
    }
  });

  it('P88: reading the change log takes nothing from the budget of writes, and HEAD answers as GET without a body', async () => {
    const fixture = await createFixture({ rateLimits: { manageReads: 2 } });
    expect((await auditPage(fixture, fixture.keys.acmeManage.key)).response.status).toBe(200);
    const head = await fixture.request('/api/v1/audit', fixture.keys.acmeManage.key, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    expect((await auditPage(fixture, fixture.keys.acmeManage.key)).response.status).toBe(429);
    const write = await fixture.request(`/api/v1/devices/${fixture.devices.idle.id}`, fixture.keys.acmeManage.key, {
      method: 'PATCH',
      headers: JSON_TYPE,
      body: JSON.stringify({ name: 'Spare 9' }),
    });
    expect(write.status).toBe(200);
    expect(write.headers.get('X-RateLimit-Remaining')).toBe('59');
  });

  it('D17: other methods on /api/v1/audit answer 405 naming GET and HEAD', async () => {
    const fixture = await createFixture();
    const response = await fixture.request('/api/v1/audit', fixture.keys.acmeManage.key, { method: 'DELETE' });
    expect(response.status).toBe(405);
    expect(response.headers.get('Allow')).toBe('GET, HEAD');
  });
});
