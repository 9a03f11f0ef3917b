import fc from 'fast-check';
import { Temporal } from 'temporal-polyfill';
import { describe, expect, it } from 'vitest';
import { dayFields, type DayFields } from './day-fields.js';
import type { WorkCalendar } from './work-calendar.js';
import { sumSegmentsByBucket } from '../engine/sum-by-bucket.js';
import { formatInstant } from '../time/format-instant.js';
import type { SegmentInput } from '../types.js';
import { dayBuckets } from '../window/day-buckets.js';
import { parseWindowQuery } from '../window/parse-window-query.js';
import { resolveWindow } from '../window/resolve-window.js';
import { ALL_ZONES, arbitraryCalendar, calendarOf, HARD_ZONES, oracleDayFields } from '../testing/calendar-oracle.js';
import { addDays, daysBetween } from '../testing/oracle.js';

const LATER = Date.UTC(2100, 0, 1) / 1000; // now for the named cases: every day below is past

const bucketsOf = (timeZone: string, from: string, to: string) =>
  dayBuckets(resolveWindow({ ...parseWindowQuery({ from, to }), now: LATER, timeZone }));

/** The fields of each date, instants written in the zone's wall time for reading. */
function fieldsOf(input: {
  timeZone: string;
  from: string;
  to: string;
  segments: readonly SegmentInput[];
  calendar?: WorkCalendar | null;
  now?: number;
}) {
  const buckets = bucketsOf(input.timeZone, input.from, input.to);
  const fields = dayFields({ ...input, calendar: input.calendar ?? null, buckets, now: input.now ?? LATER });
  const text = (instant: number | null) => (instant === null ? null : formatInstant(instant, input.timeZone));
  return Object.fromEntries(
    fields.map((day, index) => [
      buckets.dates[index]!,
      { ...day, firstEngineOn: text(day.firstEngineOn), lastEngineOff: text(day.lastEngineOff) },
    ]),
  );
}

/** A segment between two instants written with their offsets. */
const segment = (from: string, to: string | null, state: 'moving' | 'idle' = 'moving'): SegmentInput => ({
  startedAt: Date.parse(from) / 1000,
  endedAt: to === null ? null : Date.parse(to) / 1000,
  state,
});

const SHIFT = calendarOf({
  mon: [['07:00', '17:00']],
  tue: [['07:00', '17:00']],
  wed: [['07:00', '17:00']],
  thu: [['07:00', '17:00']],
  fri: [['07:00', '17:00']],
});
const ALL_DAY = calendarOf([['00:00', '24:00']]);

describe('dayFields() (D59)', () => {
  it('splits a run over midnight: on at the start of the second day, off at the start of the next on the first', () => {
    const days = fieldsOf({
      timeZone: 'Europe/Berlin',
      from: '2026-06-01',
      to: '2026-06-02',
      calendar: SHIFT,
      segments: [
        segment('2026-06-01T16:00:00+02:00', '2026-06-01T23:00:00+02:00'),
        segment('2026-06-01T23:00:00+02:00', '2026-06-02T08:00:00+02:00', 'idle'),
      ],
    });
    expect(days['2026-06-01']).toEqual({
      daySeconds: 86_400,
      scheduledSeconds: 36_000,
      engineInScheduleSeconds: 3600,
      engineOutsideScheduleSeconds: 7 * 3600,
      firstEngineOn: '2026-06-01T16:00:00+02:00',
      lastEngineOff: '2026-06-02T00:00:00+02:00', // touching segments are one run, still on at the day's end
    });
    expect(days['2026-06-02']).toEqual({
      daySeconds: 86_400,
      scheduledSeconds: 36_000,
      engineInScheduleSeconds: 3600,
      engineOutsideScheduleSeconds: 7 * 3600,
      firstEngineOn: '2026-06-02T00:00:00+02:00',
      lastEngineOff: '2026-06-02T08:00:00+02:00',
    });
  });

  it('takes the first start and the last stop of several runs, and gives a day without engine time nulls', () => {
    const days = fieldsOf({
      timeZone: 'UTC',
      from: '2026-06-01',
      to: '2026-06-02',
      segments: [segment('2026-06-01T05:00:00Z', '2026-06-01T06:00:00Z'), segment('2026-06-01T20:00:00Z', '2026-06-01T20:30:00Z', 'idle')],
    });
    expect(days['2026-06-01']).toMatchObject({ firstEngineOn: '2026-06-01T05:00:00+00:00', lastEngineOff: '2026-06-01T20:30:00+00:00' });
    expect(days['2026-06-01']).toMatchObject({ scheduledSeconds: 0, engineInScheduleSeconds: 0, engineOutsideScheduleSeconds: 5400 });
    expect(days['2026-06-02']).toEqual({
      daySeconds: 86_400,
      scheduledSeconds: 0,
      engineInScheduleSeconds: 0,
      engineOutsideScheduleSeconds: 0,
      firstEngineOn: null,
      lastEngineOff: null,
    });
  });

  it('a run still on now has no last stop today, and the day before ends it at midnight; the schedule counts up to now (P106, P108)', () => {
    const now = Date.parse('2026-06-02T10:00:00Z') / 1000;
    const days = fieldsOf({
      timeZone: 'UTC',
      from: '2026-06-01',
      to: '2026-06-03',
      calendar: SHIFT,
      now,
      segments: [segment('2026-06-01T22:00:00Z', null, 'idle')],
    });
    expect(days['2026-06-01']).toMatchObject({ engineOutsideScheduleSeconds: 7200, lastEngineOff: '2026-06-02T00:00:00+00:00' });
    expect(days['2026-06-02']).toEqual({
      daySeconds: 86_400, // the whole day, though it runs on
      scheduledSeconds: 3 * 3600, // 07:00 to now
      engineInScheduleSeconds: 3 * 3600,
      engineOutsideScheduleSeconds: 7 * 3600,
      firstEngineOn: '2026-06-02T00:00:00+00:00',
      lastEngineOff: null,
    });
    expect(days['2026-06-03']).toEqual({
      daySeconds: 86_400,
      scheduledSeconds: 0, // after now
      engineInScheduleSeconds: 0,
      engineOutsideScheduleSeconds: 0,
      firstEngineOn: null,
      lastEngineOff: null,
    });
  });

  it('a closed segment that ends after now runs now (P108); one that ends at now stopped then', () => {
    const now = Date.parse('2026-06-02T10:00:00Z') / 1000;
    const ahead = fieldsOf({
      timeZone: 'UTC',
      from: '2026-06-02',
      to: '2026-06-02',
      now,
      segments: [segment('2026-06-02T09:00:00Z', '2026-06-02T11:00:00Z')],
    });
    expect(ahead['2026-06-02']).toMatchObject({ engineOutsideScheduleSeconds: 3600, lastEngineOff: null });
    const ended = fieldsOf({
      timeZone: 'UTC',
      from: '2026-06-02',
      to: '2026-06-02',
      now,
      segments: [segment('2026-06-02T09:00:00Z', '2026-06-02T10:00:00Z')],
    });
    expect(ended['2026-06-02']).toMatchObject({ engineOutsideScheduleSeconds: 3600, lastEngineOff: '2026-06-02T10:00:00+00:00' });
  });

  it('America/New_York 2026-03-08 and 2026-11-01: the day is 23 or 25 hours, and a whole-day calendar schedules all of it', () => {
    const days = fieldsOf({
      timeZone: 'America/New_York',
      from: '2026-03-08',
      to: '2026-03-08',
      calendar: ALL_DAY,
      segments: [segment('2026-03-07T23:00:00-05:00', '2026-03-09T01:00:00-04:00')],
    });
    expect(days['2026-03-08']).toEqual({
      daySeconds: 82_800,
      scheduledSeconds: 82_800,
      engineInScheduleSeconds: 82_800,
      engineOutsideScheduleSeconds: 0,
      firstEngineOn: '2026-03-08T00:00:00-05:00',
      lastEngineOff: '2026-03-09T00:00:00-04:00',
    });
    const fall = fieldsOf({
      timeZone: 'America/New_York',
      from: '2026-11-01',
      to: '2026-11-01',
      calendar: calendarOf([['01:00', '02:00']]),
      // From the first 01:30 to the second: an hour, all of it inside 01:00 (first) to 02:00 (second).
      segments: [segment('2026-11-01T01:30:00-04:00', '2026-11-01T01:30:00-05:00')],
    });
    expect(fall['2026-11-01']).toEqual({
      daySeconds: 90_000,
      scheduledSeconds: 7200,
      engineInScheduleSeconds: 3600,
      engineOutsideScheduleSeconds: 0,
      firstEngineOn: '2026-11-01T01:30:00-04:00',
      lastEngineOff: '2026-11-01T01:30:00-05:00',
    });
  });

  it('Europe/Berlin and Australia/Lord_Howe: a window over the skipped or repeated time, and a run over the change', () => {
    const berlin = fieldsOf({
      timeZone: 'Europe/Berlin',
      from: '2026-03-29',
      to: '2026-03-29',
      calendar: calendarOf([['01:00', '04:00']]),
      segments: [segment('2026-03-29T01:30:00+01:00', '2026-03-29T03:30:00+02:00')],
    });
    expect(berlin['2026-03-29']).toMatchObject({
      daySeconds: 82_800,
      scheduledSeconds: 7200,
      engineInScheduleSeconds: 3600,
      engineOutsideScheduleSeconds: 0,
    });
    const lordHowe = fieldsOf({
      timeZone: 'Australia/Lord_Howe',
      from: '2026-04-05',
      to: '2026-04-05',
      calendar: calendarOf([['01:00', '03:00']]),
      segments: [segment('2026-04-05T00:30:00+11:00', '2026-04-05T02:30:00+10:30')],
    });
    expect(lordHowe['2026-04-05']).toMatchObject({
      daySeconds: 88_200,
      scheduledSeconds: 9000,
      engineInScheduleSeconds: 7200,
      engineOutsideScheduleSeconds: 1800,
    });
  });

  it.each([
    // zone, date, window, engine from, engine to, day length, scheduled, engine inside, engine outside
    ['Europe/Berlin', '2026-10-25', '02:00', '04:00', '2026-10-25T01:30:00+02:00', '2026-10-25T03:30:00+01:00', 90_000, 10_800, 9000, 1800],
    [
      'Australia/Lord_Howe',
      '2026-10-04',
      '01:00',
      '03:00',
      '2026-10-04T01:30:00+10:30',
      '2026-10-04T03:30:00+11:00',
      84_600,
      5400,
      3600,
      1800,
    ],
    ['America/New_York', '2026-03-08', '01:00', '04:00', '2026-03-08T01:30:00-05:00', '2026-03-08T03:30:00-04:00', 82_800, 7200, 3600, 0],
  ] as const)(
    '%s %s: a run over the change inside %s–%s',
    (timeZone, date, start, end, from, to, daySeconds, scheduled, inside, outside) => {
      const days = fieldsOf({ timeZone, from: date, to: date, calendar: calendarOf([[start, end]]), segments: [segment(from, to)] });
      expect(days[date]).toEqual({
        daySeconds,
        scheduledSeconds: scheduled,
        engineInScheduleSeconds: inside,
        engineOutsideScheduleSeconds: outside,
        firstEngineOn: formatInstant(Date.parse(from) / 1000, timeZone),
        lastEngineOff: formatInstant(Date.parse(to) / 1000, timeZone),
      });
    },
  );

  it('Pacific/Apia 2011-12-30 does not exist: a zero-length day between a run stopped at its edge and one started there (P2)', () => {
    const days = fieldsOf({
      timeZone: 'Pacific/Apia',
      from: '2011-12-29',
      to: '2011-12-31',
      calendar: calendarOf({ thu: [['22:00', '06:00']], fri: [['22:00', '06:00']] }),
      segments: [segment('2011-12-29T21:00:00-10:00', '2011-12-31T02:00:00+14:00')],
    });
    expect(days['2011-12-29']).toEqual({
      daySeconds: 86_400,
      scheduledSeconds: 7200,
      engineInScheduleSeconds: 7200,
      engineOutsideScheduleSeconds: 3600,
      firstEngineOn: '2011-12-29T21:00:00-10:00',
      lastEngineOff: '2011-12-31T00:00:00+14:00',
    });
    expect(days['2011-12-30']).toEqual({
      daySeconds: 0,
      scheduledSeconds: 0,
      engineInScheduleSeconds: 0,
      engineOutsideScheduleSeconds: 0,
      firstEngineOn: null,
      lastEngineOff: null,
    });
    // Friday's night shift starts where the missing Friday would have: the first instant of Saturday (P107).
    expect(days['2011-12-31']).toMatchObject({
      daySeconds: 86_400,
      scheduledSeconds: 21_600,
      engineInScheduleSeconds: 7200,
      firstEngineOn: '2011-12-31T00:00:00+14:00',
    });
  });

  it('counts a night shift carried into a holiday, and a carried window overlapping the day’s own once', () => {
    const calendar = calendarOf({ fri: [['20:00', '04:00']], sat: [['02:00', '10:00']] }, [{ date: '2026-03-14', windows: [] }]);
    const days = fieldsOf({
      timeZone: 'UTC',
      from: '2026-03-07',
      to: '2026-03-14',
      calendar,
      segments: [segment('2026-03-14T03:00:00Z', '2026-03-14T05:00:00Z')],
    });
    expect(days['2026-03-07']!.scheduledSeconds).toBe(36_000); // 00:00–10:00, not 4 h + 8 h
    expect(days['2026-03-14']).toMatchObject({
      scheduledSeconds: 4 * 3600,
      engineInScheduleSeconds: 3600,
      engineOutsideScheduleSeconds: 3600,
    });
  });

  it('reads segments in any order and leaves days outside them alone', () => {
    const segments = [segment('2026-06-02T10:00:00Z', '2026-06-02T11:00:00Z'), segment('2026-06-01T10:00:00Z', '2026-06-01T11:00:00Z')];
    const buckets = bucketsOf('UTC', '2026-06-01', '2026-06-02');
    const inOrder = dayFields({ segments: [...segments].reverse(), timeZone: 'UTC', calendar: SHIFT, buckets, now: LATER });
    expect(dayFields({ segments, timeZone: 'UTC', calendar: SHIFT, buckets, now: LATER })).toEqual(inOrder);
    expect(inOrder.map((day) => day.engineInScheduleSeconds)).toEqual([3600, 3600]);
  });
});

/** Random segments around a window: touching or apart, some over days, the last one sometimes open. */
function arbitrarySegments(start: number, end: number): fc.Arbitrary<SegmentInput[]> {
  const piece = fc.record({
    gap: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 12 * 3600 })),
    length: fc.oneof(fc.integer({ min: 1, max: 3 * 3600 }), fc.integer({ min: 1, max: 40 * 3600 })),
    state: fc.constantFrom('moving' as const, 'idle' as const),
  });
  return fc.tuple(fc.integer({ min: 0, max: 86_400 }), fc.array(piece, { maxLength: 8 }), fc.boolean()).map(([lead, pieces, open]) => {
    const segments: SegmentInput[] = [];
    let at = start - lead;
    for (const { gap, length, state } of pieces) {
      if (at + gap >= end + 86_400) break;
      segments.push({ startedAt: at + gap, endedAt: at + gap + length, state });
      at += gap + length;
    }
    if (open && segments.length > 0) segments[segments.length - 1] = { ...segments[segments.length - 1]!, endedAt: null };
    return segments;
  });
}

/** A window, a calendar (or none), segments and now: everything dayFields reads. */
function arbitraryCase(dates: fc.Arbitrary<{ timeZone: string; from: string; length: number }>) {
  return dates.chain(({ timeZone, from, length }) => {
    const to = addDays(from, length);
    const buckets = bucketsOf(timeZone, from, to);
    const start = buckets.boundaries[0]!;
    const end = buckets.boundaries[buckets.boundaries.length - 1]!;
    return fc.record({
      timeZone: fc.constant(timeZone),
      buckets: fc.constant(buckets),
      calendar: fc.option(arbitraryCalendar(from, length), { nil: null, freq: 5 }),
      segments: arbitrarySegments(start, end),
      now: fc.oneof(fc.constant(end + 86_400), fc.integer({ min: start, max: end })),
    });
  });
}

function expectOracleAgrees({ timeZone, buckets, calendar, segments, now }: CaseOf) {
  const fields: DayFields[] = dayFields({ segments, timeZone, calendar, buckets, now });
  const expected = oracleDayFields({ dates: buckets.dates, calendar, segments, timeZone, now });
  const capped = buckets.boundaries.map((boundary) => Math.min(boundary, now));
  const engine = sumSegmentsByBucket(segments, capped, now).map((bucket) => bucket.movingSeconds + bucket.idleSeconds);
  fields.forEach((day, index) => {
    const { date, engineSeconds, ...oracle } = expected[index]!;
    expect({ date, ...day }).toEqual({ date, ...oracle });
    expect(engineSeconds).toBe(engine[index]);
    expect(day.engineInScheduleSeconds + day.engineOutsideScheduleSeconds).toBe(engine[index]);
  });
}

interface CaseOf {
  readonly timeZone: string;
  readonly buckets: ReturnType<typeof bucketsOf>;
  readonly calendar: WorkCalendar | null;
  readonly segments: SegmentInput[];
  readonly now: number;
}

describe('dayFields() agrees with an Intl oracle that walks the wall clock minute by minute (D58, D59)', () => {
  it('over random windows, calendars and segments in every IANA zone', () => {
    const dates = fc.record({
      timeZone: fc.constantFrom(...ALL_ZONES),
      from: fc.integer({ min: 0, max: daysBetween('1990-01-01', '2037-12-31') }).map((offset) => addDays('1990-01-01', offset)),
      length: fc.integer({ min: 0, max: 3 }),
    });
    fc.assert(fc.property(arbitraryCase(dates), expectOracleAgrees), { numRuns: 60 });
  });

  it('schedules the whole of every day for a 00:00–24:00 calendar, over long windows in every IANA zone (P110)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ALL_ZONES),
        fc.integer({ min: 0, max: daysBetween('1900-01-01', '2099-12-31') }),
        (timeZone, offset) => {
          const from = addDays('1900-01-01', offset);
          const buckets = bucketsOf(timeZone, from, addDays(from, 120));
          const now = buckets.boundaries[buckets.dates.length]!; // the window is past
          dayFields({ segments: [], timeZone, calendar: ALL_DAY, buckets, now }).forEach((day, index) => {
            expect(day.scheduledSeconds).toBe(day.daySeconds);
            expect(day.daySeconds).toBe(buckets.boundaries[index + 1]! - buckets.boundaries[index]!);
          });
        },
      ),
      { numRuns: 100 },
    );
  });

  it('over the days around clock changes in the hard zones', () => {
    // The windows are picked at a change Temporal names; the oracle itself never asks Temporal.
    const dates = fc
      .record({
        timeZone: fc.constantFrom(...HARD_ZONES),
        instant: fc.integer({ min: Date.UTC(1995, 0, 1) / 1000, max: Date.UTC(2036, 0, 1) / 1000 }),
        before: fc.integer({ min: 0, max: 1 }),
        length: fc.integer({ min: 0, max: 2 }),
      })
      .map(({ timeZone, instant, before, length }) => {
        const change = Temporal.Instant.fromEpochMilliseconds(instant * 1000)
          .toZonedDateTimeISO(timeZone)
          .getTimeZoneTransition('next');
        const date = (change ?? Temporal.Instant.fromEpochMilliseconds(instant * 1000).toZonedDateTimeISO(timeZone))
          .toPlainDate()
          .toString();
        return { timeZone, from: addDays(date, -before), length: before + length };
      })
      .filter(({ from }) => from < '2037-06-01');
    fc.assert(fc.property(arbitraryCase(dates), expectOracleAgrees), { numRuns: 60 });
  });
});
