/**
 * Service schedules (D39) through the core's public functions: where a schedule stands
 * (`serviceState`, `serviceMargins`, `worstServiceStatus`), the checks of what is stored
 * (`checkServiceSchedule`, `changeServiceSchedule`) and the fleet endpoint's `status` parameter
 * (`parseServiceStatuses`).
 */
import { Temporal } from 'temporal-polyfill';
import { describe, expect, it } from 'vitest';
import {
  changeServiceSchedule,
  checkServiceSchedule,
  InvalidParameterError,
  MAX_HOUR_METER_SECONDS,
  MAX_SERVICE_INTERVAL_DAYS,
  MAX_SERVICE_INTERVAL_SECONDS,
  parseServiceStatuses,
  scheduleVersion,
  serviceMargins,
  serviceState,
  worstServiceStatus,
  type NewServiceSchedule,
  type ServiceSchedule,
  type ServiceScheduleChanges,
  type ServiceScheduleState,
} from '../index.js';
import { thrownBy } from '../testing/refusal.js';

const HOUR = 3600;
const NY = 'America/New_York';

/** Epoch seconds of an ISO 8601 instant with its offset. */
const at = (text: string) => Temporal.Instant.from(text).epochMilliseconds / 1000;

const schedule = (fields: Partial<ServiceSchedule> = {}): ServiceSchedule => ({
  id: 3,
  deviceId: 7,
  name: 'Engine oil',
  intervalSeconds: 250 * HOUR,
  intervalDays: null,
  dueSoonSeconds: null,
  dueSoonDays: null,
  lastDoneAt: at('2026-01-05T08:00:00Z'),
  lastDoneHourMeterSeconds: null,
  createdAt: at('2026-01-05T08:00:00Z'),
  ...fields,
});

/** The state of a schedule last done at `lastDoneAt` with the hour meter at 0, now showing `hourMeterSeconds`. */
function stateOf(input: {
  readonly fields?: Partial<ServiceSchedule>;
  readonly hourMeterSeconds?: number;
  readonly lastDoneHourMeterSeconds?: number;
  readonly timeZone?: string;
  readonly now: string;
}): ServiceScheduleState {
  return serviceState({
    schedule: schedule(input.fields),
    lastDoneHourMeterSeconds: input.lastDoneHourMeterSeconds ?? 0,
    hourMeterSeconds: input.hourMeterSeconds ?? 0,
    timeZone: input.timeZone ?? NY,
    now: at(input.now),
  });
}

describe('serviceState() (D39)', () => {
  it("D39: the service endpoint's example: due at last + interval, a tenth of each interval as margins, due_soon", () => {
    const stored = schedule({ intervalSeconds: 900_000, intervalDays: 180, lastDoneAt: at('2026-09-01T08:00:00-04:00') });
    const state = serviceState({
      schedule: stored,
      lastDoneHourMeterSeconds: 3_690_000,
      hourMeterSeconds: 4_512_000,
      timeZone: NY,
      now: at('2026-11-25T10:00:00-05:00'),
    });
    expect(state).toEqual({
      id: 3,
      name: 'Engine oil',
      intervalSeconds: 900_000,
      intervalDays: 180,
      dueSoonSeconds: 90_000,
      dueSoonDays: 18,
      lastDoneAt: '2026-09-01T08:00:00-04:00',
      lastDoneHourMeterSeconds: 3_690_000,
      dueHourMeterSeconds: 4_590_000,
      dueDate: '2027-02-28',
      remainingSeconds: 78_000,
      remainingDays: 95,
      status: 'due_soon',
      // P101: the version of the schedule as stored, as its writes answer it.
      version: scheduleVersion(stored),
    });
  });

  it('D39: without a calendar interval the days are null and only the hour meter counts', () => {
    const state = stateOf({ hourMeterSeconds: 10 * HOUR, now: '2030-01-01T00:00:00Z' });
    expect(state).toMatchObject({ intervalDays: null, dueSoonDays: null, dueDate: null, remainingDays: null, status: 'ok' });
    expect(state.remainingSeconds).toBe(240 * HOUR);
  });

  describe('the calendar interval in local dates of the device (D39)', () => {
    it('D39: across the start of DST in America/New_York, interval_days later on the calendar, not 24-hour days later', () => {
      // 2026-03-07 23:30 EST; DST starts 8 March: 30 × 24 h later is already 7 April, 00:30 EDT.
      const fields = { intervalDays: 30, lastDoneAt: at('2026-03-07T23:30:00-05:00') };
      expect(stateOf({ fields, now: '2026-04-06T23:59:59-04:00' })).toMatchObject({
        dueDate: '2026-04-06',
        remainingDays: 0,
        status: 'due_soon',
      });
      expect(stateOf({ fields, now: '2026-04-07T00:00:00-04:00' })).toMatchObject({ remainingDays: -1, status: 'overdue' });
    });

    it('D39: across the end of DST in America/New_York', () => {
      // 2026-10-31 00:30 EDT; DST ends 1 November: 2 × 24 h later is still 1 November, 23:30 EST.
      const fields = { intervalDays: 2, lastDoneAt: at('2026-10-31T00:30:00-04:00') };
      expect(stateOf({ fields, now: '2026-11-01T23:45:00-05:00' })).toMatchObject({
        dueDate: '2026-11-02',
        dueSoonDays: 1,
        remainingDays: 1,
        status: 'due_soon',
      });
      expect(stateOf({ fields, now: '2026-10-31T12:00:00-04:00' })).toMatchObject({ remainingDays: 2, status: 'ok' });
    });

    it('D39: across a month end: 31 January + 30 days is 2 March, or 1 March in a leap year', () => {
      expect(
        stateOf({ fields: { intervalDays: 30, lastDoneAt: at('2026-01-31T12:00:00-05:00') }, now: '2026-02-01T00:00:00-05:00' }).dueDate,
      ).toBe('2026-03-02');
      expect(
        stateOf({ fields: { intervalDays: 30, lastDoneAt: at('2028-01-31T12:00:00-05:00') }, now: '2028-02-01T00:00:00-05:00' }).dueDate,
      ).toBe('2028-03-01');
      expect(
        stateOf({ fields: { intervalDays: 29, lastDoneAt: at('2028-01-31T12:00:00-05:00') }, now: '2028-02-01T00:00:00-05:00' }).dueDate,
      ).toBe('2028-02-29');
    });

    it('D39: east of UTC the local date counts, not the UTC date, for the last service and for today', () => {
      // 20:00 UTC on 1 March is already 2 March in Tokyo (+09:00) and 02:45 on 2 March in Kathmandu (+05:45).
      const fields = { intervalDays: 10, lastDoneAt: at('2026-03-01T20:00:00Z') };
      for (const timeZone of ['Asia/Tokyo', 'Asia/Kathmandu']) {
        const state = stateOf({ fields, timeZone, now: '2026-03-11T20:00:00Z' });
        expect(state).toMatchObject({ dueDate: '2026-03-12', remainingDays: 0, status: 'due_soon' });
        expect(state.lastDoneAt.slice(0, 10)).toBe('2026-03-02');
      }
      expect(stateOf({ fields, timeZone: 'Asia/Tokyo', now: '2026-03-11T14:59:59Z' }).remainingDays).toBe(1);
      expect(stateOf({ fields, timeZone: 'UTC', now: '2026-03-11T20:00:00Z' })).toMatchObject({ dueDate: '2026-03-11', remainingDays: 0 });
    });
  });

  describe('status (D39): overdue when either interval has run out, else due_soon within either margin, else ok', () => {
    const seconds = { intervalSeconds: 1000, dueSoonSeconds: 100 };
    const now = '2026-01-06T00:00:00Z';
    const bySeconds = (remaining: number) => stateOf({ fields: seconds, hourMeterSeconds: 1000 - remaining, now });

    it('D39: remaining_seconds 0 is overdue, the margin is due_soon, one more is ok; negative stays negative', () => {
      expect([101, 100, 1, 0, -1].map((remaining) => [bySeconds(remaining).remainingSeconds, bySeconds(remaining).status])).toEqual([
        [101, 'ok'],
        [100, 'due_soon'],
        [1, 'due_soon'],
        [0, 'overdue'],
        [-1, 'overdue'],
      ]);
      expect(bySeconds(-5000)).toMatchObject({ dueHourMeterSeconds: 1000, remainingSeconds: -5000, status: 'overdue' });
    });

    const days = { intervalDays: 10, dueSoonDays: 2, lastDoneAt: at('2026-01-01T12:00:00-05:00') };
    const byDays = (date: string) => stateOf({ fields: days, now: `${date}T12:00:00-05:00` });

    it('D39: remaining_days 0 is due_soon, not overdue; -1 is overdue; the margin is due_soon, one more is ok', () => {
      expect(
        ['2026-01-08', '2026-01-09', '2026-01-11', '2026-01-12', '2026-01-20'].map((date) => [
          byDays(date).remainingDays,
          byDays(date).status,
        ]),
      ).toEqual([
        [3, 'ok'],
        [2, 'due_soon'],
        [0, 'due_soon'],
        [-1, 'overdue'],
        [-9, 'overdue'],
      ]);
    });

    it('D39: due_soon reached on the seconds margin only, the days far away', () => {
      const state = stateOf({ fields: { ...seconds, ...days }, hourMeterSeconds: 950, now: '2026-01-02T12:00:00-05:00' });
      expect(state).toMatchObject({ remainingSeconds: 50, remainingDays: 9, status: 'due_soon' });
    });

    it('D39: due_soon reached on the days margin only, the hour meter far away', () => {
      const state = stateOf({ fields: { ...seconds, ...days }, hourMeterSeconds: 10, now: '2026-01-10T12:00:00-05:00' });
      expect(state).toMatchObject({ remainingSeconds: 990, remainingDays: 1, status: 'due_soon' });
    });

    it('D39: overdue on either interval alone, whichever comes first', () => {
      expect(stateOf({ fields: { ...seconds, ...days }, hourMeterSeconds: 1000, now: '2026-01-02T12:00:00-05:00' })).toMatchObject({
        remainingSeconds: 0,
        remainingDays: 9,
        status: 'overdue',
      });
      expect(stateOf({ fields: { ...seconds, ...days }, hourMeterSeconds: 0, now: '2026-01-15T12:00:00-05:00' })).toMatchObject({
        remainingSeconds: 1000,
        remainingDays: -4,
        status: 'overdue',
      });
    });

    it('D39: a margin of 0 is due_soon nowhere but never hides overdue', () => {
      const fields = { intervalSeconds: 1000, dueSoonSeconds: 0 };
      expect(stateOf({ fields, hourMeterSeconds: 999, now }).status).toBe('ok');
      expect(stateOf({ fields, hourMeterSeconds: 1000, now }).status).toBe('overdue');
    });

    it('D39: the due point counts from the given last-done hour meter', () => {
      expect(stateOf({ fields: seconds, lastDoneHourMeterSeconds: 5000, hourMeterSeconds: 5950, now })).toMatchObject({
        lastDoneHourMeterSeconds: 5000,
        dueHourMeterSeconds: 6000,
        remainingSeconds: 50,
        status: 'due_soon',
      });
    });
  });
});

describe('serviceMargins() (D39)', () => {
  it('D39: by default a tenth of the interval in seconds, floored', () => {
    expect(serviceMargins(schedule({ intervalSeconds: 900_000 }))).toEqual({ dueSoonSeconds: 90_000, dueSoonDays: null });
    expect(serviceMargins(schedule({ intervalSeconds: 19 })).dueSoonSeconds).toBe(1);
    expect(serviceMargins(schedule({ intervalSeconds: 9 })).dueSoonSeconds).toBe(0);
  });

  it('D39: by default a tenth of the calendar interval in days, floored, at least 1', () => {
    const days = (intervalDays: number) => serviceMargins(schedule({ intervalDays })).dueSoonDays;
    expect([1, 5, 10, 19, 20, 25, 180, 365].map(days)).toEqual([1, 1, 1, 1, 2, 2, 18, 36]);
  });

  it('D39: a stored margin is kept, 0 included', () => {
    expect(serviceMargins(schedule({ intervalSeconds: 1000, dueSoonSeconds: 0, intervalDays: 30, dueSoonDays: 0 }))).toEqual({
      dueSoonSeconds: 0,
      dueSoonDays: 0,
    });
    expect(serviceMargins(schedule({ dueSoonSeconds: 7 * HOUR, intervalDays: 30, dueSoonDays: 12 }))).toEqual({
      dueSoonSeconds: 7 * HOUR,
      dueSoonDays: 12,
    });
  });
});

describe('worstServiceStatus() (D39)', () => {
  it('D39: overdue over due_soon over ok; null for none', () => {
    expect(worstServiceStatus([])).toBeNull();
    expect(worstServiceStatus(['ok', 'ok'])).toBe('ok');
    expect(worstServiceStatus(['ok', 'due_soon', 'ok'])).toBe('due_soon');
    expect(worstServiceStatus(['due_soon', 'overdue', 'ok'])).toBe('overdue');
    expect(worstServiceStatus(new Set(['due_soon'] as const))).toBe('due_soon');
  });
});

describe('checkServiceSchedule() (D39)', () => {
  const NOW = at('2026-06-01T12:00:00Z');
  const valid: NewServiceSchedule = {
    deviceId: 7,
    name: 'Engine oil',
    intervalSeconds: 250 * HOUR,
    intervalDays: 180,
    dueSoonSeconds: 25 * HOUR,
    dueSoonDays: 18,
    lastDoneAt: NOW - 30 * 86_400,
    lastDoneHourMeterSeconds: 1025 * HOUR,
  };
  const refusal = (fields: Partial<NewServiceSchedule>) =>
    thrownBy(InvalidParameterError, () => checkServiceSchedule({ ...valid, ...fields }, NOW));

  it('returns a valid schedule unchanged, at its limits too', () => {
    expect(checkServiceSchedule(valid, NOW)).toBe(valid);
    const limits = {
      deviceId: 7,
      name: 'x'.repeat(200),
      intervalSeconds: MAX_SERVICE_INTERVAL_SECONDS,
      intervalDays: MAX_SERVICE_INTERVAL_DAYS,
      dueSoonSeconds: MAX_SERVICE_INTERVAL_SECONDS,
      dueSoonDays: 0,
      lastDoneAt: NOW,
      lastDoneHourMeterSeconds: MAX_HOUR_METER_SECONDS,
    };
    expect(checkServiceSchedule(limits, NOW)).toBe(limits);
    const least = { deviceId: 7, name: 'x', intervalSeconds: 1, lastDoneAt: 0 };
    expect(checkServiceSchedule(least, NOW)).toBe(least);
  });

  it.each<[string, Partial<NewServiceSchedule>, string]>([
    ['an empty name', { name: '' }, 'name'],
    ['a name of spaces', { name: '   ' }, 'name'],
    ['a name over 200 characters', { name: 'x'.repeat(201) }, 'name'],
    ['a zero interval', { intervalSeconds: 0 }, 'interval_seconds'],
    ['a negative interval', { intervalSeconds: -3600 }, 'interval_seconds'],
    ['a fractional interval', { intervalSeconds: 3600.5 }, 'interval_seconds'],
    ['an interval over the maximum', { intervalSeconds: MAX_SERVICE_INTERVAL_SECONDS + 1 }, 'interval_seconds'],
    ['a zero calendar interval', { intervalDays: 0 }, 'interval_days'],
    ['a negative calendar interval', { intervalDays: -1 }, 'interval_days'],
    ['a calendar interval over the maximum', { intervalDays: MAX_SERVICE_INTERVAL_DAYS + 1 }, 'interval_days'],
    ['a margin larger than the interval', { dueSoonSeconds: 250 * HOUR + 1 }, 'due_soon_seconds'],
    ['a negative margin', { dueSoonSeconds: -1 }, 'due_soon_seconds'],
    ['a margin in days larger than the calendar interval', { dueSoonDays: 181 }, 'due_soon_days'],
    ['a negative margin in days', { dueSoonDays: -1 }, 'due_soon_days'],
    ['a margin in days without a calendar interval', { intervalDays: null, dueSoonDays: 3 }, 'due_soon_days'],
    ['a last service in the future', { lastDoneAt: NOW + 1 }, 'last_done_at'],
    ['a last service at a fractional instant', { lastDoneAt: NOW - 0.5 }, 'last_done_at'],
    ['a negative last-done hour meter', { lastDoneHourMeterSeconds: -1 }, 'last_done_hour_meter_seconds'],
    ['a last-done hour meter over the maximum', { lastDoneHourMeterSeconds: MAX_HOUR_METER_SECONDS + 1 }, 'last_done_hour_meter_seconds'],
  ])('D39: refuses %s, naming %s', (_what, fields, parameter) => {
    const error = refusal(fields);
    expect(error.parameter).toBe(parameter);
    expect(error.message).toContain(parameter);
  });

  it('D39: says which interval a margin is larger than', () => {
    expect(refusal({ intervalSeconds: 100, dueSoonSeconds: 101 }).message).toBe(
      'due_soon_seconds (101) must not be larger than interval_seconds (100)',
    );
    expect(refusal({ intervalDays: 10, dueSoonDays: 11 }).message).toBe('due_soon_days (11) must not be larger than interval_days (10)');
    expect(refusal({ intervalDays: null, dueSoonDays: 3 }).message).toBe('due_soon_days needs a calendar interval (interval_days)');
  });
});

describe('changeServiceSchedule() (D39)', () => {
  const NOW = at('2026-06-01T12:00:00Z');
  const stored = schedule({ intervalSeconds: 250 * HOUR, intervalDays: 180, dueSoonSeconds: 25 * HOUR, dueSoonDays: 18 });
  const refusal = (changes: ServiceScheduleChanges) => thrownBy(InvalidParameterError, () => changeServiceSchedule(stored, changes, NOW));

  it('D39: a field left out (or undefined) keeps its value; null clears an optional one', () => {
    expect(changeServiceSchedule(stored, { name: 'Filters', dueSoonSeconds: undefined }, NOW)).toEqual({ ...stored, name: 'Filters' });
    expect(changeServiceSchedule(stored, { dueSoonSeconds: null }, NOW)).toEqual({ ...stored, dueSoonSeconds: null });
    expect(stored.name).toBe('Engine oil');
  });

  it('D39: removing the calendar interval clears its margin in days', () => {
    expect(changeServiceSchedule(stored, { intervalDays: null }, NOW)).toEqual({ ...stored, intervalDays: null, dueSoonDays: null });
  });

  it('D39: removing the calendar interval while giving a margin in days is refused, naming due_soon_days', () => {
    expect(refusal({ intervalDays: null, dueSoonDays: 3 }).parameter).toBe('due_soon_days');
  });

  it('D39: an interval made smaller than the stored margin is refused, naming the margin', () => {
    expect(refusal({ intervalSeconds: 10 * HOUR }).parameter).toBe('due_soon_seconds');
    expect(refusal({ intervalDays: 10 }).parameter).toBe('due_soon_days');
    // With the margin back to its default, the same interval is accepted.
    expect(changeServiceSchedule(stored, { intervalSeconds: 10 * HOUR, dueSoonSeconds: null }, NOW).intervalSeconds).toBe(10 * HOUR);
  });

  it('D39: refuses zero intervals and a last service in the future, naming the field', () => {
    expect(refusal({ intervalSeconds: 0 }).parameter).toBe('interval_seconds');
    expect(refusal({ intervalDays: 0 }).parameter).toBe('interval_days');
    expect(refusal({ lastDoneAt: NOW + 1 }).parameter).toBe('last_done_at');
  });

  it('D39: a service done at an instant sets the last service and drops a given last-done hour meter', () => {
    const given = schedule({ lastDoneHourMeterSeconds: 1025 * HOUR });
    expect(changeServiceSchedule(given, { lastDoneAt: NOW - HOUR, lastDoneHourMeterSeconds: null }, NOW)).toEqual({
      ...given,
      lastDoneAt: NOW - HOUR,
      lastDoneHourMeterSeconds: null,
    });
  });
});

describe('parseServiceStatuses() (D39)', () => {
  const refusal = (value: string | readonly string[]) => thrownBy(InvalidParameterError, () => parseServiceStatuses(value));

  it('D39: absent is every device; a list separated by commas, without repeats', () => {
    expect(parseServiceStatuses(undefined)).toBeUndefined();
    expect(parseServiceStatuses([])).toBeUndefined();
    expect(parseServiceStatuses('overdue')).toEqual(['overdue']);
    expect(parseServiceStatuses(['due_soon,overdue'])).toEqual(['due_soon', 'overdue']);
    expect(parseServiceStatuses('ok,overdue,ok')).toEqual(['ok', 'overdue']);
  });

  it('D39, D7: a repeated parameter is refused, naming status', () => {
    const error = refusal(['due_soon', 'overdue']);
    expect(error.parameter).toBe('status');
    expect(error.message).toBe('Parameter status is repeated: give it once, its statuses separated by commas');
  });

  it('D39: an unknown status is refused, naming status and quoting the value', () => {
    expect(refusal('late').message).toBe('Parameter status "late" is not one of ok, due_soon, overdue');
    for (const value of ['', 'due_soon,', 'OVERDUE', 'due soon', 'ok,,overdue']) expect(refusal(value).parameter).toBe('status');
    expect(refusal('x'.repeat(100)).message).toBe(`Parameter status "${'x'.repeat(40)}…" is not one of ok, due_soon, overdue`);
  });
});
