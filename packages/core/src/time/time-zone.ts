import { Temporal } from 'temporal-polyfill';

/**
 * Checks that `timeZone` is an IANA zone name and returns its canonical spelling.
 *
 * Offset strings such as `+05:00` are refused: a vehicle has a zone with rules, not a fixed offset.
 *
 * @param timeZone An IANA zone name, e.g. `America/New_York`.
 * @returns The zone id as Temporal spells it (`america/new_york` → `America/New_York`).
 * @throws {RangeError} When the zone is unknown or is an offset.
 * @example
 * ```ts
 * import { normalizeTimeZone } from '@fleet-hours/core';
 * normalizeTimeZone('asia/kathmandu'); // 'Asia/Kathmandu'
 * ```
 */
export function normalizeTimeZone(timeZone: string): string {
  if (typeof timeZone !== 'string' || !/^[A-Za-z]/.test(timeZone)) {
    throw new RangeError(`Unknown time zone "${String(timeZone)}": use an IANA name such as "Europe/Berlin"`);
  }
  try {
    return new Temporal.ZonedDateTime(0n, timeZone).timeZoneId;
  } catch {
    throw new RangeError(`Unknown time zone "${timeZone}": use an IANA name such as "Europe/Berlin"`);
  }
}
