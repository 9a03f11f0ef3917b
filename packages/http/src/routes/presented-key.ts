import { formatInstant } from '@fleet-hours/core';
import type { Handler } from 'hono';
import type { FleetHoursEnv } from '../app-env.js';
import { jsonResponse } from '../respond/json-response.js';
import { FINGERPRINT_PREFIX_LENGTH } from './change-origin.js';

/** The presented API key as `GET /api/v1/key` shows it (P96): never the key, nor its whole fingerprint. */
export interface PresentedKeyBody {
  /** `read` or `manage` (D51). */
  readonly scope: 'read' | 'manage';
  readonly label: string | null;
  /** The first characters of its fingerprint, as the audit names a key (D55). */
  readonly fingerprint_prefix: string;
  /** In UTC; `null` for a key that does not expire. */
  readonly expires_at: string | null;
  readonly account: { readonly id: number; readonly name: string };
}

/**
 * `GET /api/v1/key`: who the presented key is (P96) — its scope, label, fingerprint prefix, expiry
 * and account. A client (the fleet view) learns from it which actions to offer, without trying a
 * write to see whether it is refused. Any admitted key may ask, about itself only.
 */
export function presentedKeyRoute(): Handler<FleetHoursEnv> {
  return function presentedKey(c) {
    const admission = c.get('admission');
    if (!admission?.admitted || !admission.account || !admission.credential) {
      throw new Error('Data routes run after the access middleware admitted a credential');
    }
    const { credential, account } = admission;
    const body: PresentedKeyBody = {
      scope: credential.scope ?? 'read',
      label: credential.label ?? null,
      fingerprint_prefix: (credential.fingerprint ?? '').slice(0, FINGERPRINT_PREFIX_LENGTH),
      expires_at: credential.expiresAt === null ? null : formatInstant(credential.expiresAt, 'UTC'),
      account: { id: account.id, name: account.name },
    };
    return jsonResponse(c, body);
  };
}
