/**
 * Wall times of a zone read as instants (D58), from the zone's cached offsets (`time/zone-offsets.ts`):
 * integer arithmetic over a year's short list of offsets, no Temporal call per window.
 *
 * A wall time is given as "wall seconds": the local date and time read as if they were UTC
 * (`epochDay × 86400 + seconds into the day`). The wall clock of an offset span `k` of the table is
 * `t + offsets[k]` for the instants `t` of that span, so each span answers with arithmetic alone.
 */
import { SECONDS_PER_DAY } from '../time/iso-days.js';
import type { YearOffsets } from '../time/zone-offsets.js';

/**
 * The instant a wall time stands for as the start of a window (D58): the first instant whose wall
 * clock reads it or later. That is its first occurrence when the wall time repeats (clocks went
 * back), and the first instant after the gap when clocks jumped over it.
 *
 * @param table The zone's offsets for a year whose span holds `wallSeconds` a day either side.
 * @param wallSeconds The wall time, read as if it were UTC.
 * @returns Epoch seconds.
 */
export function wallTimeAsStart(table: YearOffsets, wallSeconds: number): number {
  const { starts, offsets } = table;
  const [first, last] = _spansNear(starts, wallSeconds);
  let earliest = Number.POSITIVE_INFINITY;
  for (let span = first; span <= last; span += 1) {
    // The first instant of this span whose wall clock reads `wallSeconds` or later, if any.
    const candidate = Math.max(starts[span]!, wallSeconds - offsets[span]!);
    if (candidate < _spanEnd(starts, span) && candidate < earliest) earliest = candidate;
  }
  return earliest;
}

/**
 * The instant a wall time stands for as the end of a window (D58): the end of the last stretch
 * whose wall clock reads earlier. That is its second occurrence when the wall time repeats, and the
 * first instant after the gap when clocks jumped over it.
 *
 * @param table The zone's offsets for a year whose span holds `wallSeconds` a day either side.
 * @param wallSeconds The wall time, read as if it were UTC.
 * @returns Epoch seconds.
 */
export function wallTimeAsEnd(table: YearOffsets, wallSeconds: number): number {
  const { starts, offsets } = table;
  const [first, last] = _spansNear(starts, wallSeconds);
  let latest = Number.NEGATIVE_INFINITY;
  for (let span = first; span <= last; span += 1) {
    // The instants of this span whose wall clock reads earlier than `wallSeconds` end here.
    const bound = Math.min(_spanEnd(starts, span), wallSeconds - offsets[span]!);
    if (bound > starts[span]! && bound > latest) latest = bound;
  }
  return latest;
}

/**
 * The spans that can hold an instant whose wall clock reads `wallSeconds`: an offset is under a
 * day, so such an instant lies within a day of it either side.
 */
function _spansNear(starts: readonly number[], wallSeconds: number): [first: number, last: number] {
  let last = starts.length - 1;
  while (last > 0 && starts[last]! > wallSeconds + SECONDS_PER_DAY) last -= 1;
  let first = last;
  while (first > 0 && starts[first]! > wallSeconds - SECONDS_PER_DAY) first -= 1;
  return [first, last];
}

function _spanEnd(starts: readonly number[], span: number): number {
  return span + 1 < starts.length ? starts[span + 1]! : Number.POSITIVE_INFINITY;
}
