import { EARLIEST_GIVEN_INSTANT, givenInstantRangeMessage, LATEST_GIVEN_INSTANT } from '../time/instant-floor.js';

/** D26 and D37's range, in one place for `parseTelemetryPoint` (the wire) and `assertTelemetryPoints` (the stores). */

/** How far ahead of the server clock a point may be, by default (D26). */
export const MAX_AHEAD_SECONDS = 300;

/**
 * The first instant a point may carry (D37): the one floor of every instant a person gives (D50),
 * 0001-01-02T00:00:00Z, the first date the read API serves (P26), so a stored point never makes a
 * `since` or a day the API cannot show.
 */
export const EARLIEST_POINT_TIME = EARLIEST_GIVEN_INSTANT;
/** The last instant a point may carry: 9999-12-30T23:59:59Z, the ceiling of every given instant (D50). */
export const LATEST_POINT_TIME = LATEST_GIVEN_INSTANT;

/** The refusal of a point outside {@link EARLIEST_POINT_TIME} … {@link LATEST_POINT_TIME}, starting with the field it names. */
export function outOfRangeMessage(shown: unknown): string {
  return givenInstantRangeMessage('time', showValue(shown));
}

/** How many seconds `time` lies ahead of `now` (floored), when that is more than allowed (D26); else `null`. */
export function secondsAhead(time: number, now: number, maxAheadSeconds: number): number | null {
  const ahead = time - Math.floor(now);
  return ahead > maxAheadSeconds ? ahead : null;
}

/** The refusal of a point from the future, starting with the field it names. */
export function aheadMessage(shown: unknown, ahead: number, maxAheadSeconds: number): string {
  return `time must be at most ${maxAheadSeconds} s ahead of the server clock, got ${showValue(shown)} (${ahead} s ahead)`;
}

/** A value as an error message quotes it: numbers as they are, the rest as JSON, long ones cut. */
export function showValue(value: unknown): string {
  let text: string;
  if (typeof value === 'number') text = String(value);
  else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = String(value);
    }
  }
  // An error message quotes the value, not a whole nested object.
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
