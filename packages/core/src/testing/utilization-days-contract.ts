/**
 * P154 in the storage contract: the fleet's utilization reads a device without a calendar from the
 * store's sums of its days, and one with a calendar from its segments; either way the answer is the
 * one its daily series (the sums and day fields of its segments, P147) gives, by device and by tag
 * (P153), whatever the zone (DST changes in the window), the calendars and the segments.
 */
import fc from 'fast-check';
import { Temporal } from 'temporal-polyfill';
import { describe, expect, it } from 'vitest';
import { createFleetHours } from '../application/create-fleet-hours.js';
import { UTILIZATION_GROUPINGS, utilizationPeriods } from '../calendar/utilization.js';
import type { WorkCalendar } from '../calendar/work-calendar.js';
import type { FleetHoursStore } from '../store/storage-port.js';
import type { SegmentInput } from '../types.js';

const HOUR = 3600;
/** 2026-03-05T00:00:00Z: the window holds the DST changes of America/New_York (03-08), Europe/Berlin (03-29) and Australia/Lord_Howe (04-05). */
const T0 = Date.UTC(2026, 2, 5) / 1000;
const FROM = '2026-03-05';
const TO = '2026-04-06';
/** Now: inside the window's last days, so that the sums stop at now (P1) and an open segment counts up to it. */
const NOW = Date.UTC(2026, 3, 5, 13, 17) / 1000;
const ZONES = ['Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'UTC'] as const;
const SHIFT: WorkCalendar['weekly']['mon'] = [['07:00', '17:00']];
const DAYS: WorkCalendar = { weekly: { mon: SHIFT, tue: SHIFT, wed: SHIFT, thu: SHIFT, fri: SHIFT, sat: [], sun: [] }, exceptions: [] };
const NIGHTS: WorkCalendar = {
  weekly: { ...DAYS.weekly, sat: [['22:00', '06:00']], sun: [['01:30', '03:30']] },
  exceptions: [{ date: '2026-03-29', windows: [['00:00', '04:00']] }],
};
const CALENDARS = [null, DAYS, NIGHTS] as const;

/** What this block needs from the contract suite around it. */
export interface UtilizationDaysContractContext {
  readonly store: () => FleetHoursStore;
  readonly runs: (numRuns: number) => number;
}

/** Segments of a device from T0: closed ones with gaps, the last one open or not. */
const segmentsArbitrary = fc
  .record({
    pieces: fc.array(
      fc.record({ gap: fc.integer({ min: 0, max: 60 * HOUR }), length: fc.integer({ min: 1, max: 30 * HOUR }), moving: fc.boolean() }),
      { maxLength: 14 },
    ),
    openLast: fc.boolean(),
  })
  .map(({ pieces, openLast }) => {
    let cursor = T0 - 6 * HOUR;
    return pieces
      .map(({ gap, length, moving }, index): SegmentInput => {
        const startedAt = cursor + gap;
        cursor = startedAt + length;
        return { startedAt, endedAt: openLast && index === pieces.length - 1 ? null : cursor, state: moving ? 'moving' : 'idle' };
      })
      .filter((segment) => segment.startedAt < NOW);
  });

const deviceArbitrary = fc.record({
  zone: fc.constantFrom(...ZONES),
  calendar: fc.constantFrom(...CALENDARS),
  tags: fc.subarray(['north', 'south']),
  segments: segmentsArbitrary,
});

/** Registers the tests (inside `describeStorageContract`). */
export function describeUtilizationDaysContract({ store, runs }: UtilizationDaysContractContext): void {
  describe('the fleet utilization from the sums of the days without a calendar (P153, P154, D60)', () => {
    let round = 0;
    it('P154: every device\u2019s periods and every tag\u2019s are those of the daily series, with or without a calendar, on both paths', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(deviceArbitrary, { minLength: 1, maxLength: 6 }),
          fc.constantFrom(...CALENDARS),
          fc.constantFrom(...UTILIZATION_GROUPINGS),
          async (devices, accountDefault, groupBy) => {
            round += 1;
            const account = await store().createAccount({ name: `Utilization ${round}`, plan: 'business', now: T0 });
            if (accountDefault) await store().putWorkCalendar({ accountId: account.id, deviceId: null, calendar: accountDefault });
            for (const [index, one] of devices.entries()) {
              const device = (await store().createDevice({
                accountId: account.id,
                name: `Truck ${round}-${index}`,
                imei: `utilization-days-${round}-${index}`,
                model: 'FMB920',
                timeZone: one.zone,
                tags: one.tags,
              }))!;
              if (one.segments.length > 0) await store().importSegments({ deviceId: device.id, segments: one.segments });
              if (one.calendar) await store().putWorkCalendar({ accountId: account.id, deviceId: device.id, calendar: one.calendar });
            }
            const fleetHours = createFleetHours({ store: store(), now: () => NOW * 1000 });
            const window = { accountId: account.id, from: Temporal.PlainDate.from(FROM), to: Temporal.PlainDate.from(TO) };
            // The oracle: the daily series (every device's segments), its days grouped.
            const daily = await fleetHours.fleet.daily({ ...window, limit: 100 });
            const byDevice = await fleetHours.fleet.utilization({ ...window, groupBy, limit: 100 });
            expect(byDevice.items).toEqual(
              daily.items.map((series) => ({
                deviceId: series.deviceId,
                timeZone: series.timeZone,
                from: series.from,
                to: series.to,
                groupBy,
                periods: utilizationPeriods(series.days, groupBy),
              })),
            );
            const tags = [...new Set(devices.flatMap((one) => one.tags))].sort();
            const byTag = await fleetHours.fleet.utilizationByTag({ ...window, groupBy });
            expect(byTag).toEqual(
              tags.map((tag) => {
                const members = daily.items.filter((_, index) => devices[index]!.tags.includes(tag));
                return {
                  tag,
                  deviceCount: members.length,
                  groupBy,
                  periods: utilizationPeriods(
                    members.flatMap((series) => series.days),
                    groupBy,
                  ),
                };
              }),
            );
          },
        ),
        { numRuns: runs(16) },
      );
    });
  });
}
