import type { Context, MiddlewareHandler } from 'hono';
import type { FleetHoursEnv } from '../../app-env.js';

/**
 * One line of the structured access log. Never carries the API key, its fingerprint, the
 * `Authorization` header or a query string; `key_id` is the stored key's numeric id.
 */
export interface AccessLogEntry {
  /** When the request finished, ISO 8601 in UTC. */
  readonly time: string;
  readonly request_id: string;
  readonly method: string;
  /** The route template (`/api/v1/devices/{id}/hours`), never the raw path; `/api/v1/*` for a path or method under /api/v1 that is not served, `*` for any other path. */
  readonly route: string | null;
  readonly status: number;
  /** Milliseconds from the request reaching the app to the response being ready. */
  readonly duration_ms: number;
  /** The id of the key presented, when the store knows it (also a revoked or expired one); `null` otherwise. */
  readonly key_id: number | null;
  readonly client_address: string;
  /** The error code of an error response (D16). */
  readonly error_code?: string;
  /**
   * For 500 and 503 only, and for a streamed answer cut short after its 200 was sent (a second line of
   * the request, `error_code` `stream_failed`, P117): what failed, for the operator (never sent to the client).
   */
  readonly error?: { readonly name: string; readonly message: string; readonly stack?: string };
}

/** Options of {@link accessLog}. */
export interface AccessLogOptions {
  /** Receives one entry per request. */
  readonly logger: (entry: AccessLogEntry) => void;
  /** The wall clock for `time`, epoch milliseconds. */
  readonly now: () => number;
  /** How to find the client address. */
  readonly clientAddress: (c: Context<FleetHoursEnv>) => string;
}

/**
 * Writes one structured entry per request once its response is ready, errors included.
 * A logger that throws does not fail the request.
 *
 * @param options Where entries go, the clock and the client address.
 * @returns The middleware.
 */
export function accessLog(options: AccessLogOptions): MiddlewareHandler<FleetHoursEnv> {
  return async function accessLog(c, next) {
    const started = performance.now();
    const log = (failure: Error | undefined, errorCode: string | undefined) => {
      const entry: AccessLogEntry = {
        time: new Date(options.now()).toISOString(),
        request_id: c.get('requestId'),
        method: c.req.method,
        route: c.get('route')?.template ?? null,
        status: c.res.status,
        duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
        key_id: c.get('admission')?.credential?.id ?? null,
        client_address: options.clientAddress(c),
        ...(errorCode === undefined ? {} : { error_code: errorCode }),
        ...(failure ? { error: { name: failure.name, message: failure.message, ...(failure.stack ? { stack: failure.stack } : {}) } } : {}),
      };
      try {
        options.logger(entry);
      } catch {
        // Logging must never turn a served request into a failed one.
      }
    };
    c.set('streamFailed', (error) => log(error instanceof Error ? error : new Error(String(error)), 'stream_failed'));
    try {
      await next();
    } finally {
      log(c.get('failure'), c.get('errorCode'));
    }
  };
}
