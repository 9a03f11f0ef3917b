import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { RateLimitStore } from '../access/rate-limit.js';

/** What a rate-limit contract run needs from an adapter. */
export interface RateLimitContractSubject {
  /**
   * Called before every test: MUST return a store with no counters (a new instance, or truncated
   * tables). Share expensive resources across calls.
   */
  readonly makeStore: () => Promise<RateLimitStore> | RateLimitStore;
  /** Called once after the suite, to release shared resources. */
  readonly teardown?: () => Promise<void> | void;
}

const WINDOW = 60;
const W0 = 29_453_760 * WINDOW; // 2026-01-01T00:00:00Z, a window start

/**
 * The rate-limit store contract (D13, D15): every {@link RateLimitStore} MUST pass it.
 *
 * @param name Shown in the test names, e.g. `kysely on PGlite`.
 * @param subject How to get a fresh store, and how to clean up.
 * @example
 * ```ts
 * import { createMemoryRateLimitStore } from '@fleet-hours/core';
 * import { describeRateLimitContract } from '@fleet-hours/core/testing';
 * describeRateLimitContract('memory', { makeStore: createMemoryRateLimitStore });
 * ```
 */
export function describeRateLimitContract(name: string, subject: RateLimitContractSubject): void {
  describe(`rate-limit contract: ${name}`, () => {
    let store: RateLimitStore;
    beforeEach(async () => {
      store = await subject.makeStore();
    });
    afterAll(async () => {
      await subject.teardown?.();
    });

    const consume = (key: string, limit: number, windowStart = W0) => store.consume({ key, windowStart, windowSeconds: WINDOW, limit });

    it('consume() counts up to the limit and then refuses, returning the counter', async () => {
      const results = [];
      for (let index = 0; index < 4; index += 1) results.push(await consume('key:1:/hours', 3));
      expect(results).toEqual([
        { count: 1, allowed: true },
        { count: 2, allowed: true },
        { count: 3, allowed: true },
        { count: 3, allowed: false },
      ]);
    });

    it('a refused consume() does not use up budget (D13): the counter stays at the limit', async () => {
      for (let index = 0; index < 2; index += 1) await consume('key:1:/meter', 2);
      for (let index = 0; index < 5; index += 1) expect(await consume('key:1:/meter', 2)).toEqual({ count: 2, allowed: false });
      // The same key under a higher limit (a configuration change) resumes from the true count.
      expect(await consume('key:1:/meter', 3)).toEqual({ count: 3, allowed: true });
    });

    it('counters are per key and per window', async () => {
      await consume('key:1:/hours', 2);
      await consume('key:1:/hours', 2);
      expect(await consume('key:1:/hours', 2)).toEqual({ count: 2, allowed: false });
      expect(await consume('key:2:/hours', 2)).toEqual({ count: 1, allowed: true });
      expect(await consume('key:1:/hours/daily', 2)).toEqual({ count: 1, allowed: true });
      expect(await consume('key:1:/hours', 2, W0 + WINDOW)).toEqual({ count: 1, allowed: true });
    });

    it('a limit of 0 refuses every request', async () => {
      expect(await consume('ip:127.0.0.1', 0)).toEqual({ count: 0, allowed: false });
    });

    it('concurrent consume() calls are counted exactly once each (D15): exactly `limit` are allowed', async () => {
      const limit = 25;
      const results = await Promise.all(Array.from({ length: 40 }, () => consume('key:9:/hours', limit)));
      const allowed = results.filter((result) => result.allowed);
      expect(allowed).toHaveLength(limit);
      expect(allowed.map((result) => result.count).sort((a, b) => a - b)).toEqual(Array.from({ length: limit }, (_, index) => index + 1));
      for (const refused of results.filter((result) => !result.allowed)) expect(refused.count).toBe(limit);
      expect(await consume('key:9:/hours', limit)).toEqual({ count: limit, allowed: false });
    });
  });
}
