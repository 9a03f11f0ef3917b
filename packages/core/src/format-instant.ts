import { Temporal } from 'temporal-polyfill';

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

/**
 * Formats an instant as the API shows it (D9): ISO 8601 on the wall clock of `timeZone`, with
 * its numeric offset and whole seconds, e.g. `2026-03-08T00:00:00-05:00`. UTC shows `+00:00`.
 * An offset with seconds (historic local mean time) keeps them, so the text is exact.
 *
 * @param epochSeconds The instant; a fraction is floored.
 * @param timeZone IANA zone name.
 * @returns The timestamp text.
 * @example
 * ```ts
 * import { formatInstant } from '@fleet-hours/core';
 * formatInstant(1772946000, 'America/New_York'); // '2026-03-08T00:00:00-05:00'
 * ```
 */
export function formatInstant(epochSeconds: number, timeZone: string): string {
  const whole = Math.floor(epochSeconds);
  const zoned = Temporal.Instant.fromEpochMilliseconds(whole * 1000).toZonedDateTimeISO(timeZone);
  const offsetSeconds = Math.round(zoned.offsetNanoseconds / 1e9);
  const sign = offsetSeconds < 0 ? '-' : '+';
  const absolute = Math.abs(offsetSeconds);
  const offsetTail = absolute % 60 === 0 ? '' : `:${pad(absolute % 60)}`;
  const offset = `${sign}${pad(Math.floor(absolute / 3600))}:${pad(Math.floor(absolute / 60) % 60)}${offsetTail}`;
  const year = zoned.year < 0 || zoned.year > 9999 ? `${zoned.year < 0 ? '-' : '+'}${pad(Math.abs(zoned.year), 6)}` : pad(zoned.year, 4);
  return `${year}-${pad(zoned.month)}-${pad(zoned.day)}T${pad(zoned.hour)}:${pad(zoned.minute)}:${pad(zoned.second)}${offset}`;
}
