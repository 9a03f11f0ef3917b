/**
 * ISO (proleptic Gregorian) calendar arithmetic on whole days since 1970-01-01, so the hot paths
 * can walk dates and write `YYYY-MM-DD` without calling Temporal per day.
 */

/** Seconds in a day of the UTC timeline. */
export const SECONDS_PER_DAY = 86_400;

const DAYS_PER_400_YEARS = 146_097;
// Days from 0000-03-01 to 1970-01-01: the count below starts its years in March, so that the
// leap day is the last day of a year.
const DAYS_FROM_MARCH_0000_TO_EPOCH = 719_468;
const TWO_DIGITS = Array.from({ length: 32 }, (_, value) => String(value).padStart(2, '0'));

/** Days from 1970-01-01 to an ISO date (negative before it). */
export function epochDaysOf(year: number, month: number, day: number): number {
  const marchYear = month <= 2 ? year - 1 : year;
  const era = Math.floor(marchYear / 400);
  const yearOfEra = marchYear - era * 400;
  const dayOfMarchYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfMarchYear;
  return era * DAYS_PER_400_YEARS + dayOfEra - DAYS_FROM_MARCH_0000_TO_EPOCH;
}

/** The ISO date of a day since 1970-01-01; the inverse of {@link epochDaysOf}. */
export function isoDateOfEpochDay(epochDays: number): { year: number; month: number; day: number } {
  const shifted = epochDays + DAYS_FROM_MARCH_0000_TO_EPOCH;
  const era = Math.floor(shifted / DAYS_PER_400_YEARS);
  const dayOfEra = shifted - era * DAYS_PER_400_YEARS;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfMarchYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const marchMonth = Math.floor((5 * dayOfMarchYear + 2) / 153);
  const day = dayOfMarchYear - Math.floor((153 * marchMonth + 2) / 5) + 1;
  const month = marchMonth < 10 ? marchMonth + 3 : marchMonth - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return { year, month, day };
}

/** Days in a month of the ISO calendar. */
export function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** The year as `Temporal.PlainDate#toString` writes it: four digits, or a sign and six outside 0–9999. */
export function formatIsoYear(year: number): string {
  if (year >= 0 && year <= 9999) return String(year).padStart(4, '0');
  return `${year < 0 ? '-' : '+'}${String(Math.abs(year)).padStart(6, '0')}`;
}

/** `YYYY-MM-DD` from a year already formatted by {@link formatIsoYear}, a month and a day. */
export function formatIsoDate(isoYear: string, month: number, day: number): string {
  return `${isoYear}-${TWO_DIGITS[month]!}-${TWO_DIGITS[day]!}`;
}
