/**
 * The capabilities that let an API request cost two database round trips (issue 11): the device
 * with its figures (`findDeviceWithSums`, `findDeviceWithSummary`), and the API key or ingest token
 * with the count of the request (`findApiKeyAndConsume`, `findIngestTokenAndConsume`: capabilities
 * of a store that keeps both the credentials and the rate-limit counters). Each answer must equal what the separate calls answer.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import { dayBuckets } from '../window/day-buckets.js';
import { localDateAt } from '../time/local-date.js';
import type { CredentialCounter, RateLimitStore } from '../access/rate-limit.js';
import { resolveWindow } from '../window/resolve-window.js';
import type { FleetHoursStore } from '../store/storage-port.js';
import { sumSegmentsByBucket } from '../engine/sum-by-bucket.js';
import { summarizeSegments } from '../engine/summarize-segments.js';
import type { Account, Device, SegmentInput } from '../types.js';

const HOUR = 3600;
const DAY = 86_400;
const T0 = 1_767_225_600; // 2026-01-01T00:00:00Z
const ZONES = ['UTC', 'America/New_York', 'Europe/London', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'Pacific/Apia'] as const;
const WINDOW = 60;
const W0 = Math.floor(T0 / WINDOW) * WINDOW;

/** What this block needs from the contract suite around it. */
export interface OneRoundTripContractContext {
  readonly store: () => FleetHoursStore;
  readonly itWith: (
    capability: 'findDeviceWithSums' | 'findDeviceWithSummary' | 'findApiKeyAndConsume' | 'findIngestTokenAndConsume',
    title: string,
    test: () => Promise<void>,
  ) => void;
}

const segmentsArbitrary = fc
  .record({
    lead: fc.integer({ min: 0, max: 20 * DAY }),
    pieces: fc.array(
      fc.record({ gap: fc.integer({ min: 0, max: 30 * HOUR }), length: fc.integer({ min: 1, max: 2 * DAY }), moving: fc.boolean() }),
      { maxLength: 8 },
    ),
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
/** An account and one device in `timeZone`. */
async function seed(store: () => FleetHoursStore, timeZone: string, name = 'Acme') {
  const account = await store().createAccount({ name, plan: 'business', now: T0 });
  const device = await store().createDevice({
    accountId: account.id,
    name: `${name} truck`,
    imei: `imei-${name}-${timeZone}`,
    model: 'FMB920',
    timeZone,
  });
  return { account, device: device! };
}

export function describeOneRoundTripContract({ store, itWith }: OneRoundTripContractContext): void {
  describeDeviceWithSums({ store, itWith });
  describeDeviceWithSummary({ store, itWith });
}

/** The device with its figures in one call, alone and for calls made at once (P36). */
function describeDeviceWithSums({ store, itWith }: OneRoundTripContractContext): void {
  itWith(
    'findDeviceWithSums',
    'findDeviceWithSums() is findDevice() with sumSegmentsByBucket() over listSegments(), in the zone asked only',
    async () => {
      let round = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...ZONES),
          segmentsArbitrary,
          fc.integer({ min: 0, max: 30 }),
          fc.integer({ min: 0, max: 40 }),
          fc.integer({ min: 0, max: 60 * DAY }),
          async (timeZone, segments, fromDay, days, nowOffset) => {
            const { account, device } = await seed(store, timeZone, `r${round++}`);
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
            expect(
              await store().findDeviceWithSums!({ accountId: account.id, deviceId: device.id, timeZone: other, boundaries, now }),
            ).toEqual({ device: stored, buckets: null });
          },
        ),
        { numRuns: 15 },
      );
    },
  );

  itWith(
    'findDeviceWithSums',
    'P36: findDeviceWithSums() calls made at once, for several devices, accounts, zones and windows, each answer what one call alone answers',
    async () => {
      let round = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.record({ timeZone: fc.constantFrom(...ZONES), segments: segmentsArbitrary }), { minLength: 1, maxLength: 3 }),
          fc.array(
            fc.record({
              device: fc.nat(),
              fromDay: fc.integer({ min: 0, max: 30 }),
              days: fc.integer({ min: 0, max: 40 }),
              ask: fc.constantFrom('own', 'own', 'own', 'other zone', 'other account', 'missing'),
            }),
            { minLength: 2, maxLength: 12 },
          ),
          fc.integer({ min: 0, max: 60 * DAY }),
          async (fleet, calls, nowOffset) => {
            const now = T0 + nowOffset;
            const seeded: { account: Account; device: Device; timeZone: string; segments: SegmentInput[] }[] = [];
            for (const { timeZone, segments } of fleet) {
              const { account, device: created } = await seed(store, timeZone, `m${round++}`);
              await store().importSegments({ deviceId: created.id, segments });
              const device = (await store().findDevice({ accountId: account.id, deviceId: created.id }))!;
              seeded.push({ account, device, timeZone, segments: [...(await store().listSegments({ deviceId: device.id }))] });
            }
            const asked = calls.map(({ device: pick, fromDay, days, ask }) => {
              const { account, device, timeZone, segments } = seeded[pick % seeded.length]!;
              const from = localDateAt(T0, timeZone).add({ days: fromDay });
              const boundaries = dayBuckets(resolveWindow({ from, to: from.add({ days }), now, timeZone })).boundaries.map((boundary) =>
                Math.min(boundary, now),
              );
              const other = seeded[(pick + 1) % seeded.length]!;
              const input = {
                accountId:
                  ask === 'other account' ? (other.account.id === account.id ? account.id + 100_000 : other.account.id) : account.id,
                deviceId: ask === 'missing' ? 999_999 : device.id,
                timeZone: ask === 'other zone' ? (timeZone === 'UTC' ? 'Asia/Kathmandu' : 'UTC') : timeZone,
                boundaries,
                now,
              };
              const expected =
                ask === 'own'
                  ? { device, buckets: sumSegmentsByBucket(segments, boundaries, now) }
                  : ask === 'other zone'
                    ? { device, buckets: null }
                    : null;
              return { input, expected };
            });
            const found = await Promise.all(asked.map(({ input }) => store().findDeviceWithSums!(input)));
            expect(found).toEqual(asked.map(({ expected }) => expected));
          },
        ),
        { numRuns: 15 },
      );
    },
  );
}

/** Misses and refusals of the device with its figures, the device with its meter, and the key with its count. */
function describeDeviceWithSummary({ store, itWith }: OneRoundTripContractContext): void {
  itWith(
    'findDeviceWithSums',
    'findDeviceWithSums() is a miss for a missing device or one of another account, and refuses milliseconds',
    async () => {
      const { account, device } = await seed(store, 'UTC');
      const other = await seed(store, 'UTC', 'Other');
      const ask = { timeZone: 'UTC', boundaries: [T0, T0 + DAY], now: T0 + DAY };
      expect(await store().findDeviceWithSums!({ accountId: other.account.id, deviceId: device.id, ...ask })).toBeNull();
      expect(await store().findDeviceWithSums!({ accountId: account.id, deviceId: 999_999, ...ask })).toBeNull();
      expect(await store().findDeviceWithSums!({ accountId: account.id, deviceId: device.id, ...ask })).toEqual({
        device,
        buckets: [{ movingSeconds: 0, idleSeconds: 0 }],
      });
      await expect(
        store().findDeviceWithSums!({ accountId: account.id, deviceId: device.id, ...ask, boundaries: [T0, T0 * 1000] }),
      ).rejects.toThrow(/boundaries\[1\]/);
      await expect(store().findDeviceWithSums!({ accountId: account.id, deviceId: device.id, ...ask, now: T0 * 1000 })).rejects.toThrow(
        /now/,
      );
    },
  );

  itWith(
    'findDeviceWithSummary',
    'findDeviceWithSummary() is findDevice() with summarizeSegments() over listSegments(); a miss for a device of another account',
    async () => {
      const { account, device } = await seed(store, 'America/New_York');
      const other = await seed(store, 'UTC', 'Other');
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
    },
  );

  describeApiKeyCounter({ store: () => store() as FleetHoursStore & RateLimitStore, itWith });
}

/** The two credential kinds whose lookup can count the request in the same round trip, as the tests below use them. */
const CREDENTIAL_COUNTERS = [
  {
    capability: 'findApiKeyAndConsume',
    keyPrefix: 'key:',
    keySuffix: ':/api/v1/devices/{id}/hours',
    // A manage key (D51): the lookup that counts carries its scope as the plain lookup does.
    create: (store: FleetHoursStore, accountId: number, fingerprint: string) =>
      store.createApiKey({ accountId, fingerprint, label: null, expiresAt: null, now: T0, scope: 'manage' }),
    revoke: (store: FleetHoursStore, id: number) => store.revokeApiKey({ keyId: id, now: T0 + 1 }),
    find: async (store: FleetHoursStore, fingerprint: string) => {
      const found = await store.findApiKey({ fingerprint });
      return found && { credential: found.apiKey, account: found.account };
    },
    findAndConsume: async (store: RateLimitStore, input: { fingerprint: string; counter: CredentialCounter }) => {
      const { lookup, count } = await store.findApiKeyAndConsume!(input);
      return { lookup: lookup && { credential: lookup.apiKey, account: lookup.account }, count };
    },
  },
  {
    capability: 'findIngestTokenAndConsume',
    keyPrefix: 'token:',
    keySuffix: ':/ingest',
    create: (store: FleetHoursStore, accountId: number, fingerprint: string) =>
      store.createIngestToken({ accountId, fingerprint, label: null, expiresAt: null, now: T0 }),
    revoke: (store: FleetHoursStore, id: number) => store.revokeIngestToken({ tokenId: id, now: T0 + 1 }),
    find: async (store: FleetHoursStore, fingerprint: string) => {
      const found = await store.findIngestToken({ fingerprint });
      return found && { credential: found.ingestToken, account: found.account };
    },
    findAndConsume: async (store: RateLimitStore, input: { fingerprint: string; counter: CredentialCounter }) => {
      const { lookup, count } = await store.findIngestTokenAndConsume!(input);
      return { lookup: lookup && { credential: lookup.ingestToken, account: lookup.account }, count };
    },
  },
] as const;

function describeApiKeyCounter({
  store,
  itWith,
}: {
  store: () => FleetHoursStore & RateLimitStore;
  itWith: OneRoundTripContractContext['itWith'];
}): void {
  for (const kind of CREDENTIAL_COUNTERS) {
    const { capability } = kind;
    const counter = (limit: number, windowStart = W0): CredentialCounter => ({
      keyPrefix: kind.keyPrefix,
      keySuffix: kind.keySuffix,
      windowStart,
      windowSeconds: WINDOW,
      limit,
    });
    const findAndConsume = (fingerprint: string, limit: CredentialCounter) => kind.findAndConsume(store(), { fingerprint, counter: limit });
    const seed = async (fingerprint: string, revoked = false) => {
      const account = await store().createAccount({ name: 'Acme', plan: 'business', now: T0 });
      const credential = (await kind.create(store(), account.id, fingerprint))!;
      if (revoked) await kind.revoke(store(), credential.id);
      return { account, credential };
    };

    itWith(
      capability,
      `${capability}() returns what the lookup alone returns and counts on the credential\u2019s counter, which consume() shares (D13)`,
      async () => {
        const { credential } = await seed('a'.repeat(64));
        const results = [];
        for (let index = 0; index < 4; index += 1) results.push(await findAndConsume('a'.repeat(64), counter(3)));
        const lookup = await kind.find(store(), 'a'.repeat(64));
        expect(lookup).not.toBeNull();
        expect(results.map((result) => result.lookup)).toEqual([lookup, lookup, lookup, lookup]);
        expect(results.map((result) => result.count)).toEqual([
          { count: 1, allowed: true },
          { count: 2, allowed: true },
          { count: 3, allowed: true },
          { count: 3, allowed: false },
        ]);
        // A refused call used no budget: the same counter under a higher limit resumes from 3.
        const name = `${kind.keyPrefix}${credential.id}${kind.keySuffix}`;
        expect(await store().consume({ key: name, windowStart: W0, windowSeconds: WINDOW, limit: 5 })).toEqual({ count: 4, allowed: true });
        expect((await findAndConsume('a'.repeat(64), counter(5))).count).toEqual({ count: 5, allowed: true });
        // A new window starts again at one.
        expect((await findAndConsume('a'.repeat(64), counter(5, W0 + WINDOW))).count).toEqual({ count: 1, allowed: true });
      },
    );

    itWith(
      capability,
      `${capability}() counts nothing for an unknown fingerprint, and counts a revoked credential like any found one`,
      async () => {
        expect(await findAndConsume('f'.repeat(64), counter(3))).toEqual({ lookup: null, count: null });
        const { credential } = await seed('b'.repeat(64), true);
        const found = await findAndConsume('b'.repeat(64), counter(3));
        expect(found).toEqual({ lookup: await kind.find(store(), 'b'.repeat(64)), count: { count: 1, allowed: true } });
        expect(found.lookup!.credential.revokedAt).toBe(T0 + 1);
        expect(
          await store().consume({
            key: `${kind.keyPrefix}${credential.id}${kind.keySuffix}`,
            windowStart: W0,
            windowSeconds: WINDOW,
            limit: 3,
          }),
        ).toEqual({ count: 2, allowed: true });
        // A limit of 0 refuses without counting.
        expect((await findAndConsume('b'.repeat(64), { ...counter(0), keySuffix: ':/zero' })).count).toEqual({ count: 0, allowed: false });
      },
    );

    itWith(capability, `concurrent ${capability}() calls are counted exactly once each (D15)`, async () => {
      await seed('c'.repeat(64));
      const limit = 25;
      const results = await Promise.all(Array.from({ length: 40 }, () => findAndConsume('c'.repeat(64), counter(limit))));
      const allowed = results.filter((result) => result.count!.allowed);
      expect(allowed.map((result) => result.count!.count).sort((a, b) => a - b)).toEqual(
        Array.from({ length: limit }, (_, index) => index + 1),
      );
      for (const refused of results.filter((result) => !result.count!.allowed)) expect(refused.count!.count).toBe(limit);
    });
  }

  itWith('findIngestTokenAndConsume', 'an API key and an ingest token of one fingerprint are never mistaken for each other', async () => {
    const account = await store().createAccount({ name: 'Acme', plan: 'business', now: T0 });
    await store().createApiKey({ accountId: account.id, fingerprint: 'd'.repeat(64), label: null, expiresAt: null, now: T0 });
    expect(
      await store().findIngestTokenAndConsume!({
        fingerprint: 'd'.repeat(64),
        counter: { keyPrefix: 'token:', keySuffix: ':/ingest', windowStart: W0, windowSeconds: WINDOW, limit: 3 },
      }),
    ).toEqual({ lookup: null, count: null });
  });
}
