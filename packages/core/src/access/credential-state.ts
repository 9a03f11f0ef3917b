/** Whether a stored credential (an API key, an ingest token) works at an instant. */
export type CredentialState = 'active' | 'revoked' | 'expired';

/** The part of a stored credential that decides its state: `ApiKeyRecord` has it, an ingest token record too (D10, D24). */
export interface CredentialLifetime {
  /** Epoch seconds; the credential stops working from this instant on. */
  readonly expiresAt: number | null;
  /** Epoch seconds; set once the credential is revoked. */
  readonly revokedAt: number | null;
}

/**
 * The state of a stored credential at `now` (D10, D24): revoked once revoked (whatever its expiry),
 * else expired from its expiry instant on, else active. The access check and the operator's
 * listings (`keys list`) both read it here.
 *
 * @param credential The stored key or token.
 * @param now Epoch seconds.
 * @returns `'active'`, `'revoked'` or `'expired'`.
 * @example
 * ```ts
 * import { credentialState } from '@fleet-hours/core';
 * credentialState({ expiresAt: 100, revokedAt: null }, 99); // 'active'
 * credentialState({ expiresAt: 100, revokedAt: null }, 100); // 'expired'
 * credentialState({ expiresAt: 100, revokedAt: 50 }, 200); // 'revoked'
 * ```
 */
export function credentialState(credential: CredentialLifetime, now: number): CredentialState {
  if (credential.revokedAt !== null) return 'revoked';
  if (credential.expiresAt !== null && credential.expiresAt <= now) return 'expired';
  return 'active';
}
