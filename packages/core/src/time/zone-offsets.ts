/**
 * A zone's UTC offsets around one calendar year, read from Temporal once and then used with integer
 * arithmetic, so that the start of each local day (D4, D8) costs no Temporal call.
 *
 * Offsets change rarely (a few transitions a year at most), so a year's offsets are a short list:
 * the offset in effect a few days before 1 January and each transition up to a few days after
 * 31 December, found with Temporal's own `getTimeZoneTransition`. The day-start rule below is the
 * one `Temporal.PlainDate#toZonedDateTime` applies to the same offsets, so the results are
 * identical to calling Temporal per day (the tests compare the two over every IANA zone).
 */
import { Temporal } from 'temporal-polyfill';
import { SECONDS_PER_DAY, epochDaysOf } from './iso-days.js';

/**
 * Years this module handles; outside them callers use Temporal directly, so that dates near the
 * ends of Temporal's range keep Temporal's own behaviour (including its range errors).
 */
export const FAST_YEAR_LIMIT = 100_000;

// The span kept around each year, in days either side. The day-start rule reads offsets at most one
// day either side of local midnight read as UTC (and a zone's offset is always under a day), so one
// would do; the rest is slack that costs nothing.
const MARGIN_DAYS = 3;

/** The offsets of one zone over one year and its margins. */
export interface YearOffsets {
  /** Epoch seconds, ascending: the start of the span, then each offset transition in it. */
  readonly starts: readonly number[];
  /** Offset in seconds (west negative) in effect from `starts[i]` until `starts[i + 1]`. */
  readonly offsets: readonly number[];
}

// A module-level cache of pure results. Core stays pure: an entry is what Temporal answers for a
// (zone, year), which cannot change within a process, so the cache changes speed, never results.
// It is bounded: past CACHE_LIMIT entries the least recently used one is dropped (a Map keeps
// insertion order, and a hit is moved to the end).
const CACHE_LIMIT = 4096;
const cache = new Map<string, YearOffsets>();

/**
 * The offsets of `timeZone` from a few days before `year` begins to a few days after it ends, from
 * the bounded cache or computed once.
 *
 * @throws {RangeError} When Temporal refuses `timeZone`.
 */
export function yearOffsets(timeZone: string, year: number): YearOffsets {
  const key = `${year} ${timeZone}`;
  const cached = cache.get(key);
  if (cached !== undefined) {
    cache.delete(key);
    cache.set(key, cached);
    return cached;
  }
  const computed = _readYearOffsets(timeZone, year);
  cache.set(key, computed);
  if (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  return computed;
}

function _readYearOffsets(timeZone: string, year: number): YearOffsets {
  const spanStart = (epochDaysOf(year, 1, 1) - MARGIN_DAYS) * SECONDS_PER_DAY;
  const spanEnd = (epochDaysOf(year + 1, 1, 1) + MARGIN_DAYS) * SECONDS_PER_DAY;
  let zoned = Temporal.Instant.fromEpochMilliseconds(spanStart * 1000).toZonedDateTimeISO(timeZone);
  const starts = [spanStart];
  const offsets = [zoned.offsetNanoseconds / 1e9];
  for (;;) {
    const transition = zoned.getTimeZoneTransition('next');
    if (transition === null) break;
    const at = transition.epochMilliseconds / 1000;
    if (at > spanEnd) break;
    starts.push(at);
    offsets.push(transition.offsetNanoseconds / 1e9);
    zoned = transition;
  }
  return { starts, offsets };
}

/** The offset in effect at `epochSeconds`, which must lie in the span of `table`. */
export function offsetIn(table: YearOffsets, epochSeconds: number): number {
  const { starts, offsets } = table;
  let index = starts.length - 1;
  while (index > 0 && starts[index]! > epochSeconds) index -= 1;
  return offsets[index]!;
}

/**
 * The first instant of the local day whose midnight, read as if it were UTC, is `wallSeconds`
 * (D4, P2). The rule Temporal applies:
 * - the offsets a day before and a day after agree: midnight minus that offset;
 * - they differ, but one offset fits both candidates: midnight minus that offset (the transition
 *   is not at midnight);
 * - midnight happens twice (clocks went back over it): the earlier instant;
 * - midnight does not happen (clocks jumped over it, America/Sao_Paulo 2018-11-04, or over the
 *   whole day, Pacific/Apia 2011-12-30): the transition that skipped it, the first after a day
 *   before.
 */
export function startOfDayIn(table: YearOffsets, wallSeconds: number): number {
  const dayBefore = wallSeconds - SECONDS_PER_DAY;
  const offsetBefore = offsetIn(table, dayBefore);
  const offsetAfter = offsetIn(table, wallSeconds + SECONDS_PER_DAY);
  if (offsetBefore === offsetAfter) return wallSeconds - offsetBefore;
  const earlier = wallSeconds - offsetBefore;
  const later = wallSeconds - offsetAfter;
  const offsetAtEarlier = offsetIn(table, earlier);
  if (offsetAtEarlier === offsetIn(table, later)) return wallSeconds - offsetAtEarlier;
  if (offsetBefore > offsetAfter) return earlier;
  const { starts } = table;
  for (let index = 1; index < starts.length; index += 1) {
    if (starts[index]! > dayBefore) return starts[index]!;
  }
  // Unreachable: offsets that differ a day either side mean a transition between them, in the span.
  throw new RangeError(`No offset transition found near local day "${wallSeconds / SECONDS_PER_DAY}"`);
}
