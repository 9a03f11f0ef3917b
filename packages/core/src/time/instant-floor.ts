/**
 * 0001-01-02T00:00:00Z, the earliest instant a person may give (D50): a reading, a last service,
 * an expiry, a line of an import file, a point's `time`. From this instant on, every zone's wall
 * clock (offsets reach ±15:56 in tzdb's local mean times) shows the year 0001 or later, so no
 * answer ever shows the year 0000; it is also the first date the read API serves (P26).
 */
export const EARLIEST_GIVEN_INSTANT = -62_135_510_400;

/**
 * 9999-12-30T23:59:59Z, the latest instant a person may give (D50): up to here every zone's wall
 * clock shows the year 9999 or earlier, never `+010000`, and it is the last date the API serves (P26).
 */
export const LATEST_GIVEN_INSTANT = 253_402_214_399;

/**
 * Whether an instant lies within the one floor and ceiling of every instant a person gives (D50):
 * {@link EARLIEST_GIVEN_INSTANT} to {@link LATEST_GIVEN_INSTANT}, whole or not. Every entry of a
 * typed instant checks it here (CLI options, import files, the ingestion bodies' `time`, the
 * checks of readings and schedules), after reading the text, and refuses with
 * {@link givenInstantRangeMessage}.
 *
 * @param epochSeconds The instant.
 * @example
 * ```ts
 * import { isGivenInstantInRange } from '@fleet-hours/core';
 * isGivenInstantInRange(0); // true
 * isGivenInstantInRange(-62_135_596_800); // false: 0001-01-01T00:00:00Z is the year 0000 in New York
 * ```
 */
export function isGivenInstantInRange(epochSeconds: number): boolean {
  return epochSeconds >= EARLIEST_GIVEN_INSTANT && epochSeconds <= LATEST_GIVEN_INSTANT;
}

/**
 * The refusal of an instant outside the range (D50), naming the field or option as the person
 * typed it: `--at must be an instant from 0001-01-02T00:00:00Z to 9999-12-30T23:59:59Z, got "0001-01-01T00:00:00Z"`.
 *
 * @param field The option or field, e.g. `--at`, `read_at`, `time`.
 * @param shown The value as the message quotes it (already quoted when text).
 * @example
 * ```ts
 * import { givenInstantRangeMessage } from '@fleet-hours/core';
 * givenInstantRangeMessage('--at', '"0001-01-01T00:00:00Z"');
 * ```
 */
export function givenInstantRangeMessage(field: string, shown: string): string {
  return `${field} must be an instant from 0001-01-02T00:00:00Z to 9999-12-30T23:59:59Z, got ${shown}`;
}
