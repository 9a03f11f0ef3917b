/**
 * A brute-force oracle for work calendars and the day fields (D58, D59). Test-only: not exported
 * from `testing/index.ts`.
 *
 * It shares no path with the core: the wall clock is read from `Intl.DateTimeFormat` on a grid of
 * whole minutes (an hour at a time, and minute by minute where the offset changed within the hour),
 * a wall time's instant is found by scanning that grid, a minute is scheduled when some window holds
 * it (no union of intervals), and the first and last engine instants are found by testing "is the
 * engine on at this second" at every candidate second. Exact for zones whose offsets are whole
 * minutes, as every zone's are since 1972.
 */
import fc from 'fast-check';
import type { SegmentInput } from '../types.js';
import { WEEKDAYS, type CalendarWindow, type Weekday, type WorkCalendar } from '../calendar/work-calendar.js';
import { addDays } from './oracle.js';

const MINUTE = 60;
const HOUR = 3600;
const DAY = 86_400;
const WEEKDAY_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
const formatters = new Map<string, Intl.DateTimeFormat>();

/** The wall clock of `timeZone` at an instant, as seconds read as if UTC, from Intl. */
function intlWallSeconds(epochSeconds: number, timeZone: string): number {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    const numeric = { year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' } as const;
    formatter = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', ...numeric });
    formatters.set(timeZone, formatter);
  }
  const parts: Record<string, number> = {};
  for (const part of formatter.formatToParts(epochSeconds * 1000)) parts[part.type] = Number(part.value);
  return Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!) / 1000;
}

/** `YYYY-MM-DD` of a wall-seconds value. */
const dateOfWall = (wall: number) => new Date(Math.floor(wall / DAY) * DAY * 1000).toISOString().slice(0, 10);
/** Wall seconds of a date's midnight. */
const midnightOf = (date: string) => Date.parse(`${date}T00:00:00Z`) / 1000;
const minutesOf = (text: string) => Number(text.slice(0, 2)) * 60 + Number(text.slice(3, 5));

/** The wall clock of a zone at every whole minute of a range, read from Intl. */
export class IntlWallClock {
  /** Wall seconds at `first + 60 × i`. */
  private readonly walls: number[] = [];

  constructor(
    readonly timeZone: string,
    readonly first: number,
    last: number,
  ) {
    if (first % MINUTE !== 0) throw new Error('Oracle: the grid starts on a whole minute');
    let offset = intlWallSeconds(first, timeZone) - first;
    for (let hour = first; hour <= last; hour += HOUR) {
      const next = intlWallSeconds(hour + HOUR, timeZone) - (hour + HOUR);
      for (let minute = hour; minute < hour + HOUR; minute += MINUTE) {
        const wall = next === offset ? minute + offset : intlWallSeconds(minute, timeZone);
        if ((wall - minute) % MINUTE !== 0) throw new Error(`Oracle: ${timeZone} has an offset of odd seconds at ${minute}`);
        this.walls.push(wall);
      }
      offset = next;
    }
  }

  /** The first grid instant whose wall clock reads `wall` or later: a start, a day's first instant. */
  firstAtOrAfter(wall: number): number {
    for (let index = 0; index < this.walls.length; index += 1) if (this.walls[index]! >= wall) return this.first + index * MINUTE;
    throw new Error('Oracle: the grid ends before the wall time');
  }

  /** The end of the last grid minute whose wall clock reads earlier than `wall`: an end. */
  endBefore(wall: number): number {
    for (let index = this.walls.length - 1; index >= 0; index -= 1) if (this.walls[index]! < wall) return this.first + (index + 1) * MINUTE;
    throw new Error('Oracle: the grid starts after the wall time');
  }

  /** The local date of the grid minute that starts at `instant`. */
  dateAt(instant: number): string {
    return dateOfWall(this.walls[(instant - this.first) / MINUTE]!);
  }
}

/** A window's instants as the oracle finds them, `[start, end)`; empty ones included. */
export function oracleWindowsOf(calendar: WorkCalendar, date: string, clock: IntlWallClock): [number, number][] {
  const exception = calendar.exceptions.find((candidate) => candidate.date === date);
  const weekday = WEEKDAY_NAMES[new Date(midnightOf(date) * 1000).getUTCDay()]!;
  const windows = exception ? exception.windows : calendar.weekly[weekday];
  const midnight = midnightOf(date);
  return windows.map(([start, end]) => {
    const startMinutes = minutesOf(start);
    const from = clock.firstAtOrAfter(midnight + startMinutes * 60);
    if (end === '24:00') return [from, clock.firstAtOrAfter(midnight + DAY)];
    const endMinutes = minutesOf(end);
    return [from, clock.endBefore(midnight + endMinutes * 60 + (endMinutes < startMinutes ? DAY : 0))];
  });
}

/** The day fields the oracle expects for one date (D59), and the engine seconds it counted. */
export interface OracleDay {
  readonly date: string;
  readonly daySeconds: number;
  readonly scheduledSeconds: number;
  readonly engineSeconds: number;
  readonly engineInScheduleSeconds: number;
  readonly engineOutsideScheduleSeconds: number;
  readonly firstEngineOn: number | null;
  readonly lastEngineOff: number | null;
}

/**
 * The day fields of `dates` (consecutive local dates) by brute force: every minute of the grid is
 * given to the local date Intl reads at it; it is scheduled when a window of any date near it holds
 * it; engine seconds are each segment's overlap with the minute, cut at now.
 */
export function oracleDayFields(input: {
  readonly dates: readonly string[];
  readonly calendar: WorkCalendar | null;
  readonly segments: readonly SegmentInput[];
  readonly timeZone: string;
  readonly now: number;
}): OracleDay[] {
  const { dates, calendar, segments, timeZone, now } = input;
  const clock = new IntlWallClock(timeZone, midnightOf(dates[0]!) - 3 * DAY, midnightOf(dates[dates.length - 1]!) + 4 * DAY);
  const windows: [number, number][] = [];
  if (calendar) {
    for (let day = midnightOf(dates[0]!) - 2 * DAY; day <= midnightOf(dates[dates.length - 1]!); day += DAY) {
      windows.push(...oracleWindowsOf(calendar, dateOfWall(day), clock));
    }
  }
  const on = (second: number) => second < now && segments.some((s) => s.startedAt <= second && second < (s.endedAt ?? Infinity));
  return dates.map((date) => {
    const dayStart = clock.firstAtOrAfter(midnightOf(date));
    const dayEnd = clock.firstAtOrAfter(midnightOf(date) + DAY);
    let scheduledSeconds = 0;
    let engineSeconds = 0;
    let engineInScheduleSeconds = 0;
    for (let minute = dayStart; minute < dayEnd; minute += MINUTE) {
      if (clock.dateAt(minute) !== date) throw new Error(`Oracle: ${minute} is not on ${date}`);
      const minuteEnd = Math.min(minute + MINUTE, now);
      if (minuteEnd <= minute) break;
      const scheduled = windows.some(([start, end]) => start <= minute && minute < end);
      if (scheduled) scheduledSeconds += minuteEnd - minute;
      for (const segment of segments) {
        const overlap = Math.min(minuteEnd, segment.endedAt ?? now) - Math.max(minute, segment.startedAt);
        if (overlap <= 0) continue;
        engineSeconds += overlap;
        if (scheduled) engineInScheduleSeconds += overlap;
      }
    }
    // Candidate seconds: a change of "on" happens only at the day's edges, now, or a segment's ends.
    const last = Math.min(dayEnd, now);
    const edges = [dayStart, last, ...segments.flatMap((s) => [s.startedAt, s.endedAt ?? now])];
    const inside = edges.filter((second) => dayStart <= second && second < last);
    const firstOn = inside.filter(on).sort((a, b) => a - b)[0] ?? null;
    const lastOnSecond = [...inside.map((second) => second - 1), last - 1].filter((s) => s >= dayStart && s < last && on(s));
    let lastEngineOff: number | null = null;
    if (lastOnSecond.length > 0) {
      const off = Math.max(...lastOnSecond) + 1;
      if (off >= dayEnd) lastEngineOff = dayEnd;
      else if (off === now && segments.some((s) => s.startedAt < now && (s.endedAt === null || s.endedAt > now))) lastEngineOff = null;
      else lastEngineOff = off;
    }
    return {
      date,
      daySeconds: dayEnd - dayStart,
      scheduledSeconds,
      engineSeconds,
      engineInScheduleSeconds,
      engineOutsideScheduleSeconds: engineSeconds - engineInScheduleSeconds,
      firstEngineOn: firstOn,
      lastEngineOff,
    };
  });
}

/** A calendar with the same windows every day, or windows per weekday, and its exceptions. */
export function calendarOf(
  windows: readonly CalendarWindow[] | Partial<Record<Weekday, readonly CalendarWindow[]>>,
  exceptions: WorkCalendar['exceptions'] = [],
): WorkCalendar {
  const perDay = Array.isArray(windows) ? null : (windows as Partial<Record<Weekday, readonly CalendarWindow[]>>);
  const weekly = Object.fromEntries(WEEKDAYS.map((day) => [day, perDay ? (perDay[day] ?? []) : windows])) as WorkCalendar['weekly'];
  return { weekly, exceptions };
}

const wallText = (minutes: number) => `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

/**
 * A random window: starts and ends anywhere, often on the hours clocks change at (00:00–04:00) and
 * near midnight; an end before the start crosses midnight; `"24:00"` sometimes.
 */
export const arbitraryWindow: fc.Arbitrary<CalendarWindow> = fc
  .tuple(
    fc.oneof(fc.integer({ min: 0, max: 1439 }), fc.constantFrom(0, 30, 60, 90, 120, 150, 180, 210, 240, 1320, 1380, 1410)),
    fc.oneof(fc.integer({ min: 0, max: 1440 }), fc.constantFrom(0, 60, 120, 150, 180, 240, 360, 1440)),
  )
  .filter(([start, end]) => start !== end)
  .map(([start, end]): CalendarWindow => [wallText(start), end === 1440 ? '24:00' : wallText(end)]);

/**
 * A random calendar for a window starting on `fromDate`: up to three windows a weekday (they may
 * overlap: the schedule is their union), a whole day now and then, and exceptions on dates around
 * the window (holidays, other windows).
 */
export function arbitraryCalendar(fromDate: string, days: number): fc.Arbitrary<WorkCalendar> {
  const dayWindows = fc.oneof(
    { weight: 6, arbitrary: fc.array(arbitraryWindow, { maxLength: 3 }) },
    { weight: 1, arbitrary: fc.constant([['00:00', '24:00']] as CalendarWindow[]) },
  );
  const exception = fc.record({ delta: fc.integer({ min: -2, max: days }), windows: dayWindows });
  return fc
    .tuple(fc.array(dayWindows, { minLength: 7, maxLength: 7 }), fc.array(exception, { maxLength: 3 }))
    .map(([perDay, exceptions]) => {
      const byDate = new Map(exceptions.map(({ delta, windows }) => [addDays(fromDate, delta), windows] as const));
      const weekly: Partial<Record<Weekday, readonly CalendarWindow[]>> = Object.fromEntries(
        WEEKDAYS.map((day, index) => [day, perDay[index]!]),
      );
      return calendarOf(
        weekly,
        [...byDate].map(([date, windows]) => ({ date, windows })),
      );
    });
}

// Zones whose days are hard (midnight skipped or repeated, 30- and 45-minute offsets, a skipped date).
export const HARD_ZONES = [
  'America/New_York',
  'America/Sao_Paulo',
  'America/Havana',
  'Asia/Beirut',
  'Australia/Lord_Howe',
  'Asia/Kathmandu',
  'Pacific/Apia',
  'Pacific/Chatham',
  'Europe/Berlin',
  'UTC',
];
/** Every IANA zone Intl knows, the hard ones included. */
export const ALL_ZONES = [...new Set([...Intl.supportedValuesOf('timeZone'), ...HARD_ZONES])];
