/** Requests per fixed one-minute window, per key and route (D13), and per client address without a valid key (D14). */
export interface RateLimits {
  readonly devices: number;
  readonly hours: number;
  readonly daily: number;
  readonly meter: number;
  /** Requests without a valid key (every 401), counted per client address (D14). */
  readonly unauthenticated: number;
}

/** The product's limits (D13, D14). */
export const DEFAULT_RATE_LIMITS: RateLimits = { devices: 120, hours: 30, daily: 30, meter: 30, unauthenticated: 30 };

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
  }): Promise<{ readonly count: number; readonly allowed: boolean }>;
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
 * Counts one request against a fixed window (D13, D14).
 *
 * @param input `store`: the counters; `key`: e.g. `key:12:/hours`; `limit`; `now`: epoch seconds
 *   (fractions allowed); `windowSeconds`: default 60.
 * @returns The decision and header figures.
 * @example
 * ```ts
 * import { consumeRateLimit, createMemoryRateLimitStore } from '@fleet-hours/core';
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
  const windowSeconds = input.windowSeconds ?? 60;
  const windowStart = Math.floor(input.now / windowSeconds) * windowSeconds;
  const { count, allowed } = await input.store.consume({ key: input.key, windowStart, windowSeconds, limit: input.limit });
  return {
    allowed,
    limit: input.limit,
    remaining: Math.max(0, input.limit - count),
    resetSeconds: Math.max(1, Math.ceil(windowStart + windowSeconds - input.now)),
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
