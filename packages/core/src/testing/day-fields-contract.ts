/**
 * D49, D59 and P129 in the storage contract: the batch reads of a fleet page's day fields. Each
 * answer equals what the single calls answer: `listSegmentsMany` is `listSegments` per request,
 * `findWorkCalendarsMany` is `findWorkCalendar` of the default and of each device.
 */
import fc from 'fast-check';
import { describe, expect } from 'vitest';
import type { WorkCalendar } from '../calendar/work-calendar.js';
import type { FleetHoursStore } from '../store/storage-port.js';
import type { SegmentInput } from '../types.js';
import { refusalOf } from './refusal.js';
import type { StorageCapability } from './storage-capabilities.js';

const HOUR = 3600;
const T0 = 1_767_225_600; // 2026-01-01T00:00:00Z
const SHIFT: WorkCalendar['weekly']['mon'] = [['07:00', '17:00']];
const CALENDAR: WorkCalendar = { weekly: { mon: SHIFT, tue: SHIFT, wed: SHIFT, thu: SHIFT, fri: SHIFT, sat: [], sun: [] }, exceptions: [] };
const NIGHTS: WorkCalendar = { ...CALENDAR, weekly: { ...CALENDAR.weekly, sat: [['22:00', '06:00']] } };

/** What this block needs from the contract suite around it. */
export interface DayFieldsContractContext {
  readonly store: () => FleetHoursStore;
  readonly itWith: (capability: StorageCapability, title: string, test: () => Promise<void>) => void;
}

/** Segments of a device from `start`: closed ones with gaps up to `maxGap`, each up to `maxLength` long, the last one open or not. */
export function chainedSegments(start: number, maxGap: number, maxLength: number): fc.Arbitrary<SegmentInput[]> {
  return fc
    .record({
      pieces: fc.array(
        fc.record({ gap: fc.integer({ min: 0, max: maxGap }), length: fc.integer({ min: 1, max: maxLength }), moving: fc.boolean() }),
        { maxLength: 6 },
      ),
      openLast: fc.boolean(),
    })
    .map(({ pieces, openLast }) => {
      let cursor = start;
      return pieces.map(({ gap, length, moving }, index): SegmentInput => {
        const startedAt = cursor + gap;
        cursor = startedAt + length;
        return { startedAt, endedAt: openLast && index === pieces.length - 1 ? null : cursor, state: moving ? 'moving' : 'idle' };
      });
    });
}

/** Segments of a device: closed ones with gaps, the last one open or not. */
const segmentsArbitrary = chainedSegments(T0, 20 * HOUR, 30 * HOUR);

/** Registers the tests (inside `describeStorageContract`). */
export function describeDayFieldsContract({ store, itWith }: DayFieldsContractContext): void {
  describe('the day fields of a fleet page (D49, D59, P129)', () => {
    let round = 0;
    const seed = async (segments: readonly (readonly SegmentInput[])[]) => {
      round += 1;
      const account = await store().createAccount({ name: `Acme ${round}`, plan: 'business', now: T0 });
      const ids: number[] = [];
      for (const [index, list] of segments.entries()) {
        const device = await store().createDevice({
          accountId: account.id,
          name: `Truck ${round}-${index}`,
          imei: `day-fields-${round}-${index}`,
          model: 'FMB920',
          timeZone: 'Europe/Berlin',
        });
        if (list.length > 0) await store().importSegments({ deviceId: device!.id, segments: list });
        ids.push(device!.id);
      }
      return { accountId: account.id, ids };
    };

    itWith('listSegmentsMany', 'listSegmentsMany() is listSegments() per request, in request order, a missing device none', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(segmentsArbitrary, { minLength: 1, maxLength: 3 }),
          fc.array(fc.record({ device: fc.nat(4), start: fc.integer({ min: -HOUR, max: 60 * HOUR }), length: fc.nat(80 * HOUR) }), {
            maxLength: 6,
          }),
          async (segments, asked) => {
            const { ids } = await seed(segments);
            const requests = asked.map(({ device, start, length }) => ({
              deviceId: ids[device] ?? 2_000_000_000,
              start: T0 + start,
              end: T0 + start + length,
            }));
            const expected = await Promise.all(requests.map((request) => store().listSegments(request)));
            expect(await store().listSegmentsMany!({ requests })).toEqual(expected);
          },
        ),
        { numRuns: 12 },
      );
    });

    itWith('listSegmentsMany', 'listSegmentsMany() refuses milliseconds, naming the request and its bound', async () => {
      const error = await refusalOf(
        store().listSegmentsMany!({
          requests: [
            { deviceId: 1, start: T0, end: T0 + 1 },
            { deviceId: 1, start: T0 * 1000, end: T0 * 1000 + 1 },
          ],
        }),
      );
      expect(error.message).toContain('requests[1].start');
    });

    itWith(
      'findWorkCalendarsMany',
      "findWorkCalendarsMany() is findWorkCalendar() of the default and of each device; removed, never set or another account's: null",
      async () => {
        const { accountId, ids } = await seed([[], [], [], []]);
        const other = await seed([[]]);
        const many = () => store().findWorkCalendarsMany!({ accountId, deviceIds: [...ids, other.ids[0]!, 2_000_000_000] });
        expect(await many()).toEqual({ accountDefault: null, devices: [null, null, null, null, null, null] });
        await store().putWorkCalendar({ accountId, deviceId: null, calendar: CALENDAR });
        await store().putWorkCalendar({ accountId, deviceId: ids[1]!, calendar: NIGHTS });
        await store().putWorkCalendar({ accountId, deviceId: ids[2]!, calendar: CALENDAR });
        await store().putWorkCalendar({ accountId, deviceId: ids[2]!, calendar: null });
        await store().putWorkCalendar({ accountId: other.accountId, deviceId: other.ids[0]!, calendar: NIGHTS });
        expect(await many()).toEqual({ accountDefault: CALENDAR, devices: [null, NIGHTS, null, null, null, null] });
        const single = await Promise.all(
          [null, ...ids, other.ids[0]!].map(async (deviceId) => (await store().findWorkCalendar({ accountId, deviceId })).calendar),
        );
        expect(single).toEqual([CALENDAR, null, NIGHTS, null, null, null]);
        expect(await store().findWorkCalendarsMany!({ accountId: other.accountId, deviceIds: [] })).toEqual({
          accountDefault: null,
          devices: [],
        });
      },
    );

    itWith(
      'findDeviceWithDays',
      "P147: findDeviceWithDays() is findDevice() with listSegments() and the calendar it uses, in the zone asked only; another account's device null",
      async () => {
        await fc.assert(
          fc.asyncProperty(
            segmentsArbitrary,
            fc.record({ start: fc.integer({ min: -HOUR, max: 60 * HOUR }), length: fc.nat(80 * HOUR) }),
            fc.constantFrom('none', 'default', 'own', 'removed'),
            async (segments, { start, length }, calendar) => {
              const { accountId, ids } = await seed([segments]);
              const deviceId = ids[0]!;
              if (calendar !== 'none') await store().putWorkCalendar({ accountId, deviceId: null, calendar: CALENDAR });
              if (calendar === 'own' || calendar === 'removed') await store().putWorkCalendar({ accountId, deviceId, calendar: NIGHTS });
              if (calendar === 'removed') await store().putWorkCalendar({ accountId, deviceId, calendar: null });
              const range = { start: T0 + start, end: T0 + start + length };
              const expected = {
                device: await store().findDevice({ accountId, deviceId }),
                days: {
                  segments: await store().listSegments({ deviceId, ...range }),
                  calendar: calendar === 'none' ? null : calendar === 'own' ? NIGHTS : CALENDAR,
                },
              };
              const asked = { accountId, deviceId, ...range };
              expect(await store().findDeviceWithDays!({ ...asked, timeZone: 'Europe/Berlin' })).toEqual(expected);
              expect(await store().findDeviceWithDays!({ ...asked, timeZone: 'UTC' })).toEqual({ ...expected, days: null });
              expect(
                await store().findDeviceWithDays!({ ...asked, accountId: accountId + 1_000_000, timeZone: 'Europe/Berlin' }),
              ).toBeNull();
              expect(await store().findDeviceWithDays!({ ...asked, deviceId: 2_000_000_000, timeZone: 'Europe/Berlin' })).toBeNull();
            },
          ),
          { numRuns: 10 },
        );
      },
    );

    itWith('findDeviceWithDays', 'findDeviceWithDays() refuses milliseconds, naming the bound', async () => {
      const error = await refusalOf(
        store().findDeviceWithDays!({ accountId: 1, deviceId: 1, timeZone: 'UTC', start: T0, end: T0 * 1000 + 0.5 }),
      );
      expect(error.message).toContain('end');
    });
  });
}
