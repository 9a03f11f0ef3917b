import type { Account, ApiKeyLookup, ApiKeyRecord } from './types.js';

/** Why a request is refused before it reaches data (D11, D16). */
export type AccessDenial =
  | { readonly status: 401; readonly code: 'missing_api_key' | 'unknown_api_key' | 'revoked_api_key' | 'expired_api_key'; readonly message: string }
  | { readonly status: 403; readonly code: 'plan_without_api_access'; readonly message: string };

/** The outcome of checking a request's key. */
export type AccessResult =
  | { readonly ok: true; readonly apiKey: ApiKeyRecord; readonly account: Account }
  | {
      readonly ok: false;
      readonly denial: AccessDenial;
      /** The key, when it was found: a 403 is still counted against it (D13), and logs name it. */
      readonly apiKey: ApiKeyRecord | null;
    };

/** The plans that include API access by default (D12). */
export const DEFAULT_API_PLANS: readonly string[] = ['business'];

/**
 * Reads the key from an `Authorization` header value: `Bearer <key>` (scheme case-insensitive).
 *
 * @param header The header value, or undefined when absent.
 * @returns The key, or `null` when there is none.
 * @example
 * ```ts
 * import { readBearerToken } from '@fleet-hours/core';
 * readBearerToken('Bearer fh_abc'); // 'fh_abc'
 * readBearerToken('Basic dXNlcg=='); // null
 * ```
 */
export function readBearerToken(header: string | null | undefined): string | null {
  if (!header) return null;
  const match = /^\s*Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : null;
}

/**
 * Decides whether a key may use the API (D10–D12), in the order of D11: missing → unknown →
 * revoked → expired (all 401, the code says which) → plan without API access (403).
 *
 * @param input `token`: the key from the request (`null` when absent); `lookup`: what the store
 *   found for its fingerprint; `now`: epoch seconds; `apiPlans`: plans with API access.
 * @returns `{ ok: true, apiKey, account }` or `{ ok: false, denial, apiKey }` (`apiKey` `null` when not found).
 * @example
 * ```ts
 * import { evaluateAccess } from '@fleet-hours/core';
 * evaluateAccess({ token: null, lookup: null, now: 0 }); // { ok: false, denial: { status: 401, code: 'missing_api_key', … } }
 * ```
 */
export function evaluateAccess(input: {
  readonly token: string | null;
  readonly lookup: ApiKeyLookup | null;
  readonly now: number;
  readonly apiPlans?: readonly string[];
}): AccessResult {
  const found = input.token === null ? null : (input.lookup?.apiKey ?? null);
  const deny = (denial: AccessDenial): AccessResult => ({ ok: false, denial, apiKey: found });
  if (input.token === null) {
    return deny({ status: 401, code: 'missing_api_key', message: 'API key missing: send the header "Authorization: Bearer <API_KEY>"' });
  }
  if (input.lookup === null) return deny({ status: 401, code: 'unknown_api_key', message: 'API key unknown' });
  const { apiKey, account } = input.lookup;
  if (apiKey.revokedAt !== null) return deny({ status: 401, code: 'revoked_api_key', message: 'API key revoked' });
  if (apiKey.expiresAt !== null && apiKey.expiresAt <= input.now) {
    return deny({ status: 401, code: 'expired_api_key', message: 'API key expired' });
  }
  if (!(input.apiPlans ?? DEFAULT_API_PLANS).includes(account.plan)) {
    return deny({
      status: 403,
      code: 'plan_without_api_access',
      message: `The account's plan "${account.plan}" does not include API access; API access is part of the Business plan`,
    });
  }
  return { ok: true, apiKey, account };
}
