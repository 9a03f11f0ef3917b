import type { CountableSegment } from '../engine/sum-by-bucket.js';
import type { DayBuckets } from '../window/day-buckets.js';
import { DaySchedules, epochDayOfDate } from './calendar-schedule.js';
import type { WorkCalendar } from './work-calendar.js';

/** What {@link dayFields} reads: a device's segments, zone and calendar, the days of a window, now. */
export interface DayFieldsInput {
  /** The device's segments (D1), in time order for speed; an open one (`endedAt: null`) counts up to `now`. */
  readonly segments: Iterable<CountableSegment>;
  /** IANA zone name of the device. */
  readonly timeZone: string;
  /** The device's calendar (its own, else its account's), or `null` for none. */
  readonly calendar: WorkCalendar | null;
  /** The days of the window, as `dayBuckets` makes them. */
  readonly buckets: DayBuckets;
  /** Epoch seconds: nothing after it counts (P1, P106). */
  readonly now: number;
}

/** The fields a daily entry gains from the device's calendar and engine runs (D59). */
export interface DayFields {
  /** The local day's true length: 86,400, 82,800, 90,000, or the zone's odd lengths (0 for a day that does not exist, P2). */
  readonly daySeconds: number;
  /** Seconds of the day inside the calendar's windows, up to now (P106); 0 without a calendar. */
  readonly scheduledSeconds: number;
  /** Engine seconds inside the windows. */
  readonly engineInScheduleSeconds: number;
  /** Engine seconds outside the windows; with the inside ones, the day's engine seconds. */
  readonly engineOutsideScheduleSeconds: number;
  /** Epoch seconds: the first instant of the day with the engine on (the day's start for a run already on), or `null`. */
  readonly firstEngineOn: number | null;
  /**
   * Epoch seconds: the last instant the engine turned off that day; the first instant of the next
   * day for a run still on at the day's end; `null` for a run still on now, or a day without one.
   */
  readonly lastEngineOff: number | null;
}

/** A run of engine time: touching segments of either state, clipped at now; `live` when it runs on at now. */
interface EngineRun {
  readonly start: number;
  end: number;
  live: boolean;
}

/**
 * The day fields of a device's daily entries (D59): per day of `buckets`, its true length, the
 * scheduled seconds of its calendar (D58), the engine seconds inside and outside them, and the first
 * instant the engine was on and the last it turned off. The engine is on inside any moving or idle
 * segment; touching segments are one run. A day counts from its bucket's start to its end or to
 * `now`, whichever is first, as the daily entries do (P1).
 *
 * One sweep over the segments, the days and their windows: no loop over seconds, and no Temporal
 * call per day or segment (day starts and windows come from the zone's cached offsets).
 *
 * @param input The segments, zone, calendar, days and now.
 * @returns One entry per date of `buckets`, in their order.
 * @throws {RangeError} When the zone or a window of the calendar cannot be read.
 * @example
 * ```ts
 * import { dayBuckets, dayFields, parseWindowQuery, resolveWindow } from '@fleet-hours/core';
 * const shift = [['07:00', '17:00']] as const;
 * const calendar = { weekly: { mon: shift, tue: shift, wed: shift, thu: shift, fri: shift, sat: [], sun: [] }, exceptions: [] };
 * const window = resolveWindow({ ...parseWindowQuery({ from: '2026-03-09', to: '2026-03-09' }), now: 1_800_000_000, timeZone: 'UTC' });
 * // A Monday: the engine runs 06:00–08:00 UTC.
 * const segments = [{ startedAt: 1_773_036_000, endedAt: 1_773_043_200, state: 'moving' as const }];
 * dayFields({ segments, timeZone: 'UTC', calendar, buckets: dayBuckets(window), now: 1_800_000_000 });
 * // [{ daySeconds: 86400, scheduledSeconds: 36000, engineInScheduleSeconds: 3600, engineOutsideScheduleSeconds: 3600,
 * //    firstEngineOn: 1773036000, lastEngineOff: 1773043200 }]
 * ```
 */
export function dayFields(input: DayFieldsInput): DayFields[] {
  const { buckets, now } = input;
  const segments = _inTimeOrder(input.segments);
  const runs = _engineRuns(segments, now);
  const days = new DaySchedules(input.calendar, input.timeZone);
  const fields: DayFields[] = [];
  let segmentIndex = 0;
  let runIndex = 0;
  for (let index = 0; index < buckets.dates.length; index += 1) {
    const { dayStart, dayEnd, schedule } = days.of(epochDayOfDate(buckets.dates[index]!));
    const from = buckets.boundaries[index]!;
    const to = Math.min(buckets.boundaries[index + 1]!, now);
    while (segmentIndex < segments.length && _endOf(segments[segmentIndex]!, now) <= from) segmentIndex += 1;
    while (runIndex < runs.length && runs[runIndex]!.end <= from) runIndex += 1;
    const { engine, inSchedule } = _engineSeconds(segments, segmentIndex, schedule, from, to, now);
    let firstEngineOn: number | null = null;
    let lastEngineOff: number | null = null;
    // A day of no length (P2), or one after now, holds no run.
    for (let run = runIndex; from < to && run < runs.length && runs[run]!.start < to; run += 1) {
      const { start, end, live } = runs[run]!;
      if (end <= from) continue;
      firstEngineOn ??= Math.max(start, from);
      lastEngineOff = end >= dayEnd ? dayEnd : live ? null : end;
    }
    fields.push({
      daySeconds: dayEnd - dayStart,
      scheduledSeconds: _overlap(schedule, 0, from, to).seconds,
      engineInScheduleSeconds: inSchedule,
      engineOutsideScheduleSeconds: engine - inSchedule,
      firstEngineOn,
      lastEngineOff,
    });
  }
  return fields;
}

/** The engine seconds of `[from, to)` and those inside the schedule, from the segments from `first` on. */
function _engineSeconds(
  segments: readonly CountableSegment[],
  first: number,
  schedule: readonly number[],
  from: number,
  to: number,
  now: number,
): { engine: number; inSchedule: number } {
  let engine = 0;
  let inSchedule = 0;
  let cursor = 0; // the first schedule interval that may meet the next piece: pieces start in order
  for (let index = first; index < segments.length && segments[index]!.startedAt < to; index += 1) {
    const start = Math.max(segments[index]!.startedAt, from);
    const end = Math.min(_endOf(segments[index]!, now), to);
    if (end <= start) continue;
    engine += end - start;
    const overlap = _overlap(schedule, cursor, start, end);
    inSchedule += overlap.seconds;
    cursor = overlap.cursor;
  }
  return { engine, inSchedule };
}

/** Seconds of flat intervals (from interval `cursor` on) inside `[from, to)`, and the interval the next search starts at. */
function _overlap(intervals: readonly number[], cursor: number, from: number, to: number): { seconds: number; cursor: number } {
  let index = cursor;
  while (index < intervals.length && intervals[index + 1]! <= from) index += 2;
  let seconds = 0;
  for (let at = index; at < intervals.length && intervals[at]! < to; at += 2) {
    seconds += Math.max(0, Math.min(intervals[at + 1]!, to) - Math.max(intervals[at]!, from));
  }
  return { seconds, cursor: index };
}

/** Merged runs of engine time up to now, in time order. */
function _engineRuns(segments: readonly CountableSegment[], now: number): EngineRun[] {
  const runs: EngineRun[] = [];
  for (const segment of segments) {
    const end = _endOf(segment, now);
    if (end <= segment.startedAt) continue;
    const live = segment.endedAt === null || segment.endedAt > now;
    const last = runs[runs.length - 1];
    if (last !== undefined && segment.startedAt <= last.end) {
      if (end >= last.end) {
        last.live = end > last.end ? live : last.live || live;
        last.end = end;
      }
    } else runs.push({ start: segment.startedAt, end, live });
  }
  return runs;
}

/** Where a segment stops counting: its end or now (P1), whichever is first. */
function _endOf(segment: CountableSegment, now: number): number {
  return segment.endedAt === null ? now : Math.min(segment.endedAt, now);
}

function _inTimeOrder(segments: Iterable<CountableSegment>): readonly CountableSegment[] {
  const list = Array.isArray(segments) ? (segments as readonly CountableSegment[]) : [...segments];
  for (let index = 1; index < list.length; index += 1) {
    if (list[index]!.startedAt < list[index - 1]!.startedAt) return [...list].sort((a, b) => a.startedAt - b.startedAt);
  }
  return list;
}
