import { describe, expect, it } from 'vitest';
import {
  consumeRateLimit,
  createMemoryRateLimitStore,
  DEFAULT_RATE_LIMITS,
  rateLimitHeaders,
  resolveRateLimits,
  type RateLimitStore,
} from './rate-limit.js';

const MINUTE_START = 1_800_000_000 - (1_800_000_000 % 60);

describe('DEFAULT_RATE_LIMITS (D13, D14, D33, D39, ingestion)', () => {
  it('allows 120 /devices, 30 of each other endpoint, 60 of each fleet endpoint and of /key (P96), 6000 ingestion, 30 unauthenticated and 60 writes (D52) per minute', () => {
    expect(DEFAULT_RATE_LIMITS).toEqual({
      devices: 120,
      hours: 30,
      daily: 30,
      meter: 30,
      fleetHours: 60,
      fleetDaily: 60,
      fleetMeter: 60,
      service: 30,
      fleetService: 60,
      key: 60,
      // D64: the served AEMP feed.
      aempFleet: 60,
      aempEquipment: 30,
      aempSeries: 30,
      // D60: utilization as the daily series, one device and the fleet.
      utilization: 30,
      fleetUtilization: 60,
      ingest: 6000,
      unauthenticated: 30,
      writes: 60,
      // P88: reads of the change log (D55), apart from the writes.
      manageReads: 120,
    });
    expect(Object.isFrozen(DEFAULT_RATE_LIMITS)).toBe(true);
  });
});

describe('resolveRateLimits()', () => {
  it('keeps the defaults for every limit not given, or given as undefined', () => {
    expect(resolveRateLimits()).toEqual(DEFAULT_RATE_LIMITS);
    expect(resolveRateLimits({ hours: 45, devices: undefined })).toEqual({ ...DEFAULT_RATE_LIMITS, hours: 45 });
  });

  it('refuses a limit that is not a positive integer, naming it, and an unknown name', () => {
    expect(() => resolveRateLimits({ hours: 0 })).toThrow(RangeError);
    expect(() => resolveRateLimits({ devices: 1.5 })).toThrow('Rate limit "devices" must be a positive integer, got 1.5');
    expect(() => resolveRateLimits({ meter: Number.NaN })).toThrow('Rate limit "meter" must be a positive integer, got NaN');
    expect(() => resolveRateLimits({ hourz: 3 } as never)).toThrow('Unknown rate limit "hourz"');
  });
});

describe('rateLimitHeaders() (D14, P15)', () => {
  it('sends the limit and what is left of it', () => {
    expect(rateLimitHeaders(30, { allowed: true, limit: 30, remaining: 12, resetSeconds: 40 })).toEqual({
      'X-RateLimit-Limit': '30',
      'X-RateLimit-Remaining': '12',
    });
  });

  it('promises nothing for a request that could not be counted: remaining 0', () => {
    expect(rateLimitHeaders(120, null)).toEqual({ 'X-RateLimit-Limit': '120', 'X-RateLimit-Remaining': '0' });
  });
});

describe('consumeRateLimit() with createMemoryRateLimitStore() (D13, D14)', () => {
  it('counts down remaining and refuses the 121st /devices request of a minute', async () => {
    const store = createMemoryRateLimitStore();
    for (let request = 1; request <= 120; request += 1) {
      const decision = await consumeRateLimit({ store, key: 'key:1:/devices', limit: 120, now: MINUTE_START + request / 10 });
      expect(decision.allowed).toBe(true);
      expect(decision.limit).toBe(120);
      expect(decision.remaining).toBe(120 - request);
    }
    const refused = await consumeRateLimit({ store, key: 'key:1:/devices', limit: 120, now: MINUTE_START + 30 });
    expect(refused).toEqual({ allowed: false, limit: 120, remaining: 0, resetSeconds: 30 });
  });

  it('refuses the 31st /hours request and counts other keys and routes apart', async () => {
    const store = createMemoryRateLimitStore();
    for (let request = 0; request < 30; request += 1) await consumeRateLimit({ store, key: 'key:1:/hours', limit: 30, now: MINUTE_START });
    expect((await consumeRateLimit({ store, key: 'key:1:/hours', limit: 30, now: MINUTE_START })).allowed).toBe(false);
    expect(await consumeRateLimit({ store, key: 'key:2:/hours', limit: 30, now: MINUTE_START })).toMatchObject({
      allowed: true,
      remaining: 29,
    });
    expect(await consumeRateLimit({ store, key: 'key:1:/meter', limit: 30, now: MINUTE_START })).toMatchObject({
      allowed: true,
      remaining: 29,
    });
  });

  it('does not use up budget with refused requests: the next window is full again', async () => {
    const store = createMemoryRateLimitStore();
    for (let request = 0; request < 5; request += 1) await consumeRateLimit({ store, key: 'k', limit: 3, now: MINUTE_START + 1 });
    const counted = await store.consume({ key: 'k', windowStart: MINUTE_START, windowSeconds: 60, limit: 1000 });
    expect(counted).toEqual({ count: 4, allowed: true }); // 3 allowed + this one; the 2 refusals left no trace
    const next = await consumeRateLimit({ store, key: 'k', limit: 3, now: MINUTE_START + 60 });
    expect(next).toMatchObject({ allowed: true, remaining: 2 });
  });

  it('restores the whole budget when the next fixed window starts', async () => {
    const store = createMemoryRateLimitStore();
    for (let request = 0; request < 3; request += 1) await consumeRateLimit({ store, key: 'k', limit: 3, now: MINUTE_START + 59 });
    expect((await consumeRateLimit({ store, key: 'k', limit: 3, now: MINUTE_START + 59.999 })).allowed).toBe(false);
    expect(await consumeRateLimit({ store, key: 'k', limit: 3, now: MINUTE_START + 60 })).toMatchObject({ allowed: true, remaining: 2 });
  });

  it('reports whole seconds ≥ 1 until the window resets', async () => {
    const store = createMemoryRateLimitStore();
    const reset = async (offset: number) =>
      (await consumeRateLimit({ store, key: `k${offset}`, limit: 1, now: MINUTE_START + offset })).resetSeconds;
    expect(await reset(0)).toBe(60);
    expect(await reset(0.5)).toBe(60);
    expect(await reset(30)).toBe(30);
    expect(await reset(59)).toBe(1);
    expect(await reset(59.9)).toBe(1);
    expect(await reset(59.999_999)).toBe(1);
  });

  it('takes the window length as an option', async () => {
    const store = createMemoryRateLimitStore();
    const first = await consumeRateLimit({ store, key: 'k', limit: 1, now: 7_200 + 10, windowSeconds: 3_600 });
    expect(first).toEqual({ allowed: true, limit: 1, remaining: 0, resetSeconds: 3_590 });
    expect((await consumeRateLimit({ store, key: 'k', limit: 1, now: 7_200 + 3_000, windowSeconds: 3_600 })).allowed).toBe(false);
    expect((await consumeRateLimit({ store, key: 'k', limit: 1, now: 7_200 + 3_600, windowSeconds: 3_600 })).allowed).toBe(true);
  });

  it("keeps a long window's count while keys with shorter windows move on", async () => {
    const store = createMemoryRateLimitStore();
    await consumeRateLimit({ store, key: 'hourly', limit: 1, now: 7_200, windowSeconds: 3_600 });
    await consumeRateLimit({ store, key: 'minutely', limit: 1, now: 7_200 + 61 });
    expect((await consumeRateLimit({ store, key: 'hourly', limit: 1, now: 7_200 + 62, windowSeconds: 3_600 })).allowed).toBe(false);
  });

  it('refuses everything with a limit of 0', async () => {
    const store = createMemoryRateLimitStore();
    expect(await consumeRateLimit({ store, key: 'k', limit: 0, now: MINUTE_START })).toMatchObject({ allowed: false, remaining: 0 });
  });

  it('passes the store the fixed window the instant falls in', async () => {
    const calls: unknown[] = [];
    const store: RateLimitStore = {
      async consume(input) {
        calls.push(input);
        return { count: 1, allowed: true };
      },
    };
    await consumeRateLimit({ store, key: 'key:9:/meter', limit: 30, now: MINUTE_START + 42.5 });
    expect(calls).toEqual([{ key: 'key:9:/meter', windowStart: MINUTE_START, windowSeconds: 60, limit: 30 }]);
  });
});
