import { InvalidParameterError } from '../errors/errors.js';
import { givenInstantRangeMessage, isGivenInstantInRange } from '../time/instant-floor.js';
import { parseInstant } from '../time/parse-instant.js';
import type { EpochSeconds } from '../types.js';

const _UTC = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}Z)?$/;

/**
 * D64 (P123): the window of a time series from its path segments: `YYYY-MM-DDThh:mm:ssZ`, or a
 * date — the start of that UTC day for `startUTC`, the end of it (the next midnight) for `endUTC`,
 * so that a window of dates covers both whole days. Each within the range of every given instant
 * (D50), and the end not before the start.
 *
 * @returns Epoch seconds, `start ≤ end`.
 * @throws {InvalidParameterError} Naming `startUTC` or `endUTC`.
 * @example
 * ```ts
 * import { parseAempWindow } from '@fleet-hours/core';
 * parseAempWindow('2026-11-01', '2026-11-01T12:00:00Z'); // { start: 1793491200, end: 1793534400 }
 * parseAempWindow('2026-11-01', '2026-11-01'); // { start: 1793491200, end: 1793577600 }
 * ```
 */
export function parseAempWindow(startText: string, endText: string): { readonly start: EpochSeconds; readonly end: EpochSeconds } {
  const start = _instant('startUTC', startText, 0);
  const end = _instant('endUTC', endText, 86_400);
  if (end < start) throw new InvalidParameterError('endUTC', `Parameter endUTC "${endText}" is before startUTC "${startText}"`);
  return { start, end };
}

function _instant(name: string, text: string, dateShift: number): EpochSeconds {
  let seconds: number | null = null;
  if (_UTC.test(text)) {
    try {
      seconds = text.length === 10 ? parseInstant(`${text}T00:00:00Z`) + dateShift : parseInstant(text);
    } catch {
      seconds = null;
    }
  }
  if (seconds === null)
    throw new InvalidParameterError(
      name,
      `Parameter ${name} must be a UTC datetime YYYY-MM-DDThh:mm:ssZ or a date YYYY-MM-DD, got "${text}"`,
    );
  if (!isGivenInstantInRange(seconds)) throw new InvalidParameterError(name, givenInstantRangeMessage(name, `"${text}"`));
  return seconds;
}
