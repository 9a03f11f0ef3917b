import { API_KEY_PREFIX, INGEST_TOKEN_PREFIX, type ApiKeyScope } from './api-key.js';
import { credentialState, type CredentialLifetime } from './credential-state.js';
import { ERROR_TABLE, type ErrorCode } from '../errors/error-codes.js';
import type { Account } from '../types.js';

/** The kinds of credential a route may require: API keys read (D10), ingest tokens write telemetry (D24). */
export type CredentialKind = 'api_key' | 'ingest_token';

/** What the access check needs to know about one kind of credential. */
export interface CredentialSpec {
  /** The prefix every secret of this kind starts with (D10, D24). */
  readonly prefix: string;
  /** Its name in messages: `API key`. */
  readonly name: string;
  /** The article of its name: `an`. */
  readonly article: string;
  /** The placeholder of the header it is sent in: `Authorization: Bearer <API_KEY>`. */
  readonly placeholder: string;
  /** The 401 codes of this kind (D11, D24). */
  readonly codes: { readonly missing: ErrorCode; readonly unknown: ErrorCode; readonly revoked: ErrorCode; readonly expired: ErrorCode };
  /** Whether the account's plan gates it (D12 gates the read API; D24: ingestion is not gated). */
  readonly planGated: boolean;
}

/** The credential kinds (D10, D24): one table, so that a second kind is a row and not new code. */
export const CREDENTIALS: Readonly<Record<CredentialKind, CredentialSpec>> = {
  api_key: {
    prefix: API_KEY_PREFIX,
    name: 'API key',
    article: 'an',
    placeholder: '<API_KEY>',
    codes: { missing: 'missing_api_key', unknown: 'unknown_api_key', revoked: 'revoked_api_key', expired: 'expired_api_key' },
    planGated: true,
  },
  ingest_token: {
    prefix: INGEST_TOKEN_PREFIX,
    name: 'ingest token',
    article: 'an',
    placeholder: '<INGEST_TOKEN>',
    codes: {
      missing: 'missing_ingest_token',
      unknown: 'unknown_ingest_token',
      revoked: 'revoked_ingest_token',
      expired: 'expired_ingest_token',
    },
    planGated: false,
  },
};

/** A stored credential as the access check sees it: an `ApiKeyRecord`, or an ingest token's record. */
export interface StoredCredential extends CredentialLifetime {
  readonly id: number;
  readonly accountId: number;
  /** An API key's scope (D51); absent on an ingest token. */
  readonly scope?: ApiKeyScope;
  /** Its label and fingerprint, when the store gave them: the audit names the key by them (D55). */
  readonly label?: string | null;
  readonly fingerprint?: string;
}

/** A stored credential found by fingerprint, with the account it belongs to. */
export interface CredentialLookup {
  readonly credential: StoredCredential;
  readonly account: Account;
}

/** What the `Authorization` header of a request carries. */
export type PresentedCredential =
  | { readonly kind: 'none' }
  /** Two `Authorization` headers (they arrive joined by ", "), or two credentials in one (P22). */
  | { readonly kind: 'several'; readonly count: number }
  /**
   * A header that holds no Bearer credential: a bare key (`Authorization: fh_…`, the mistake people
   * make), another scheme (`Basic …`), or `Bearer` followed by more than one value.
   */
  | { readonly kind: 'not_bearer' }
  | { readonly kind: 'bearer'; readonly token: string };

/** Why a request is refused before it reaches data (D11, D16). */
export interface AccessDenial {
  readonly status: 401 | 403;
  readonly code: ErrorCode;
  readonly message: string;
  /** `error` of the `WWW-Authenticate` challenge of a 401 (RFC 6750); absent for a missing credential and on a 403. */
  readonly challenge?: 'invalid_token' | 'invalid_request';
}

/** The outcome of checking a request's credential. */
export type AccessResult =
  | { readonly ok: true; readonly credential: StoredCredential; readonly account: Account }
  | {
      readonly ok: false;
      readonly denial: AccessDenial;
      /**
       * The stored credential, when one was found (revoked, expired, or on a plan without API
       * access): it gets its own answer even when its address's budget is spent (P21), a 403 is
       * counted against it (D13), and logs name it by id.
       */
      readonly credential: StoredCredential | null;
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
 * import { readBearerToken } from '@fleet-hours/core/adapter';
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
 * Reads what the `Authorization` header carries: one Bearer token, several credentials (two
 * headers arrive joined by ", "; a Bearer token never holds a comma, P22), something that is no
 * Bearer credential (a bare key, another scheme), or none (absent, blank, or `Bearer` alone).
 *
 * @param header The header value, or undefined when absent.
 * @returns `{ kind: 'bearer', token }`, `{ kind: 'several', count }`, `{ kind: 'not_bearer' }` or `{ kind: 'none' }`.
 * @example
 * ```ts
 * import { readAuthorization } from '@fleet-hours/core/adapter';
 * readAuthorization('Bearer fh_abc'); // { kind: 'bearer', token: 'fh_abc' }
 * readAuthorization('Bearer fh_a, Bearer fh_b'); // { kind: 'several', count: 2 }
 * readAuthorization('fh_abc'); // { kind: 'not_bearer' }
 * readAuthorization(undefined); // { kind: 'none' }
 * ```
 */
export function readAuthorization(header: string | null | undefined): PresentedCredential {
  if (!header || /^\s*(?:Bearer\s*)?$/i.test(header)) return { kind: 'none' };
  // Each credential is "<scheme> <value>"; parameters of one credential (Digest's realm="…") are not.
  const count = header.split(',').filter((part) => _CREDENTIAL.test(part)).length;
  if (count > 1) return { kind: 'several', count };
  const token = readBearerToken(header);
  return token === null ? { kind: 'not_bearer' } : { kind: 'bearer', token };
}

const _CREDENTIAL = /^\s*[A-Za-z0-9!#$%&'*+.^_`|~-]+\s+\S/;

/**
 * The kind of credential a secret is, by its prefix (`fh_` API key, `fhi_` ingest token).
 *
 * @param token The secret.
 * @returns Its kind, or `null` when it has no known prefix.
 * @example
 * ```ts
 * import { credentialKindOf } from '@fleet-hours/core/adapter';
 * credentialKindOf('fhi_abc'); // 'ingest_token'
 * credentialKindOf('abc'); // null
 * ```
 */
export function credentialKindOf(token: string): CredentialKind | null {
  for (const kind of Object.keys(CREDENTIALS) as CredentialKind[]) if (token.startsWith(CREDENTIALS[kind].prefix)) return kind;
  return null;
}

/**
 * Decides whether the credential a request presents may use a route that requires `required`
 * (D10–D12, D24), in the order of D11: missing or not a Bearer credential → several (P22) → the other kind of credential
 * (D24) → unknown → revoked → expired (all 401, the code says which) → plan without API access
 * (403, API keys only).
 *
 * @param input `required`: the route's credential kind; `presented`: from {@link readAuthorization};
 *   `lookup`: what the store found for the token's fingerprint (`null` when nothing was found or
 *   looked up); `now`: epoch seconds; `apiPlans`: plans with API access (default `['business']`).
 * @returns `{ ok: true, credential, account }` or `{ ok: false, denial, credential }`.
 * @example
 * ```ts
 * import { evaluateAccess } from '@fleet-hours/core/adapter';
 * evaluateAccess({ required: 'api_key', presented: { kind: 'none' }, lookup: null, now: 0 });
 * // { ok: false, denial: { status: 401, code: 'missing_api_key', … }, credential: null }
 * ```
 */
export function evaluateAccess(input: {
  readonly required: CredentialKind;
  readonly presented: PresentedCredential;
  readonly lookup: CredentialLookup | null;
  readonly now: number;
  readonly apiPlans?: readonly string[];
}): AccessResult {
  const spec = CREDENTIALS[input.required];
  const { presented } = input;
  const found = presented.kind === 'bearer' ? (input.lookup?.credential ?? null) : null;
  const deny = (code: ErrorCode, message?: string, challenge?: AccessDenial['challenge']): AccessResult => ({
    ok: false,
    denial: {
      status: ERROR_TABLE[code].status as 401 | 403,
      code,
      message: message ?? ERROR_TABLE[code].message,
      ...(challenge ? { challenge } : {}),
    },
    credential: found,
  });

  if (presented.kind === 'none') return deny(spec.codes.missing);
  // Still the "missing" code — no credential was presented the way the API reads one — but a
  // message that shows the fix, since the header is there and looks right to whoever sent it.
  if (presented.kind === 'not_bearer') {
    return deny(
      spec.codes.missing,
      `${_capitalized(spec.name)} not sent as a Bearer token: the header must be "Authorization: Bearer ${spec.placeholder}", with "Bearer " before the ${spec.name.split(' ').at(-1)}`,
    );
  }
  if (presented.kind === 'several') {
    return deny(
      'multiple_credentials',
      `Authorization is given ${presented.count} times: send one header "Authorization: Bearer ${spec.placeholder}"`,
      'invalid_request',
    );
  }
  const presentedKind = credentialKindOf(presented.token);
  if (presentedKind !== null && presentedKind !== input.required) {
    const sent = CREDENTIALS[presentedKind];
    const article = _capitalized(sent.article);
    return deny(
      spec.codes.unknown,
      `${article} ${sent.name} cannot be used here: send ${spec.article} ${spec.name} as "Authorization: Bearer ${spec.placeholder}"`,
      'invalid_token',
    );
  }
  if (input.lookup === null) return deny(spec.codes.unknown, undefined, 'invalid_token');
  const { credential, account } = input.lookup;
  const state = credentialState(credential, input.now);
  if (state !== 'active') return deny(spec.codes[state], undefined, 'invalid_token');
  if (spec.planGated && !(input.apiPlans ?? DEFAULT_API_PLANS).includes(account.plan)) {
    return deny(
      'plan_without_api_access',
      `The account's plan "${account.plan}" does not include API access; API access is part of the Business plan`,
    );
  }
  return { ok: true, credential, account };
}

function _capitalized(text: string): string {
  return `${text[0]!.toUpperCase()}${text.slice(1)}`;
}
