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
  let instant: Temporal.Instant;
  try {
    instant = Temporal.Instant.from(text);
  } catch {
    throw new RangeError(`Cannot parse instant "${text}": expected ISO 8601 with an offset, e.g. 2026-03-08T07:30:00-05:00`);
  }
  return Math.floor(instant.epochMilliseconds / 1000);
}
