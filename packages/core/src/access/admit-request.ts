import { CREDENTIALS, type AccessResult, type CredentialKind, type StoredCredential } from './access-policy.js';
import { FleetHoursError } from '../errors/errors.js';
import {
  rateLimitDecision,
  rateWindow,
  consumeRateLimit,
  rateLimitHeaders,
  type CredentialCounter,
  type RateLimitCount,
  type RateLimitDecision,
  type RateLimits,
  type RateLimitStore,
} from './rate-limit.js';
import { routeLimit, type RoutePolicy } from './route-policy.js';
import type { Account } from '../types.js';

/** What {@link admitRequest} decided: let the request through to its route, or refuse it. */
export type Admission =
  | {
      readonly admitted: true;
      /** The account of the credential; `null` on a route that needs none. */
      readonly account: Account | null;
      /** The stored credential presented, when the store knows it (logs name it by id). */
      readonly credential: StoredCredential | null;
      /** The rate-limit headers every response to this request carries (D14); none on a route that is not counted. */
      readonly headers: Readonly<Record<string, string>>;
    }
  | {
      readonly admitted: false;
      /** 401, 403 or 429 with its code, message and own headers (`WWW-Authenticate`, `Retry-After`, `X-RateLimit-Reset`). */
      readonly refusal: FleetHoursError;
      readonly credential: StoredCredential | null;
      readonly headers: Readonly<Record<string, string>>;
    };

/** The counter a request is counted against, and its limit. */
export interface RateLimitSubject {
  /** e.g. `key:12:/api/v1/devices/{id}/hours`, `address:10.0.0.1:unauthenticated`. */
  readonly key: string;
  readonly limit: number;
}

/** The counter prefix of each credential kind. */
const COUNTER_PREFIX: Readonly<Record<CredentialKind, string>> = { api_key: 'key', ingest_token: 'token' };

/**
 * Which counter a request is counted against (D13, D14, P12, P13):
 *
 * - a route that is not counted: none;
 * - a route that needs no credential: its client address, at the route's limit;
 * - a valid credential, or one refused only for its account's plan (403): the credential and the
 *   route's counter (its template unless the policy names a shared one), at the route's limit;
 * - every 401 (missing, several, unknown, revoked, expired, the other kind): the client address,
 *   at the `unauthenticated` limit, so that credentials cannot be guessed at speed (D14).
 *
 * @param input The route's policy, the outcome of the credential check (`null` on a route that
 *   needs none), the client address and the limits in force.
 * @returns The counter, or `null` when the route is not counted.
 * @example
 * ```ts
 * import { DEFAULT_RATE_LIMITS } from '@fleet-hours/core';
 * import { ROUTE_POLICIES, rateLimitSubject } from '@fleet-hours/core/adapter';
 * rateLimitSubject({ policy: ROUTE_POLICIES.notFound, access: null, clientAddress: '10.0.0.1', limits: DEFAULT_RATE_LIMITS });
 * // { key: 'address:10.0.0.1:unauthenticated', limit: 30 }
 * ```
 */
export function rateLimitSubject(input: {
  readonly policy: RoutePolicy;
  readonly access: AccessResult | null;
  readonly clientAddress: string;
  readonly limits: RateLimits;
}): RateLimitSubject | null {
  const { policy, access, clientAddress, limits } = input;
  if (policy.limit === null) return null;
  if (policy.credential === null || access === null)
    return { key: `address:${clientAddress}:${policy.limit}`, limit: routeLimit(policy.limit, limits) };
  const counted = access.ok ? access.credential : access.denial.status === 403 ? access.credential : null;
  if (counted === null) return { key: `address:${clientAddress}:unauthenticated`, limit: limits.unauthenticated };
  const counter = _credentialCounter(policy, limits)!;
  return { key: `${counter.keyPrefix}${counted.id}${counter.keySuffix}`, limit: counter.limit };
}

/**
 * The counter of a route's credential before it is looked up (the one place its name is made):
 * `key:{id}:{route}` for an API key, `token:{id}:{route}` for an ingest token; `null` on a route
 * that needs none or is not counted.
 */
function _credentialCounter(policy: RoutePolicy, limits: RateLimits): { keyPrefix: string; keySuffix: string; limit: number } | null {
  if (policy.limit === null || policy.credential === null) return null;
  return {
    keyPrefix: `${COUNTER_PREFIX[policy.credential]}:`,
    keySuffix: `:${policy.counter ?? policy.template}`,
    limit: routeLimit(policy.limit, limits),
  };
}

/**
 * Decides a request's admission from its credential check and its count, in the order of D11
 * (401 → 403 → 429) with the per-address budget of D14 in front for guesses:
 *
 * - a credential refused with 401 that the store does not know (missing, several, unknown, the
 *   other kind): 429 once the address's budget is spent, else its 401;
 * - a credential the store knows but that is revoked or expired: its 401 even when the address's
 *   budget is spent (P21) — it was counted all the same;
 * - a valid credential on a plan without API access: 403, never 429 (D11);
 * - a valid API key without the scope the route needs: 403 `insufficient_scope`, never 429 (D51);
 * - a valid credential, or a route that needs none: 429 over the budget, else admitted.
 *
 * Every counted request gets `X-RateLimit-Limit` and `X-RateLimit-Remaining` (D14); a 429 adds
 * `Retry-After` and `X-RateLimit-Reset`; a 401 adds the Bearer challenge (RFC 6750, P16).
 *
 * @param input The route's policy, the credential check (`null` on a route that needs none), the
 *   count (`null` when not counted) and the challenge's realm (default `fleet-hours`).
 * @returns The admission.
 * @example
 * ```ts
 * import { decideAdmission, ROUTE_POLICIES } from '@fleet-hours/core/adapter';
 * const admission = decideAdmission({ policy: ROUTE_POLICIES.docs, access: null, rateLimit: null });
 * admission.admitted; // true
 * ```
 */
export function decideAdmission(input: {
  readonly policy: RoutePolicy;
  readonly access: AccessResult | null;
  readonly rateLimit: RateLimitDecision | null;
  readonly realm?: string;
}): Admission {
  const { policy, access, rateLimit } = input;
  const headers = rateLimit === null ? {} : rateLimitHeaders(rateLimit.limit, rateLimit);
  const credential = access?.credential ?? null;
  const refuse = (refusal: FleetHoursError): Admission => ({ admitted: false, refusal, credential, headers });
  const overBudget = rateLimit !== null && !rateLimit.allowed;

  if (access !== null && !access.ok) {
    const { denial } = access;
    // D14 guards against guessing: only a credential the store does not know is held back (P21).
    if (denial.status === 401 && access.credential === null && overBudget) return refuse(_rateLimited(rateLimit, policy, true));
    const realm = input.realm ?? 'fleet-hours';
    const challenge: Record<string, string> =
      denial.status !== 401
        ? {}
        : { 'WWW-Authenticate': `Bearer realm="${realm}"${denial.challenge ? `, error="${denial.challenge}"` : ''}` };
    return refuse(new FleetHoursError(denial.code, { message: denial.message, headers: challenge }));
  }
  // D51: a valid key without the route's scope is 403 like a plan without API access, never 429 (D11).
  if (policy.scope === 'manage' && access?.ok && access.credential.scope !== 'manage') {
    return refuse(
      new FleetHoursError('insufficient_scope', {
        message: 'This route changes data: it needs an API key with the "manage" scope (fleet-hours keys create --scope manage)',
        details: { scope: 'manage' },
      }),
    );
  }
  if (overBudget) return refuse(_rateLimited(rateLimit, policy, false));
  return { admitted: true, account: access?.ok ? access.account : null, credential, headers };
}

/**
 * Admits or refuses a request to a route by its policy (D10–D15, D24, P12–P15, P21–P23): checks the
 * credential the route needs — from the `Authorization` header, or from the path when the policy
 * says `credentialFrom: 'path'` — through `authenticate` (the store is asked by fingerprint), counts
 * the request in `rateLimitStore`, and decides with {@link decideAdmission}.
 *
 * @param input The route's policy; the request's `Authorization` header and client address;
 *   `authenticate` (a `FleetHours` service's); the counters and limits; `now` in epoch seconds
 *   (fractions allowed); `windowSeconds` (default 60) and the challenge's `realm`.
 * @returns The admission.
 * @throws {StorageUnavailableError} When the store or the counters cannot be reached (D18).
 * @example
 * ```ts
 * import { createFleetHours, createMemoryRateLimitStore, createMemoryStore, DEFAULT_RATE_LIMITS } from '@fleet-hours/core';
 * import { admitRequest, ROUTE_POLICIES } from '@fleet-hours/core/adapter';
 * const fleetHours = createFleetHours({ store: createMemoryStore(), now: Date.now });
 * const admission = await admitRequest({
 *   policy: ROUTE_POLICIES.devices,
 *   authorization: undefined,
 *   clientAddress: '10.0.0.1',
 *   authenticate: fleetHours.authenticate,
 *   rateLimitStore: createMemoryRateLimitStore(),
 *   rateLimits: DEFAULT_RATE_LIMITS,
 *   now: Date.now() / 1000,
 * });
 * admission.admitted === false && admission.refusal.code; // 'missing_api_key'
 * ```
 */
export async function admitRequest(input: {
  readonly policy: RoutePolicy;
  readonly authorization: string | null | undefined;
  /**
   * The path parameter `{token}` of the request, read instead of `authorization` when the policy
   * says `credentialFrom: 'path'` (OsmAnd, D24); ignored otherwise.
   */
  readonly pathCredential?: string | null | undefined;
  readonly clientAddress: string;
  readonly authenticate: (authorization: string | null | undefined, credential: CredentialKind) => Promise<AccessResult>;
  /**
   * Optional (a `FleetHours` service's): `authenticate` that also counts the request on the
   * credential's counter in the same round trip when `rateLimitStore` can
   * (`findApiKeyAndConsume`), for two database round trips per API request instead of four. Its
   * count is used only when the request is counted on that counter (a valid key, or a 403); every
   * 401 is then counted on the address's budget as without it (D14, P21).
   */
  readonly authenticateAndCount?: (
    input: AuthenticateAndCountInput,
  ) => Promise<{ readonly access: AccessResult; readonly count: RateLimitCount | null }>;
  readonly rateLimitStore: RateLimitStore;
  readonly rateLimits: RateLimits;
  readonly now: number;
  readonly windowSeconds?: number;
  readonly realm?: string;
}): Promise<Admission> {
  const { policy, rateLimitStore, now } = input;
  const authorization = policy.credentialFrom === 'path' ? _pathAuthorization(input.pathCredential) : input.authorization;
  const window = rateWindow(now, input.windowSeconds);
  const speculative = input.authenticateAndCount ? _credentialCounter(policy, input.rateLimits) : null;
  let access: AccessResult | null = null;
  let speculativeCount: RateLimitCount | null = null;
  if (speculative !== null && policy.credential !== null) {
    const counter: CredentialCounter = { ...speculative, ...window };
    ({ access, count: speculativeCount } = await input.authenticateAndCount!({
      authorization,
      credential: policy.credential,
      counters: rateLimitStore,
      counter,
    }));
  } else if (policy.credential !== null) access = await input.authenticate(authorization, policy.credential);
  const subject = rateLimitSubject({ policy, access, clientAddress: input.clientAddress, limits: input.rateLimits });
  // The count made along with the lookup stands only when it is the very counter the request is
  // counted on (D13: one count per request; a 401 is counted on the address instead, D14, P21).
  const countedAlready =
    speculative !== null && speculativeCount !== null && subject !== null && access?.credential != null
      ? subject.key === `${speculative.keyPrefix}${access.credential.id}${speculative.keySuffix}` && subject.limit === speculative.limit
      : false;
  let rateLimit: RateLimitDecision | null = null;
  if (subject !== null) {
    rateLimit = countedAlready
      ? rateLimitDecision(speculativeCount!, subject.limit, window, now)
      : await consumeRateLimit({ store: rateLimitStore, key: subject.key, limit: subject.limit, now, windowSeconds: window.windowSeconds });
  }
  return decideAdmission({ policy, access, rateLimit, ...(input.realm === undefined ? {} : { realm: input.realm }) });
}

/** What {@link admitRequest} gives `authenticateAndCount`. */
export interface AuthenticateAndCountInput {
  /** The `Authorization` header value (or the path's credential as one). */
  readonly authorization: string | null | undefined;
  readonly credential: CredentialKind;
  /** The counters the request is counted in. */
  readonly counters: RateLimitStore;
  /** The credential's counter in this window, to count on when the credential is found. */
  readonly counter: CredentialCounter;
}

/**
 * A credential carried in the path, as the `Authorization` header it stands for. A secret is
 * base-62 after its prefix, so percent-encoding leaves a real one as it is and turns anything a
 * header would split (spaces, commas) into text that no stored credential matches: unknown, never
 * "several" or "missing". An empty segment is a missing credential.
 */
function _pathAuthorization(token: string | null | undefined): string | null {
  if (token === null || token === undefined || token === '') return null;
  return `Bearer ${encodeURIComponent(token)}`;
}

function _rateLimited(decision: RateLimitDecision, policy: RoutePolicy, withoutCredential: boolean): FleetHoursError {
  const seconds = String(decision.resetSeconds);
  const scope =
    policy.credential === null
      ? 'for this client address'
      : withoutCredential
        ? `for requests without a valid ${CREDENTIALS[policy.credential].name}`
        : 'for this endpoint';
  return new FleetHoursError('rate_limited', {
    message: `Rate limit of ${decision.limit} requests per minute reached ${scope}: retry in ${seconds} s`,
    headers: { 'Retry-After': seconds, 'X-RateLimit-Reset': seconds },
  });
}
