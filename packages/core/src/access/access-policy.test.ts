import { describe, expect, it } from 'vitest';
import {
  credentialKindOf,
  CREDENTIALS,
  DEFAULT_API_PLANS,
  evaluateAccess,
  readAuthorization,
  readBearerToken,
  type CredentialLookup,
} from './access-policy.js';
import { ERROR_TABLE } from '../errors/error-codes.js';
import type { Account, ApiKeyRecord } from '../types.js';

const NOW = 1_800_000_000;
const account: Account = { id: 7, name: 'Acme', plan: 'business', createdAt: 0 };
const apiKey: ApiKeyRecord = {
  id: 3,
  accountId: 7,
  fingerprint: 'f'.repeat(64),
  label: null,
  scope: 'read',
  createdAt: 0,
  expiresAt: null,
  revokedAt: null,
};
const lookup = (key: Partial<ApiKeyRecord> = {}, plan = 'business'): CredentialLookup => ({
  credential: { ...apiKey, ...key },
  account: { ...account, plan },
});
const bearer = (token: string) => ({ kind: 'bearer', token }) as const;
const none = { kind: 'none' } as const;

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

describe('readAuthorization() (P22)', () => {
  it('reads one Bearer token, or none for an absent or blank header or "Bearer" alone', () => {
    expect(readAuthorization('Bearer fh_abc')).toEqual({ kind: 'bearer', token: 'fh_abc' });
    for (const header of [undefined, null, '', '  ', 'Bearer', 'bearer  ']) expect(readAuthorization(header)).toEqual({ kind: 'none' });
  });

  it('tells a header that holds no Bearer credential: a bare key, another scheme, two values after Bearer', () => {
    for (const header of ['fh_abc', ' fh_abc ', 'Basic dXNlcg==', 'Token fh_abc', 'Bearer fh_a fh_b', 'Bearerfh_abc', 'Bearer: fh_abc']) {
      expect(readAuthorization(header)).toEqual({ kind: 'not_bearer' });
    }
  });

  it('tells several credentials: two headers arrive joined by ", ", in any schemes', () => {
    expect(readAuthorization('Bearer fh_a, Bearer fh_b')).toEqual({ kind: 'several', count: 2 });
    expect(readAuthorization('Bearer fh_a,Bearer fh_a, Basic dXNlcg==')).toEqual({ kind: 'several', count: 3 });
    expect(readAuthorization('Basic dXNlcg==, Bearer fh_b')).toEqual({ kind: 'several', count: 2 });
  });

  it('keeps the parameters of one credential together: Digest is one credential, not several', () => {
    expect(readAuthorization('Digest username="a", realm="b", nonce="c"')).toEqual({ kind: 'not_bearer' });
  });
});

describe('credentialKindOf() (D10, D24)', () => {
  it('tells API keys (fh_) from ingest tokens (fhi_) by their prefix', () => {
    expect([credentialKindOf('fh_abc'), credentialKindOf('fhi_abc'), credentialKindOf('abc'), credentialKindOf('FH_abc')]).toEqual([
      'api_key',
      'ingest_token',
      null,
      null,
    ]);
    expect(CREDENTIALS.ingest_token.prefix).toBe('fhi_');
  });
});

describe('evaluateAccess() (D10–D12, D24)', () => {
  const apiKeyAccess = (
    presented: Parameters<typeof evaluateAccess>[0]['presented'],
    found: CredentialLookup | null,
    apiPlans?: readonly string[],
  ) => evaluateAccess({ required: 'api_key', presented, lookup: found, now: NOW, ...(apiPlans ? { apiPlans } : {}) });

  it('lets a valid key of a business account through, with its key and account', () => {
    expect(apiKeyAccess(bearer('fh_x'), lookup())).toEqual({ ok: true, credential: apiKey, account });
  });

  it('answers 401 missing_api_key without a token, with no challenge error (RFC 6750)', () => {
    expect(apiKeyAccess(none, null)).toEqual({
      ok: false,
      denial: { status: 401, code: 'missing_api_key', message: 'API key missing: send the header "Authorization: Bearer <API_KEY>"' },
      credential: null,
    });
  });

  it('answers 401 unknown_api_key when no stored key has its fingerprint', () => {
    expect(apiKeyAccess(bearer('fh_x'), null)).toEqual({
      ok: false,
      denial: { status: 401, code: 'unknown_api_key', message: 'API key unknown', challenge: 'invalid_token' },
      credential: null,
    });
  });

  it('answers 401 revoked_api_key for a revoked key, and carries the key (P21)', () => {
    expect(apiKeyAccess(bearer('fh_x'), lookup({ revokedAt: NOW - 10 }))).toEqual({
      ok: false,
      denial: { status: 401, code: 'revoked_api_key', message: 'API key revoked', challenge: 'invalid_token' },
      credential: { ...apiKey, revokedAt: NOW - 10 },
    });
  });

  it('answers 401 expired_api_key from the expiry instant on, not before', () => {
    const denial = { status: 401, code: 'expired_api_key', message: 'API key expired', challenge: 'invalid_token' };
    expect(apiKeyAccess(bearer('fh_x'), lookup({ expiresAt: NOW }))).toEqual({
      ok: false,
      denial,
      credential: { ...apiKey, expiresAt: NOW },
    });
    expect(apiKeyAccess(bearer('fh_x'), lookup({ expiresAt: NOW - 1 }))).toEqual({
      ok: false,
      denial,
      credential: { ...apiKey, expiresAt: NOW - 1 },
    });
    expect(apiKeyAccess(bearer('fh_x'), lookup({ expiresAt: NOW + 1 })).ok).toBe(true);
  });

  it('answers 403 plan_without_api_access for a plan without API access (D12)', () => {
    const result = apiKeyAccess(bearer('fh_x'), lookup({}, 'starter'));
    expect(result).toEqual({
      ok: false,
      denial: {
        status: 403,
        code: 'plan_without_api_access',
        message: 'The account\'s plan "starter" does not include API access; API access is part of the Business plan',
      },
      credential: apiKey, // so a 403 can be counted against its key (D13)
    });
  });

  it('answers 401 multiple_credentials for several credentials, whatever the lookup says (P22)', () => {
    expect(apiKeyAccess({ kind: 'several', count: 2 }, lookup())).toEqual({
      ok: false,
      denial: {
        status: 401,
        code: 'multiple_credentials',
        message: 'Authorization is given 2 times: send one header "Authorization: Bearer <API_KEY>"',
        challenge: 'invalid_request',
      },
      credential: null,
    });
  });

  it('answers a header without "Bearer " with the missing code and a message showing the header to send', () => {
    expect(apiKeyAccess({ kind: 'not_bearer' }, lookup())).toEqual({
      ok: false,
      denial: {
        status: 401,
        code: 'missing_api_key',
        message: 'API key not sent as a Bearer token: the header must be "Authorization: Bearer <API_KEY>", with "Bearer " before the key',
      },
      credential: null,
    });
    expect(evaluateAccess({ required: 'ingest_token', presented: { kind: 'not_bearer' }, lookup: null, now: NOW })).toMatchObject({
      denial: {
        status: 401,
        code: 'missing_ingest_token',
        message:
          'Ingest token not sent as a Bearer token: the header must be "Authorization: Bearer <INGEST_TOKEN>", with "Bearer " before the token',
      },
    });
  });

  it('carries no key when the request sent none, whatever the lookup says', () => {
    const result = apiKeyAccess(none, lookup());
    expect(result.ok === false && result.credential).toBeNull();
  });

  it("refuses the other kind of credential with the route's unknown code and a message naming the one needed (D24, P25)", () => {
    expect(apiKeyAccess(bearer('fhi_token'), null)).toMatchObject({
      ok: false,
      denial: {
        status: 401,
        code: 'unknown_api_key',
        message: 'An ingest token cannot be used here: send an API key as "Authorization: Bearer <API_KEY>"',
      },
    });
    expect(evaluateAccess({ required: 'ingest_token', presented: bearer('fh_key'), lookup: null, now: NOW })).toMatchObject({
      ok: false,
      denial: {
        status: 401,
        code: 'unknown_ingest_token',
        message: 'An API key cannot be used here: send an ingest token as "Authorization: Bearer <INGEST_TOKEN>"',
      },
    });
  });

  it('answers ingest tokens with their own codes, and never gates them by plan (D24)', () => {
    const ingest = (presented: Parameters<typeof evaluateAccess>[0]['presented'], found: CredentialLookup | null) =>
      evaluateAccess({ required: 'ingest_token', presented, lookup: found, now: NOW });
    expect(
      [
        ingest(none, null),
        ingest(bearer('fhi_x'), null),
        ingest(bearer('fhi_x'), lookup({ revokedAt: NOW })),
        ingest(bearer('fhi_x'), lookup({ expiresAt: NOW })),
      ].map((result) => (result.ok ? 'ok' : result.denial.code)),
    ).toEqual(['missing_ingest_token', 'unknown_ingest_token', 'revoked_ingest_token', 'expired_ingest_token']);
    expect(ingest(bearer('fhi_x'), lookup({}, 'starter')).ok).toBe(true);
  });

  it('takes every status and default message from the error table', () => {
    for (const result of [
      apiKeyAccess(none, null),
      apiKeyAccess(bearer('fh_x'), null),
      apiKeyAccess(bearer('fh_x'), lookup({ revokedAt: 1 })),
    ]) {
      if (result.ok) throw new Error('expected a denial');
      expect(result.denial).toMatchObject({
        status: ERROR_TABLE[result.denial.code].status,
        message: ERROR_TABLE[result.denial.code].message,
      });
    }
  });

  it('checks in the order of D11: missing → several → unknown → revoked → expired → plan', () => {
    const code = (presented: Parameters<typeof evaluateAccess>[0]['presented'], found: CredentialLookup | null) => {
      const result = apiKeyAccess(presented, found);
      return result.ok ? 'ok' : result.denial.code;
    };
    const everythingWrong = lookup({ revokedAt: NOW - 10, expiresAt: NOW - 5 }, 'starter');
    expect(code(none, everythingWrong)).toBe('missing_api_key');
    expect(code({ kind: 'several', count: 2 }, everythingWrong)).toBe('multiple_credentials');
    expect(code(bearer('fh_x'), null)).toBe('unknown_api_key');
    expect(code(bearer('fh_x'), everythingWrong)).toBe('revoked_api_key');
    expect(code(bearer('fh_x'), lookup({ expiresAt: NOW - 5 }, 'starter'))).toBe('expired_api_key');
    expect(code(bearer('fh_x'), lookup({}, 'starter'))).toBe('plan_without_api_access');
  });

  it('takes the plans with API access as an option, defaulting to business', () => {
    expect(DEFAULT_API_PLANS).toEqual(['business']);
    expect(apiKeyAccess(bearer('fh_x'), lookup({}, 'starter'), ['starter']).ok).toBe(true);
    expect(apiKeyAccess(bearer('fh_x'), lookup({}, 'business'), ['enterprise']).ok).toBe(false);
  });
});
