import type { Context } from 'hono';
import type { FleetHoursEnv } from '../app-env.js';

/** The account of a request that `requireAccess` let through. */
export function _accountId(c: Context<FleetHoursEnv>): number {
  const access = c.get('access');
  if (!access?.ok) throw new Error('Data routes run after requireAccess()');
  return access.account.id;
}
