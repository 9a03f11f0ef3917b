// @ts-check
/** Numbers, dates and local days: hours and minutes, local dates in a zone, the length of a day. */
/** @param {number} number */
const pad2 = (number) => String(number).padStart(2, '0');
/** Whole seconds as hours:minutes, the seconds dropped: 9000 → "2:30". @param {number} seconds */
export function hoursMinutes(seconds) {
  const minutes = Math.floor(seconds / 60);
  return `${Math.floor(minutes / 60)}:${pad2(minutes % 60)}`;
}
/** A day's length in words: 82800 → "23 h", 84600 → "23 h 30 min". @param {number} seconds */
export function lengthText(seconds) {
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  return `${hours} h${minutes ? ` ${minutes} min` : ''}`;
}
/** @param {string} date @param {number} days @returns {string} */
export function addDays(date, days) {
  const [year, month, day] = dateParts(date);
  return new Date(Date.UTC(year, month - 1, day + days)).toISOString().slice(0, 10);
}
export function browserToday() {
  const now = new Date();
  return `${now.getFullYear()}-${pad2(now.getMonth() + 1)}-${pad2(now.getDate())}`;
}
const shortDate = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });
/** @param {string} date */
export const dateLabel = (date) => shortDate.format(new Date(`${date}T12:00:00Z`));
/** The year, month and day of a local date "YYYY-MM-DD". @param {string} date @returns {[number, number, number]} */
function dateParts(date) {
  const [year, month, day] = date.split('-').map(Number);
  return [year || 0, month || 0, day || 0];
}

/** @type {Map<string, Intl.DateTimeFormat>} */
const dateFormats = new Map();
/** The local date at an instant in a zone, as a number YYYYMMDD (so dates compare as numbers). @param {number} epochSeconds @param {string} zone */
function localDateNumber(epochSeconds, zone) {
  let format = dateFormats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone: zone, year: 'numeric', month: 'numeric', day: 'numeric' });
    dateFormats.set(zone, format);
  }
  /** @type {Record<string, string>} */
  const parts = {};
  format.formatToParts(new Date(epochSeconds * 1000)).forEach((part) => {
    parts[part.type] = part.value;
  });
  return Number(parts.year) * 10000 + Number(parts.month) * 100 + Number(parts.day);
}
/**
 * The first second of a local date in a zone: the first instant whose local date is that date or
 * later. Not always 00:00 (a zone may skip midnight); found by bisection, since no zone is more
 * than 14 h ahead of UTC or 12 h behind it.
 * @param {string} date
 * @param {string} zone
 */
function startOfLocalDay(date, zone) {
  const [year, month, day] = dateParts(date);
  const target = year * 10000 + month * 100 + day;
  const wall = Date.UTC(year, month - 1, day) / 1000;
  let before = wall - 15 * 3600;
  let after = wall + 39 * 3600;
  while (after - before > 1) {
    const middle = Math.floor((before + after) / 2);
    if (localDateNumber(middle, zone) >= target) after = middle;
    else before = middle;
  }
  return after;
}
/** Seconds from the start of a local date to the start of the next: 82800 or 90000 on DST days. @param {string} date @param {string} zone */
export const dayLengthSeconds = (date, zone) => startOfLocalDay(addDays(date, 1), zone) - startOfLocalDay(date, zone);

/** @type {Map<string, Intl.DateTimeFormat>} */
const instantFormats = new Map();
/** An instant as a date and time of a zone, in the browser's language: "Nov 25, 2026, 10:00 AM". @param {string} iso @param {string} zone */
export function localTime(iso, zone) {
  let format = instantFormats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat(undefined, { timeZone: zone, dateStyle: 'medium', timeStyle: 'short' });
    instantFormats.set(zone, format);
  }
  return format.format(new Date(iso));
}
