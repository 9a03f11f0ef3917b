/**
 * D64 (P120): hours as the AEMP feed writes them — decimal, exactly 6 places — from whole seconds,
 * so that `round(Hour × 3600)` gives the seconds back. Computed in whole micro-hours
 * (`seconds × 2500 / 9`, rounded), never through a binary fraction of an hour.
 *
 * @param seconds Whole seconds, 0 or more.
 * @returns The hours, e.g. `"12345.678056"`.
 * @throws {RangeError} When `seconds` is not a whole number ≥ 0 below 2^53 / 2500.
 * @example
 * ```ts
 * import { formatAempHours } from '@fleet-hours/core';
 * formatAempHours(44_444_441); // "12345.678056"
 * formatAempHours(0); // "0.000000"
 * ```
 */
export function formatAempHours(seconds: number): string {
  if (!Number.isSafeInteger(seconds) || seconds < 0 || seconds > MAX_AEMP_SECONDS) {
    throw new RangeError(`seconds must be a whole number from 0 to ${MAX_AEMP_SECONDS}, got ${String(seconds)}`);
  }
  // seconds / 3600 h = seconds × 2500 / 9 µh; the remainder of a division by 9 is never half, so rounding is exact.
  const microHours = Math.floor((seconds * 2500 + 4) / 9);
  const whole = Math.floor(microHours / 1_000_000);
  return `${whole}.${String(microHours - whole * 1_000_000).padStart(6, '0')}`;
}

/** The most seconds {@link formatAempHours} takes: `seconds × 2500` stays a safe integer (some 114,000 years). */
export const MAX_AEMP_SECONDS = Math.floor(Number.MAX_SAFE_INTEGER / 2500);
