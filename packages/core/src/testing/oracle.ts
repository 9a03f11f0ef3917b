/**
 * Brute-force oracles for the core's tests. Test-only: not exported from `testing/index.ts`.
 *
 * Everything about zones here goes through `Intl.DateTimeFormat` and plain `Date.UTC` calendar
 * arithmetic, never Temporal, so the core (which uses Temporal) is checked against an independent
 * computation: local dates are read per instant, day starts are found by stepping hours and then
 * minutes, and seconds are counted per minute or per second.
 */
import type { BucketSeconds, SegmentInput, SegmentState } from '../types.js';

const dateFormatters = new Map<string, Intl.DateTimeFormat>();
const wallFormatters = new Map<string, Intl.DateTimeFormat>();

function _dateFormatter(timeZone: string): Intl.DateTimeFormat {
  let formatter = dateFormatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    dateFormatters.set(timeZone, formatter);
  }
  return formatter;
}

function _wallFormatter(timeZone: string): Intl.DateTimeFormat {
  let formatter = wallFormatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
      timeZoneName: 'longOffset',
    });
    wallFormatters.set(timeZone, formatter);
  }
  return formatter;
}

function _parts(formatter: Intl.DateTimeFormat, epochSeconds: number): Record<string, string> {
  const parts: Record<string, string> = {};
  for (const part of formatter.formatToParts(epochSeconds * 1000)) parts[part.type] = part.value;
  return parts;
}

/** The local date (`YYYY-MM-DD`) at an instant, read from Intl. */
export function intlLocalDate(epochSeconds: number, timeZone: string): string {
  const parts = _parts(_dateFormatter(timeZone), epochSeconds);
  return `${parts.year!.padStart(4, '0')}-${parts.month}-${parts.day}`;
}

/** A D9 timestamp built from Intl's wall clock and its `GMT±hh:mm` offset name. */
export function intlFormatInstant(epochSeconds: number, timeZone: string): string {
  const parts = _parts(_wallFormatter(timeZone), Math.floor(epochSeconds));
  const name = parts.timeZoneName!;
  const offset = name === 'GMT' ? '+00:00' : name.replace(/^GMT/, '');
  return `${parts.year!.padStart(4, '0')}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${offset}`;
}

/** `YYYY-MM-DD` plus `days` calendar days, by `Date.UTC` arithmetic. */
export function addDays(date: string, days: number): string {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(year, month - 1, day + days)).toISOString().slice(0, 10);
}

/** Whole calendar days from `earlier` to `later`. */
export function daysBetween(earlier: string, later: string): number {
  const utc = (date: string) => {
    const [year, month, day] = date.split('-').map(Number) as [number, number, number];
    return Date.UTC(year, month - 1, day);
  };
  return Math.round((utc(later) - utc(earlier)) / 86_400_000);
}

/**
 * The first instant whose local date is `date` or later, by brute force: from 16 hours before
 * UTC midnight of that date (every zone is then still on an earlier date) step an hour at a time,
 * then a minute at a time. Exact because the zones under test change offset on whole minutes.
 */
export function intlStartOfDay(date: string, timeZone: string): number {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  let instant = Date.UTC(year, month - 1, day) / 1000 - 16 * 3600;
  if (intlLocalDate(instant, timeZone) >= date) throw new Error(`Oracle: ${timeZone} is already on ${date} at its lower bound`);
  while (intlLocalDate(instant + 3600, timeZone) < date) instant += 3600;
  while (intlLocalDate(instant, timeZone) < date) instant += 60;
  return instant;
}

/** The window the oracle expects for `/hours` and `/hours/daily` (D4–D7), or the refusal. */
export type OracleWindow =
  | { readonly refused: true }
  | {
      readonly refused: false;
      readonly fromDate: string;
      readonly toDate: string;
      readonly dates: readonly string[];
      readonly start: number;
      readonly end: number;
      readonly reportedTo: number;
      readonly clamped: boolean;
    };

/** D4–D7 applied by the oracle: defaults, the clamp and the day starts, all from Intl. */
export function oracleWindow(input: {
  readonly from?: string | undefined;
  readonly to?: string | undefined;
  readonly now: number;
  readonly timeZone: string;
  readonly maxDays?: number;
  readonly defaultDays?: number;
}): OracleWindow {
  const now = Math.floor(input.now);
  const toDate = input.to ?? intlLocalDate(now, input.timeZone);
  const earliest = addDays(toDate, -(input.maxDays ?? 365));
  let fromDate = input.from ?? addDays(toDate, -(input.defaultDays ?? 7));
  const clamped = fromDate < earliest;
  if (clamped) fromDate = earliest;
  if (fromDate > toDate) return { refused: true };
  const dates: string[] = [];
  for (let date = fromDate; date <= toDate; date = addDays(date, 1)) dates.push(date);
  const start = intlStartOfDay(fromDate, input.timeZone);
  const end = input.to === undefined ? now : intlStartOfDay(addDays(toDate, 1), input.timeZone);
  return { refused: false, fromDate, toDate, dates, start, end, reportedTo: input.to === undefined ? now : end - 1, clamped };
}

/**
 * Seconds per local date by walking the window minute by minute: each minute `[t, t + 60)` (cut at
 * `end`) goes to the Intl local date of `t`, and each segment adds its overlap with that minute.
 * Closed segments count as stored; an open one counts up to `now` (D1).
 */
export function oracleDailySeconds(
  segments: readonly SegmentInput[],
  window: { readonly dates: readonly string[]; readonly start: number; readonly end: number },
  now: number,
  timeZone: string,
): Map<string, BucketSeconds> {
  const totals = new Map<string, { movingSeconds: number; idleSeconds: number }>();
  for (const date of window.dates) totals.set(date, { movingSeconds: 0, idleSeconds: 0 });
  for (let minute = window.start; minute < window.end; minute += 60) {
    const pieceEnd = Math.min(minute + 60, window.end);
    const date = intlLocalDate(minute, timeZone);
    const day = totals.get(date);
    if (!day) throw new Error(`Oracle: minute ${minute} falls on ${date}, outside the window's dates`);
    for (const segment of segments) {
      const overlap = Math.min(pieceEnd, segment.endedAt ?? now) - Math.max(minute, segment.startedAt);
      if (overlap <= 0) continue;
      if (segment.state === 'moving') day.movingSeconds += overlap;
      else day.idleSeconds += overlap;
    }
  }
  return totals;
}

/** Bucket sums by looking at every single second of the range: the reference for `sumSegmentsByBucket`. */
export function bruteSumByBucket(
  segments: readonly { readonly startedAt: number; readonly endedAt: number | null; readonly state: SegmentState }[],
  boundaries: readonly number[],
  now: number,
): BucketSeconds[] {
  const buckets = boundaries.slice(1).map(() => ({ movingSeconds: 0, idleSeconds: 0 }));
  if (buckets.length === 0) return [];
  for (let second = boundaries[0]!; second < boundaries[boundaries.length - 1]!; second += 1) {
    let bucket = -1;
    for (let index = 0; index < buckets.length; index += 1) {
      if (boundaries[index]! <= second && second < boundaries[index + 1]!) bucket = index;
    }
    for (const segment of segments) {
      if (segment.startedAt <= second && second < (segment.endedAt ?? now)) {
        if (segment.state === 'moving') buckets[bucket]!.movingSeconds += 1;
        else buckets[bucket]!.idleSeconds += 1;
      }
    }
  }
  return buckets;
}

/**
 * D2 simulated second by second: a second belongs to the latest point at or before it (the last
 * of several at the same time), if that point is not the final one, has ignition on and is less
 * than `maxGapSeconds` old. Runs of seconds in one state become segments.
 */
export function simulateTelemetry(
  points: readonly { readonly time: number; readonly ignition: boolean; readonly speedKmh: number }[],
  options: { readonly movingSpeedKmh: number; readonly maxGapSeconds: number },
): SegmentInput[] {
  const ordered = points
    .map((point, index) => ({ ...point, time: Math.floor(point.time), index }))
    .sort((a, b) => a.time - b.time || a.index - b.index);
  const segments: { startedAt: number; endedAt: number; state: SegmentState }[] = [];
  if (ordered.length === 0) return segments;
  const first = ordered[0]!.time;
  const last = ordered[ordered.length - 1]!.time;
  for (let second = first; second < last; second += 1) {
    let governing = -1;
    for (let index = 0; index < ordered.length; index += 1) if (ordered[index]!.time <= second) governing = index;
    const point = ordered[governing]!;
    let state: SegmentState | null = null;
    if (governing < ordered.length - 1 && point.ignition && second < point.time + options.maxGapSeconds) {
      state = point.speedKmh >= options.movingSpeedKmh ? 'moving' : 'idle';
    }
    if (state === null) continue;
    const previous = segments[segments.length - 1];
    if (previous && previous.state === state && previous.endedAt === second) previous.endedAt = second + 1;
    else segments.push({ startedAt: second, endedAt: second + 1, state });
  }
  return segments;
}
