import {
  credentialKindOf,
  evaluateAccess,
  readAuthorization,
  type AccessResult,
  type CredentialKind,
  type CredentialLookup,
} from '../access/access-policy.js';
import type { AuthenticateAndCountInput } from '../access/admit-request.js';
import { fingerprintApiKey } from '../access/api-key.js';
import type { CredentialCounter, RateLimitCount, RateLimitStore } from '../access/rate-limit.js';
import type { FleetHoursStore } from '../store/storage-port.js';
import { checkArguments } from './argument-checks.js';

/** What authentication needs of the service: its store, clock, plans with API access and fingerprint (see `FleetHoursOptions`). */
export interface AuthenticationOptions {
  readonly store: FleetHoursStore;
  readonly nowSeconds: () => number;
  readonly apiPlans?: readonly string[] | undefined;
  readonly fingerprint?: ((secret: string) => string | Promise<string>) | undefined;
}

/** The service's `authenticate` and `authenticateAndCount` (D10–D14, D24, P21). */
export function authentication(options: AuthenticationOptions) {
  const authenticateWith = _authenticator(options);
  const findCredential = _findCredential(options.store);
  return {
    async authenticate(authorization: string | null | undefined, credential: CredentialKind = 'api_key'): Promise<AccessResult> {
      checkArguments('authenticate()', { authorization, credential }, { authorization: 'authorization', credential: 'credential' });
      return authenticateWith(authorization, credential, findCredential[credential]);
    },

    async authenticateAndCount(
      input: AuthenticateAndCountInput,
    ): Promise<{ readonly access: AccessResult; readonly count: RateLimitCount | null }> {
      checkArguments('authenticateAndCount()', input, {
        authorization: 'authorization',
        credential: 'credential',
        counters: 'object',
        counter: 'object',
      });
      const { authorization, credential, counters, counter } = input;
      const findAndConsume = _findAndConsume(counters, credential);
      if (!findAndConsume) return { access: await authenticateWith(authorization, credential, findCredential[credential]), count: null };
      // The credential and its count in one round trip; admitRequest decides whether the count stands.
      let count: RateLimitCount | null = null;
      const access = await authenticateWith(authorization, credential, async (fingerprint) => {
        const found = await findAndConsume({ fingerprint, counter });
        count = found.count;
        return found.lookup;
      });
      return { access, count };
    },
  };
}

/** One lookup per credential kind (D10, D24). */
function _findCredential(
  store: FleetHoursStore,
): Readonly<Record<CredentialKind, (fingerprint: string) => Promise<CredentialLookup | null>>> {
  return {
    api_key: async (fingerprint) => {
      const found = await store.findApiKey({ fingerprint });
      return found && { credential: found.apiKey, account: found.account };
    },
    ingest_token: async (fingerprint) => {
      const found = await store.findIngestToken({ fingerprint });
      return found && { credential: found.ingestToken, account: found.account };
    },
  };
}

/** Checks the presented credential (D10–D12, D24); `find` looks its fingerprint up. A token of the other kind is refused by its prefix, without asking the store. */
function _authenticator(options: AuthenticationOptions) {
  const fingerprint = options.fingerprint ?? fingerprintApiKey;
  const { apiPlans, nowSeconds } = options;
  return async (
    authorization: string | null | undefined,
    credential: CredentialKind,
    find: (fingerprint: string) => Promise<CredentialLookup | null>,
  ): Promise<AccessResult> => {
    const presented = readAuthorization(authorization);
    const asked = presented.kind === 'bearer' && (credentialKindOf(presented.token) ?? credential) === credential;
    const lookup = asked ? await find(await fingerprint(presented.token)) : null;
    return evaluateAccess({ required: credential, presented, lookup, now: nowSeconds(), ...(apiPlans ? { apiPlans } : {}) });
  };
}

/**
 * The counters' capability that looks a credential of `kind` up and counts the request in one
 * round trip (`findApiKeyAndConsume`, `findIngestTokenAndConsume`), as one shape; `null` when the
 * counters offer none for that kind.
 */
function _findAndConsume(
  counters: RateLimitStore,
  kind: CredentialKind,
):
  | ((input: {
      readonly fingerprint: string;
      readonly counter: CredentialCounter;
    }) => Promise<{ lookup: CredentialLookup | null; count: RateLimitCount | null }>)
  | null {
  if (kind === 'api_key') {
    const find = counters.findApiKeyAndConsume?.bind(counters);
    return find
      ? async (input) => {
          const { lookup, count } = await find(input);
          return { lookup: lookup && { credential: lookup.apiKey, account: lookup.account }, count };
        }
      : null;
  }
  const find = counters.findIngestTokenAndConsume?.bind(counters);
  return find
    ? async (input) => {
        const { lookup, count } = await find(input);
        return { lookup: lookup && { credential: lookup.ingestToken, account: lookup.account }, count };
      }
    : null;
}
