/** 0001-01-01T00:00:00Z: the earliest instant a store takes, in epoch seconds. */
const EARLIEST = -62_135_596_800;
/** 9999-12-31T23:59:59Z: the latest. */
const LATEST = 253_402_300_799;

const inRange = (value: number) => value >= EARLIEST && value <= LATEST;

/**
 * Refuses a value that is not an instant in whole epoch seconds of the years 0001 to 9999, the
 * unit of every instant the storage port takes. `Date.now()` is milliseconds, and a millisecond
 * count of any time after 1978 lies beyond the year 9999 as seconds: such a value is refused with
 * a message saying it looks like milliseconds, instead of being stored as an instant thousands of
 * years away (a key that never expires). Every store method that takes an instant calls this, and
 * nothing else decides the range.
 *
 * @param name The argument's name, shown in the message, e.g. `expiresAt` or `Row 2: ended_at`.
 * @param value The value to check.
 * @throws {RangeError} When `value` is not a finite whole number within the years 0001 to 9999.
 * @example
 * ```ts
 * import { assertEpochSeconds } from '@fleet-hours/core/adapter';
 * assertEpochSeconds('now', 1_767_225_600); // fine
 * assertEpochSeconds('expiresAt', 1_767_225_600_000);
 * // throws RangeError: expiresAt must be epoch seconds between the years 0001 and 9999, got "1767225600000": it looks like milliseconds ("1767225600" in seconds)
 * ```
 */
export function assertEpochSeconds(name: string, value: number): void {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    const shown = typeof value === 'number' ? `"${String(value)}"` : value === null ? 'null' : `a ${typeof value}`;
    throw new RangeError(`${name} must be whole epoch seconds, got ${shown}`);
  }
  if (!inRange(value)) {
    // Only a count beyond the year 9999 reads as milliseconds; one before the year 0001 is simply too early.
    const seconds = Math.floor(value / 1000);
    const hint = value > LATEST && inRange(seconds) ? `: it looks like milliseconds ("${seconds}" in seconds)` : '';
    throw new RangeError(`${name} must be epoch seconds between the years 0001 and 9999, got "${String(value)}"${hint}`);
  }
  if (!Number.isInteger(value)) throw new RangeError(`${name} must be whole epoch seconds, got "${String(value)}"`);
}
