/** D26, in one place for `parseTelemetryPoint` (the wire) and `assertTelemetryPoints` (the stores). */

/** How far ahead of the server clock a point may be, by default (D26). */
export const _MAX_AHEAD_SECONDS = 300;

/** How many seconds `time` lies ahead of `now` (floored), when that is more than allowed (D26); else `null`. */
export function _secondsAhead(time: number, now: number, maxAheadSeconds: number): number | null {
  const ahead = time - Math.floor(now);
  return ahead > maxAheadSeconds ? ahead : null;
}

/** The refusal of a point from the future, starting with the field it names. */
export function _aheadMessage(shown: unknown, ahead: number, maxAheadSeconds: number): string {
  return `time must be at most ${maxAheadSeconds} s ahead of the server clock, got ${_show(shown)} (${ahead} s ahead)`;
}

/** A value as an error message quotes it: numbers as they are, the rest as JSON, long ones cut. */
export function _show(value: unknown): string {
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
