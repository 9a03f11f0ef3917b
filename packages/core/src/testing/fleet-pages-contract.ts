/**
 * D32 in the storage contract: what a page of the fleet endpoints asks of a store.
 *
 * - `listDevices()` with `afterId` / `limit`: a keyset page of the account's devices by id.
 * - The batch capabilities `sumSegmentSecondsMany` / `summarizeDeviceSegmentsMany`, where offered:
 *   for random devices in zones with every kind of DST rule and random windows (their local-day
 *   boundaries from the core's `dayBuckets(resolveWindow(…))`, and arbitrary ones), each result
 *   equals the single-device answer — the store's own `sumSegmentSeconds` /
 *   `summarizeDeviceSegments` when it has them, and always the raw path (`listSegments` with the
 *   core's `sumSegmentsByBucket` / `summarizeSegments`).
 */
import fc from 'fast-check';
import { Temporal } from 'temporal-polyfill';
import { expect, it } from 'vitest';
import { dayBuckets } from '../window/day-buckets.js';
import { localDateAt } from '../time/local-date.js';
import { resolveWindow } from '../window/resolve-window.js';
import type { FleetHoursStore } from '../store/storage-port.js';
import { sumSegmentsByBucket } from '../engine/sum-by-bucket.js';
import { summarizeSegments } from '../engine/summarize-segments.js';
import type { SegmentInput } from '../types.js';

const HOUR = 3600;
const DAY = 86_400;
const T0 = 1_767_225_600; // 2026-01-01T00:00:00Z
const T0_MS = T0 * 1000;
const ZONES = [
  'UTC',
  'America/New_York',
  'Europe/London',
  'Australia/Lord_Howe',
  'Asia/Kathmandu',
  'Pacific/Chatham',
  'America/St_Johns',
  'America/Sao_Paulo',
] as const;

/** What the D32 block needs from the contract suite around it. */
export interface FleetPagesContractContext {
  /** The store of the running test (made fresh before each). */
  readonly store: () => FleetHoursStore;
  /** A test of an optional capability, skipped with its reason for a store without it. */
  readonly itWith: (
    capability: 'sumSegmentSecondsMany' | 'summarizeDeviceSegmentsMany' | 'engineSecondsBeforeMany',
    title: string,
    test: () => Promise<void>,
  ) => void;
}

/** One device of a random fleet: its zone and segments. */
const deviceArbitrary = fc
  .record({
    timeZone: fc.constantFrom(...ZONES),
    lead: fc.integer({ min: 0, max: 60 * DAY }),
    pieces: fc.array(
      fc.record({
        gap: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 30 * HOUR })),
        length: fc.oneof(fc.integer({ min: 1, max: 3 * HOUR }), fc.integer({ min: 1, max: 4 * DAY })),
        moving: fc.boolean(),
      }),
      { maxLength: 10 },
    ),
    openLast: fc.boolean(),
  })
  .map(({ timeZone, lead, pieces, openLast }) => {
    let cursor = T0 + lead;
    const segments = pieces.map(({ gap, length, moving }, index): SegmentInput => {
      const startedAt = cursor + gap;
      cursor = startedAt + length;
      return { startedAt, endedAt: openLast && index === pieces.length - 1 ? null : cursor, state: moving ? 'moving' : 'idle' };
    });
    return { timeZone, segments };
  });

/** A window asked of one device: local dates in its zone (the fleet pages' boundaries) or arbitrary instants. */
const windowArbitrary = fc.oneof(
  fc.record({
    kind: fc.constant('dates' as const),
    fromDay: fc.integer({ min: -3, max: 70 }),
    days: fc.integer({ min: 0, max: 40 }),
    toGiven: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant('instants' as const),
    offsets: fc.array(fc.integer({ min: -DAY, max: 80 * DAY }), { minLength: 0, maxLength: 6 }),
  }),
);

type WindowSpec = typeof windowArbitrary extends fc.Arbitrary<infer T> ? T : never;

function boundariesOf(spec: WindowSpec, timeZone: string, now: number): number[] {
  if (spec.kind === 'instants') return spec.offsets.map((offset) => T0 + offset).sort((a, b) => a - b);
  const from = localDateAt(T0, timeZone).add({ days: spec.fromDay });
  const to = from.add({ days: spec.days });
  const today = localDateAt(now, timeZone);
  // Without a `to`, the window ends now and `from` must not be after today (D5, D7).
  const window = resolveWindow(
    spec.toGiven || Temporal.PlainDate.compare(from, today) > 0 ? { from, to, now, timeZone } : { from, now, timeZone },
  );
  // P1: the core caps boundaries at now before asking a store.
  return dayBuckets(window).boundaries.map((boundary) => Math.min(boundary, now));
}

/** The D32 tests, inside `describeStorageContract`. */
/** An account with devices by the given names, and devices of another account in between. */
async function seedFleet(store: () => FleetHoursStore, count: number) {
  const mine = await store().createAccount({ name: 'Mine', plan: 'business', now: T0 });
  const theirs = await store().createAccount({ name: 'Theirs', plan: 'business', now: T0 });
  const ids: number[] = [];
  for (let index = 0; index < count; index += 1) {
    await store().createDevice({ accountId: theirs.id, name: `theirs-${index}`, imei: `t${index}`, model: 'm', timeZone: 'UTC' });
    ids.push(
      (await store().createDevice({ accountId: mine.id, name: `mine-${index}`, imei: `m${index}`, model: 'm', timeZone: 'UTC' }))!.id,
    );
  }
  return { accountId: mine.id, ids };
}

export function describeFleetPagesContract({ store, itWith }: FleetPagesContractContext): void {
  describePagesOfDevices({ store, itWith });
  describePagesOfSums({ store, itWith });
  describeEngineBefore({ store, itWith });
}

/**
 * `engineSecondsBeforeMany` (the hour meter's engine time, D38; P56): for random devices whose
 * segments arrive in random batches in random order (late ones move the running totals of the days
 * after them), with a zone change now and then, each value equals the raw path's single bucket up to
 * the instant capped at now.
 */
function describeEngineBefore({ store, itWith }: FleetPagesContractContext): void {
  itWith(
    'engineSecondsBeforeMany',
    'P56: engineSecondsBeforeMany() equals the raw sum of every segment before each instant, after batches in any order and zone changes',
    async () => {
      const account = await store().createAccount({ name: 'Acme', plan: 'business', now: T0 });
      let made = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(
            fc.record({
              device: deviceArbitrary,
              order: fc.array(fc.nat(), { minLength: 10, maxLength: 10 }),
              batch: fc.integer({ min: 1, max: 4 }),
              zone: fc.option(fc.constantFrom(...ZONES), { nil: undefined }),
              instants: fc.array(fc.integer({ min: -2 * DAY, max: 120 * DAY }), { maxLength: 6 }),
            }),
            { minLength: 1, maxLength: 4 },
          ),
          fc.integer({ min: 0, max: 120 * DAY }),
          async (devices, nowOffset) => {
            const now = T0 + nowOffset;
            const asked = [];
            for (const [index, { device, order, batch, zone, instants }] of devices.entries()) {
              const created = (await store().createDevice({
                accountId: account.id,
                name: `e${index}`,
                imei: `e${(made += 1)}`,
                model: 'm',
                timeZone: device.timeZone,
              }))!;
              const batches: SegmentInput[][] = [];
              for (let from = 0; from < device.segments.length; from += batch) batches.push(device.segments.slice(from, from + batch));
              const shuffled = batches
                .map((segments, position) => ({ segments, key: order[position % order.length]! * 100 + position }))
                .sort((a, b) => a.key - b.key);
              for (const [position, { segments }] of shuffled.entries()) {
                await store().importSegments({ deviceId: created.id, segments });
                if (zone && position === 0) await store().updateDevice({ deviceId: created.id, changes: { timeZone: zone } });
              }
              asked.push({ deviceId: created.id, instants: instants.map((offset) => T0 + offset) });
            }
            asked.push({ deviceId: 2_000_000_000, instants: [T0 + DAY] }, { deviceId: -1, instants: [T0, T0 + DAY] });
            const before = await store().engineSecondsBeforeMany!({ requests: asked, now });
            expect(before).toHaveLength(asked.length);
            for (const [index, request] of asked.entries()) {
              const segments = await store().listSegments({ deviceId: request.deviceId });
              const raw = request.instants.map(
                (instant) => sumSegmentsByBucket(segments, [T0 - 10 * DAY, Math.min(instant, now)], now)[0]!,
              );
              expect({ index, before: before[index] }).toEqual({ index, before: raw });
            }
          },
        ),
        { numRuns: 15 },
      );
    },
  );

  itWith(
    'engineSecondsBeforeMany',
    'P56: engineSecondsBeforeMany() of no request or no instant is empty, and refuses an instant or now in milliseconds, naming it',
    async () => {
      expect(await store().engineSecondsBeforeMany!({ requests: [], now: T0 })).toEqual([]);
      const { ids } = await seedFleet(store, 1);
      expect(await store().engineSecondsBeforeMany!({ requests: [{ deviceId: ids[0]!, instants: [] }], now: T0 })).toEqual([[]]);
      await expect(store().engineSecondsBeforeMany!({ requests: [{ deviceId: ids[0]!, instants: [T0, T0_MS] }], now: T0 })).rejects.toThrow(
        /^requests\[0\]\.instants\[1\] must be epoch seconds/,
      );
      await expect(store().engineSecondsBeforeMany!({ requests: [{ deviceId: ids[0]!, instants: [T0] }], now: T0_MS })).rejects.toThrow(
        /^now must be epoch seconds/,
      );
    },
  );
}

/** Pages of devices, and the sums of a page equal to the single-device answers (D32). */
function describePagesOfDevices({ store, itWith }: FleetPagesContractContext): void {
  it("listDevices() with afterId and limit returns a keyset page of the account's devices by id (D32)", async () => {
    const { accountId, ids } = await seedFleet(store, 5);
    const page = async (input: { afterId?: number; limit?: number }) =>
      (await store().listDevices({ accountId, ...input })).map((device) => device.id);
    expect(await page({})).toEqual(ids);
    expect(await page({ limit: 2 })).toEqual(ids.slice(0, 2));
    expect(await page({ afterId: ids[1]!, limit: 2 })).toEqual(ids.slice(2, 4));
    expect(await page({ afterId: ids[3]!, limit: 2 })).toEqual(ids.slice(4));
    expect(await page({ afterId: ids[4]! })).toEqual([]);
    // afterId need not be an id of the account: the page starts after it all the same.
    expect(await page({ afterId: ids[0]! + 1 })).toEqual(ids.filter((id) => id > ids[0]! + 1));
    expect(await page({ afterId: 0, limit: 1 })).toEqual(ids.slice(0, 1));
    expect(await page({ afterId: -5 })).toEqual(ids);
    expect(await page({ afterId: 2 ** 40 })).toEqual([]);
    expect(await page({ limit: 1_000_000 })).toEqual(ids);
  });

  it('listDevices() refuses a limit that is not a positive integer and an afterId that is not an integer, with a RangeError naming it', async () => {
    const { accountId } = await seedFleet(store, 1);
    for (const limit of [0, -1, 1.5, Number.NaN])
      await expect(store().listDevices({ accountId, limit })).rejects.toThrow(/^limit must be a positive safe integer/);
    await expect(store().listDevices({ accountId, afterId: 1.5 })).rejects.toThrow(/^afterId must be a safe integer/);
  });

  itWith(
    'sumSegmentSecondsMany',
    'sumSegmentSecondsMany() equals the single-device answer for every request: random devices, zones and windows',
    async () => {
      const account = await store().createAccount({ name: 'Acme', plan: 'business', now: T0 });
      let made = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.record({ device: deviceArbitrary, window: windowArbitrary }), { minLength: 1, maxLength: 6 }),
          fc.integer({ min: 0, max: 90 * DAY }),
          async (requests, nowOffset) => {
            const now = T0 + nowOffset;
            const asked = [];
            for (const [index, { device, window }] of requests.entries()) {
              const created = (await store().createDevice({
                accountId: account.id,
                name: `d${index}`,
                imei: `i${(made += 1)}`,
                model: 'm',
                timeZone: device.timeZone,
              }))!;
              await store().importSegments({ deviceId: created.id, segments: device.segments });
              asked.push({ deviceId: created.id, boundaries: boundariesOf(window, device.timeZone, now) });
            }
            // The same device twice, a device that does not exist, and an id no store can hold get their own answers.
            asked.push(
              asked[0]!,
              { deviceId: 2_000_000_000, boundaries: [T0, T0 + DAY] },
              { deviceId: -1, boundaries: [T0, T0 + DAY, T0 + 2 * DAY] },
            );
            const many = await store().sumSegmentSecondsMany!({ requests: asked, now });
            expect(many).toHaveLength(asked.length);
            for (const [index, request] of asked.entries()) {
              const raw = sumSegmentsByBucket(await store().listSegments({ deviceId: request.deviceId }), request.boundaries, now);
              expect({ index, buckets: many[index] }).toEqual({ index, buckets: raw });
              if (store().sumSegmentSeconds)
                expect({ index, buckets: many[index] }).toEqual({ index, buckets: await store().sumSegmentSeconds!({ ...request, now }) });
            }
          },
        ),
        { numRuns: 15 },
      );
    },
  );
}

/** The batch capabilities of a page at their edges: empty requests, refusals, summaries (D32). */
function describePagesOfSums({ store, itWith }: FleetPagesContractContext): void {
  itWith(
    'sumSegmentSecondsMany',
    'sumSegmentSecondsMany() of no request is empty, and a request of fewer than two boundaries has no bucket',
    async () => {
      expect(await store().sumSegmentSecondsMany!({ requests: [], now: T0 })).toEqual([]);
      const { ids } = await seedFleet(store, 1);
      expect(
        await store().sumSegmentSecondsMany!({
          requests: [
            { deviceId: ids[0]!, boundaries: [T0] },
            { deviceId: ids[0]!, boundaries: [] },
          ],
          now: T0,
        }),
      ).toEqual([[], []]);
    },
  );

  itWith(
    'sumSegmentSecondsMany',
    'sumSegmentSecondsMany() refuses a boundary or now in milliseconds, naming it, before reading anything',
    async () => {
      const { ids } = await seedFleet(store, 2);
      const requests = [
        { deviceId: ids[0]!, boundaries: [T0, T0 + HOUR] },
        { deviceId: ids[1]!, boundaries: [T0_MS, T0_MS + 3_600_000] },
      ];
      await expect(store().sumSegmentSecondsMany!({ requests, now: T0 })).rejects.toThrow(
        /^requests\[1\]\.boundaries\[0\] must be epoch seconds .* it looks like milliseconds/,
      );
      await expect(store().sumSegmentSecondsMany!({ requests: requests.slice(0, 1), now: T0_MS })).rejects.toThrow(
        /^now must be epoch seconds .* it looks like milliseconds/,
      );
    },
  );

  itWith(
    'summarizeDeviceSegmentsMany',
    'summarizeDeviceSegmentsMany() equals the single-device meter for every device, in order',
    async () => {
      const account = await store().createAccount({ name: 'Acme', plan: 'business', now: T0 });
      let made = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(deviceArbitrary, { minLength: 1, maxLength: 6 }),
          fc.integer({ min: 0, max: 90 * DAY }),
          async (devices, nowOffset) => {
            const now = T0 + nowOffset;
            const ids: number[] = [];
            for (const [index, device] of devices.entries()) {
              const created = (await store().createDevice({
                accountId: account.id,
                name: `d${index}`,
                imei: `i${(made += 1)}`,
                model: 'm',
                timeZone: device.timeZone,
              }))!;
              await store().importSegments({ deviceId: created.id, segments: device.segments });
              ids.push(created.id);
            }
            const asked = [...ids].reverse().concat([ids[0]!, 2_000_000_000, -1]);
            const many = await store().summarizeDeviceSegmentsMany!({ deviceIds: asked, now });
            expect(many).toHaveLength(asked.length);
            for (const [index, deviceId] of asked.entries()) {
              expect({ deviceId, summary: many[index] }).toEqual({
                deviceId,
                summary: summarizeSegments(await store().listSegments({ deviceId }), now),
              });
              if (store().summarizeDeviceSegments)
                expect({ deviceId, summary: many[index] }).toEqual({
                  deviceId,
                  summary: await store().summarizeDeviceSegments!({ deviceId, now }),
                });
            }
          },
        ),
        { numRuns: 15 },
      );
      expect(await store().summarizeDeviceSegmentsMany!({ deviceIds: [], now: T0 })).toEqual([]);
    },
  );

  itWith('summarizeDeviceSegmentsMany', 'summarizeDeviceSegmentsMany() refuses now in milliseconds', async () => {
    const { ids } = await seedFleet(store, 1);
    await expect(store().summarizeDeviceSegmentsMany!({ deviceIds: ids, now: T0_MS })).rejects.toThrow(
      /^now must be epoch seconds .* it looks like milliseconds/,
    );
  });
}
