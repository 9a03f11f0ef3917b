import type { ApiKeyLookup, IngestTokenLookup } from '../types.js';
import { DEFAULT_MANAGE_READ_RATE_LIMIT, DEFAULT_WRITE_RATE_LIMIT, READ_ENDPOINTS, type ReadEndpointName } from './read-endpoints.js';

/**
 * Requests per fixed one-minute window: per credential and route (D13, D33, ingestion), and per
 * client address for requests without a valid credential (D14). Each is a positive integer. One
 * limit per endpoint of the read API, named as its row of `READ_ENDPOINTS` (e.g. `fleetHours` for
 * `GET /api/v1/hours`), and the two budgets shared by several routes.
 */
export interface RateLimits extends Readonly<Record<ReadEndpointName, number>> {
  /** Telemetry ingestion, per ingest token over all ingestion endpoints (docs/ingestion.md); for its routes once they are served. */
  readonly ingest: number;
  /** Requests without a valid credential (every 401), counted per client address (D14). */
  readonly unauthenticated: number;
  /** The write routes of `MANAGE_ENDPOINTS`, per API key over all of them (D52). */
  readonly writes: number;
  /** The GET routes of `MANAGE_ENDPOINTS` (the change log, D55), per API key over all of them (P88). */
  readonly manageReads: number;
}

/** The product's limits (D13, D14, D33, ingestion): each read endpoint's from its row of `READ_ENDPOINTS`. */
export const DEFAULT_RATE_LIMITS: RateLimits = Object.freeze({
  ...(Object.fromEntries(READ_ENDPOINTS.map((endpoint) => [endpoint.name, endpoint.rateLimit])) as Record<ReadEndpointName, number>),
  ingest: 6000,
  unauthenticated: 30,
  writes: DEFAULT_WRITE_RATE_LIMIT,
  manageReads: DEFAULT_MANAGE_READ_RATE_LIMIT,
});

/**
 * The limits to apply: {@link DEFAULT_RATE_LIMITS} with the given ones (unset or `undefined`
 * fields keep their default).
 *
 * @param limits The limits to change.
 * @returns Every limit.
 * @throws {RangeError} When a limit is not a positive integer.
 * @example
 * ```ts
 * import { resolveRateLimits } from '@fleet-hours/core';
 * resolveRateLimits({ hours: 60 }).hours; // 60
 * resolveRateLimits({ hours: 0 }); // throws RangeError: Rate limit "hours" must be a positive integer, got 0
 * ```
 */
export function resolveRateLimits(limits: { readonly [Name in keyof RateLimits]?: number | undefined } = {}): RateLimits {
  const resolved: Record<string, number> = { ...DEFAULT_RATE_LIMITS };
  for (const [name, limit] of Object.entries(limits)) {
    if (limit === undefined) continue;
    if (!Object.hasOwn(DEFAULT_RATE_LIMITS, name)) throw new RangeError(`Unknown rate limit "${name}"`);
    if (!Number.isSafeInteger(limit) || limit < 1)
      throw new RangeError(`Rate limit "${name}" must be a positive integer, got ${String(limit)}`);
    resolved[name] = limit;
  }
  return resolved as unknown as RateLimits;
}

/**
 * Where rate-limit counters live. In memory for one process; in the database so that several
 * server instances share the limits (D15).
 */
export interface RateLimitStore {
  /**
   * MUST atomically add one to the counter of (`key`, `windowStart`) unless it has already reached
   * `limit`, and return the counter after the call. A refused call MUST NOT change the counter
   * (D13: a 429 does not use up budget). Counters of windows that ended MAY be deleted.
   */
  consume(input: {
    readonly key: string;
    /** Epoch seconds, a multiple of `windowSeconds`. */
    readonly windowStart: number;
    readonly windowSeconds: number;
    readonly limit: number;
  }): Promise<RateLimitCount>;

  /**
   * Optional capability, for counters that live in the database of the API keys: the key lookup
   * and the count of the request in one round trip. MUST return what `findApiKey` of that database
   * returns for `fingerprint` and, when a key is found, count the request on the counter named
   * `counter.keyPrefix + key.id + counter.keySuffix` exactly as {@link RateLimitStore.consume}
   * would (atomic, a refused call changes nothing: D13, D15), returning that count. When no key is
   * found, `count` MUST be `null` and no counter changes. The count is made whatever the key's
   * state: whether it applies is decided by the core (`admitRequest`), which counts on another
   * counter when the key is refused with 401 (D14, P21). SHOULD answer in one round trip.
   */
  findApiKeyAndConsume?(input: { readonly fingerprint: string; readonly counter: CredentialCounter }): Promise<{
    readonly lookup: ApiKeyLookup | null;
    readonly count: RateLimitCount | null;
  }>;

  /**
   * Optional capability, as {@link RateLimitStore.findApiKeyAndConsume} for ingest tokens (D24):
   * MUST return what `findIngestToken` of that database returns for `fingerprint` and, when a token
   * is found, count the request on `counter.keyPrefix + token.id + counter.keySuffix` exactly as
   * {@link RateLimitStore.consume} would; `count` is `null`, and nothing changes, when none is
   * found. One round trip per ingestion request instead of two before its write.
   */
  findIngestTokenAndConsume?(input: { readonly fingerprint: string; readonly counter: CredentialCounter }): Promise<{
    readonly lookup: IngestTokenLookup | null;
    readonly count: RateLimitCount | null;
  }>;
}

/** A counter after one call of {@link RateLimitStore.consume}. */
export interface RateLimitCount {
  readonly count: number;
  readonly allowed: boolean;
}

/**
 * The counter of a credential not yet looked up: its key is `keyPrefix`, the credential's id and
 * `keySuffix` (what `rateLimitSubject` names it once the credential is known), in a fixed window.
 */
export interface CredentialCounter {
  readonly keyPrefix: string;
  readonly keySuffix: string;
  /** Epoch seconds, a multiple of `windowSeconds`. */
  readonly windowStart: number;
  readonly windowSeconds: number;
  readonly limit: number;
}

/** What a rate-limit check decided, with the figures for the headers (D14). */
export interface RateLimitDecision {
  readonly allowed: boolean;
  /** `X-RateLimit-Limit`. */
  readonly limit: number;
  /** `X-RateLimit-Remaining`: requests left in this window, after this one. */
  readonly remaining: number;
  /** `Retry-After` and `X-RateLimit-Reset`: whole seconds ≥ 1 until the window resets. */
  readonly resetSeconds: number;
}

/**
 * The headers every counted response carries (D14): `X-RateLimit-Limit` and `X-RateLimit-Remaining`.
 * Without a decision (the request could not be counted: the store or the counters were down),
 * nothing can be promised: `X-RateLimit-Remaining: 0` (P15).
 *
 * @param limit The limit that applies.
 * @param decision The count, or `null` when the request was not counted.
 * @returns The two headers.
 * @example
 * ```ts
 * import { rateLimitHeaders } from '@fleet-hours/core/adapter';
 * rateLimitHeaders(30, null); // { 'X-RateLimit-Limit': '30', 'X-RateLimit-Remaining': '0' }
 * ```
 */
export function rateLimitHeaders(limit: number, decision: RateLimitDecision | null): Readonly<Record<string, string>> {
  return { 'X-RateLimit-Limit': String(decision?.limit ?? limit), 'X-RateLimit-Remaining': String(decision?.remaining ?? 0) };
}

/**
 * Counts one request against a fixed window (D13, D14).
 *
 * @param input `store`: the counters; `key`: e.g. `key:12:/hours`; `limit`; `now`: epoch seconds
 *   (fractions allowed); `windowSeconds`: default 60.
 * @returns The decision and header figures.
 * @example
 * ```ts
 * import { createMemoryRateLimitStore } from '@fleet-hours/core';
 * import { consumeRateLimit } from '@fleet-hours/core/adapter';
 * const store = createMemoryRateLimitStore();
 * const decision = await consumeRateLimit({ store, key: 'key:1:/devices', limit: 120, now: 1_000_000 });
 * decision.remaining; // 119
 * ```
 */
export async function consumeRateLimit(input: {
  readonly store: RateLimitStore;
  readonly key: string;
  readonly limit: number;
  readonly now: number;
  readonly windowSeconds?: number;
}): Promise<RateLimitDecision> {
  const window = rateWindow(input.now, input.windowSeconds);
  const counted = await input.store.consume({
    key: input.key,
    windowStart: window.windowStart,
    windowSeconds: window.windowSeconds,
    limit: input.limit,
  });
  return rateLimitDecision(counted, input.limit, window, input.now);
}

/** The fixed window of `now` (epoch seconds, fractions allowed), `windowSeconds` long (default 60). */
export function rateWindow(now: number, windowSeconds = 60): { readonly windowStart: number; readonly windowSeconds: number } {
  return { windowStart: Math.floor(now / windowSeconds) * windowSeconds, windowSeconds };
}

/** The decision and header figures of a count (D13, D14). */
export function rateLimitDecision(
  { count, allowed }: RateLimitCount,
  limit: number,
  window: { readonly windowStart: number; readonly windowSeconds: number },
  now: number,
): RateLimitDecision {
  return {
    allowed,
    limit,
    remaining: Math.max(0, limit - count),
    resetSeconds: Math.max(1, Math.ceil(window.windowStart + window.windowSeconds - now)),
  };
}

/**
 * Rate-limit counters in this process's memory: right for one server instance and for tests.
 * Counters of ended windows are dropped as new windows begin.
 *
 * @returns A {@link RateLimitStore}.
 * @example
 * ```ts
 * import { createMemoryRateLimitStore } from '@fleet-hours/core';
 * const counters = createMemoryRateLimitStore();
 * ```
 */
export function createMemoryRateLimitStore(): RateLimitStore {
  const counters = new Map<string, { windowStart: number; windowEnd: number; count: number }>();
  let newestWindow = -Infinity;
  return {
    async consume({ key, windowStart, windowSeconds, limit }) {
      if (windowStart > newestWindow) {
        newestWindow = windowStart;
        // Only windows that have ended are dropped: keys may use windows of different lengths.
        for (const [counterKey, counter] of counters) if (counter.windowEnd <= windowStart) counters.delete(counterKey);
      }
      let counter = counters.get(key);
      if (!counter || counter.windowStart !== windowStart) {
        counter = { windowStart, windowEnd: windowStart + windowSeconds, count: 0 };
        counters.set(key, counter);
      }
      if (counter.count >= limit) return { count: counter.count, allowed: false };
      counter.count += 1;
      return { count: counter.count, allowed: true };
    },
  };
}
