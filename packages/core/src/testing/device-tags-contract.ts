/**
 * D61, D63 in the storage contract: a device keeps its tags and its machine's identity, and a
 * listing with `tag` keeps exactly the devices having the tag (P95):
 *
 * - `createDevice()` / `updateDevice()` / `findDevice()` / `listDevices()` carry `tags`, `oemName`,
 *   `equipmentModel`, `serialNumber` and `pin`; a change of tags replaces the list; the device
 *   as read (P73) covers them.
 * - `listDevices({ tag })`: for random fleets of two accounts and random changes of tags, every
 *   keyset walk equals the account's devices having the tag (case-sensitive).
 * - `listServicePage({ tag })`, where offered: the same devices, with or without a status filter,
 *   and `lastDeviceId` among them.
 * - `fleet.service()` and `fleet.meter()` with `tag` over the store (and with `status`) answer
 *   the unfiltered walk filtered by the tag: the oracle, read twice (the second time from what
 *   the first remembered, where the store remembers).
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { createFleetHours } from '../application/create-fleet-hours.js';
import type { FleetHoursStore } from '../store/storage-port.js';
import type { Device, DeviceService, ServiceStatus } from '../types.js';
import { countedStore } from './counted-store.js';
import type { StorageCapability } from './storage-capabilities.js';
import { walkFleetPages } from './walk-fleet-pages.js';

const HOUR = 3600;
const DAY = 86_400;
/** 2026-03-02T06:00:00Z. */
const BASE = 1_772_431_200;
/** A small pool, so that devices share tags; `North` and `north` are two tags. */
const TAGS = ['north', 'North', 'cranes', 'yard 2', 'é'] as const;

/** What the D61 block needs from the contract suite around it. */
export interface DeviceTagsContractContext {
  readonly store: () => FleetHoursStore;
  readonly itWith: (capability: StorageCapability, title: string, test: () => Promise<void>) => void;
  /** How many runs a property test takes of the `numRuns` it asks for (default all). */
  readonly runs?: (numRuns: number) => number;
}

/** The D61, D63 block of the storage contract. */
export function describeDeviceTagsContract(context: DeviceTagsContractContext): void {
  _describeFields(context);
  _describeAsRead(context);
  _describeListing(context);
  _describeServicePage(context);
  _describeFleetWalks(context);
  _describeBoundedCalls(context);
  _describeConcurrentChanges(context);
}

/** Tags and identity kept and changed. */
function _describeFields(context: DeviceTagsContractContext): void {
  const { store } = context;
  it('D61, D63: createDevice() keeps tags and identity (none: [] and null); updateDevice() replaces the tags and sets or clears each field', async () => {
    const account = await store().createAccount({ name: 'Acme', plan: 'business', now: BASE });
    const plain = (await store().createDevice({ accountId: account.id, name: 'Plain', imei: '1', model: 'm', timeZone: 'UTC' }))!;
    expect(plain).toMatchObject({ tags: [], oemName: null, equipmentModel: null, serialNumber: null, pin: null });
    const identity = { oemName: 'CAT', equipmentModel: '320', serialNumber: 'SN-1', pin: 'CAT0320XABC01234' };
    const tagged = (await store().createDevice({
      accountId: account.id,
      name: 'Tagged',
      imei: '2',
      model: 'm',
      timeZone: 'UTC',
      tags: ['north', 'cranes'],
      ...identity,
    }))!;
    expect(tagged).toMatchObject({ tags: ['north', 'cranes'], ...identity });
    expect(await store().findDevice({ accountId: account.id, deviceId: tagged.id })).toEqual(tagged);
    expect(await store().listDevices({ accountId: account.id })).toEqual([plain, tagged]);

    const changed = await store().updateDevice({ deviceId: tagged.id, changes: { tags: ['yard 2'], pin: null, oemName: 'Caterpillar' } });
    expect(changed).toEqual({ ...tagged, tags: ['yard 2'], pin: null, oemName: 'Caterpillar' });
    expect(await store().findDevice({ accountId: account.id, deviceId: tagged.id })).toEqual(changed);
    expect(await store().updateDevice({ deviceId: tagged.id, changes: { tags: [] } })).toEqual({ ...changed, tags: [] });
    expect(await store().listDevices({ accountId: account.id, tag: 'north' })).toEqual([]);
    expect(await store().listDevices({ accountId: account.id, tag: 'yard 2' })).toEqual([]);
  });
}

/** P73 covers tags and identity. */
function _describeAsRead(context: DeviceTagsContractContext): void {
  const { store } = context;
  it('D54, P73: updateDevice() with the device as read applies only while its tags and identity are as read', async () => {
    const account = await store().createAccount({ name: 'Acme', plan: 'business', now: BASE });
    const device = (await store().createDevice({ accountId: account.id, name: 'T', imei: '1', model: 'm', timeZone: 'UTC', tags: ['a'] }))!;
    const retagged = (await store().updateDevice({ deviceId: device.id, changes: { tags: ['a', 'b'] }, expected: device }))!;
    expect(retagged.tags).toEqual(['a', 'b']);
    expect(await store().updateDevice({ deviceId: device.id, changes: { name: 'X' }, expected: device })).toBeNull();
    const identified = (await store().updateDevice({ deviceId: device.id, changes: { serialNumber: 'S' }, expected: retagged }))!;
    expect(await store().updateDevice({ deviceId: device.id, changes: { name: 'X' }, expected: retagged })).toBeNull();
    expect(await store().updateDevice({ deviceId: device.id, changes: { name: 'X' }, expected: identified })).toMatchObject({ name: 'X' });
  });
}

/** listDevices({ tag }) against the devices' tags. */
function _describeListing(context: DeviceTagsContractContext): void {
  const { store } = context;
  const runs = context.runs ?? ((numRuns: number) => numRuns);
  it('D61, D49: listDevices({ tag }) walks, a keyset page at a time, exactly the devices of the account having the tag, whatever tags were changed', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ mine: fc.boolean(), tags: fc.subarray([...TAGS]) }), { minLength: 1, maxLength: 14 }),
        fc.array(fc.record({ device: fc.nat(), tags: fc.subarray([...TAGS]) }), { maxLength: 6 }),
        fc.integer({ min: 1, max: 4 }),
        async (fleet, changes, limit) => {
          const mine = await store().createAccount({ name: 'Mine', plan: 'business', now: BASE });
          const theirs = await store().createAccount({ name: 'Theirs', plan: 'business', now: BASE });
          const devices: Device[] = [];
          for (const [index, { mine: isMine, tags }] of fleet.entries()) {
            const accountId = isMine ? mine.id : theirs.id;
            devices.push(
              (await store().createDevice({ accountId, name: `d${index}`, imei: `i${index}`, model: 'm', timeZone: 'UTC', tags }))!,
            );
          }
          for (const { device, tags } of changes) {
            const index = device % devices.length;
            devices[index] = (await store().updateDevice({ deviceId: devices[index]!.id, changes: { tags } }))!;
          }
          for (const tag of TAGS) {
            const expected = devices.filter((device) => device.accountId === mine.id && device.tags.includes(tag));
            expect(await store().listDevices({ accountId: mine.id, tag })).toEqual(expected);
            const walked: Device[] = [];
            let afterId: number | undefined;
            for (let pages = 0; pages <= devices.length; pages += 1) {
              const page = await store().listDevices({ accountId: mine.id, tag, limit, ...(afterId === undefined ? {} : { afterId }) });
              walked.push(...page);
              if (page.length < limit) break;
              afterId = page[page.length - 1]!.id;
            }
            expect(walked).toEqual(expected);
          }
          expect(await store().listDevices({ accountId: mine.id, tag: 'NORTH' })).toEqual([]);
        },
      ),
      { numRuns: runs(12) },
    );
  });
}

/** listServicePage({ tag }), where offered. */
function _describeServicePage(context: DeviceTagsContractContext): void {
  const { store, itWith } = context;
  itWith(
    'listServicePage',
    'D61, P95: listServicePage({ tag }) lists only the devices having the tag, with a status filter too, and lastDeviceId among them',
    async () => {
      const account = await store().createAccount({ name: 'Acme', plan: 'business', now: BASE });
      const now = BASE + HOUR;
      const tagged: number[] = [];
      for (let index = 0; index < 8; index += 1) {
        const tags = index % 3 === 0 ? ['north'] : ['south'];
        const device = (await store().createDevice({
          accountId: account.id,
          name: `d${index}`,
          imei: `i${index}`,
          model: 'm',
          timeZone: 'UTC',
          tags,
        }))!;
        if (tags[0] === 'north') tagged.push(device.id);
        await store().createServiceSchedule({
          deviceId: device.id,
          name: 'Oil',
          intervalSeconds: 250 * HOUR,
          lastDoneAt: BASE - DAY,
          now: BASE,
        });
      }
      const ids = async (input: { readonly tag: string; readonly filter?: { statuses: ServiceStatus[]; matches: number } }) => {
        const listed = await store().listServicePage!({ accountId: account.id, limit: 20, now, unsettledOnly: false, ...input });
        return { ids: listed.devices.map((entry) => entry.device.id), last: listed.lastDeviceId };
      };
      expect(await ids({ tag: 'north' })).toEqual({ ids: tagged, last: tagged.at(-1) });
      expect(await ids({ tag: 'north', filter: { statuses: ['ok'], matches: 20 } })).toEqual({ ids: tagged, last: tagged.at(-1) });
      expect(await ids({ tag: 'none' })).toEqual({ ids: [], last: null });
    },
  );
}

/** The fleet walks with tag= against the unfiltered walk filtered. */
function _describeFleetWalks(context: DeviceTagsContractContext): void {
  const { store } = context;
  const runs = context.runs ?? ((numRuns: number) => numRuns);
  it('D61, D49: fleet.service() and fleet.meter() with a tag (and statuses) walk the unfiltered pages filtered by the tag, read again from what they remembered', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ tags: fc.subarray(['a', 'b', 'A']), done: fc.integer({ min: 0, max: 30 }), schedule: fc.boolean() }), {
          minLength: 1,
          maxLength: 10,
        }),
        fc.integer({ min: 1, max: 3 }),
        fc.subarray(['ok', 'due_soon', 'overdue'] as ServiceStatus[], { minLength: 1 }),
        async (fleet, limit, statuses) => {
          const account = await store().createAccount({ name: 'Acme', plan: 'business', now: BASE });
          const now = BASE + HOUR;
          const devices: Device[] = [];
          for (const [index, { tags, done, schedule }] of fleet.entries()) {
            const device = (await store().createDevice({
              accountId: account.id,
              name: `d${index}`,
              imei: `i${index}`,
              model: 'm',
              timeZone: 'UTC',
              tags,
            }))!;
            devices.push(device);
            // Every 10 days, due soon within 3: done 0–30 days ago gives ok, due soon and overdue.
            if (schedule)
              await store().createServiceSchedule({
                deviceId: device.id,
                name: 'Check',
                intervalSeconds: 1000 * HOUR,
                intervalDays: 10,
                dueSoonDays: 3,
                lastDoneAt: BASE - done * DAY,
                now: BASE,
              });
          }
          const service = createFleetHours({ store: store(), now: () => now * 1000 });
          const walk = async (query: { tag?: string; statuses?: ServiceStatus[] }) =>
            (await walkFleetPages((cursor) => service.fleet.service({ accountId: account.id, limit, cursor, ...query }), 40)).flatMap(
              (page) => page.items,
            );
          const all = await walk({});
          const tagsOf = new Map(devices.map((device) => [device.id, device.tags]));
          const has = (item: DeviceService, tag: string) => tagsOf.get(item.deviceId)!.includes(tag);
          const wanted = (item: DeviceService) => item.schedules.some((schedule) => statuses.includes(schedule.status));
          for (let read = 0; read < 2; read += 1) {
            for (const tag of ['a', 'A', 'c']) {
              expect(await walk({ tag })).toEqual(all.filter((item) => has(item, tag)));
              expect(await walk({ tag, statuses })).toEqual(all.filter((item) => has(item, tag) && wanted(item)));
              const meters = await walkFleetPages((cursor) => service.fleet.meter({ accountId: account.id, limit, cursor, tag }), 40);
              expect(meters.flatMap((page) => page.items.map((item) => item.deviceId))).toEqual(
                devices.filter((device) => device.tags.includes(tag)).map((device) => device.id),
              );
            }
          }
        },
      ),
      { numRuns: runs(10) },
    );
  });
}

/** D49: the store calls of a tag= page do not grow with the devices it skips. */
function _describeBoundedCalls(context: DeviceTagsContractContext): void {
  const { store } = context;
  it('D49, P95: a page with tag= makes the same store calls whether it skips 2 devices or 24, on every fleet page, with status= too', async () => {
    const { store: counting, calls } = countedStore(store());
    const now = BASE + HOUR;
    const fleetHours = createFleetHours({ store: counting, now: () => now * 1000 });
    const callsOf = async (skipped: number) => {
      const account = await store().createAccount({ name: 'Acme', plan: 'business', now: BASE });
      let last = 0;
      for (let index = 0; index <= skipped; index += 1) {
        const tags = index === skipped ? ['rare'] : ['common'];
        const device = (await store().createDevice({
          accountId: account.id,
          name: `d${index}`,
          imei: `i${index}`,
          model: 'm',
          timeZone: 'UTC',
          tags,
        }))!;
        await store().createServiceSchedule({
          deviceId: device.id,
          name: 'Oil',
          intervalSeconds: 250 * HOUR,
          lastDoneAt: BASE - DAY,
          now: BASE,
        });
        last = device.id;
      }
      const accountId = account.id;
      const reads: Record<string, number>[] = [];
      const pages = [
        () => fleetHours.fleet.service({ accountId, limit: 1, tag: 'rare' }),
        () => fleetHours.fleet.service({ accountId, limit: 1, tag: 'rare', statuses: ['ok'] }),
        () => fleetHours.fleet.service({ accountId, limit: 1, tag: 'rare', statuses: ['ok'] }),
        () => fleetHours.fleet.meter({ accountId, limit: 1, tag: 'rare' }),
        () => fleetHours.fleet.hours({ accountId, limit: 1, tag: 'rare' }),
        () => fleetHours.fleet.daily({ accountId, limit: 1, tag: 'rare' }),
      ];
      for (const page of pages) {
        calls.clear();
        const { items, nextCursor } = await page();
        expect({ ids: items.map((item) => item.deviceId), nextCursor }).toEqual({ ids: [last], nextCursor: null });
        reads.push(Object.fromEntries(calls));
      }
      return reads;
    };
    expect(await callsOf(24)).toEqual(await callsOf(2));
  });
}

/** Changes of tags made at once: the listing by tag agrees with the devices' tags, as after the same changes one after another. */
function _describeConcurrentChanges(context: DeviceTagsContractContext): void {
  const { store } = context;
  it("D61, P95: changes of tags sent at once, to one device and to several, leave every listing by tag equal to the devices' tags (a serial order of them)", async () => {
    const account = await store().createAccount({ name: 'Acme', plan: 'business', now: BASE });
    const devices: Device[] = [];
    for (let index = 0; index < 4; index += 1)
      devices.push(
        (await store().createDevice({
          accountId: account.id,
          name: `d${index}`,
          imei: `i${index}`,
          model: 'm',
          timeZone: 'UTC',
          tags: ['north'],
        }))!,
      );
    const lists = [['north'], ['south', 'north'], ['cranes'], [], ['south'], ['north', 'cranes']];
    const writes = devices.flatMap((device, index) =>
      lists.map((_tags, turn) => ({ deviceId: device.id, tags: lists[(turn + index) % lists.length]! })),
    );
    const answers = await Promise.all(writes.map(({ deviceId, tags }) => store().updateDevice({ deviceId, changes: { tags } })));
    expect(answers.every((answer) => answer !== null)).toBe(true);
    const final = await store().listDevices({ accountId: account.id });
    for (const device of final) {
      // Some order of the writes: the device ends with the tags of one of its own.
      expect(writes.filter((write) => write.deviceId === device.id).map((write) => write.tags)).toContainEqual(device.tags);
    }
    for (const tag of ['north', 'south', 'cranes'])
      expect(await store().listDevices({ accountId: account.id, tag })).toEqual(final.filter((device) => device.tags.includes(tag)));
  });
}
