import { formatInstant, type Account, type ApiKeyRecord } from '@fleet-hours/core';

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

/** Whether a key works now. */
export type KeyState = 'active' | 'revoked' | 'expired';

/** A stored key as `keys list` shows it: never the secret, which is not stored at all (D10). */
export interface ApiKeyJson {
  readonly id: number;
  readonly account_id: number;
  readonly label: string | null;
  readonly fingerprint: string;
  readonly state: KeyState;
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
export function presentApiKey(apiKey: ApiKeyRecord, now: number): ApiKeyJson {
  return {
    id: apiKey.id,
    account_id: apiKey.accountId,
    label: apiKey.label,
    fingerprint: apiKey.fingerprint,
    state: keyState(apiKey, now),
    created_at: formatUtc(apiKey.createdAt),
    expires_at: formatUtc(apiKey.expiresAt),
    revoked_at: formatUtc(apiKey.revokedAt),
  };
}

/** The state of a key at `now` (epoch seconds), in the order the API checks them (D11). */
export function keyState(apiKey: ApiKeyRecord, now: number): KeyState {
  if (apiKey.revokedAt !== null) return 'revoked';
  if (apiKey.expiresAt !== null && apiKey.expiresAt <= now) return 'expired';
  return 'active';
}
