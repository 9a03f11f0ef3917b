/**
 * The capabilities that let an API request cost two database round trips (issue 11): the device
 * with its figures (`findDeviceWithSums`, `findDeviceWithSummary`), and the API key with the count
 * of the request (`findApiKeyAndConsume`, a capability of a store that keeps both the keys and the
 * rate-limit counters). Each answer must equal what the separate calls answer.
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { dayBuckets } from '../day-buckets.js';
import { localDateAt } from '../local-date.js';
import type { CredentialCounter, RateLimitStore } from '../rate-limit.js';
import { resolveWindow } from '../resolve-window.js';
import type { FleetHoursStore } from '../storage-port.js';
import { sumSegmentsByBucket } from '../sum-by-bucket.js';
import { summarizeSegments } from '../summarize-segments.js';
import type { SegmentInput } from '../types.js';

const HOUR = 3600;
const DAY = 86_400;
const T0 = 1_767_225_600; // 2026-01-01T00:00:00Z
const ZONES = ['UTC', 'America/New_York', 'Europe/London', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'Pacific/Apia'] as const;
const WINDOW = 60;
const W0 = Math.floor(T0 / WINDOW) * WINDOW;

/** What this block needs from the contract suite around it. */
export interface OneRoundTripContractContext {
  readonly store: () => FleetHoursStore;
  readonly itWith: (capability: 'findDeviceWithSums' | 'findDeviceWithSummary' | 'findApiKeyAndConsume', title: string, test: () => Promise<void>) => void;
}

const segmentsArbitrary = fc
  .record({
    lead: fc.integer({ min: 0, max: 20 * DAY }),
    pieces: fc.array(fc.record({ gap: fc.integer({ min: 0, max: 30 * HOUR }), length: fc.integer({ min: 1, max: 2 * DAY }), moving: fc.boolean() }), { maxLength: 8 }),
    openLast: fc.boolean(),
  })
  .map(({ lead, pieces, openLast }) => {
    let cursor = T0 + lead;
    return pieces.map(({ gap, length, moving }, index): SegmentInput => {
      const startedAt = cursor + gap;
      cursor = startedAt + length;
      return { startedAt, endedAt: openLast && index === pieces.length - 1 ? null : cursor, state: moving ? 'moving' : 'idle' };
    });
  });

/** Registers the tests (inside `describeStorageContract`). */
export function describeOneRoundTripContract({ store, itWith }: OneRoundTripContractContext): void {
  const seed = async (timeZone: string, name = 'Acme') => {
    const account = await store().createAccount({ name, plan: 'business', now: T0 });
    const device = await store().createDevice({ accountId: account.id, name: `${name} truck`, imei: `imei-${name}-${timeZone}`, model: 'FMB920', timeZone });
    return { account, device: device! };
  };

  itWith('findDeviceWithSums', 'findDeviceWithSums() is findDevice() with sumSegmentsByBucket() over listSegments(), in the zone asked only', async () => {
    let round = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ZONES),
        segmentsArbitrary,
        fc.integer({ min: 0, max: 30 }),
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 0, max: 60 * DAY }),
        async (timeZone, segments, fromDay, days, nowOffset) => {
          const { account, device } = await seed(timeZone, `r${round++}`);
          await store().importSegments({ deviceId: device.id, segments });
          const now = T0 + nowOffset;
          const from = localDateAt(T0, timeZone).add({ days: fromDay });
          const window = resolveWindow({ from, to: from.add({ days }), now, timeZone });
          const boundaries = dayBuckets(window).boundaries.map((boundary) => Math.min(boundary, now));
          const expected = sumSegmentsByBucket(await store().listSegments({ deviceId: device.id }), boundaries, now);
          const found = await store().findDeviceWithSums!({ accountId: account.id, deviceId: device.id, timeZone, boundaries, now });
          const stored = await store().findDevice({ accountId: account.id, deviceId: device.id });
          expect(found).toEqual({ device: stored, buckets: expected });
          // Boundaries cut in another zone are not answered: the device alone, for the core to ask again.
          const other = timeZone === 'UTC' ? 'Asia/Kathmandu' : 'UTC';
          expect(await store().findDeviceWithSums!({ accountId: account.id, deviceId: device.id, timeZone: other, boundaries, now })).toEqual({ device: stored, buckets: null });
        },
      ),
      { numRuns: 15 },
    );
  });

  itWith('findDeviceWithSums', 'findDeviceWithSums() is a miss for a missing device or one of another account, and refuses milliseconds', async () => {
    const { account, device } = await seed('UTC');
    const other = await seed('UTC', 'Other');
    const ask = { timeZone: 'UTC', boundaries: [T0, T0 + DAY], now: T0 + DAY };
    expect(await store().findDeviceWithSums!({ accountId: other.account.id, deviceId: device.id, ...ask })).toBeNull();
    expect(await store().findDeviceWithSums!({ accountId: account.id, deviceId: 999_999, ...ask })).toBeNull();
    expect(await store().findDeviceWithSums!({ accountId: account.id, deviceId: device.id, ...ask })).toEqual({
      device,
      buckets: [{ movingSeconds: 0, idleSeconds: 0 }],
    });
    await expect(store().findDeviceWithSums!({ accountId: account.id, deviceId: device.id, ...ask, boundaries: [T0, T0 * 1000] })).rejects.toThrow(/boundaries\[1\]/);
    await expect(store().findDeviceWithSums!({ accountId: account.id, deviceId: device.id, ...ask, now: T0 * 1000 })).rejects.toThrow(/now/);
  });

  itWith('findDeviceWithSummary', 'findDeviceWithSummary() is findDevice() with summarizeSegments() over listSegments(); a miss for a device of another account', async () => {
    const { account, device } = await seed('America/New_York');
    const other = await seed('UTC', 'Other');
    expect(await store().findDeviceWithSummary!({ accountId: account.id, deviceId: device.id, now: T0 })).toEqual({
      device,
      summary: { firstStartedAt: null, movingSeconds: 0, idleSeconds: 0 },
    });
    await store().importSegments({
      deviceId: device.id,
      segments: [
        { startedAt: T0, endedAt: T0 + HOUR, state: 'idle' },
        { startedAt: T0 + HOUR, endedAt: T0 + 3 * HOUR, state: 'moving' },
        { startedAt: T0 + 5 * HOUR, endedAt: null, state: 'idle' },
      ],
    });
    for (const now of [T0 + 2 * HOUR, T0 + 4 * HOUR, T0 + 7 * HOUR]) {
      expect(await store().findDeviceWithSummary!({ accountId: account.id, deviceId: device.id, now })).toEqual({
        device: await store().findDevice({ accountId: account.id, deviceId: device.id }),
        summary: summarizeSegments(await store().listSegments({ deviceId: device.id }), now),
      });
    }
    expect(await store().findDeviceWithSummary!({ accountId: other.account.id, deviceId: device.id, now: T0 })).toBeNull();
    expect(await store().findDeviceWithSummary!({ accountId: account.id, deviceId: 999_999, now: T0 })).toBeNull();
    await expect(store().findDeviceWithSummary!({ accountId: account.id, deviceId: device.id, now: T0 * 1000 })).rejects.toThrow(/now/);
  });

  describeApiKeyCounter({ store: () => store() as FleetHoursStore & RateLimitStore, itWith });
}

function describeApiKeyCounter({ store, itWith }: { store: () => FleetHoursStore & RateLimitStore; itWith: OneRoundTripContractContext['itWith'] }): void {
  const counter = (limit: number, windowStart = W0): CredentialCounter => ({ keyPrefix: 'key:', keySuffix: ':/api/v1/devices/{id}/hours', windowStart, windowSeconds: WINDOW, limit });
  const seedKey = async (fingerprint: string, revoked = false) => {
    const account = await store().createAccount({ name: 'Acme', plan: 'business', now: T0 });
    const key = (await store().createApiKey({ accountId: account.id, fingerprint, label: null, expiresAt: null, now: T0 }))!;
    if (revoked) await store().revokeApiKey({ keyId: key.id, now: T0 + 1 });
    return { account, key };
  };

  itWith('findApiKeyAndConsume', 'findApiKeyAndConsume() returns findApiKey() and counts on the key\u2019s counter, which consume() shares (D13)', async () => {
    const { key } = await seedKey('a'.repeat(64));
    const results = [];
    for (let index = 0; index < 4; index += 1) results.push(await store().findApiKeyAndConsume!({ fingerprint: 'a'.repeat(64), counter: counter(3) }));
    const lookup = await store().findApiKey({ fingerprint: 'a'.repeat(64) });
    expect(results.map((result) => result.lookup)).toEqual([lookup, lookup, lookup, lookup]);
    expect(results.map((result) => result.count)).toEqual([
      { count: 1, allowed: true },
      { count: 2, allowed: true },
      { count: 3, allowed: true },
      { count: 3, allowed: false },
    ]);
    // A refused call used no budget: the same counter under a higher limit resumes from 3.
    const name = `key:${key.id}:/api/v1/devices/{id}/hours`;
    expect(await store().consume({ key: name, windowStart: W0, windowSeconds: WINDOW, limit: 5 })).toEqual({ count: 4, allowed: true });
    expect((await store().findApiKeyAndConsume!({ fingerprint: 'a'.repeat(64), counter: counter(5) })).count).toEqual({ count: 5, allowed: true });
    // A new window starts again at one.
    expect((await store().findApiKeyAndConsume!({ fingerprint: 'a'.repeat(64), counter: counter(5, W0 + WINDOW) })).count).toEqual({ count: 1, allowed: true });
  });

  itWith('findApiKeyAndConsume', 'findApiKeyAndConsume() counts nothing for an unknown fingerprint, and counts a revoked key like any found key', async () => {
    expect(await store().findApiKeyAndConsume!({ fingerprint: 'f'.repeat(64), counter: counter(3) })).toEqual({ lookup: null, count: null });
    const { key } = await seedKey('b'.repeat(64), true);
    const found = await store().findApiKeyAndConsume!({ fingerprint: 'b'.repeat(64), counter: counter(3) });
    expect(found).toEqual({ lookup: await store().findApiKey({ fingerprint: 'b'.repeat(64) }), count: { count: 1, allowed: true } });
    expect(found.lookup!.apiKey.revokedAt).toBe(T0 + 1);
    expect(await store().consume({ key: `key:${key.id}:/api/v1/devices/{id}/hours`, windowStart: W0, windowSeconds: WINDOW, limit: 3 })).toEqual({ count: 2, allowed: true });
    // A limit of 0 refuses without counting.
    expect((await store().findApiKeyAndConsume!({ fingerprint: 'b'.repeat(64), counter: { ...counter(0), keySuffix: ':/zero' } })).count).toEqual({ count: 0, allowed: false });
  });

  itWith('findApiKeyAndConsume', 'concurrent findApiKeyAndConsume() calls are counted exactly once each (D15)', async () => {
    await seedKey('c'.repeat(64));
    const limit = 25;
    const results = await Promise.all(Array.from({ length: 40 }, () => store().findApiKeyAndConsume!({ fingerprint: 'c'.repeat(64), counter: counter(limit) })));
    const allowed = results.filter((result) => result.count!.allowed);
    expect(allowed.map((result) => result.count!.count).sort((a, b) => a - b)).toEqual(Array.from({ length: limit }, (_, index) => index + 1));
    for (const refused of results.filter((result) => !result.count!.allowed)) expect(refused.count!.count).toBe(limit);
  });
}
