import { Temporal } from 'temporal-polyfill';
import { SECONDS_PER_DAY, epochDaysOf, isoDateOfEpochDay } from './iso-days.js';
import { FAST_YEAR_LIMIT, offsetIn, startOfDayIn, yearOffsets } from './zone-offsets.js';
import { InvalidParameterError } from '../errors/errors.js';

const LOCAL_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * Parses a strict `YYYY-MM-DD` local date (D4, D7).
 *
 * @param parameter The parameter name reported in the error, e.g. `from`.
 * @param text The value to parse.
 * @returns The date.
 * @throws {InvalidParameterError} When `text` is not `YYYY-MM-DD` or names no real day (`2025-02-30`).
 * @example
 * ```ts
 * import { parseLocalDate } from '@fleet-hours/core';
 * parseLocalDate('from', '2026-03-08').toString(); // '2026-03-08'
 * ```
 */
export function parseLocalDate(parameter: string, text: string): Temporal.PlainDate {
  const match = LOCAL_DATE.exec(text);
  if (!match) {
    throw new InvalidParameterError(parameter, `Cannot parse ${parameter} "${text}": expected a date as YYYY-MM-DD`);
  }
  const [, year, month, day] = match;
  try {
    return Temporal.PlainDate.from({ year: Number(year), month: Number(month), day: Number(day) }, { overflow: 'reject' });
  } catch {
    throw new InvalidParameterError(parameter, `Cannot parse ${parameter} "${text}": no such day`);
  }
}

/**
 * The first instant of a local day, in epoch seconds (D4). Not always 00:00: some zones skip
 * midnight on DST days (America/Sao_Paulo 2018-11-04 starts at 01:00), and a day that does not
 * exist locally (Pacific/Apia 2011-12-30) starts where the next one does (P2).
 *
 * Exactly what `date.toZonedDateTime({ timeZone })` gives, but computed from the zone's offsets
 * for the year, which are read from Temporal once and cached, not per call.
 *
 * @param date The local date.
 * @param timeZone IANA zone name.
 * @returns Epoch seconds.
 * @example
 * ```ts
 * import { startOfLocalDay } from '@fleet-hours/core';
 * import { Temporal } from 'temporal-polyfill';
 * startOfLocalDay(Temporal.PlainDate.from('2018-11-04'), 'America/Sao_Paulo'); // 1541300400 (01:00 -02:00)
 * ```
 */
export function startOfLocalDay(date: Temporal.PlainDate, timeZone: string): number {
  const { year } = date;
  if (date.calendarId !== 'iso8601' || Math.abs(year) > FAST_YEAR_LIMIT) {
    return date.toZonedDateTime({ timeZone }).epochMilliseconds / 1000;
  }
  return startOfDayIn(yearOffsets(timeZone, year), epochDaysOf(year, date.month, date.day) * SECONDS_PER_DAY);
}

/**
 * The local date at an instant. Like {@link startOfLocalDay}, it reads the zone's cached offsets
 * for the year rather than calling Temporal's zone machinery per call.
 *
 * @param epochSeconds The instant.
 * @param timeZone IANA zone name.
 * @returns The date on the wall calendar of `timeZone` at that instant.
 * @example
 * ```ts
 * import { localDateAt } from '@fleet-hours/core';
 * localDateAt(0, 'America/New_York').toString(); // '1969-12-31'
 * ```
 */
export function localDateAt(epochSeconds: number, timeZone: string): Temporal.PlainDate {
  const utcYear = _utcYearInFastRange(epochSeconds);
  if (utcYear === null) return _temporalLocalDate(epochSeconds, timeZone);
  const { year, month, day } = isoDateOfEpochDay(_fastLocalEpochDay(epochSeconds, timeZone, utcYear));
  return new Temporal.PlainDate(year, month, day);
}

/**
 * The local date at an instant as a day number (days from 1970-01-01 on the wall calendar of
 * `timeZone`), without making a `Temporal.PlainDate`: for counting days between local dates (D39's
 * calendar intervals), where {@link localDateAt} would cost an object and Temporal's arithmetic.
 *
 * @param epochSeconds The instant.
 * @param timeZone IANA zone name.
 * @returns The day number of {@link localDateAt}'s date.
 * @example
 * ```ts
 * import { localEpochDayAt } from '@fleet-hours/core';
 * localEpochDayAt(0, 'America/New_York'); // -1 (1969-12-31)
 * ```
 */
export function localEpochDayAt(epochSeconds: number, timeZone: string): number {
  const utcYear = _utcYearInFastRange(epochSeconds);
  if (utcYear === null) {
    const { year, month, day } = _temporalLocalDate(epochSeconds, timeZone);
    return epochDaysOf(year, month, day);
  }
  return _fastLocalEpochDay(epochSeconds, timeZone, utcYear);
}

/** The wall-clock day number from the zone's cached offsets of `utcYear`, the instant's UTC year. */
function _fastLocalEpochDay(epochSeconds: number, timeZone: string, utcYear: number): number {
  return Math.floor((epochSeconds + offsetIn(yearOffsets(timeZone, utcYear), epochSeconds)) / SECONDS_PER_DAY);
}

/** The UTC year of a whole instant within the years of the cached offsets, else `null` (Temporal answers). */
function _utcYearInFastRange(epochSeconds: number): number | null {
  if (!Number.isSafeInteger(epochSeconds)) return null;
  const { year } = isoDateOfEpochDay(Math.floor(epochSeconds / SECONDS_PER_DAY));
  return Math.abs(year) > FAST_YEAR_LIMIT ? null : year;
}

function _temporalLocalDate(epochSeconds: number, timeZone: string): Temporal.PlainDate {
  return Temporal.Instant.fromEpochMilliseconds(epochSeconds * 1000)
    .toZonedDateTimeISO(timeZone)
    .toPlainDate();
}
