/**
 * The fleet reads of createFleetHours() (D32, P32, P33): pages of every device of the account, each
 * item exactly the single-device read, a bounded number of store calls per page whatever its size.
 */
import fc from 'fast-check';
import { Temporal } from 'temporal-polyfill';
import { describe, expect, it } from 'vitest';
import { createFleetHours, type FleetHours } from './create-fleet-hours.js';
import type { FleetPage } from './read-queries.js';
import { InvalidParameterError } from '../errors/errors.js';
import { formatInstant } from '../time/format-instant.js';
import { startOfLocalDay } from '../time/local-date.js';
import { createMemoryStore } from '../store/memory-store.js';
import { parseWindowQuery } from '../window/parse-window-query.js';
import type { FleetHoursStore } from '../store/storage-port.js';
import { rejectionBy } from '../testing/refusal.js';
import type { SegmentInput } from '../types.js';
import { countedStore } from '../testing/counted-store.js';
import { walkFleetPages } from '../testing/walk-fleet-pages.js';

const HOUR = 3600;
const DAY = 86_400;
/** 2026-12-01T10:30:00Z: already 2 December in Kiritimati (+14), still 30 November in Pago Pago (−11). */
const NOW = Date.UTC(2026, 11, 1, 10, 30) / 1000;
const ZONES = [
  'UTC',
  'America/New_York',
  'Europe/Berlin',
  'Asia/Kathmandu',
  'Pacific/Kiritimati',
  'Pacific/Pago_Pago',
  'Australia/Lord_Howe',
  'America/St_Johns',
] as const;

/** A store without the batch capabilities: the core serves pages one device at a time. */
const withoutBatch = (store: FleetHoursStore): FleetHoursStore => ({
  ...store,
  sumSegmentSecondsMany: undefined,
  summarizeDeviceSegmentsMany: undefined,
});

async function seedFleet(
  store: FleetHoursStore,
  zones: readonly string[],
  segmentsOf: (index: number) => readonly SegmentInput[] = () => [],
) {
  const account = await store.createAccount({ name: 'Acme', plan: 'business', now: 0 });
  const other = await store.createAccount({ name: 'Other', plan: 'business', now: 0 });
  const devices = [];
  for (const [index, timeZone] of zones.entries()) {
    // Devices of another account in between: ids of one account are not consecutive.
    await store.createDevice({ accountId: other.id, name: `Theirs ${index}`, imei: `36${index}`, model: 'm', timeZone: 'UTC' });
    const device = (await store.createDevice({ accountId: account.id, name: `Truck ${index}`, imei: `35${index}`, model: 'm', timeZone }))!;
    const segments = segmentsOf(index);
    if (segments.length > 0) await store.importSegments({ deviceId: device.id, segments });
    devices.push(device);
  }
  return { account, other, devices };
}

/** Every item of a fleet read, following next_cursor, and the number of pages. */
async function walk<Item>(read: (cursor: string | undefined) => Promise<FleetPage<Item>>): Promise<{ items: Item[]; pages: number }> {
  const pages = await walkFleetPages(read, 1000);
  return { items: pages.flatMap((page) => page.items), pages: pages.length };
}

const refusal = (promise: Promise<unknown>): Promise<InvalidParameterError> => rejectionBy(InvalidParameterError, promise);

describe('createFleetHours().fleet (D32)', () => {
  describe('pages', () => {
    it("walks every device of the account exactly once, by ascending id, and never another account's", async () => {
      const store = createMemoryStore();
      const { account, devices } = await seedFleet(
        store,
        Array.from({ length: 7 }, () => 'UTC'),
      );
      const fleetHours = createFleetHours({ store, now: () => NOW * 1000 });
      for (const limit of [1, 2, 3, 6, 7, 8, 500]) {
        const { items, pages } = await walk((cursor) => fleetHours.fleet.meter({ accountId: account.id, limit, cursor }));
        expect(items.map((item) => item.deviceId)).toEqual(devices.map((device) => device.id));
        // One more device is read than shown, so an exact multiple has no empty last page.
        expect(pages).toBe(Math.max(1, Math.ceil(devices.length / limit)));
      }
    });

    it('uses the endpoint default when limit is not given: 100 devices, 20 for the daily series', async () => {
      const store = createMemoryStore();
      const { account } = await seedFleet(
        store,
        Array.from({ length: 101 }, () => 'UTC'),
      );
      const fleetHours = createFleetHours({ store, now: () => NOW * 1000 });
      const dates = parseWindowQuery({ from: '2026-11-30', to: '2026-11-30' });
      expect((await fleetHours.fleet.hours({ accountId: account.id, ...dates })).items).toHaveLength(100);
      expect((await fleetHours.fleet.meter({ accountId: account.id })).items).toHaveLength(100);
      expect((await fleetHours.fleet.daily({ accountId: account.id, ...dates })).items).toHaveLength(20);
    });

    it('an account without devices is one empty page', async () => {
      const store = createMemoryStore();
      const account = await store.createAccount({ name: 'Empty', plan: 'business', now: 0 });
      const fleetHours = createFleetHours({ store, now: () => NOW * 1000 });
      expect(await fleetHours.fleet.hours({ accountId: account.id, ...parseWindowQuery({ from: '2099-01-01' }) })).toEqual({
        items: [],
        nextCursor: null,
      });
      expect(await fleetHours.fleet.daily({ accountId: account.id })).toEqual({ items: [], nextCursor: null });
    });

    it('a cursor survives devices added while the fleet is walked: the walk goes on after the last device seen (P33)', async () => {
      const store = createMemoryStore();
      const { account, devices } = await seedFleet(store, ['UTC', 'UTC', 'UTC']);
      const fleetHours = createFleetHours({ store, now: () => NOW * 1000 });
      const first = await fleetHours.fleet.meter({ accountId: account.id, limit: 2 });
      const added = (await store.createDevice({ accountId: account.id, name: 'New', imei: '99', model: 'm', timeZone: 'UTC' }))!;
      const second = await fleetHours.fleet.meter({ accountId: account.id, limit: 2, cursor: first.nextCursor! });
      expect([...first.items, ...second.items].map((item) => item.deviceId)).toEqual([...devices.map((device) => device.id), added.id]);
      expect(second.nextCursor).toBeNull();
    });

    it('refuses a limit out of range and a malformed or foreign cursor, naming the parameter, before reading anything', async () => {
      const { store, calls } = countedStore(createMemoryStore());
      const fleetHours = createFleetHours({ store, now: () => NOW * 1000 });
      const hoursCursor = (await fleetHours.fleet.hours({ accountId: 1 })).nextCursor;
      expect(hoursCursor).toBeNull();
      calls.clear();
      for (const [read, parameter] of [
        [fleetHours.fleet.hours({ accountId: 1, limit: 0 }), 'limit'],
        [fleetHours.fleet.hours({ accountId: 1, limit: 501 }), 'limit'],
        [fleetHours.fleet.daily({ accountId: 1, limit: 101 }), 'limit'],
        [fleetHours.fleet.meter({ accountId: 1, limit: 2.5 }), 'limit'],
        [fleetHours.fleet.meter({ accountId: 1, cursor: 'nonsense' }), 'cursor'],
      ] as const) {
        expect((await refusal(read)).parameter).toBe(parameter);
      }
      expect(calls.size).toBe(0);
    });

    it('a cursor of another endpoint or another account is refused (P33)', async () => {
      const store = createMemoryStore();
      const { account, other } = await seedFleet(store, ['UTC', 'UTC']);
      await store.createDevice({ accountId: other.id, name: 'x', imei: 'x', model: 'm', timeZone: 'UTC' });
      const fleetHours = createFleetHours({ store, now: () => NOW * 1000 });
      const cursor = (await fleetHours.fleet.meter({ accountId: account.id, limit: 1 })).nextCursor!;
      expect((await refusal(fleetHours.fleet.hours({ accountId: account.id, cursor }))).message).toMatch(
        /cursor of \/api\/v1\/meter, not of \/api\/v1\/hours/,
      );
      expect((await refusal(fleetHours.fleet.meter({ accountId: other.id, cursor }))).message).toMatch(/belongs to another account/);
    });
  });

  describe('a page costs a bounded number of store calls, never one per device', () => {
    for (const size of [1, 100]) {
      it(`${size} device(s): one listDevices() and one batch call of each kind per page, nothing per device (D32, D38, D39)`, async () => {
        const { store, calls } = countedStore(createMemoryStore());
        const { account, devices } = await seedFleet(
          store,
          Array.from({ length: size }, (_, index) => ZONES[index % ZONES.length]!),
          (index) => [{ startedAt: NOW - 3 * DAY + index * 60, endedAt: NOW - 3 * DAY + index * 60 + HOUR, state: 'moving' }],
        );
        // Half the devices have a reading, every device a schedule whose last service is computed (D38, D39).
        for (const [index, device] of devices.entries()) {
          if (index % 2 === 0)
            await store.addHourMeterReading({ deviceId: device.id, readAt: NOW - 4 * DAY, readingSeconds: 500 * HOUR, now: NOW });
          await store.createServiceSchedule({
            deviceId: device.id,
            name: 'Oil',
            intervalSeconds: 250 * HOUR,
            lastDoneAt: NOW - 5 * DAY,
            now: NOW,
          });
        }
        const fleetHours = createFleetHours({ store, now: () => NOW * 1000 });
        const dates = parseWindowQuery({ from: '2026-11-01', to: '2026-11-30' });
        const figures = { listDevices: 1, summarizeDeviceSegmentsMany: 1, listHourMeterReadings: 1 };
        for (const [read, expected] of [
          [() => fleetHours.fleet.hours({ accountId: account.id, limit: size, ...dates }), { listDevices: 1, sumSegmentSecondsMany: 1 }],
          [
            () => fleetHours.fleet.daily({ accountId: account.id, limit: Math.min(size, 100), ...dates }),
            // D59 (P129): the day fields' calendars and segments, one batch call each; the sums from those segments (P147).
            { listDevices: 1, listSegmentsMany: 1, findWorkCalendarsMany: 1 },
          ],
          [() => fleetHours.fleet.meter({ accountId: account.id, limit: size }), { ...figures, sumSegmentSecondsMany: 1 }],
          [
            () => fleetHours.fleet.service({ accountId: account.id, limit: size }),
            { ...figures, listServiceSchedules: 1, sumSegmentSecondsMany: 1 },
          ],
        ] as const) {
          calls.clear();
          const page: FleetPage<unknown> = await read();
          expect(page.items).toHaveLength(size);
          expect(Object.fromEntries(calls)).toEqual(expected);
        }
      });
    }

    it('a meter page without any reading asks no sum: the hour meter is the meter (D38)', async () => {
      const { store, calls } = countedStore(createMemoryStore());
      const { account } = await seedFleet(store, ['UTC', 'Asia/Kathmandu'], () => [
        { startedAt: NOW - HOUR, endedAt: null, state: 'idle' },
      ]);
      const fleetHours = createFleetHours({ store, now: () => NOW * 1000 });
      calls.clear();
      const page = await fleetHours.fleet.meter({ accountId: account.id });
      expect(page.items.map((item) => [item.hourMeterSeconds, item.hourMeterReadAt])).toEqual([
        [HOUR, null],
        [HOUR, null],
      ]);
      expect(Object.fromEntries(calls)).toEqual({ listDevices: 1, summarizeDeviceSegmentsMany: 1, listHourMeterReadings: 1 });
    });
  });

  describe('each item is exactly the single-device read (D32)', () => {
    const fleetArbitrary = fc.record({
      devices: fc.array(
        fc.record({
          timeZone: fc.constantFrom(...ZONES),
          pieces: fc.array(
            fc.record({
              offset: fc.integer({ min: -400 * 24, max: 2 * 24 }),
              hours: fc.integer({ min: 1, max: 60 }),
              moving: fc.boolean(),
            }),
            { maxLength: 6 },
          ),
          openLast: fc.boolean(),
        }),
        { minLength: 0, maxLength: 7, size: 'small' },
      ),
      fromDays: fc.option(fc.integer({ min: -420, max: 2 }), { nil: undefined, freq: 6 }),
      spanDays: fc.option(fc.integer({ min: 0, max: 40 }), { nil: undefined, freq: 2 }),
      // Often a from around today without to: 1 and 2 December are after today in some zones and not in others (P32).
      sinceNearToday: fc.option(fc.constantFrom(0, 1, 2), { nil: undefined, freq: 2 }),
      limit: fc.integer({ min: 1, max: 10 }),
      batch: fc.boolean(),
    });

    /** Non-overlapping segments of one device from random pieces (hours from now). */
    const segmentsOf = (pieces: readonly { offset: number; hours: number; moving: boolean }[], openLast: boolean): SegmentInput[] => {
      const sorted = [...pieces].sort((a, b) => a.offset - b.offset);
      const segments: SegmentInput[] = [];
      let free = -Infinity;
      for (const [index, piece] of sorted.entries()) {
        const startedAt = Math.max(NOW + piece.offset * HOUR, free);
        const endedAt = startedAt + piece.hours * HOUR;
        segments.push({
          startedAt,
          endedAt: openLast && index === sorted.length - 1 ? null : endedAt,
          state: piece.moving ? 'moving' : 'idle',
        });
        free = endedAt;
      }
      return segments;
    };

    const single = async <T>(read: () => Promise<T>): Promise<T | InvalidParameterError> =>
      read().catch((error: unknown) => {
        if (error instanceof InvalidParameterError) return error;
        throw error;
      });

    it('hours(), daily() and meter() for random fleets, zones, windows and page sizes, with and without the batch capabilities', async () => {
      await fc.assert(
        fc.asyncProperty(fleetArbitrary, async ({ devices, fromDays: anyFrom, spanDays: anySpan, sinceNearToday, limit, batch }) => {
          const [fromDays, spanDays] = sinceNearToday === undefined ? [anyFrom, anySpan] : [sinceNearToday, undefined];
          const memory = createMemoryStore();
          const { account, devices: seeded } = await seedFleet(
            memory,
            devices.map((device) => device.timeZone),
            (index) => segmentsOf(devices[index]!.pieces, devices[index]!.openLast),
          );
          const fleetHours: FleetHours = createFleetHours({ store: batch ? memory : withoutBatch(memory), now: () => NOW * 1000 + 999 });
          const base = Temporal.PlainDate.from('2026-12-01');
          const from = fromDays === undefined ? undefined : base.add({ days: fromDays }).toString();
          const to =
            spanDays === undefined || from === undefined ? undefined : Temporal.PlainDate.from(from).add({ days: spanDays }).toString();
          const dates = parseWindowQuery({ ...(from ? { from } : {}), ...(to ? { to } : {}) });

          const hoursOne = await Promise.all(
            seeded.map((device) => single(() => fleetHours.hours({ accountId: account.id, deviceId: device.id, ...dates }))),
          );
          const dailyOne = await Promise.all(
            seeded.map((device) => single(() => fleetHours.daily({ accountId: account.id, deviceId: device.id, ...dates }))),
          );
          const meterOne = await Promise.all(seeded.map((device) => fleetHours.meter({ accountId: account.id, deviceId: device.id })));
          expect((await walk((cursor) => fleetHours.fleet.meter({ accountId: account.id, limit, cursor }))).items).toEqual(meterOne);

          const refusedByAll = seeded.length > 0 && hoursOne.every((item) => item instanceof InvalidParameterError);
          if (refusedByAll) {
            // P32: refused only when the window fails for every device of the account.
            expect((await refusal(fleetHours.fleet.hours({ accountId: account.id, limit, ...dates }))).parameter).toBe('from');
            expect((await refusal(fleetHours.fleet.daily({ accountId: account.id, limit, ...dates }))).parameter).toBe('from');
            return;
          }
          // P32: a device whose today is before `from` (no `to`) has an empty window: from its start to now, no second.
          const empty = (index: number) => {
            const { timeZone } = seeded[index]!;
            return {
              deviceId: seeded[index]!.id,
              timeZone,
              from: formatInstant(startOfLocalDay(dates.from!, timeZone), timeZone),
              to: formatInstant(NOW, timeZone),
            };
          };
          const zeros = { engineSeconds: 0, movingSeconds: 0, idleSeconds: 0 };
          const hours = await walk((cursor) => fleetHours.fleet.hours({ accountId: account.id, limit, cursor, ...dates }));
          expect(hours.items).toEqual(
            hoursOne.map((item, index) => (item instanceof InvalidParameterError ? { ...empty(index), ...zeros } : item)),
          );
          const daily = await walk((cursor) => fleetHours.fleet.daily({ accountId: account.id, limit, cursor, ...dates }));
          expect(daily.items).toEqual(
            dailyOne.map((item, index) => (item instanceof InvalidParameterError ? { ...empty(index), days: [] } : item)),
          );
        }),
        { numRuns: 60 },
      );
    });
  });

  describe('P32: a from after the local today of some devices, without to', () => {
    // NOW is 2026-12-01T10:30Z: 2 December in Kiritimati (+14), 1 December in New York and Honolulu.
    const setup = async (zones: readonly string[]) => {
      const store = createMemoryStore();
      const fleet = await seedFleet(store, zones, () => [{ startedAt: NOW - 2 * HOUR, endedAt: null, state: 'moving' }]);
      return { ...fleet, fleetHours: createFleetHours({ store, now: () => NOW * 1000 }) };
    };

    it('gives those devices an empty window and the others their window, whichever page they are on', async () => {
      const { account, devices, fleetHours } = await setup(['Pacific/Kiritimati', 'America/New_York']);
      const dates = parseWindowQuery({ from: '2026-12-02' });
      const pages = await walk((cursor) => fleetHours.fleet.daily({ accountId: account.id, limit: 1, cursor, ...dates }));
      expect(pages.items).toEqual([
        {
          deviceId: devices[0]!.id,
          timeZone: 'Pacific/Kiritimati',
          from: '2026-12-02T00:00:00+14:00',
          to: '2026-12-02T00:30:00+14:00',
          days: [
            {
              ...{ date: '2026-12-02', engineSeconds: 1800, movingSeconds: 1800, idleSeconds: 0, daySeconds: 86_400 },
              ...{ scheduledSeconds: 0, engineInScheduleSeconds: 0, engineOutsideScheduleSeconds: 1800 },
              // D59, D22: on since before midnight, and still on now.
              ...{ firstEngineOn: '2026-12-02T00:00:00+14:00', lastEngineOff: null },
            },
          ],
        },
        {
          deviceId: devices[1]!.id,
          timeZone: 'America/New_York',
          from: '2026-12-02T00:00:00-05:00',
          to: '2026-12-01T05:30:00-05:00',
          days: [],
        },
      ]);
      const hours = await fleetHours.fleet.hours({ accountId: account.id, ...dates });
      expect(hours.items.map((item) => [item.timeZone, item.engineSeconds])).toEqual([
        ['Pacific/Kiritimati', 1800],
        ['America/New_York', 0],
      ]);
      // The single-device read of the second device is refused (D7): the fleet is not.
      await expect(fleetHours.hours({ accountId: account.id, deviceId: devices[1]!.id, ...dates })).rejects.toThrow(InvalidParameterError);
    });

    it('answers 400 naming from when it is after today for every device of the account', async () => {
      const { account, fleetHours } = await setup(['America/New_York', 'Pacific/Honolulu']);
      const error = await refusal(fleetHours.fleet.hours({ accountId: account.id, ...parseWindowQuery({ from: '2026-12-02' }) }));
      expect(error.parameter).toBe('from');
      expect(error.message).toBe(
        'Parameter from "2026-12-02" is after today in the zone of every device of the account (the latest is 2026-12-01 in America/New_York)',
      );
      // With a `to`, a from after it is refused whatever the zones (D7).
      expect(
        (
          await refusal(
            fleetHours.fleet.daily({
              accountId: account.id,
              from: Temporal.PlainDate.from('2026-03-02'),
              to: Temporal.PlainDate.from('2026-03-01'),
            }),
          )
        ).parameter,
      ).toBe('from');
    });
  });
});
