import { Temporal } from 'temporal-polyfill';
import { SECONDS_PER_DAY, formatIsoDate, formatIsoYear, isoDateOfEpochDay } from './iso-days.js';
import { FAST_YEAR_LIMIT, offsetIn, yearOffsets } from './zone-offsets.js';

const pad = (value: number, width = 2) => String(value).padStart(width, '0');
const SIXTY = Array.from({ length: 60 }, (_, value) => pad(value));

/**
 * Formats an instant as the API shows it (D9): ISO 8601 on the wall clock of `timeZone`, with
 * its numeric offset and whole seconds, e.g. `2026-03-08T00:00:00-05:00`. UTC shows `+00:00`.
 * An offset with seconds (historic local mean time) keeps them, so the text is exact.
 *
 * The offset comes from the zone's offsets for the year, read from Temporal once and cached, and
 * the wall clock from integer date arithmetic: no Temporal call per instant. Instants far outside
 * years ±100,000 go through Temporal, with its own results and range errors.
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
  const utcYear = Number.isSafeInteger(whole) ? isoDateOfEpochDay(Math.floor(whole / SECONDS_PER_DAY)).year : Number.NaN;
  if (!(Math.abs(utcYear) <= FAST_YEAR_LIMIT)) return _formatWithTemporal(whole, timeZone);
  const offsetSeconds = offsetIn(yearOffsets(timeZone, utcYear), whole);
  // tzdb offsets are whole seconds; anything else keeps Temporal's own (nanosecond) wall clock.
  if (!Number.isInteger(offsetSeconds)) return _formatWithTemporal(whole, timeZone);
  const wallSeconds = whole + offsetSeconds;
  const wallDay = Math.floor(wallSeconds / SECONDS_PER_DAY);
  const { year, month, day } = isoDateOfEpochDay(wallDay);
  const secondOfDay = wallSeconds - wallDay * SECONDS_PER_DAY;
  const time = `${SIXTY[Math.floor(secondOfDay / 3600)]!}:${SIXTY[Math.floor(secondOfDay / 60) % 60]!}:${SIXTY[secondOfDay % 60]!}`;
  return `${formatIsoDate(formatIsoYear(year), month, day)}T${time}${_formatOffset(offsetSeconds)}`;
}

function _formatWithTemporal(whole: number, timeZone: string): string {
  const zoned = Temporal.Instant.fromEpochMilliseconds(whole * 1000).toZonedDateTimeISO(timeZone);
  const offset = _formatOffset(Math.round(zoned.offsetNanoseconds / 1e9));
  return `${formatIsoDate(formatIsoYear(zoned.year), zoned.month, zoned.day)}T${pad(zoned.hour)}:${pad(zoned.minute)}:${pad(zoned.second)}${offset}`;
}

/** `±HH:MM`, or `±HH:MM:SS` when the offset has seconds (P4); UTC is `+00:00`. */
function _formatOffset(offsetSeconds: number): string {
  const sign = offsetSeconds < 0 ? '-' : '+';
  const absolute = Math.abs(offsetSeconds);
  const offsetTail = absolute % 60 === 0 ? '' : `:${pad(absolute % 60)}`;
  return `${sign}${pad(Math.floor(absolute / 3600))}:${pad(Math.floor(absolute / 60) % 60)}${offsetTail}`;
}
