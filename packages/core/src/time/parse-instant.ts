import { Temporal } from 'temporal-polyfill';

/**
 * Parses an ISO 8601 instant that carries a UTC offset or `Z` into whole epoch seconds.
 * A fraction of a second is floored: Fleet Hours counts whole seconds.
 *
 * @param text e.g. `2026-03-08T07:30:00-05:00` or `2026-03-08T12:30:00Z`.
 * @returns Epoch seconds.
 * @throws {RangeError} When the text is not an instant with an offset.
 * @example
 * ```ts
 * import { parseInstant } from '@fleet-hours/core';
 * parseInstant('1970-01-01T00:01:00.900Z'); // 60
 * ```
 */
export function parseInstant(text: string): number {
  if (typeof text !== 'string') {
    throw new RangeError(`Cannot parse instant ${JSON.stringify(text)}: expected an ISO 8601 string`);
  }
  const common = _commonInstant(text);
  if (common !== undefined) return common;
  let instant: Temporal.Instant;
  try {
    instant = Temporal.Instant.from(text);
  } catch {
    throw new RangeError(`Cannot parse instant "${text}": expected ISO 8601 with an offset, e.g. 2026-03-08T07:30:00-05:00`);
  }
  return Math.floor(instant.epochMilliseconds / 1000);
}

// `2026-11-23T15:15:42Z`, `2026-11-23T15:15:42.000+00:00`: the form nearly every tracker, Traccar
// and file sends, and the only one the fast path reads.
const COMMON = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.\d{1,9})?(?:Z|([+-])(\d\d):(\d\d))$/;

/**
 * The common form of an instant, read without Temporal (a file of a million points spends more time
 * in `Temporal.Instant.from` than in everything else): epoch seconds, or `undefined` for any other
 * text, which Temporal then reads or refuses. Only fields that are valid as they stand are read
 * here (no leap second, no year before 100, where `Date.UTC` would read 1900 + year); the tests
 * compare it with Temporal on random text of this form.
 */
function _commonInstant(text: string): number | undefined {
  const match = COMMON.exec(text);
  if (match === null) return undefined;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  const hour = Number(match[4]);
  const minute = Number(match[5]);
  const second = Number(match[6]);
  const offsetHours = match[8] === undefined ? 0 : Number(match[8]);
  const offsetMinutes = match[9] === undefined ? 0 : Number(match[9]);
  if (year < 100 || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59)
    return undefined;
  const epochMilliseconds = Date.UTC(year, month - 1, day, hour, minute, second);
  // Date.UTC rolls an impossible day over into the next month: such text is Temporal's to refuse.
  if (new Date(epochMilliseconds).getUTCDate() !== day) return undefined;
  const offsetSeconds = (match[7] === '-' ? -1 : 1) * (offsetHours * 3600 + offsetMinutes * 60);
  return epochMilliseconds / 1000 - offsetSeconds;
}
