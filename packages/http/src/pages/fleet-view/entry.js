// @ts-check
/** What a person types into the action forms, read as the API wants it: engine hours as seconds, a vehicle's wall time as an instant. */

/** @param {number} number */
const pad2 = (number) => String(number).padStart(2, '0');

/**
 * Engine hours as typed: whole hours ("250"), hours and minutes ("250:30") or decimal hours
 * ("12.5"), read as whole seconds; null for anything else.
 * @param {string} text
 * @returns {number | null}
 */
export function parseHours(text) {
  const value = text.trim();
  const clock = /^(\d{1,9}):([0-5]\d)$/.exec(value);
  if (clock) return Number(clock[1]) * 3600 + Number(clock[2]) * 60;
  if (/^\d{1,9}(\.\d{1,4})?$/.test(value)) return Math.round(Number(value) * 3600);
  return null;
}

/** A count of whole days as typed ("180"); null for anything else. @param {string} text @returns {number | null} */
export function parseDays(text) {
  const value = text.trim();
  return /^\d{1,6}$/.test(value) ? Number(value) : null;
}

/** @type {Map<string, Intl.DateTimeFormat>} */
const wallFormats = new Map();
/** The wall time of a zone at an instant, as epoch milliseconds of the same wall time in UTC. @param {number} epochMs @param {string} zone */
function wallClockMs(epochMs, zone) {
  let format = wallFormats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    wallFormats.set(zone, format);
  }
  /** @type {Record<string, number>} */
  const parts = {};
  format.formatToParts(new Date(epochMs)).forEach((part) => {
    parts[part.type] = Number(part.value);
  });
  return Date.UTC(parts.year || 0, (parts.month || 1) - 1, parts.day || 1, parts.hour || 0, parts.minute || 0, parts.second || 0);
}

/** An offset in minutes as ISO 8601 text: 330 → "+05:30". @param {number} minutes */
function offsetText(minutes) {
  const size = Math.abs(minutes);
  return `${minutes < 0 ? '-' : '+'}${pad2(Math.floor(size / 60))}:${pad2(size % 60)}`;
}

/**
 * A wall time of a vehicle's zone ("2026-11-25T10:00", as a datetime-local input gives it) as an
 * instant with that zone's offset ("2026-11-25T10:00:00-05:00"). A wall time that a clock change
 * skips or repeats gets one of the two offsets around it. Null when the text is not a wall time.
 * @param {string} local
 * @param {string} zone
 * @returns {string | null}
 */
export function zonedInstant(local, zone) {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(local);
  if (!match) return null;
  const [year, month, day, hour, minute, second] = match.slice(1).map((part) => Number(part || 0));
  const wall = Date.UTC(year || 0, (month || 1) - 1, day || 1, hour || 0, minute || 0, second || 0);
  // The offset a day before the wall time, then the offset at the instant it gives: two steps settle on it.
  let offset = wallClockMs(wall - 86_400_000, zone) - (wall - 86_400_000);
  offset = wallClockMs(wall - offset, zone) - (wall - offset);
  const offsetMinutes = Math.round(offset / 60_000);
  return `${local.length === 16 ? `${local}:00` : local}${offsetText(offsetMinutes)}`;
}

/**
 * An instant as the wall time of a zone, for a datetime-local input: "2026-11-25T10:00".
 * @param {number} epochMs
 * @param {string} zone
 */
export function wallTime(epochMs, zone) {
  return new Date(wallClockMs(epochMs, zone)).toISOString().slice(0, 16);
}
