import { credentialState, formatInstant, type Account, type ApiKeyRecord, type CredentialState } from '@fleet-hours/core';

/** An instant without a zone of its own (keys, accounts), shown in UTC with `+00:00` (D9). */
export function formatUtc(epochSeconds: number | null): string | null {
  return epochSeconds === null ? null : formatInstant(epochSeconds, 'UTC');
}

/** An account as the CLI shows it. */
export interface AccountJson {
  readonly id: number;
  readonly name: string;
  readonly plan: string;
}

/** Shows an account. */
export function presentAccount(account: Account): AccountJson {
  return { id: account.id, name: account.name, plan: account.plan };
}

/** A stored key as `keys list` shows it: never the secret, which is not stored at all (D10). */
export interface ApiKeyJson {
  readonly id: number;
  readonly account_id: number;
  readonly label: string | null;
  readonly fingerprint: string;
  readonly state: CredentialState;
  readonly created_at: string | null;
  readonly expires_at: string | null;
  readonly revoked_at: string | null;
}

/**
 * Shows a stored key.
 *
 * @param apiKey The stored key.
 * @param now Epoch seconds, to tell whether it has expired.
 */
export function presentApiKey(apiKey: Omit<ApiKeyRecord, 'scope'>, now: number): ApiKeyJson {
  return {
    id: apiKey.id,
    account_id: apiKey.accountId,
    label: apiKey.label,
    fingerprint: apiKey.fingerprint,
    state: credentialState(apiKey, now),
    created_at: formatUtc(apiKey.createdAt),
    expires_at: formatUtc(apiKey.expiresAt),
    revoked_at: formatUtc(apiKey.revokedAt),
  };
}
