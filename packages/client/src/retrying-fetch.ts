/** How a client retries a refused request. */
export interface RetryOptions {
  /** Retries after the first attempt, at most. Default 3; 0 never retries. */
  readonly limit?: number;
  /**
   * The longest wait, in seconds. A refusal that asks for longer is answered as it is, at once,
   * instead of retried early or waited on without bound. Default 60 (a rate-limit window).
   */
  readonly maxDelaySeconds?: number;
}

/** The retry options in force when none are given. */
export const DEFAULT_RETRY_OPTIONS: Required<RetryOptions> = { limit: 3, maxDelaySeconds: 60 };

/** The answers worth waiting out: the rate limit (429) and an overloaded or unavailable server (503). */
const RETRIED_STATUSES: ReadonlySet<number> = new Set([429, 503]);
/** Methods that may be sent again: safe ones, and POST, which always carries an `Idempotency-Key`. */
const RETRIED_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST']);

type Fetch = (input: Request, init?: RequestInit) => Promise<Response>;

/**
 * Reads `Retry-After` (RFC 9110): whole seconds, or an HTTP date.
 *
 * @param value The header, or `null`.
 * @param nowMs Epoch milliseconds.
 * @returns Seconds to wait, at least 0, or `null` when absent or unreadable.
 * @example
 * ```ts
 * import { parseRetryAfter } from '@fleet-hours/client';
 * parseRetryAfter('2', Date.now()); // 2
 * parseRetryAfter('Thu, 01 Jan 1970 00:01:00 GMT', 0); // 60
 * ```
 */
export function parseRetryAfter(value: string | null, nowMs: number): number | null {
  const text = value?.trim() ?? '';
  if (/^\d{1,10}$/.test(text)) return Number(text);
  const at = Date.parse(text);
  if (!/[a-z]/i.test(text) || Number.isNaN(at)) return null;
  return Math.max(0, Math.ceil((at - nowMs) / 1000));
}

/** Resolves after `ms`, or rejects with the signal's reason once it aborts. */
function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Wraps a `fetch` so that a 429 or 503 is sent again after the `Retry-After` it names (P90): GET,
 * HEAD and POST only, never PATCH, PUT or DELETE. A POST gets an `Idempotency-Key` (a random UUID)
 * unless it has one, set once per call so that every retry carries the same key and the server
 * applies the request once. Without a readable `Retry-After` it waits 1, 2, 4… seconds.
 *
 * @param fetch The fetch that sends each attempt.
 * @param options How many retries, and the longest wait.
 * @returns A fetch taking a `Request`, as openapi-fetch calls it.
 * @throws {RangeError} When `limit` or `maxDelaySeconds` is not a whole number ≥ 0.
 * @example
 * ```ts
 * import { retryingFetch } from '@fleet-hours/client';
 * const fetchWithRetries = retryingFetch(globalThis.fetch, { limit: 2, maxDelaySeconds: 10 });
 * ```
 */
export function retryingFetch(fetch: Fetch, options: RetryOptions = {}): (request: Request, init?: RequestInit) => Promise<Response> {
  const { limit, maxDelaySeconds } = { ...DEFAULT_RETRY_OPTIONS, ...options };
  for (const [name, value] of [
    ['limit', limit],
    ['maxDelaySeconds', maxDelaySeconds],
  ] as const) {
    if (!Number.isSafeInteger(value) || value < 0)
      throw new RangeError(`retries.${name} must be a whole number ≥ 0: got "${String(value)}"`);
  }
  return async function fetchWithRetries(request, init) {
    const method = request.method.toUpperCase();
    if (method === 'POST' && !request.headers.has('Idempotency-Key')) request.headers.set('Idempotency-Key', crypto.randomUUID());
    if (!RETRIED_METHODS.has(method) || limit === 0) return fetch(request, init);
    for (let attempt = 0; ; attempt += 1) {
      // Each attempt sends a copy: a body can be read once, and the next attempt needs it again.
      const response = await fetch(attempt < limit ? request.clone() : request, init);
      if (!RETRIED_STATUSES.has(response.status) || attempt >= limit) return response;
      const delaySeconds = parseRetryAfter(response.headers.get('Retry-After'), Date.now()) ?? 2 ** attempt;
      if (delaySeconds > maxDelaySeconds) return response;
      await response.body?.cancel();
      await wait(delaySeconds * 1000, request.signal);
    }
  };
}
