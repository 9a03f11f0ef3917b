import { describe, expect, it } from 'vitest';
import { DEFAULT_API_PLANS, evaluateAccess, readBearerToken } from './access-policy.js';
import type { Account, ApiKeyLookup, ApiKeyRecord } from './types.js';

const NOW = 1_800_000_000;
const account: Account = { id: 7, name: 'Acme', plan: 'business', createdAt: 0 };
const apiKey: ApiKeyRecord = { id: 3, accountId: 7, fingerprint: 'f'.repeat(64), label: null, createdAt: 0, expiresAt: null, revokedAt: null };
const lookup = (key: Partial<ApiKeyRecord> = {}, plan = 'business'): ApiKeyLookup => ({ apiKey: { ...apiKey, ...key }, account: { ...account, plan } });

describe('readBearerToken()', () => {
  it('reads the key from "Bearer <key>", the scheme in any case', () => {
    expect(readBearerToken('Bearer fh_abc')).toBe('fh_abc');
    expect(readBearerToken('bearer fh_abc')).toBe('fh_abc');
    expect(readBearerToken('BEARER   fh_abc  ')).toBe('fh_abc');
  });

  it('is null without a header, with another scheme, or without a single token', () => {
    for (const header of [undefined, null, '', 'Basic dXNlcg==', 'Bearer', 'Bearer ', 'fh_abc', 'Bearer fh_a fh_b', 'Bearerfh_abc']) {
      expect(readBearerToken(header)).toBeNull();
    }
  });
});

describe('evaluateAccess() (D10–D12)', () => {
  it('lets a valid key of a business account through, with its key and account', () => {
    expect(evaluateAccess({ token: 'fh_x', lookup: lookup(), now: NOW })).toEqual({ ok: true, apiKey, account });
  });

  it('answers 401 missing_api_key without a token', () => {
    const result = evaluateAccess({ token: null, lookup: null, now: NOW });
    expect(result).toEqual({ ok: false, denial: { status: 401, code: 'missing_api_key', message: 'API key missing: send the header "Authorization: Bearer <API_KEY>"' }, apiKey: null });
  });

  it('answers 401 unknown_api_key when no stored key has its fingerprint', () => {
    expect(evaluateAccess({ token: 'fh_x', lookup: null, now: NOW })).toEqual({ ok: false, denial: { status: 401, code: 'unknown_api_key', message: 'API key unknown' }, apiKey: null });
  });

  it('answers 401 revoked_api_key for a revoked key', () => {
    expect(evaluateAccess({ token: 'fh_x', lookup: lookup({ revokedAt: NOW - 10 }), now: NOW })).toEqual({
      ok: false,
      denial: { status: 401, code: 'revoked_api_key', message: 'API key revoked' },
      apiKey: { ...apiKey, revokedAt: NOW - 10 },
    });
  });

  it('answers 401 expired_api_key from the expiry instant on, not before', () => {
    const denial = { status: 401, code: 'expired_api_key', message: 'API key expired' };
    expect(evaluateAccess({ token: 'fh_x', lookup: lookup({ expiresAt: NOW }), now: NOW })).toEqual({ ok: false, denial, apiKey: { ...apiKey, expiresAt: NOW } });
    expect(evaluateAccess({ token: 'fh_x', lookup: lookup({ expiresAt: NOW - 1 }), now: NOW })).toEqual({ ok: false, denial, apiKey: { ...apiKey, expiresAt: NOW - 1 } });
    expect(evaluateAccess({ token: 'fh_x', lookup: lookup({ expiresAt: NOW + 1 }), now: NOW }).ok).toBe(true);
  });

  it('answers 403 plan_without_api_access for a plan without API access (D12)', () => {
    const result = evaluateAccess({ token: 'fh_x', lookup: lookup({}, 'starter'), now: NOW });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.denial.status).toBe(403);
    expect(result.denial.code).toBe('plan_without_api_access');
    expect(result.denial.message).toBe('The account\'s plan "starter" does not include API access; API access is part of the Business plan');
    expect(result.apiKey).toEqual(apiKey); // so a 403 can be counted against its key (D13)
  });

  it('carries no key when the request sent none, whatever the lookup says', () => {
    const result = evaluateAccess({ token: null, lookup: lookup(), now: NOW });
    expect(result.ok === false && result.apiKey).toBeNull();
  });

  it('checks in the order of D11: missing → unknown → revoked → expired → plan', () => {
    const code = (input: Parameters<typeof evaluateAccess>[0]) => {
      const result = evaluateAccess(input);
      return result.ok ? 'ok' : result.denial.code;
    };
    const everythingWrong = lookup({ revokedAt: NOW - 10, expiresAt: NOW - 5 }, 'starter');
    expect(code({ token: null, lookup: everythingWrong, now: NOW })).toBe('missing_api_key');
    expect(code({ token: 'fh_x', lookup: null, now: NOW })).toBe('unknown_api_key');
    expect(code({ token: 'fh_x', lookup: everythingWrong, now: NOW })).toBe('revoked_api_key');
    expect(code({ token: 'fh_x', lookup: lookup({ expiresAt: NOW - 5 }, 'starter'), now: NOW })).toBe('expired_api_key');
    expect(code({ token: 'fh_x', lookup: lookup({}, 'starter'), now: NOW })).toBe('plan_without_api_access');
  });

  it('takes the plans with API access as an option, defaulting to business', () => {
    expect(DEFAULT_API_PLANS).toEqual(['business']);
    expect(evaluateAccess({ token: 'fh_x', lookup: lookup({}, 'starter'), now: NOW, apiPlans: ['starter'] }).ok).toBe(true);
    expect(evaluateAccess({ token: 'fh_x', lookup: lookup({}, 'business'), now: NOW, apiPlans: ['enterprise'] }).ok).toBe(false);
  });
});
