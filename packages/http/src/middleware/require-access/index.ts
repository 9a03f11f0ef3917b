import type { MiddlewareHandler } from 'hono';
import { ApiError } from '../../api-error.js';
import type { FleetHoursEnv } from '../../app-env.js';

/** Options of {@link requireAccess}. */
export interface RequireAccessOptions {
  /** The `realm` of the `WWW-Authenticate` challenge on a 401. Default `fleet-hours`. */
  readonly realm?: string;
}

/**
 * Refuses a request whose key `authenticate` did not accept: 401 with the code naming missing,
 * unknown, revoked or expired (and a `WWW-Authenticate: Bearer` challenge, RFC 6750), or 403
 * `plan_without_api_access` (D11, D12). Runs after the rate limiter, which has already counted it.
 *
 * @param options The challenge realm.
 * @returns The middleware.
 */
export function requireAccess(options: RequireAccessOptions = {}): MiddlewareHandler<FleetHoursEnv> {
  const realm = options.realm ?? 'fleet-hours';
  return async function requireAccess(c, next) {
    const access = c.get('access');
    if (!access) throw new Error('requireAccess() runs after authenticate()');
    if (!access.ok) {
      const { status, code, message } = access.denial;
      const challenge: Record<string, string> =
        status !== 401 ? {} : { 'WWW-Authenticate': code === 'missing_api_key' ? `Bearer realm="${realm}"` : `Bearer realm="${realm}", error="invalid_token"` };
      throw new ApiError(status, code, message, challenge);
    }
    await next();
  };
}
