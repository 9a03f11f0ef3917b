import { SECONDS_PER_DAY, isoDateOfEpochDay } from '../time/iso-days.js';
import { offsetIn, startOfDayIn, yearOffsets, type YearOffsets } from '../time/zone-offsets.js';
import type { CountableSegment } from './sum-by-bucket.js';

/**
 * The engine time of closed segments in one local day of a zone (D27): the day is
 * `[dayStart, dayEnd)` in epoch seconds, exactly the bucket `dayBuckets` gives that date.
 */
export interface DayFigure {
  /** Epoch seconds: the first instant of the local day (D4). */
  readonly dayStart: number;
  /** Epoch seconds: the first instant of the next local day. */
  readonly dayEnd: number;
  readonly movingSeconds: number;
  readonly idleSeconds: number;
}

/**
 * Per-local-day figures of closed segments (D27): every second of every closed segment, counted in
 * the local day of `timeZone` it falls in. Open segments (`endedAt === null`) are left out: they
 * cannot be final and are counted at read time. The days are the buckets `dayBuckets` makes
 * (a 23- or 25-hour day is one day of its real length; a day that does not exist locally, P2,
 * holds nothing), so a store that keeps these figures can answer a past day of `/hours/daily`
 * from one row, and any window from the days inside it plus its edges.
 *
 * No Temporal call per segment: day starts come from the zone's cached offsets.
 *
 * @param segments Segments in any order (time order is fastest); they should not overlap (D1).
 * @param timeZone IANA zone name.
 * @returns One entry per day holding engine time, ascending by `dayStart`.
 * @throws {RangeError} When `timeZone` is not a zone.
 * @example
 * ```ts
 * import { dailyFigures } from '@fleet-hours/core/adapter';
 * // 23:00 to 01:00 UTC: an hour on each side of midnight.
 * dailyFigures([{ startedAt: 1_767_222_000, endedAt: 1_767_229_200, state: 'moving' }], 'UTC');
 * // [{ dayStart: 1767139200, dayEnd: 1767225600, movingSeconds: 3600, idleSeconds: 0 },
 * //  { dayStart: 1767225600, dayEnd: 1767312000, movingSeconds: 3600, idleSeconds: 0 }]
 * ```
 */
export function dailyFigures(segments: Iterable<CountableSegment>, timeZone: string): DayFigure[] {
  const totals = new Map<number, { dayEnd: number; moving: number; idle: number }>();
  _addContributions(totals, segments, timeZone, 1);
  return _sorted(totals);
}

/**
 * How a write changes the per-day figures of a device (D27): the figures of the closed segments
 * it adds minus those of the closed segments it removes, day by day. Days whose change is zero
 * are left out. A store adds these to its stored figures in the transaction of the write.
 *
 * @param changes The segments a write removes and adds (open ones are ignored, see {@link dailyFigures}).
 * @param timeZone IANA zone name of the device.
 * @returns Signed changes, ascending by `dayStart`.
 * @example
 * ```ts
 * import { dailyFigureChanges } from '@fleet-hours/core/adapter';
 * // An open segment closed at 00:10 UTC: ten minutes appear in that day.
 * dailyFigureChanges({
 *   removed: [{ startedAt: 1_767_225_600, endedAt: null, state: 'idle' }],
 *   added: [{ startedAt: 1_767_225_600, endedAt: 1_767_226_200, state: 'idle' }],
 * }, 'UTC');
 * // [{ dayStart: 1767225600, dayEnd: 1767312000, movingSeconds: 0, idleSeconds: 600 }]
 * ```
 */
export function dailyFigureChanges(
  changes: { readonly removed: Iterable<CountableSegment>; readonly added: Iterable<CountableSegment> },
  timeZone: string,
): DayFigure[] {
  const totals = new Map<number, { dayEnd: number; moving: number; idle: number }>();
  _addContributions(totals, changes.removed, timeZone, -1);
  _addContributions(totals, changes.added, timeZone, 1);
  return _sorted(totals).filter((figure) => figure.movingSeconds !== 0 || figure.idleSeconds !== 0);
}

function _sorted(totals: Map<number, { dayEnd: number; moving: number; idle: number }>): DayFigure[] {
  return [...totals]
    .sort(([a], [b]) => a - b)
    .map(([dayStart, { dayEnd, moving, idle }]) => ({ dayStart, dayEnd, movingSeconds: moving, idleSeconds: idle }));
}

/** Adds `sign` × each closed segment's seconds to the days they fall in. */
function _addContributions(
  totals: Map<number, { dayEnd: number; moving: number; idle: number }>,
  segments: Iterable<CountableSegment>,
  timeZone: string,
  sign: 1 | -1,
): void {
  const days = new _LocalDays(timeZone);
  for (const segment of segments) {
    if (segment.endedAt === null) continue;
    const end = segment.endedAt;
    let from = segment.startedAt;
    if (end <= from) continue;
    days.seek(from);
    for (;;) {
      const pieceEnd = Math.min(end, days.end);
      let day = totals.get(days.start);
      if (day === undefined) {
        day = { dayEnd: days.end, moving: 0, idle: 0 };
        totals.set(days.start, day);
      }
      if (segment.state === 'moving') day.moving += sign * (pieceEnd - from);
      else day.idle += sign * (pieceEnd - from);
      from = pieceEnd;
      if (from >= end) break;
      days.next();
    }
  }
}

/**
 * A cursor over the local days of a zone: `[start, end)` is the current day, the bucket
 * `dayBuckets` gives its date (`startOfLocalDay` of the date and of the next date). Days of zero
 * length (P2) are stepped over, so the current day always holds the instant sought.
 */
class _LocalDays {
  /** Epoch seconds: the current day's first instant. */
  start = Number.NaN;
  /** Epoch seconds: the next day's first instant. */
  end = Number.NaN;
  private epochDay = Number.NaN;
  private offsetsYear = Number.NaN;
  private offsets: YearOffsets | undefined;

  constructor(private readonly timeZone: string) {}

  /** Makes the current day the one holding `instant`. */
  seek(instant: number): void {
    if (this.start <= instant && instant < this.end) return;
    // The wall-clock date at the instant is the day, except around a transition at midnight:
    // then the neighbouring day is, and the loops below step to it.
    const utcTable = this._offsetsOf(isoDateOfEpochDay(Math.floor(instant / SECONDS_PER_DAY)).year);
    this.epochDay = Math.floor((instant + offsetIn(utcTable, instant)) / SECONDS_PER_DAY);
    this.start = this._startOf(this.epochDay);
    while (this.start > instant) {
      this.epochDay -= 1;
      this.start = this._startOf(this.epochDay);
    }
    this.end = this._startOf(this.epochDay + 1);
    while (this.end <= instant) this.next();
  }

  /** Moves to the next day of non-zero length. */
  next(): void {
    do {
      this.epochDay += 1;
      this.start = this.end;
      this.end = this._startOf(this.epochDay + 1);
    } while (this.end <= this.start);
  }

  /** `startOfLocalDay` of the date `epochDay` days after 1970-01-01, from the cached offsets. */
  private _startOf(epochDay: number): number {
    return startOfDayIn(this._offsetsOf(isoDateOfEpochDay(epochDay).year), epochDay * SECONDS_PER_DAY);
  }

  private _offsetsOf(year: number): YearOffsets {
    if (year !== this.offsetsYear) {
      this.offsets = yearOffsets(this.timeZone, year);
      this.offsetsYear = year;
    }
    return this.offsets!;
  }
}
