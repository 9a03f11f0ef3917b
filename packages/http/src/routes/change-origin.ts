import type { ChangeOrigin } from '@fleet-hours/core';
import type { Context } from 'hono';
import type { FleetHoursEnv } from '../app-env.js';

/** How many hex characters of a key's fingerprint the audit shows (D55): enough to tell keys apart, too few to matter. */
export const FINGERPRINT_PREFIX_LENGTH = 8;

/**
 * Who asks for a change over the API, and under which request (D55): the admitted key, by its label
 * and the first {@link FINGERPRINT_PREFIX_LENGTH} characters of its fingerprint, and the request's id.
 */
export function changeOrigin(c: Context<FleetHoursEnv>): ChangeOrigin {
  const admission = c.get('admission');
  if (!admission?.admitted || !admission.credential) throw new Error('Write routes run after the access middleware admitted a key');
  const { label, fingerprint } = admission.credential;
  return {
    actor: { kind: 'api_key', label: label ?? '', fingerprintPrefix: (fingerprint ?? '').slice(0, FINGERPRINT_PREFIX_LENGTH) },
    requestId: c.get('requestId') ?? null,
  };
}
