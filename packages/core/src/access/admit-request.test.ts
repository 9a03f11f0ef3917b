import { describe, expect, it, vi } from 'vitest';
import type { AccessResult, StoredCredential } from './access-policy.js';
import { admitRequest, decideAdmission, rateLimitSubject } from './admit-request.js';
import { fingerprintApiKey, generateApiKey, generateIngestToken } from './api-key.js';
import { createFleetHours } from '../application/create-fleet-hours.js';
import { createMemoryStore } from '../store/memory-store.js';
import { createMemoryRateLimitStore, DEFAULT_RATE_LIMITS, resolveRateLimits, type RateLimitDecision } from './rate-limit.js';
import { ROUTE_POLICIES, type RoutePolicy } from './route-policy.js';
import type { Account } from '../types.js';

const account: Account = { id: 7, name: 'Acme', plan: 'business', createdAt: 0 };
const key: StoredCredential = { id: 3, accountId: 7, expiresAt: null, revokedAt: null };
const ok: AccessResult = { ok: true, credential: key, account };
const denied = (
  status: 401 | 403,
  code: 'missing_api_key' | 'unknown_api_key' | 'revoked_api_key' | 'plan_without_api_access',
  credential: StoredCredential | null,
  challenge?: 'invalid_token',
): AccessResult => ({
  ok: false,
  denial: { status, code, message: `${code} message`, ...(challenge ? { challenge } : {}) },
  credential,
});
const missing = denied(401, 'missing_api_key', null);
const unknown = denied(401, 'unknown_api_key', null, 'invalid_token');
const revoked = denied(401, 'revoked_api_key', { ...key, revokedAt: 1 }, 'invalid_token');
const starter = denied(403, 'plan_without_api_access', key);

const within: RateLimitDecision = { allowed: true, limit: 30, remaining: 12, resetSeconds: 45 };
const over: RateLimitDecision = { allowed: false, limit: 30, remaining: 0, resetSeconds: 45 };
const limitHeaders = (decision: RateLimitDecision) => ({
  'X-RateLimit-Limit': String(decision.limit),
  'X-RateLimit-Remaining': String(decision.remaining),
});

/** The outcome in a few words: status and code, or admitted. */
const outcome = (policy: RoutePolicy, access: AccessResult | null, rateLimit: RateLimitDecision | null) => {
  const admission = decideAdmission({ policy, access, rateLimit });
  return admission.admitted ? 'admitted' : `${admission.refusal.status} ${admission.refusal.code}`;
};

describe('rateLimitSubject() (D13, D14, P12, P13)', () => {
  const subject = (policy: RoutePolicy, access: AccessResult | null) =>
    rateLimitSubject({ policy, access, clientAddress: '10.0.0.1', limits: DEFAULT_RATE_LIMITS });

  it('counts a valid key per key and route template, at the route limit', () => {
    expect(subject(ROUTE_POLICIES.hours, ok)).toEqual({ key: 'key:3:/api/v1/devices/{id}/hours', limit: 30 });
    expect(subject(ROUTE_POLICIES.devices, ok)).toEqual({ key: 'key:3:/api/v1/devices', limit: 120 });
    expect(subject(ROUTE_POLICIES.unmatched, ok)).toEqual({ key: 'key:3:/api/v1/*', limit: 30 });
  });

  it('counts a key refused only for its plan against the key too (D13)', () => {
    expect(subject(ROUTE_POLICIES.meter, starter)).toEqual({ key: 'key:3:/api/v1/devices/{id}/meter', limit: 30 });
  });

  it('counts every 401 per client address at the unauthenticated limit, a known revoked key too (D14)', () => {
    for (const access of [missing, unknown, revoked])
      expect(subject(ROUTE_POLICIES.devices, access)).toEqual({ key: 'address:10.0.0.1:unauthenticated', limit: 30 });
  });

  it('counts a route that needs no credential per address, and does not count the reference (P14)', () => {
    expect(subject(ROUTE_POLICIES.notFound, null)).toEqual({ key: 'address:10.0.0.1:unauthenticated', limit: 30 });
    expect(subject(ROUTE_POLICIES.docs, null)).toBeNull();
    expect(subject(ROUTE_POLICIES.openApi, null)).toBeNull();
  });

  it('uses the counter a policy shares between routes, and the token prefix for ingest tokens (ingestion: per token)', () => {
    const ingest: RoutePolicy = { template: '/ingest/traccar', credential: 'ingest_token', limit: 'ingest', counter: '/ingest' };
    expect(subject(ingest, ok)).toEqual({ key: 'token:3:/ingest', limit: 6000 });
  });
});

describe('decideAdmission() (D11, D14, P21)', () => {
  it('admits a valid key within its budget with the account and the rate-limit headers', () => {
    expect(decideAdmission({ policy: ROUTE_POLICIES.hours, access: ok, rateLimit: within })).toEqual({
      admitted: true,
      account,
      credential: key,
      headers: limitHeaders(within),
    });
  });

  it('admits a route that is not counted, without headers', () => {
    expect(decideAdmission({ policy: ROUTE_POLICIES.docs, access: null, rateLimit: null })).toEqual({
      admitted: true,
      account: null,
      credential: null,
      headers: {},
    });
  });

  it('refuses a valid key over its budget with 429, Retry-After and X-RateLimit-Reset', () => {
    const admission = decideAdmission({ policy: ROUTE_POLICIES.hours, access: ok, rateLimit: over });
    if (admission.admitted) throw new Error('expected a refusal');
    expect(admission.headers).toEqual(limitHeaders(over));
    expect([admission.refusal.status, admission.refusal.code, admission.refusal.message, admission.refusal.headers]).toEqual([
      429,
      'rate_limited',
      'Rate limit of 30 requests per minute reached for this endpoint: retry in 45 s',
      { 'Retry-After': '45', 'X-RateLimit-Reset': '45' },
    ]);
  });

  it('answers a missing or unknown key with its 401 and a Bearer challenge, or 429 over the address budget (D14)', () => {
    const refusal = (access: AccessResult, rateLimit: RateLimitDecision) => {
      const admission = decideAdmission({ policy: ROUTE_POLICIES.devices, access, rateLimit });
      if (admission.admitted) throw new Error('expected a refusal');
      return [admission.refusal.status, admission.refusal.code, admission.refusal.headers];
    };
    expect(refusal(missing, within)).toEqual([401, 'missing_api_key', { 'WWW-Authenticate': 'Bearer realm="fleet-hours"' }]);
    expect(refusal(unknown, within)).toEqual([
      401,
      'unknown_api_key',
      { 'WWW-Authenticate': 'Bearer realm="fleet-hours", error="invalid_token"' },
    ]);
    const guess = decideAdmission({ policy: ROUTE_POLICIES.devices, access: unknown, rateLimit: over });
    expect(guess.admitted === false && guess.refusal.message).toBe(
      'Rate limit of 30 requests per minute reached for requests without a valid API key: retry in 45 s',
    );
    expect(refusal(missing, over)[1]).toBe('rate_limited');
  });

  it('tells a revoked or expired key what is wrong even over the address budget (P21)', () => {
    const admission = decideAdmission({ policy: ROUTE_POLICIES.devices, access: revoked, rateLimit: over });
    expect(admission).toMatchObject({ admitted: false, credential: revoked.credential, headers: limitHeaders(over) });
    expect(
      admission.admitted === false && [admission.refusal.status, admission.refusal.code, admission.refusal.headers['Retry-After']],
    ).toEqual([401, 'revoked_api_key', undefined]);
  });

  it('answers a plan without API access 403 before any 429, without a challenge (D11)', () => {
    const admission = decideAdmission({ policy: ROUTE_POLICIES.meter, access: starter, rateLimit: over });
    expect(admission.admitted === false && [admission.refusal.status, admission.refusal.code, admission.refusal.headers]).toEqual([
      403,
      'plan_without_api_access',
      {},
    ]);
  });

  it('keeps the order of D11 whatever the budget: 401 → 403 → 429', () => {
    expect([missing, unknown, revoked, starter, ok].map((access) => outcome(ROUTE_POLICIES.hours, access, within))).toEqual([
      '401 missing_api_key',
      '401 unknown_api_key',
      '401 revoked_api_key',
      '403 plan_without_api_access',
      'admitted',
    ]);
    expect([missing, unknown, revoked, starter, ok].map((access) => outcome(ROUTE_POLICIES.hours, access, over))).toEqual([
      '429 rate_limited',
      '429 rate_limited',
      '401 revoked_api_key',
      '403 plan_without_api_access',
      '429 rate_limited',
    ]);
  });

  it('refuses a route that needs no credential over its address budget (D31)', () => {
    expect(outcome(ROUTE_POLICIES.notFound, null, within)).toBe('admitted');
    const admission = decideAdmission({ policy: ROUTE_POLICIES.notFound, access: null, rateLimit: over });
    expect(admission.admitted === false && admission.refusal.message).toBe(
      'Rate limit of 30 requests per minute reached for this client address: retry in 45 s',
    );
  });

  it('takes the realm of the challenge as an option', () => {
    const admission = decideAdmission({ policy: ROUTE_POLICIES.devices, access: missing, rateLimit: within, realm: 'fleet' });
    expect(admission.admitted === false && admission.refusal.headers).toEqual({ 'WWW-Authenticate': 'Bearer realm="fleet"' });
  });
});

describe('admitRequest()', () => {
  const setup = async () => {
    const store = createMemoryStore();
    const nowMs = 1_800_000_015_000;
    const acme = await store.createAccount({ name: 'Acme', plan: 'business', now: 0 });
    const issue = async (revoke = false) => {
      const secret = generateApiKey();
      const record = (await store.createApiKey({
        accountId: acme.id,
        fingerprint: await fingerprintApiKey(secret),
        label: null,
        expiresAt: null,
        now: 0,
      }))!;
      if (revoke) await store.revokeApiKey({ keyId: record.id, now: 1 });
      return { secret, record };
    };
    const fleetHours = createFleetHours({ store, now: () => nowMs });
    const counters = createMemoryRateLimitStore();
    const admit = (policy: RoutePolicy, authorization?: string, limits = resolveRateLimits({ unauthenticated: 2 })) =>
      admitRequest({
        policy,
        authorization,
        clientAddress: '10.0.0.1',
        authenticate: fleetHours.authenticate,
        rateLimitStore: counters,
        rateLimits: limits,
        now: nowMs / 1000,
      });
    return { store, acme, issue, admit, counters };
  };

  it('checks the key, counts the request and admits it with the account', async () => {
    const { acme, issue, admit } = await setup();
    const { secret, record } = await issue();
    const admission = await admit(ROUTE_POLICIES.hours, `Bearer ${secret}`);
    expect(admission).toEqual({
      admitted: true,
      account: acme,
      credential: record,
      headers: { 'X-RateLimit-Limit': '30', 'X-RateLimit-Remaining': '29' },
    });
  });

  it('holds back guesses over the address budget but tells a revoked key it is revoked (D14, P21)', async () => {
    const { issue, admit } = await setup();
    const revoked = await issue(true);
    const answers = [];
    for (const authorization of [
      undefined,
      'Bearer fh_guess',
      `Bearer ${revoked.secret}`,
      'Bearer fh_guess',
      undefined,
      `Bearer fh_a, Bearer fh_b`,
    ]) {
      const admission = await admit(ROUTE_POLICIES.devices, authorization);
      answers.push(
        admission.admitted
          ? 'admitted'
          : `${admission.refusal.status} ${admission.refusal.code} ${admission.headers['X-RateLimit-Remaining']}`,
      );
    }
    expect(answers).toEqual([
      '401 missing_api_key 1',
      '401 unknown_api_key 0',
      '401 revoked_api_key 0',
      '429 rate_limited 0',
      '429 rate_limited 0',
      '429 rate_limited 0',
    ]);
  });

  it('asks neither the store nor the counters for a route that is not counted and needs no credential', async () => {
    const { store, admit, counters } = await setup();
    const findApiKey = vi.spyOn(store, 'findApiKey');
    const consume = vi.spyOn(counters, 'consume');
    expect(await admit(ROUTE_POLICIES.openApi, 'Bearer fh_whatever')).toEqual({
      admitted: true,
      account: null,
      credential: null,
      headers: {},
    });
    expect([findApiKey.mock.calls.length, consume.mock.calls.length]).toEqual([0, 0]);
  });

  it('admits an ingest token on ingestion routes, one budget per token over all of them, whatever the plan (D24)', async () => {
    const { store, admit } = await setup();
    const starter = await store.createAccount({ name: 'Small Co', plan: 'starter', now: 0 });
    const token = generateIngestToken();
    const record = (await store.createIngestToken({
      accountId: starter.id,
      fingerprint: await fingerprintApiKey(token),
      label: null,
      expiresAt: null,
      now: 0,
    }))!;
    const first = await admit(ROUTE_POLICIES.ingestTelemetry, `Bearer ${token}`);
    expect(first).toEqual({
      admitted: true,
      account: starter,
      credential: record,
      headers: { 'X-RateLimit-Limit': '6000', 'X-RateLimit-Remaining': '5999' },
    });
    const second = await admit(ROUTE_POLICIES.ingestTraccar, `Bearer ${token}`);
    expect(second.headers['X-RateLimit-Remaining']).toBe('5998');
  });

  it('reads the token from the path for a policy with credentialFrom "path", never from the header (D24, OsmAnd)', async () => {
    const { store, acme, admit } = await setup();
    const token = generateIngestToken();
    await store.createIngestToken({
      accountId: acme.id,
      fingerprint: await fingerprintApiKey(token),
      label: null,
      expiresAt: null,
      now: 0,
    });
    const limits = resolveRateLimits({ unauthenticated: 100 });
    const viaPath = (pathCredential: string | undefined, authorization?: string) =>
      admitRequest({
        policy: ROUTE_POLICIES.ingestOsmand,
        authorization,
        pathCredential,
        clientAddress: '10.0.0.1',
        authenticate: createFleetHours({ store, now: () => 0 }).authenticate,
        rateLimitStore: createMemoryRateLimitStore(),
        rateLimits: limits,
        now: 0,
      });
    const code = async (admission: Promise<Awaited<ReturnType<typeof viaPath>>>) => {
      const answer = await admission;
      return answer.admitted ? 'admitted' : answer.refusal.code;
    };
    expect(await code(viaPath(token))).toBe('admitted');
    expect(await code(viaPath(undefined, `Bearer ${token}`))).toBe('missing_ingest_token');
    expect(await code(viaPath(''))).toBe('missing_ingest_token');
    expect(await code(viaPath(`${token}, Bearer x`))).toBe('unknown_ingest_token');
    expect(await code(viaPath('fh_readkey'))).toBe('unknown_ingest_token');
    // The header is not read on this route, and the path is not read on the others.
    expect(await code(admit(ROUTE_POLICIES.ingestTelemetry, undefined))).toBe('missing_ingest_token');
  });

  it('answers an API key on an ingestion route 401 unknown_ingest_token asking for an ingest token, and an ingest token on the read API unknown_api_key (P25)', async () => {
    const { issue, admit } = await setup();
    const { secret } = await issue();
    const onIngest = await admit(ROUTE_POLICIES.ingestTelemetry, `Bearer ${secret}`);
    expect(onIngest.admitted === false && [onIngest.refusal.code, onIngest.refusal.message]).toEqual([
      'unknown_ingest_token',
      'An API key cannot be used here: send an ingest token as "Authorization: Bearer <INGEST_TOKEN>"',
    ]);
    const onRead = await admit(ROUTE_POLICIES.devices, `Bearer ${generateIngestToken()}`);
    expect(onRead.admitted === false && onRead.refusal.code).toBe('unknown_api_key');
  });

  it('lets a store failure through, for the caller to answer 503 (D18)', async () => {
    const { admit, counters } = await setup();
    vi.spyOn(counters, 'consume').mockRejectedValue(new Error('counters down'));
    await expect(admit(ROUTE_POLICIES.notFound)).rejects.toThrow('counters down');
  });
});
