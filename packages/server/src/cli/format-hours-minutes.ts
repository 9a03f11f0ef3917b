import { formatCount } from './format-table.js';

/**
 * Seconds of engine time as hours and minutes, `h:mm`, the way an hour meter reads: hours
 * unbounded with thousands separators (`12,500:00`), the seconds dropped, a minus sign for time
 * past due (`-3:15`).
 *
 * @param seconds Whole seconds, negative for time past due.
 * @returns The text, e.g. `250:00`.
 */
export function formatHoursMinutes(seconds: number): string {
  const whole = Math.trunc(Math.abs(seconds));
  const minutes = String(Math.floor((whole % 3600) / 60)).padStart(2, '0');
  return `${seconds <= -60 ? '-' : ''}${formatCount(Math.floor(whole / 3600))}:${minutes}`;
}
