import fc from 'fast-check';
import { Temporal } from 'temporal-polyfill';
import { describe, expect, it } from 'vitest';
import {
  UTILIZATION_GROUPINGS,
  utilizationPeriodOf,
  utilizationPeriods,
  UtilizationSums,
  type UtilizationDay,
  type UtilizationGrouping,
} from './utilization.js';
import { dayFields } from './day-fields.js';
import { sumSegmentsByBucket } from '../engine/sum-by-bucket.js';
import { dayBuckets } from '../window/day-buckets.js';
import { parseWindowQuery } from '../window/parse-window-query.js';
import { resolveWindow } from '../window/resolve-window.js';
import { calendarOf } from '../testing/calendar-oracle.js';
import { addDays, daysBetween } from '../testing/oracle.js';

/** A day with engine time inside a 10-hour schedule. */
const day = (date: string, engineSeconds: number, idleSeconds = 0, scheduledSeconds = 36_000): UtilizationDay => ({
  date,
  engineSeconds,
  movingSeconds: engineSeconds - idleSeconds,
  idleSeconds,
  scheduledSeconds,
  engineInScheduleSeconds: Math.min(engineSeconds, scheduledSeconds),
  engineOutsideScheduleSeconds: engineSeconds - Math.min(engineSeconds, scheduledSeconds),
});

describe('utilizationPeriodOf() (D60)', () => {
  it('names days, ISO weeks (Monday first, the year of their Thursday) and months', () => {
    expect(utilizationPeriodOf('2026-11-01', 'day')).toBe('2026-11-01');
    expect(utilizationPeriodOf('2026-10-26', 'week')).toBe('2026-W44'); // a Monday
    expect(utilizationPeriodOf('2026-11-01', 'week')).toBe('2026-W44'); // the Sunday of the same week
    expect(utilizationPeriodOf('2026-11-02', 'week')).toBe('2026-W45');
    expect(utilizationPeriodOf('2027-01-01', 'week')).toBe('2026-W53');
    expect(utilizationPeriodOf('2024-12-30', 'week')).toBe('2025-W01');
    expect(utilizationPeriodOf('2026-01-04', 'week')).toBe('2026-W01');
    expect(utilizationPeriodOf('2026-02-28', 'month')).toBe('2026-02');
  });

  it('agrees with Temporal on the ISO week and its year, 1900 to 2100', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: daysBetween('1900-01-01', '2100-12-31') }), (offset) => {
        const date = Temporal.PlainDate.from(addDays('1900-01-01', offset));
        const expected = `${date.yearOfWeek}-W${String(date.weekOfYear).padStart(2, '0')}`;
        expect(utilizationPeriodOf(date.toString(), 'week')).toBe(expected);
        expect(utilizationPeriodOf(date.toString(), 'month')).toBe(date.toString().slice(0, 7));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('utilizationPeriods() (D60)', () => {
  it('sums the days of each week, with its first and last date inside the window and the two ratios unrounded', () => {
    const days = ['2026-10-29', '2026-10-30', '2026-10-31', '2026-11-01', '2026-11-02'].map((date, index) =>
      day(date, [9000, 0, 12_000, 0, 3000][index]!, [900, 0, 4000, 0, 0][index]!),
    );
    expect(utilizationPeriods(days, 'week')).toEqual([
      {
        period: '2026-W44',
        from: '2026-10-29', // the window starts on a Thursday: a partial week
        to: '2026-11-01',
        engineSeconds: 21_000,
        movingSeconds: 16_100,
        idleSeconds: 4900,
        scheduledSeconds: 144_000,
        engineInScheduleSeconds: 21_000,
        engineOutsideScheduleSeconds: 0,
        daysUsed: 2,
        utilization: 21_000 / 144_000,
        idleShare: 4900 / 21_000,
      },
      {
        period: '2026-W45',
        from: '2026-11-02',
        to: '2026-11-02',
        engineSeconds: 3000,
        movingSeconds: 3000,
        idleSeconds: 0,
        scheduledSeconds: 36_000,
        engineInScheduleSeconds: 3000,
        engineOutsideScheduleSeconds: 0,
        daysUsed: 1,
        utilization: 3000 / 36_000,
        idleShare: 0,
      },
    ]);
  });

  it('gives null ratios when nothing was scheduled or the engine never ran', () => {
    const [period] = utilizationPeriods([day('2026-12-25', 0, 0, 0)], 'day');
    expect(period).toMatchObject({ period: '2026-12-25', utilization: null, idleShare: null, daysUsed: 0 });
    const [overtime] = utilizationPeriods([day('2026-12-26', 7200, 3600, 0)], 'month');
    expect(overtime).toMatchObject({ period: '2026-12', engineOutsideScheduleSeconds: 7200, utilization: null, idleShare: 0.5 });
  });

  it('adds the days of several devices by period, counting device-days (P109), and gives nothing for no days', () => {
    const periods = utilizationPeriods(
      [day('2026-11-01', 3600), day('2026-11-02', 0), day('2026-11-01', 7200), day('2026-11-02', 1800)],
      'day',
    );
    expect(periods.map((period) => [period.period, period.engineSeconds, period.daysUsed, period.scheduledSeconds])).toEqual([
      ['2026-11-01', 10_800, 2, 72_000],
      ['2026-11-02', 1800, 1, 72_000],
    ]);
    expect(utilizationPeriods([], 'week')).toEqual([]);
  });

  it('is the sum of its days for every grouping, over a device’s real day fields across a year end', () => {
    const timeZone = 'Europe/Berlin';
    const window = resolveWindow({ ...parseWindowQuery({ from: '2026-12-20', to: '2027-01-12' }), now: 1_900_000_000, timeZone });
    const buckets = dayBuckets(window);
    const segments = buckets.dates.map((_, index) => ({
      startedAt: buckets.boundaries[index]! + 6 * 3600,
      endedAt: buckets.boundaries[index]! + 9 * 3600 + index * 60,
      state: index % 3 === 0 ? ('idle' as const) : ('moving' as const),
    }));
    const calendar = calendarOf(
      {
        mon: [['07:00', '17:00']],
        tue: [['07:00', '17:00']],
        wed: [['07:00', '17:00']],
        thu: [['07:00', '17:00']],
        fri: [['07:00', '17:00']],
      },
      [{ date: '2026-12-25', windows: [] }],
    );
    const fields = dayFields({ segments, timeZone, calendar, buckets, now: 1_900_000_000 });
    const sums = sumSegmentsByBucket(segments, buckets.boundaries, 1_900_000_000);
    const days = buckets.dates.map((date, index) => ({
      date,
      ...fields[index]!,
      ...sums[index]!,
      engineSeconds: sums[index]!.movingSeconds + sums[index]!.idleSeconds,
    }));
    const weeks = utilizationPeriods(days, 'week');
    expect(weeks.map((week) => [week.period, week.from, week.to])).toEqual([
      ['2026-W51', '2026-12-20', '2026-12-20'],
      ['2026-W52', '2026-12-21', '2026-12-27'],
      ['2026-W53', '2026-12-28', '2027-01-03'],
      ['2027-W01', '2027-01-04', '2027-01-10'],
      ['2027-W02', '2027-01-11', '2027-01-12'],
    ]);
    expect(weeks[1]!.scheduledSeconds).toBe(4 * 36_000); // Christmas is a holiday
    expect(utilizationPeriods(days, 'month').map((month) => [month.period, month.daysUsed])).toEqual([
      ['2026-12', 12],
      ['2027-01', 12],
    ]);
  });

  it('equals the sums of its days and their ratios, for random days and every grouping', () => {
    const seconds = fc.integer({ min: 0, max: 90_000 });
    const randomDay = fc
      .record({ engine: seconds, idle: seconds, scheduled: seconds, inside: seconds })
      .map(({ engine, idle, scheduled, inside }) => ({
        engineSeconds: engine,
        movingSeconds: engine - Math.min(idle, engine),
        idleSeconds: Math.min(idle, engine),
        scheduledSeconds: scheduled,
        engineInScheduleSeconds: Math.min(inside, engine, scheduled),
        engineOutsideScheduleSeconds: engine - Math.min(inside, engine, scheduled),
      }));
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: daysBetween('1990-01-01', '2037-12-31') }),
        fc.array(randomDay, { maxLength: 120 }),
        fc.constantFrom(...UTILIZATION_GROUPINGS),
        (offset, figures, groupBy: UtilizationGrouping) => {
          const days = figures.map((figure, index) => ({ date: addDays(addDays('1990-01-01', offset), index), ...figure }));
          const periods = utilizationPeriods(days, groupBy);
          // The oracle groups by Temporal's own ISO week and month of each date.
          const keyOf = (date: string) => {
            const plain = Temporal.PlainDate.from(date);
            if (groupBy === 'week') return `${plain.yearOfWeek}-W${String(plain.weekOfYear).padStart(2, '0')}`;
            return groupBy === 'month' ? date.slice(0, 7) : date;
          };
          expect(periods.map((period) => period.period)).toEqual([...new Set(days.map((d) => keyOf(d.date)))]);
          for (const period of periods) {
            const inside = days.filter((d) => keyOf(d.date) === period.period);
            const total = (field: keyof (typeof days)[number]) => inside.reduce((sum, d) => sum + (d[field] as number), 0);
            expect(period.from).toBe(inside[0]!.date);
            expect(period.to).toBe(inside[inside.length - 1]!.date);
            for (const field of [
              'engineSeconds',
              'movingSeconds',
              'idleSeconds',
              'scheduledSeconds',
              'engineInScheduleSeconds',
              'engineOutsideScheduleSeconds',
            ] as const) {
              expect(period[field]).toBe(total(field));
            }
            expect(period.engineInScheduleSeconds + period.engineOutsideScheduleSeconds).toBe(period.engineSeconds);
            expect(period.daysUsed).toBe(inside.filter((d) => d.engineSeconds > 0).length);
            expect(period.utilization).toBe(
              total('scheduledSeconds') === 0 ? null : total('engineInScheduleSeconds') / total('scheduledSeconds'),
            );
            expect(period.idleShare).toBe(total('engineSeconds') === 0 ? null : total('idleSeconds') / total('engineSeconds'));
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('UtilizationSums (P153)', () => {
  const dayArbitrary = fc.record({
    offset: fc.nat(120),
    moving: fc.nat(50_000),
    idle: fc.nat(30_000),
    scheduled: fc.nat(40_000),
    inside: fc.nat(80_000),
  });
  const deviceArbitrary = fc.record({ days: fc.array(dayArbitrary, { maxLength: 40 }), tags: fc.subarray(['a', 'b', 'c']) });

  it('P153: the sums of each tag kept batch by batch, the days then dropped, equal the sums of all its devices’ days at once', () => {
    fc.assert(
      fc.property(
        fc.array(deviceArbitrary, { maxLength: 12 }),
        fc.integer({ min: 1, max: 5 }),
        fc.constantFrom(...UTILIZATION_GROUPINGS),
        (devices, batch, groupBy) => {
          const daysOf = (device: (typeof devices)[number]): UtilizationDay[] =>
            device.days.map(({ offset, moving, idle, scheduled, inside }) => {
              const engine = moving + idle;
              const engineInScheduleSeconds = Math.min(inside, engine, scheduled);
              return {
                date: addDays('2026-11-20', offset),
                engineSeconds: engine,
                movingSeconds: moving,
                idleSeconds: idle,
                scheduledSeconds: scheduled,
                engineInScheduleSeconds,
                engineOutsideScheduleSeconds: engine - engineInScheduleSeconds,
              };
            });
          // Streamed: a batch of devices at a time, each device's days added to its tags' sums.
          const streamed = new Map<string, UtilizationSums>();
          for (let start = 0; start < devices.length; start += batch) {
            for (const device of devices.slice(start, start + batch)) {
              const days = daysOf(device);
              for (const tag of device.tags) {
                if (!streamed.has(tag)) streamed.set(tag, new UtilizationSums(groupBy));
                streamed.get(tag)!.add(days);
              }
            }
          }
          for (const tag of ['a', 'b', 'c']) {
            const all = devices.filter((device) => device.tags.includes(tag)).flatMap(daysOf);
            const expected = _naivePeriods(all, groupBy);
            expect(streamed.get(tag)?.periods() ?? []).toEqual(expected);
            expect(utilizationPeriods(all, groupBy)).toEqual(expected);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

/** The oracle: every day with its period, then per period the sums by a plain reduce, periods by their first date. */
function _naivePeriods(days: readonly UtilizationDay[], groupBy: UtilizationGrouping) {
  const names = [...new Set(days.map((one) => utilizationPeriodOf(one.date, groupBy)))];
  return names
    .map((period) => {
      const members = days.filter((one) => utilizationPeriodOf(one.date, groupBy) === period);
      const dates = members.map((one) => one.date).sort();
      const sum = (key: Exclude<keyof UtilizationDay, 'date'>) => members.reduce((total, one) => total + one[key], 0);
      const engineSeconds = sum('engineSeconds');
      const scheduledSeconds = sum('scheduledSeconds');
      return {
        period,
        from: dates[0]!,
        to: dates[dates.length - 1]!,
        engineSeconds,
        movingSeconds: sum('movingSeconds'),
        idleSeconds: sum('idleSeconds'),
        scheduledSeconds,
        engineInScheduleSeconds: sum('engineInScheduleSeconds'),
        engineOutsideScheduleSeconds: sum('engineOutsideScheduleSeconds'),
        daysUsed: members.filter((one) => one.engineSeconds > 0).length,
        utilization: scheduledSeconds === 0 ? null : sum('engineInScheduleSeconds') / scheduledSeconds,
        idleShare: engineSeconds === 0 ? null : sum('idleSeconds') / engineSeconds,
      };
    })
    .sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : 0));
}
