/**
 * D58 and P112 in the storage contract: per account a default work calendar, per device one of its
 * own; each kept as given, with a version that counts its changes (removals too), written only over
 * the version expected, never another account's.
 */
import { describe, expect, it } from 'vitest';
import type { WorkCalendar } from '../calendar/work-calendar.js';
import type { FleetHoursStore } from '../store/storage-port.js';

const T0 = 1_767_225_600; // 2026-01-01T00:00:00Z

const DAY: WorkCalendar['weekly']['mon'] = [['07:00', '17:00']];
/** A calendar with every kind of window: a crossing one, a whole day, a day off, an exception of none. */
const CALENDAR: WorkCalendar = {
  weekly: { mon: DAY, tue: DAY, wed: DAY, thu: DAY, fri: [['22:00', '06:00']], sat: [['00:00', '24:00']], sun: [] },
  exceptions: [
    {
      date: '2026-12-24',
      windows: [
        ['07:00', '12:00'],
        ['13:00', '15:30'],
      ],
    },
    { date: '2026-12-25', windows: [] },
  ],
};
const OTHER: WorkCalendar = { ...CALENDAR, weekly: { ...CALENDAR.weekly, sun: [['08:00', '09:00']] }, exceptions: [] };
const NONE = { calendar: null, version: 0 };

/**
 * Registers the D58 storage tests inside `describeStorageContract`.
 *
 * @param store The store of the running test.
 */
export function describeWorkCalendarContract(store: () => FleetHoursStore): void {
  describe('work calendars (D58, P112)', () => {
    const seed = async () => {
      const account = await store().createAccount({ name: 'Acme', plan: 'business', now: T0 });
      const other = await store().createAccount({ name: 'Other', plan: 'business', now: T0 });
      const device = (accountId: number, imei: string) =>
        store().createDevice({ accountId, name: `Truck ${imei}`, imei, model: 'FMB920', timeZone: 'America/New_York' });
      return { a: account.id, b: other.id, truck: (await device(account.id, '1'))!.id, theirs: (await device(other.id, '2'))!.id };
    };

    it('D58: none at first, for a device and for the account', async () => {
      const { a, truck } = await seed();
      expect(await store().findWorkCalendar({ accountId: a, deviceId: truck })).toEqual(NONE);
      expect(await store().findWorkCalendar({ accountId: a, deviceId: null })).toEqual(NONE);
    });

    it('D58, P112: a calendar comes back as given, days and exceptions in their order; each put counts one more version', async () => {
      const { a, truck } = await seed();
      expect(await store().putWorkCalendar({ accountId: a, deviceId: truck, calendar: CALENDAR })).toEqual({
        calendar: CALENDAR,
        version: 1,
      });
      const found = await store().findWorkCalendar({ accountId: a, deviceId: truck });
      expect(found).toEqual({ calendar: CALENDAR, version: 1 });
      expect(JSON.stringify(found.calendar)).toBe(JSON.stringify(CALENDAR));
      expect(await store().putWorkCalendar({ accountId: a, deviceId: truck, calendar: OTHER })).toEqual({ calendar: OTHER, version: 2 });
      // The account's default is another place, with its own version.
      expect(await store().findWorkCalendar({ accountId: a, deviceId: null })).toEqual(NONE);
      expect(await store().putWorkCalendar({ accountId: a, deviceId: null, calendar: CALENDAR })).toEqual({
        calendar: CALENDAR,
        version: 1,
      });
      expect(await store().findWorkCalendar({ accountId: a, deviceId: truck })).toEqual({ calendar: OTHER, version: 2 });
    });

    it('P112: a removal is a change: no calendar, the version one more, and the next put one more again', async () => {
      const { a, truck } = await seed();
      await store().putWorkCalendar({ accountId: a, deviceId: truck, calendar: CALENDAR });
      expect(await store().putWorkCalendar({ accountId: a, deviceId: truck, calendar: null })).toEqual({ calendar: null, version: 2 });
      expect(await store().findWorkCalendar({ accountId: a, deviceId: truck })).toEqual({ calendar: null, version: 2 });
      expect(await store().putWorkCalendar({ accountId: a, deviceId: truck, calendar: OTHER })).toEqual({ calendar: OTHER, version: 3 });
    });

    it('D54, P112: with an expected version, only over that version (0: never set); otherwise null and nothing written', async () => {
      const { a, truck } = await seed();
      expect(await store().putWorkCalendar({ accountId: a, deviceId: truck, calendar: CALENDAR, expectedVersion: 1 })).toBeNull();
      expect(await store().findWorkCalendar({ accountId: a, deviceId: truck })).toEqual(NONE);
      expect(await store().putWorkCalendar({ accountId: a, deviceId: truck, calendar: CALENDAR, expectedVersion: 0 })).toEqual({
        calendar: CALENDAR,
        version: 1,
      });
      expect(await store().putWorkCalendar({ accountId: a, deviceId: truck, calendar: OTHER, expectedVersion: 0 })).toBeNull();
      expect(await store().putWorkCalendar({ accountId: a, deviceId: null, calendar: OTHER, expectedVersion: 1 })).toBeNull();
      expect(await store().putWorkCalendar({ accountId: a, deviceId: truck, calendar: OTHER, expectedVersion: 1 })).toEqual({
        calendar: OTHER,
        version: 2,
      });
      expect(await store().findWorkCalendar({ accountId: a, deviceId: truck })).toEqual({ calendar: OTHER, version: 2 });
    });

    it('D54, P112: of concurrent puts over one expected version, exactly one is written', async () => {
      const { a, truck } = await seed();
      await store().putWorkCalendar({ accountId: a, deviceId: truck, calendar: CALENDAR });
      const puts = await Promise.all(
        [CALENDAR, OTHER, CALENDAR, OTHER].map((calendar) =>
          store().putWorkCalendar({ accountId: a, deviceId: truck, calendar, expectedVersion: 1 }),
        ),
      );
      expect(puts.filter((put) => put !== null)).toHaveLength(1);
      expect((await store().findWorkCalendar({ accountId: a, deviceId: truck })).version).toBe(2);
      // Without an expected version every put is written, each one version more.
      await Promise.all([1, 2, 3].map(() => store().putWorkCalendar({ accountId: a, deviceId: null, calendar: OTHER })));
      expect(await store().findWorkCalendar({ accountId: a, deviceId: null })).toEqual({ calendar: OTHER, version: 3 });
    });

    it("D11: another account's device is as missing: found as never set, never written; an account that does not exist neither", async () => {
      const { a, b, theirs } = await seed();
      await store().putWorkCalendar({ accountId: b, deviceId: theirs, calendar: CALENDAR });
      expect(await store().findWorkCalendar({ accountId: a, deviceId: theirs })).toEqual(NONE);
      expect(await store().putWorkCalendar({ accountId: a, deviceId: theirs, calendar: OTHER })).toBeNull();
      expect(await store().putWorkCalendar({ accountId: a, deviceId: theirs + 1000, calendar: OTHER })).toBeNull();
      expect(await store().putWorkCalendar({ accountId: b + 1000, deviceId: null, calendar: OTHER })).toBeNull();
      expect(await store().findWorkCalendar({ accountId: b + 1000, deviceId: null })).toEqual(NONE);
      expect(await store().findWorkCalendar({ accountId: b, deviceId: theirs })).toEqual({ calendar: CALENDAR, version: 1 });
      // One account's default is not another's.
      await store().putWorkCalendar({ accountId: a, deviceId: null, calendar: OTHER });
      expect(await store().findWorkCalendar({ accountId: b, deviceId: null })).toEqual(NONE);
    });

    it("D58: what is returned is the caller's: changing it changes nothing stored", async () => {
      const { a, truck } = await seed();
      const stored = await store().putWorkCalendar({ accountId: a, deviceId: truck, calendar: structuredClone(CALENDAR) });
      (stored!.calendar!.weekly.mon as unknown as string[][])[0]![0] = '01:00';
      const found = await store().findWorkCalendar({ accountId: a, deviceId: truck });
      (found.calendar!.exceptions as unknown as unknown[]).length = 0;
      expect(await store().findWorkCalendar({ accountId: a, deviceId: truck })).toEqual({ calendar: CALENDAR, version: 1 });
    });
  });
}
