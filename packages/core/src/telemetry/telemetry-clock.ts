/** D26 and D37's range, in one place for `parseTelemetryPoint` (the wire) and `assertTelemetryPoints` (the stores). */

/** How far ahead of the server clock a point may be, by default (D26). */
export const MAX_AHEAD_SECONDS = 300;

/**
 * 0001-01-02T00:00:00Z, the first instant a point may carry (D37): the read API serves local dates
 * from 0001-01-02 (P26), and from this instant on every zone's local date lies in the year 0001 or
 * later, so a stored point never makes a `since` or a day the API cannot show.
 */
export const EARLIEST_POINT_TIME = -62_135_510_400;
/** 9999-12-31T23:59:59Z, the last instant a point may carry. */
export const LATEST_POINT_TIME = 253_402_300_799;

/** The refusal of a point outside {@link EARLIEST_POINT_TIME} … {@link LATEST_POINT_TIME}, starting with the field it names. */
export function outOfRangeMessage(shown: unknown): string {
  return `time must be from 0001-01-02T00:00:00Z (the first date the read API serves) to 9999-12-31T23:59:59Z, got ${showValue(shown)}`;
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
