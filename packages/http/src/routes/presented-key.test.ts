import { fingerprintApiKey, generateApiKey } from '@fleet-hours/core';
import { describe, expect, it } from 'vitest';
import { createFixture } from '../testing/fixture.js';

describe('GET /api/v1/key (P96)', () => {
  it('P96: answers the presented key’s scope, label, fingerprint prefix, expiry and account — never the key', async () => {
    const fixture = await createFixture();
    const key = generateApiKey();
    const fingerprint = await fingerprintApiKey(key);
    const expiresAt = Date.UTC(2027, 0, 1) / 1000;
    await fixture.store.createApiKey({
      accountId: fixture.accounts.acme.id,
      fingerprint,
      label: 'workshop tablet',
      expiresAt,
      now: 0,
      scope: 'manage',
    });
    const response = await fixture.request('/api/v1/key', key);
    expect(response.status).toBe(200);
    expect(response.headers.get('Cache-Control')).toBe('no-store');
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({
      scope: 'manage',
      label: 'workshop tablet',
      fingerprint_prefix: fingerprint.slice(0, 8),
      expires_at: '2027-01-01T00:00:00+00:00',
      account: { id: fixture.accounts.acme.id, name: 'Acme Haulage' },
    });
    expect(text).not.toContain(key);
    expect(text).not.toContain(fingerprint);
  });

  it('P96: a read key is told it reads; each key answers for itself and its own account', async () => {
    const fixture = await createFixture();
    const read = (await (await fixture.request('/api/v1/key', fixture.keys.acme.key)).json()) as Record<string, unknown>;
    expect(read).toMatchObject({ scope: 'read', label: null, expires_at: null, account: { id: fixture.accounts.acme.id } });
    const other = (await (await fixture.request('/api/v1/key', fixture.keys.otherManage.key)).json()) as Record<string, unknown>;
    expect(other).toMatchObject({ scope: 'manage', account: { id: fixture.accounts.other.id, name: 'Other Fleet' } });
  });

  it('P96: refuses as every read endpoint does: 401 without a key or with a revoked one, 403 on a plan without the API', async () => {
    const fixture = await createFixture();
    const code = async (key: string | null) =>
      ((await (await fixture.request('/api/v1/key', key)).json()) as { error: { status: number; code: string } }).error;
    expect(await code(null)).toMatchObject({ status: 401, code: 'missing_api_key' });
    expect(await code(fixture.keys.revoked.key)).toMatchObject({ status: 401, code: 'revoked_api_key' });
    expect(await code(fixture.keys.starterManage.key)).toMatchObject({ status: 403, code: 'plan_without_api_access' });
  });
});
