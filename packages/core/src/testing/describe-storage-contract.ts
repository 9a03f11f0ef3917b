import fc from 'fast-check';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { SegmentOverlapError } from '../errors/errors.js';
import { describeDailyFiguresContract } from './daily-figures-contract.js';
import { describeDeviceTagsContract } from './device-tags-contract.js';
import { describeEventChecksContract } from './event-checks-contract.js';
import { describeFleetPagesContract } from './fleet-pages-contract.js';
import { describeAempPageContract } from './aemp-page-contract.js';
import { describeMaintenanceContract } from './maintenance-contract.js';
import { describeServiceMemoContract } from './service-memo-contract.js';
import { describeWebhookContract } from './webhook-contract.js';
import { describeIdempotencyContract } from './idempotency-contract.js';
import { describeAuditContract } from './audit-contract.js';
import { describeWorkCalendarContract } from './work-calendar-contract.js';
import { describeAempSourceContract } from './aemp-source-contract.js';
import { describeAtomicWritesContract } from './atomic-writes-contract.js';
import { describeDayFieldsContract } from './day-fields-contract.js';
import { describeUtilizationDaysContract } from './utilization-days-contract.js';
import { describeOneRoundTripContract } from './one-round-trip-contract.js';
import type { FleetHoursStore } from '../store/storage-port.js';
import { sumSegmentsByBucket } from '../engine/sum-by-bucket.js';
import { summarizeSegments } from '../engine/summarize-segments.js';
import type { Account, Device, SegmentInput } from '../types.js';
import { describeConcurrencyContract } from './concurrency-contract.js';
import { describeTelemetryContract } from './telemetry-contract.js';
import { describePositionsContract } from './positions-contract.js';
import { describeWritesContract } from './writes-contract.js';
import { refusalOf } from './refusal.js';
import { STORAGE_CAPABILITIES, type StorageCapability } from './storage-capabilities.js';

export { STORAGE_CAPABILITIES, type StorageCapability } from './storage-capabilities.js';

/** What a contract run needs from an adapter. */
export interface StorageContractSubject {
  /**
   * Called before every test: MUST return an empty store (a fresh schema, truncated tables or a new
   * in-memory instance). Share expensive resources (a PGlite instance, a pool) across calls.
   */
  readonly makeStore: () => Promise<FleetHoursStore> | FleetHoursStore;
  /** Called once after the suite, to release shared resources. */
  readonly teardown?: () => Promise<void> | void;
  /**
   * The optional capabilities the store offers (default none). The tests of a capability not
   * listed are skipped, saying so in their name; one test checks that the store offers exactly
   * the listed ones, so a capability cannot go untested by omission.
   */
  readonly capabilities?: readonly StorageCapability[];
  /**
   * The share of the runs of the contract's costliest property tests this store takes (default 1,
   * each still runs at least 4 times). An embedded database that computes in the test's own
   * process, such as PGlite, may take fewer, so that a busy machine does not make the suite time
   * out, when the same SQL runs them all on a database server.
   */
  readonly propertyRunShare?: number;
}

const HOUR = 3600;
const T0 = 1_767_225_600; // 2026-01-01T00:00:00Z
/** T0 in milliseconds: the unit mistake every store must refuse (`Date.now()` where seconds belong). */
const T0_MS = T0 * 1000;

/** What the parts of the contract share: the store of the running test, a seeded device, the capability-aware \`it\`. */
interface _Suite {
  readonly store: () => FleetHoursStore;
  readonly seedDevice: (timeZone?: string) => Promise<{ account: Account; device: Device }>;
  readonly itWith: (capability: StorageCapability, title: string, test: () => Promise<void>) => void;
  readonly capabilities: readonly StorageCapability[];
  readonly name: string;
}

/**
 * The storage contract: every {@link FleetHoursStore} MUST pass it. Run it from a vitest file:
 *
 * @param name Shown in the test names, e.g. `kysely on PGlite`.
 * @param subject How to get a fresh store, which optional capabilities it offers, and how to clean up.
 * @example
 * ```ts
 * import { createMemoryStore } from '@fleet-hours/core';
 * import { describeStorageContract } from '@fleet-hours/core/testing';
 * // The memory store offers the batch capabilities of the fleet pages (D32, D59) and units (P102):
 * describeStorageContract('memory', {
 *   makeStore: createMemoryStore,
 *   capabilities: [
 *     'sumSegmentSecondsMany',
 *     'summarizeDeviceSegmentsMany',
 *     'listSegmentsMany',
 *     'listDevicePage',
 *     'findWorkCalendarsMany',
 *     'findDeviceWithDays',
 *     'atomically',
 *     'claimAempSource',
 *   ],
 * });
 * ```
 */
export function describeStorageContract(name: string, subject: StorageContractSubject): void {
  const capabilities = subject.capabilities ?? [];
  /** A test of an optional capability: skipped, with the reason in its name, for a store without it. */
  const itWith = (capability: StorageCapability, title: string, test: () => Promise<void>) => {
    const offered = capabilities.includes(capability);
    // A capability's test is often a property over random histories on a real database: on 2 busy
    // cores it may take minutes, so it gets 4 times the suite's 30 s before it counts as hung.
    it.skipIf(!offered)(
      offered ? title : `${title} (skipped: ${name} does not offer ${capability}; the core's fallback serves it)`,
      test,
      120_000,
    );
  };

  describe(`storage contract: ${name}`, () => {
    let store: FleetHoursStore;
    beforeEach(async () => {
      store = await subject.makeStore();
    });
    afterAll(async () => {
      await subject.teardown?.();
    });

    const seedDevice = async (timeZone = 'America/New_York') => {
      const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
      const device = await store.createDevice({
        accountId: account.id,
        name: 'Truck 1',
        imei: '350000000000001',
        model: 'FMB920',
        timeZone,
      });
      return { account, device: device! };
    };
    const suite: _Suite = { store: () => store, seedDevice, itWith, capabilities, name };

    _describeReadiness(suite);

    describeTelemetryContract(() => store);
    describePositionsContract(() => store);
    describeConcurrencyContract(() => store);
    describeWritesContract(() => store);

    _describeAccounts(suite);

    _describeApiKeys(suite);

    _describeDevices(suite);
    describeDeviceTagsContract({
      store: () => store,
      itWith,
      runs: (numRuns) => Math.max(4, Math.round(numRuns * (subject.propertyRunShare ?? 1))),
    });

    _describeSegments(suite);

    _describeAggregationCapabilities(suite);

    _describeTwoRoundTrips(suite);

    _describeFleetPages(suite);
    _describeEventChecks(suite);

    _describeCostNotGrowing(suite);

    _describeEdges(suite);

    describeMaintenanceContract({ store: () => store, offers: (capability) => capabilities.includes(capability) });
    const share = subject.propertyRunShare ?? 1;
    describeServiceMemoContract({ store: () => store, itWith, runs: (numRuns) => Math.max(4, Math.round(numRuns * share)) });

    describeWebhookContract(() => store);

    describeIdempotencyContract(() => store);
    describeAuditContract(() => store);
    describeWorkCalendarContract(() => store);
    describeAempSourceContract({ store: () => store, itWith });
    describeAtomicWritesContract({ store: () => store, itWith });
    describeDayFieldsContract({ store: () => store, itWith });
    describeUtilizationDaysContract({ store: () => store, runs: (numRuns) => Math.max(4, Math.round(numRuns * share)) });

    // Every instant of the port is epoch seconds; `Date.now()` is milliseconds. A store refuses the
    // mistake by rejecting with a RangeError that names the argument and says "milliseconds", and
    // writes nothing, instead of storing an instant some 56,000 years away.
    _describeUnits(suite);
  });
}

function _describeReadiness(suite: _Suite): void {
  describe('readiness (D30)', () => {
    let store: FleetHoursStore;
    beforeEach(() => {
      store = suite.store();
    });
    it('ping(), where offered, resolves while the store answers and changes nothing', async () => {
      if (!store.ping) return expect(store.ping).toBeUndefined();
      await expect(store.ping()).resolves.toBeUndefined();
      expect(await store.listAccounts()).toEqual([]);
    });
  });
}

function _describeAccounts(suite: _Suite): void {
  describe('accounts', () => {
    let store: FleetHoursStore;
    beforeEach(() => {
      store = suite.store();
    });

    it('createAccount() assigns ids and findAccount() / listAccounts() return them by id', async () => {
      const first = await store.createAccount({ name: 'First', plan: 'business', now: T0 });
      const second = await store.createAccount({ name: 'Second', plan: 'starter', now: T0 + 1 });
      expect(second.id).not.toBe(first.id);
      expect(await store.findAccount({ accountId: second.id })).toEqual({
        id: second.id,
        name: 'Second',
        plan: 'starter',
        createdAt: T0 + 1,
      });
      expect((await store.listAccounts()).map((account) => account.name)).toEqual(['First', 'Second']);
    });

    it('setAccountPlan() changes the plan, and a miss is null', async () => {
      const account = await store.createAccount({ name: 'Acme', plan: 'starter', now: T0 });
      expect((await store.setAccountPlan({ accountId: account.id, plan: 'business' }))?.plan).toBe('business');
      expect((await store.findAccount({ accountId: account.id }))?.plan).toBe('business');
      expect(await store.setAccountPlan({ accountId: account.id + 1000, plan: 'business' })).toBeNull();
      expect(await store.findAccount({ accountId: account.id + 1000 })).toBeNull();
    });
  });
}

function _describeApiKeys(suite: _Suite): void {
  describe('api keys (D10)', () => {
    let store: FleetHoursStore;
    beforeEach(() => {
      store = suite.store();
    });

    it('findApiKey() finds a key by fingerprint with its account; an unknown fingerprint is null', async () => {
      const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
      const created = await store.createApiKey({
        accountId: account.id,
        fingerprint: 'a'.repeat(64),
        label: 'ci',
        expiresAt: T0 + HOUR,
        now: T0,
      });
      expect(created).toEqual({
        id: created!.id,
        accountId: account.id,
        fingerprint: 'a'.repeat(64),
        label: 'ci',
        scope: 'read',
        createdAt: T0,
        expiresAt: T0 + HOUR,
        revokedAt: null,
      });
      expect(await store.findApiKey({ fingerprint: 'a'.repeat(64) })).toEqual({ apiKey: created, account });
      expect(await store.findApiKey({ fingerprint: 'b'.repeat(64) })).toBeNull();
    });

    it('D51, P70 createApiKey() keeps the scope given, read by default; find, list and revoke carry it', async () => {
      const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
      const manage = await store.createApiKey({
        accountId: account.id,
        fingerprint: 'e'.repeat(64),
        label: null,
        expiresAt: null,
        now: T0,
        scope: 'manage',
      });
      const read = await store.createApiKey({ accountId: account.id, fingerprint: 'f'.repeat(64), label: null, expiresAt: null, now: T0 });
      expect([manage?.scope, read?.scope]).toEqual(['manage', 'read']);
      expect((await store.findApiKey({ fingerprint: 'e'.repeat(64) }))?.apiKey.scope).toBe('manage');
      expect((await store.listApiKeys({ accountId: account.id })).map((apiKey) => apiKey.scope)).toEqual(['manage', 'read']);
      expect((await store.revokeApiKey({ keyId: manage!.id, now: T0 + 1 }))?.scope).toBe('manage');
    });

    it('createApiKey() for a missing account is null', async () => {
      expect(
        await store.createApiKey({ accountId: 999_999, fingerprint: 'c'.repeat(64), label: null, expiresAt: null, now: T0 }),
      ).toBeNull();
    });

    it('revokeApiKey() takes effect on the next findApiKey() and keeps the first revocation instant', async () => {
      const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
      const created = await store.createApiKey({
        accountId: account.id,
        fingerprint: 'd'.repeat(64),
        label: null,
        expiresAt: null,
        now: T0,
      });
      expect((await store.revokeApiKey({ keyId: created!.id, now: T0 + 10 }))?.revokedAt).toBe(T0 + 10);
      expect((await store.findApiKey({ fingerprint: 'd'.repeat(64) }))?.apiKey.revokedAt).toBe(T0 + 10);
      expect((await store.revokeApiKey({ keyId: created!.id, now: T0 + 20 }))?.revokedAt).toBe(T0 + 10);
      expect(await store.revokeApiKey({ keyId: created!.id + 1000, now: T0 })).toBeNull();
    });

    it("listApiKeys() returns only the account's keys, by id", async () => {
      const mine = await store.createAccount({ name: 'Mine', plan: 'business', now: T0 });
      const theirs = await store.createAccount({ name: 'Theirs', plan: 'business', now: T0 });
      await store.createApiKey({ accountId: mine.id, fingerprint: '1'.repeat(64), label: 'one', expiresAt: null, now: T0 });
      await store.createApiKey({ accountId: theirs.id, fingerprint: '2'.repeat(64), label: 'other', expiresAt: null, now: T0 });
      await store.createApiKey({ accountId: mine.id, fingerprint: '3'.repeat(64), label: 'two', expiresAt: null, now: T0 });
      expect((await store.listApiKeys({ accountId: mine.id })).map((apiKey) => apiKey.label)).toEqual(['one', 'two']);
    });
  });
}

function _describeDevices(suite: _Suite): void {
  describe('devices', () => {
    let store: FleetHoursStore;
    beforeEach(() => {
      store = suite.store();
    });
    const { seedDevice } = suite;
    it('createDevice() defaults status to active and registration to null', async () => {
      const { account, device } = await seedDevice();
      expect(device).toEqual({
        id: device.id,
        accountId: account.id,
        name: 'Truck 1',
        imei: '350000000000001',
        registration: null,
        model: 'FMB920',
        status: 'active',
        timeZone: 'America/New_York',
        lastReportedAt: null,
        tags: [],
        oemName: null,
        equipmentModel: null,
        serialNumber: null,
        pin: null,
      });
      expect(await store.createDevice({ accountId: account.id + 1000, name: 'x', imei: 'x', model: 'x', timeZone: 'UTC' })).toBeNull();
    });

    it("listDevices() returns only the account's devices ordered by id (D19)", async () => {
      const mine = await store.createAccount({ name: 'Mine', plan: 'business', now: T0 });
      const theirs = await store.createAccount({ name: 'Theirs', plan: 'business', now: T0 });
      const names = ['c', 'a', 'b'];
      for (const name of names) {
        await store.createDevice({ accountId: mine.id, name, imei: name, model: 'm', timeZone: 'UTC' });
        await store.createDevice({ accountId: theirs.id, name: `other-${name}`, imei: name, model: 'm', timeZone: 'UTC' });
      }
      const listed = await store.listDevices({ accountId: mine.id });
      expect(listed.map((device) => device.name)).toEqual(names);
      expect(listed.map((device) => device.id)).toEqual([...listed.map((device) => device.id)].sort((a, b) => a - b));
      expect(await store.listDevices({ accountId: 999_999 })).toEqual([]);
    });

    it('findDevice() is null for a device of another account (D11)', async () => {
      const { account, device } = await seedDevice();
      const other = await store.createAccount({ name: 'Other', plan: 'business', now: T0 });
      expect((await store.findDevice({ accountId: account.id, deviceId: device.id }))?.id).toBe(device.id);
      expect(await store.findDevice({ accountId: other.id, deviceId: device.id })).toBeNull();
      expect(await store.findDevice({ accountId: account.id, deviceId: device.id + 1000 })).toBeNull();
    });

    it('updateDevice() changes only the given fields; a miss is null', async () => {
      const { device } = await seedDevice();
      const updated = await store.updateDevice({
        deviceId: device.id,
        changes: { timeZone: 'Asia/Kathmandu', registration: 'KA 01 AB 1234' },
      });
      expect(updated).toEqual({ ...device, timeZone: 'Asia/Kathmandu', registration: 'KA 01 AB 1234' });
      expect(await store.updateDevice({ deviceId: device.id + 1000, changes: { name: 'x' } })).toBeNull();
    });

    it('D54, P73 updateDevice() with the device as read applies only while it is unchanged, in the same statement', async () => {
      const { account, device } = await seedDevice();
      const renamed = await store.updateDevice({ deviceId: device.id, changes: { name: 'Renamed' }, expected: device });
      expect(renamed).toEqual({ ...device, name: 'Renamed' });
      expect(await store.updateDevice({ deviceId: device.id, changes: { model: 'X' }, expected: device })).toBeNull();
      expect(await store.updateDevice({ deviceId: device.id, changes: { timeZone: 'UTC' }, expected: device })).toBeNull();
      expect(await store.findDevice({ accountId: account.id, deviceId: device.id })).toEqual(renamed);
      // Several changes from one read, at once: exactly one applies.
      const answers = await Promise.all(
        ['A', 'B', 'C'].map((name) => store.updateDevice({ deviceId: device.id, changes: { name }, expected: renamed! })),
      );
      expect(answers.filter((answer) => answer !== null)).toHaveLength(1);
    });

    it('D52 updateDevice() changes the IMEI, and refuses one that names another active device of the account (D25)', async () => {
      const { account, device } = await seedDevice();
      const other = await store.createDevice({
        accountId: account.id,
        name: 'Other',
        imei: '490154203237518',
        model: 'M',
        timeZone: 'UTC',
      });
      expect(await store.updateDevice({ deviceId: device.id, changes: { imei: '353456789012345' } })).toEqual({
        ...device,
        imei: '353456789012345',
      });
      await expect(store.updateDevice({ deviceId: device.id, changes: { imei: other!.imei } })).rejects.toMatchObject({ code: 'conflict' });
      expect((await store.findDevice({ accountId: account.id, deviceId: device.id }))?.imei).toBe('353456789012345');
    });
  });
}

function _describeSegments(suite: _Suite): void {
  describe('segments (D1)', () => {
    let store: FleetHoursStore;
    beforeEach(() => {
      store = suite.store();
    });
    const { seedDevice } = suite;
    const batch: SegmentInput[] = [
      { startedAt: T0, endedAt: T0 + HOUR, state: 'idle' },
      { startedAt: T0 + HOUR, endedAt: T0 + 3 * HOUR, state: 'moving' },
      { startedAt: T0 + 5 * HOUR, endedAt: null, state: 'idle' },
    ];

    it('importSegments() writes a batch that listSegments() returns in time order', async () => {
      const { device } = await seedDevice();
      expect(await store.importSegments({ deviceId: device.id, segments: [...batch].reverse() })).toEqual({
        inserted: 3,
        closed: 0,
        skipped: 0,
      });
      expect(await store.listSegments({ deviceId: device.id })).toEqual(batch.map((segment) => ({ deviceId: device.id, ...segment })));
    });

    it('listSegments() returns the segments overlapping [start, end), an open one overlapping all after its start', async () => {
      const { device } = await seedDevice();
      await store.importSegments({ deviceId: device.id, segments: batch });
      const starts = async (start: number, end: number) =>
        (await store.listSegments({ deviceId: device.id, start, end })).map((segment) => segment.startedAt);
      expect(await starts(T0 + HOUR, T0 + 2 * HOUR)).toEqual([T0 + HOUR]);
      expect(await starts(T0 + HOUR - 1, T0 + HOUR + 1)).toEqual([T0, T0 + HOUR]);
      expect(await starts(T0 + 3 * HOUR, T0 + 5 * HOUR)).toEqual([]);
      expect(await starts(T0 + 100 * HOUR, T0 + 101 * HOUR)).toEqual([T0 + 5 * HOUR]);
      expect(await store.listSegments({ deviceId: device.id + 1000 })).toEqual([]);
    });

    it('re-importing the same batch is harmless: identical segments are skipped', async () => {
      const { device } = await seedDevice();
      await store.importSegments({ deviceId: device.id, segments: batch });
      expect(await store.importSegments({ deviceId: device.id, segments: batch })).toEqual({ inserted: 0, closed: 0, skipped: 3 });
      expect(await store.listSegments({ deviceId: device.id })).toHaveLength(3);
    });

    it('an open segment is closed by importing it again with its ended_at', async () => {
      const { device } = await seedDevice();
      await store.importSegments({ deviceId: device.id, segments: batch });
      const closing = { startedAt: T0 + 5 * HOUR, endedAt: T0 + 6 * HOUR, state: 'idle' as const };
      expect(await store.importSegments({ deviceId: device.id, segments: [closing] })).toEqual({ inserted: 0, closed: 1, skipped: 0 });
      expect((await store.listSegments({ deviceId: device.id })).at(-1)).toEqual({ deviceId: device.id, ...closing });
    });

    it('an overlap with stored segments refuses the whole batch and writes nothing', async () => {
      const { device } = await seedDevice();
      await store.importSegments({ deviceId: device.id, segments: batch.slice(0, 2) });
      const bad: SegmentInput[] = [
        { startedAt: T0 + 10 * HOUR, endedAt: T0 + 11 * HOUR, state: 'idle' },
        { startedAt: T0 + 30 * 60, endedAt: T0 + 90 * 60, state: 'moving' },
      ];
      const refusal = await store.importSegments({ deviceId: device.id, segments: bad }).catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(SegmentOverlapError);
      expect(new Set((refusal as SegmentOverlapError).conflicts.map((conflict) => conflict.row))).toEqual(new Set([2]));
      expect(await store.listSegments({ deviceId: device.id })).toHaveLength(2);
    });

    it('an overlap inside the batch refuses it whole, naming both rows', async () => {
      const { device } = await seedDevice();
      const bad: SegmentInput[] = [
        { startedAt: T0, endedAt: T0 + HOUR, state: 'idle' },
        { startedAt: T0 + 2 * HOUR, endedAt: T0 + 3 * HOUR, state: 'idle' },
        { startedAt: T0 + 30 * 60, endedAt: T0 + 2 * HOUR, state: 'moving' },
      ];
      const refusal = await store.importSegments({ deviceId: device.id, segments: bad }).catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(SegmentOverlapError);
      expect((refusal as SegmentOverlapError).conflicts).toEqual([{ row: 3, otherRow: 1, stored: null }]);
      expect(await store.listSegments({ deviceId: device.id })).toEqual([]);
    });

    it('importSegments() raises lastReportedAt to the latest instant of the batch, never lowers it (P6)', async () => {
      const { account, device } = await seedDevice();
      await store.importSegments({ deviceId: device.id, segments: batch.slice(0, 2) });
      expect((await store.findDevice({ accountId: account.id, deviceId: device.id }))?.lastReportedAt).toBe(T0 + 3 * HOUR);
      await store.importSegments({
        deviceId: device.id,
        segments: [{ startedAt: T0 - 10 * HOUR, endedAt: T0 - 9 * HOUR, state: 'idle' }],
      });
      expect((await store.findDevice({ accountId: account.id, deviceId: device.id }))?.lastReportedAt).toBe(T0 + 3 * HOUR);
      await store.importSegments({ deviceId: device.id, segments: [], reportedAt: T0 + 4 * HOUR });
      expect((await store.findDevice({ accountId: account.id, deviceId: device.id }))?.lastReportedAt).toBe(T0 + 4 * HOUR);
    });

    it('importSegments() for a missing device is null and writes nothing', async () => {
      expect(await store.importSegments({ deviceId: 999_999, segments: batch })).toBeNull();
    });
  });
}

function _describeAggregationCapabilities(suite: _Suite): void {
  describe('aggregation capabilities', () => {
    let store: FleetHoursStore;
    beforeEach(() => {
      store = suite.store();
    });
    const { seedDevice, itWith, capabilities } = suite;
    const segmentsArbitrary = fc
      .array(fc.tuple(fc.integer({ min: 0, max: 600 }), fc.integer({ min: 1, max: 400 }), fc.boolean(), fc.boolean()), { maxLength: 25 })
      .map((pieces) => {
        let cursor = T0;
        return pieces.map(([gap, length, moving, open], index): SegmentInput => {
          const startedAt = cursor + gap;
          cursor = startedAt + length;
          const isLast = index === pieces.length - 1;
          return { startedAt, endedAt: isLast && open ? null : cursor, state: moving ? 'moving' : 'idle' };
        });
      });
    const boundariesArbitrary = fc
      .array(fc.integer({ min: -500, max: 20_000 }), { minLength: 1, maxLength: 8 })
      .map((offsets) => offsets.map((offset) => T0 + offset).sort((a, b) => a - b));

    it(`offers exactly the declared optional capabilities: ${capabilities.length === 0 ? 'none' : capabilities.join(', ')}`, () => {
      for (const capability of STORAGE_CAPABILITIES) {
        const offered = typeof (store as unknown as Record<StorageCapability, unknown>)[capability] === 'function';
        expect({ capability, offered }).toEqual({ capability, offered: capabilities.includes(capability) });
      }
    });

    itWith('sumSegmentSeconds', 'sumSegmentSeconds() equals sumSegmentsByBucket() over listSegments()', async () => {
      const { device } = await seedDevice();
      let round = 0;
      await fc.assert(
        fc.asyncProperty(
          segmentsArbitrary,
          boundariesArbitrary,
          fc.integer({ min: 0, max: 30_000 }),
          async (segments, boundaries, nowOffset) => {
            // Each round uses its own device, so earlier rounds never overlap this one's segments.
            const deviceId =
              round++ === 0
                ? device.id
                : (await store.createDevice({
                    accountId: device.accountId,
                    name: `r${round}`,
                    imei: `r${round}`,
                    model: 'm',
                    timeZone: 'UTC',
                  }))!.id;
            await store.importSegments({ deviceId, segments });
            const now = T0 + nowOffset;
            const expected = sumSegmentsByBucket(await store.listSegments({ deviceId }), boundaries, now);
            expect(await store.sumSegmentSeconds!({ deviceId, boundaries, now })).toEqual(expected);
          },
        ),
        { numRuns: 25 },
      );
    });

    itWith('summarizeDeviceSegments', 'summarizeDeviceSegments() equals summarizeSegments() over listSegments()', async () => {
      const { device } = await seedDevice();
      expect(await store.summarizeDeviceSegments!({ deviceId: device.id, now: T0 })).toEqual({
        firstStartedAt: null,
        movingSeconds: 0,
        idleSeconds: 0,
      });
      await store.importSegments({
        deviceId: device.id,
        segments: [
          { startedAt: T0, endedAt: T0 + HOUR, state: 'idle' },
          { startedAt: T0 + HOUR, endedAt: T0 + 3 * HOUR, state: 'moving' },
          { startedAt: T0 + 5 * HOUR, endedAt: null, state: 'idle' },
        ],
      });
      for (const now of [T0 + 4 * HOUR, T0 + 7 * HOUR]) {
        const expected = summarizeSegments(await store.listSegments({ deviceId: device.id }), now);
        expect(await store.summarizeDeviceSegments!({ deviceId: device.id, now })).toEqual(expected);
      }
    });
  });
}

function _describeTwoRoundTrips(suite: _Suite): void {
  describe('two round trips per API request: the device with its figures, the key with its count', () => {
    let store: FleetHoursStore;
    beforeEach(() => {
      store = suite.store();
    });
    const { itWith } = suite;
    describeOneRoundTripContract({ store: () => store, itWith });
  });
}

function _describeFleetPages(suite: _Suite): void {
  describe('pages of the fleet endpoints (D32)', () => {
    let store: FleetHoursStore;
    beforeEach(() => {
      store = suite.store();
    });
    const { itWith } = suite;
    describeFleetPagesContract({ store: () => store, itWith });
    describeAempPageContract({ store: () => store, itWith });
  });
}

function _describeEventChecks(suite: _Suite): void {
  describe('checks of events that writes ask for (D40, P53)', () => {
    let store: FleetHoursStore;
    beforeEach(() => {
      store = suite.store();
    });
    const { itWith } = suite;
    describeEventChecksContract({ store: () => store, itWith });
  });
}

function _describeCostNotGrowing(suite: _Suite): void {
  describe('cost that does not grow with history (D27): answers equal the raw path', () => {
    let store: FleetHoursStore;
    beforeEach(() => {
      store = suite.store();
    });
    const { capabilities } = suite;
    describeDailyFiguresContract({ store: () => store, offers: (capability) => capabilities.includes(capability) });
  });
}

function _describeEdges(suite: _Suite): void {
  describe('edges every store must get right', () => {
    let store: FleetHoursStore;
    beforeEach(() => {
      store = suite.store();
    });
    const { seedDevice, itWith } = suite;
    it('an id no store can hold (negative, fractional, beyond 32 bits) is a miss, never an error', async () => {
      const { account } = await seedDevice();
      for (const id of [-1, 0, 1.5, 2 ** 40, Number.MAX_SAFE_INTEGER]) {
        expect(await store.findAccount({ accountId: id })).toBeNull();
        expect(await store.findDevice({ accountId: account.id, deviceId: id })).toBeNull();
        expect(await store.listDevices({ accountId: id })).toEqual([]);
        expect(await store.listSegments({ deviceId: id })).toEqual([]);
        expect(await store.importSegments({ deviceId: id, segments: [] })).toBeNull();
        expect(await store.revokeApiKey({ keyId: id, now: T0 })).toBeNull();
      }
    });

    it('a malformed row refuses the whole batch with a RangeError naming it, and writes nothing', async () => {
      const { device } = await seedDevice();
      const bad = [
        { startedAt: T0, endedAt: T0 + HOUR, state: 'idle' as const },
        { startedAt: T0 + 2 * HOUR, endedAt: T0 + HOUR + 0.5, state: 'idle' as const },
      ];
      await expect(store.importSegments({ deviceId: device.id, segments: bad })).rejects.toThrow(/Row 2/);
      expect(await store.listSegments({ deviceId: device.id })).toEqual([]);
    });

    it('concurrent imports of overlapping batches: one is written whole, the other refused (D1)', async () => {
      const { device } = await seedDevice();
      const first = Array.from(
        { length: 50 },
        (_, index): SegmentInput => ({ startedAt: T0 + index * 120, endedAt: T0 + index * 120 + 60, state: 'idle' }),
      );
      const second = Array.from(
        { length: 50 },
        (_, index): SegmentInput => ({ startedAt: T0 + index * 120 + 30, endedAt: T0 + index * 120 + 90, state: 'moving' }),
      );
      const outcomes = await Promise.allSettled([
        store.importSegments({ deviceId: device.id, segments: first }),
        store.importSegments({ deviceId: device.id, segments: second }),
      ]);
      expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
      const refused = outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult;
      expect(refused.reason).toBeInstanceOf(SegmentOverlapError);
      const winner = outcomes[0]!.status === 'fulfilled' ? first : second;
      expect(await store.listSegments({ deviceId: device.id })).toEqual(winner.map((segment) => ({ deviceId: device.id, ...segment })));
    });

    const DAY = 24 * HOUR;
    const longSegments: SegmentInput[] = [
      { startedAt: T0, endedAt: T0 + 10 * DAY, state: 'moving' },
      { startedAt: T0 + 10 * DAY, endedAt: T0 + 10 * DAY + HOUR, state: 'idle' },
      { startedAt: T0 + 40 * DAY, endedAt: null, state: 'idle' },
    ];

    it('listSegments() finds a segment that began long before the range', async () => {
      const { device } = await seedDevice();
      await store.importSegments({ deviceId: device.id, segments: longSegments });
      const windowStart = T0 + 5 * DAY;
      const starts = (await store.listSegments({ deviceId: device.id, start: windowStart, end: windowStart + DAY })).map(
        (segment) => segment.startedAt,
      );
      expect(starts).toEqual([T0]);
      // Reaching a single second into the window is enough to be found.
      const lastSecond = (await store.listSegments({ deviceId: device.id, start: T0 + 10 * DAY - 1, end: T0 + 10 * DAY })).map(
        (segment) => segment.startedAt,
      );
      expect(lastSecond).toEqual([T0]);
    });

    itWith('sumSegmentSeconds', 'sumSegmentSeconds() clips a segment that began long before the window', async () => {
      const { device } = await seedDevice();
      await store.importSegments({ deviceId: device.id, segments: longSegments });
      const windowStart = T0 + 5 * DAY;
      const boundaries = [windowStart, windowStart + DAY, windowStart + 5 * DAY + 1800, T0 + 45 * DAY];
      const now = T0 + 42 * DAY;
      expect(await store.sumSegmentSeconds!({ deviceId: device.id, boundaries, now })).toEqual([
        { movingSeconds: DAY, idleSeconds: 0 },
        { movingSeconds: 4 * DAY, idleSeconds: 1800 },
        { movingSeconds: 0, idleSeconds: 1800 + 2 * DAY },
      ]);
      expect(await store.sumSegmentSeconds!({ deviceId: device.id, boundaries: [T0 + 10 * DAY - 1, T0 + 10 * DAY + 60], now })).toEqual([
        { movingSeconds: 1, idleSeconds: 60 },
      ]);
    });
  });
}

function _describeUnits(suite: _Suite): void {
  describe('units: instants are epoch seconds, milliseconds are refused', () => {
    let store: FleetHoursStore;
    beforeEach(() => {
      store = suite.store();
    });
    const { seedDevice, itWith } = suite;
    const looksLikeMs = (field: string) =>
      new RegExp(
        `^${field.replace(/[[\]]/g, '\\$&')} must be epoch seconds between the years 0001 and 9999, got "\\d+": it looks like milliseconds \\("\\d+" in seconds\\)$`,
      );

    it('a refusal is a rejected promise with a RangeError, never a synchronous throw', async () => {
      let call: Promise<unknown> | undefined;
      expect(() => {
        call = store.createAccount({ name: 'Acme', plan: 'business', now: T0_MS });
      }).not.toThrow();
      const error = await refusalOf(call!);
      expect(error).toBeInstanceOf(RangeError);
      expect(error.message).toBe(
        `now must be epoch seconds between the years 0001 and 9999, got "${T0_MS}": it looks like milliseconds ("${T0}" in seconds)`,
      );
    });

    it('createAccount() refuses now in milliseconds and creates nothing', async () => {
      expect((await refusalOf(store.createAccount({ name: 'Acme', plan: 'business', now: T0_MS }))).message).toMatch(looksLikeMs('now'));
      expect(await store.listAccounts()).toEqual([]);
    });

    it('createApiKey() refuses expiresAt or now in milliseconds (a key that would never expire) and stores no key', async () => {
      const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
      const key = { accountId: account.id, fingerprint: 'a'.repeat(64), label: null };
      const inADay = T0_MS + 86_400_000; // Date.now() + 86_400_000
      expect((await refusalOf(store.createApiKey({ ...key, expiresAt: inADay, now: T0 }))).message).toMatch(looksLikeMs('expiresAt'));
      expect((await refusalOf(store.createApiKey({ ...key, expiresAt: null, now: T0_MS }))).message).toMatch(looksLikeMs('now'));
      expect(await store.listApiKeys({ accountId: account.id })).toEqual([]);
      expect(await store.findApiKey({ fingerprint: 'a'.repeat(64) })).toBeNull();
    });

    it('revokeApiKey() refuses now in milliseconds and leaves the key unrevoked', async () => {
      const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
      const key = await store.createApiKey({ accountId: account.id, fingerprint: 'b'.repeat(64), label: null, expiresAt: null, now: T0 });
      expect((await refusalOf(store.revokeApiKey({ keyId: key!.id, now: T0_MS }))).message).toMatch(looksLikeMs('now'));
      expect((await store.findApiKey({ fingerprint: 'b'.repeat(64) }))?.apiKey.revokedAt).toBeNull();
    });

    it('importSegments() refuses a row in milliseconds, naming it, and writes nothing (not even lastReportedAt)', async () => {
      const { account, device } = await seedDevice();
      const batch: SegmentInput[] = [
        { startedAt: T0, endedAt: T0 + HOUR, state: 'idle' },
        { startedAt: T0_MS + 2 * HOUR * 1000, endedAt: T0_MS + 3 * HOUR * 1000, state: 'moving' },
      ];
      expect((await refusalOf(store.importSegments({ deviceId: device.id, segments: batch }))).message).toMatch(
        looksLikeMs('Row 2: started_at'),
      );
      const ended = [{ startedAt: T0, endedAt: T0_MS + HOUR * 1000, state: 'idle' as const }];
      expect((await refusalOf(store.importSegments({ deviceId: device.id, segments: ended }))).message).toMatch(
        looksLikeMs('Row 1: ended_at'),
      );
      expect(await store.listSegments({ deviceId: device.id })).toEqual([]);
      expect((await store.findDevice({ accountId: account.id, deviceId: device.id }))?.lastReportedAt).toBeNull();
    });

    it('importSegments() refuses reportedAt in milliseconds and writes nothing', async () => {
      const { account, device } = await seedDevice();
      await store.importSegments({ deviceId: device.id, segments: [{ startedAt: T0, endedAt: T0 + HOUR, state: 'idle' }] });
      const next = [{ startedAt: T0 + 2 * HOUR, endedAt: T0 + 3 * HOUR, state: 'moving' as const }];
      expect((await refusalOf(store.importSegments({ deviceId: device.id, segments: next, reportedAt: T0_MS }))).message).toMatch(
        looksLikeMs('reportedAt'),
      );
      expect(await store.listSegments({ deviceId: device.id })).toHaveLength(1);
      expect((await store.findDevice({ accountId: account.id, deviceId: device.id }))?.lastReportedAt).toBe(T0 + HOUR);
    });

    it('listSegments() refuses start or end in milliseconds', async () => {
      const { device } = await seedDevice();
      expect((await refusalOf(store.listSegments({ deviceId: device.id, start: T0_MS }))).message).toMatch(looksLikeMs('start'));
      expect((await refusalOf(store.listSegments({ deviceId: device.id, start: T0, end: T0_MS }))).message).toMatch(looksLikeMs('end'));
    });

    itWith('sumSegmentSeconds', 'sumSegmentSeconds() refuses a boundary or now in milliseconds, naming it', async () => {
      const { device } = await seedDevice();
      const call = (boundaries: number[], now: number) => refusalOf(store.sumSegmentSeconds!({ deviceId: device.id, boundaries, now }));
      expect((await call([T0, T0_MS], T0)).message).toMatch(looksLikeMs('boundaries[1]'));
      expect((await call([T0, T0 + HOUR], T0_MS)).message).toMatch(looksLikeMs('now'));
    });

    itWith('summarizeDeviceSegments', 'summarizeDeviceSegments() refuses now in milliseconds', async () => {
      const { device } = await seedDevice();
      expect((await refusalOf(store.summarizeDeviceSegments!({ deviceId: device.id, now: T0_MS }))).message).toMatch(looksLikeMs('now'));
    });

    it('a fraction of a second is refused too: instants are whole seconds', async () => {
      const error = await refusalOf(store.createAccount({ name: 'Acme', plan: 'business', now: T0 + 0.5 }));
      expect(error).toBeInstanceOf(RangeError);
      expect(error.message).toBe(`now must be whole epoch seconds, got "${T0 + 0.5}"`);
      expect(await store.listAccounts()).toEqual([]);
    });

    it('the first second of the year 0001 and the last of 9999 are stored and read back exactly', async () => {
      const earliest = -62_135_596_800; // 0001-01-01T00:00:00Z
      const latest = 253_402_300_799; // 9999-12-31T23:59:59Z
      const account = await store.createAccount({ name: 'Acme', plan: 'business', now: earliest });
      expect((await store.findAccount({ accountId: account.id }))?.createdAt).toBe(earliest);
      const key = await store.createApiKey({
        accountId: account.id,
        fingerprint: 'c'.repeat(64),
        label: null,
        expiresAt: latest,
        now: earliest,
      });
      expect((await store.findApiKey({ fingerprint: 'c'.repeat(64) }))?.apiKey).toEqual(key);
      expect(key?.expiresAt).toBe(latest);
      const device = (await store.createDevice({ accountId: account.id, name: 'Old', imei: '1', model: 'm', timeZone: 'UTC' }))!;
      const segments: SegmentInput[] = [
        { startedAt: earliest, endedAt: earliest + 60, state: 'idle' },
        { startedAt: latest - 60, endedAt: latest, state: 'moving' },
      ];
      await store.importSegments({ deviceId: device.id, segments });
      expect(await store.listSegments({ deviceId: device.id, start: earliest, end: latest })).toEqual(
        segments.map((segment) => ({ deviceId: device.id, ...segment })),
      );
      expect((await store.findDevice({ accountId: account.id, deviceId: device.id }))?.lastReportedAt).toBe(latest);
    });
  });
}
