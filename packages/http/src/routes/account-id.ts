import type { Context } from 'hono';
import type { FleetHoursEnv } from '../app-env.js';

/** The account of a request that the access middleware admitted with a credential. */
export function accountId(c: Context<FleetHoursEnv>): number {
  const admission = c.get('admission');
  if (!admission?.admitted || !admission.account) throw new Error('Data routes run after the access middleware admitted a credential');
  return admission.account.id;
}
