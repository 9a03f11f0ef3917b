import {
  API_KEY_SCOPES,
  type ApiKeyScope,
  controlCharacterRefusal,
  givenInstantRangeMessage,
  isGivenInstantInRange,
  normalizeTimeZone,
  parseInstant,
} from '@fleet-hours/core';
import { UsageError } from './cli-errors.js';

/** The plans an account can have (D12): `business` includes API access, `starter` does not. */
export const PLANS = ['business', 'starter'] as const;

/** A plan name. */
export type Plan = (typeof PLANS)[number];

/**
 * Reads a record id: a positive whole number.
 *
 * @param text The argument as typed.
 * @param what What it names, for the message, e.g. `--account`.
 * @throws {UsageError} When it is not a positive integer.
 */
export function readId(text: string, what: string): number {
  const trimmed = text.trim();
  const value = Number(trimmed);
  if (!/^\d+$/.test(trimmed) || !Number.isSafeInteger(value) || value < 1) {
    throw new UsageError(`${what} must be a positive whole number, got "${text}"`);
  }
  return value;
}

/**
 * Reads a TCP port, 0 to 65535 (0: any free port).
 *
 * @throws {UsageError} When it is not one.
 */
export function readPort(text: string): number {
  const value = Number(text.trim());
  if (!/^\d+$/.test(text.trim()) || value > 65_535) throw new UsageError(`--port must be a whole number from 0 to 65535, got "${text}"`);
  return value;
}

/**
 * Reads `--host`: the address to listen on, `127.0.0.1` when absent or blank.
 *
 * @param value The option as parsed, if given.
 */
export function readHost(value: string | boolean | undefined): string {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : '127.0.0.1';
}

/**
 * Reads a plan name (D12).
 *
 * @throws {UsageError} For anything but `business` or `starter`.
 */
export function readPlan(text: string): Plan {
  const plan = text.trim().toLowerCase();
  if (!(PLANS as readonly string[]).includes(plan)) throw new UsageError(`Unknown plan "${text}": use ${PLANS.join(' or ')}`);
  return plan as Plan;
}

/**
 * Reads an API key's scope (D51).
 *
 * @throws {UsageError} For anything but `read` or `manage`.
 */
export function readScope(text: string): ApiKeyScope {
  const scope = text.trim().toLowerCase();
  if (!(API_KEY_SCOPES as readonly string[]).includes(scope))
    throw new UsageError(`Unknown scope "${text}": use ${API_KEY_SCOPES.join(' or ')}`);
  return scope as ApiKeyScope;
}

/**
 * Reads an IANA time zone and returns its canonical spelling.
 *
 * @throws {UsageError} For an unknown zone or a fixed offset.
 */
export function readTimeZone(text: string): string {
  try {
    return normalizeTimeZone(text.trim());
  } catch (error) {
    throw new UsageError(`--timezone: ${(error as Error).message}`);
  }
}

/**
 * Reads an ISO 8601 instant with an offset into epoch seconds, within the range of every instant
 * a person gives (D50).
 *
 * @throws {UsageError} When it has no offset, cannot be read or lies outside the range, naming the option.
 */
export function readInstant(text: string, what: string): number {
  let seconds: number;
  try {
    seconds = parseInstant(text.trim());
  } catch {
    throw new UsageError(`${what} must be an ISO 8601 instant with an offset, e.g. 2027-01-01T00:00:00Z, got "${text}"`);
  }
  return _inRange(seconds, text, what);
}

/** D50: the one range of every instant a person gives, refused naming the option as typed. */
function _inRange(seconds: number, text: string, what: string): number {
  if (!isGivenInstantInRange(seconds)) throw new UsageError(givenInstantRangeMessage(what, `"${text}"`));
  return seconds;
}

/**
 * Reads a non-empty text value, trimmed, without control characters (D50).
 *
 * @throws {UsageError} When it is empty or holds a control character.
 */
export function readText(text: string, what: string): string {
  const trimmed = readCleanText(text, what);
  if (trimmed === '') throw new UsageError(`${what} must not be empty`);
  return trimmed;
}

/**
 * Reads a text value, trimmed (empty allowed), refusing control characters (D50): C0 and C1
 * controls and the bidirectional overrides, which would reach every terminal that prints the name.
 *
 * @param text The option as typed.
 * @param what The option, e.g. `--name`.
 * @throws {UsageError} Naming the option, the text quoted with its controls escaped.
 */
export function readCleanText(text: string, what: string): string {
  const refusal = controlCharacterRefusal(what, text);
  if (refusal !== null) throw new UsageError(refusal);
  return text.trim();
}

/**
 * Reads a device status: a lower-case word such as `active` or `inactive` (the API's set of
 * values is open; `active` is the default).
 *
 * @throws {UsageError} For anything else.
 */
export function readStatus(text: string): string {
  const status = text.trim();
  if (!/^[a-z][a-z0-9_-]*$/.test(status)) {
    throw new UsageError(`--status must be a lower-case word such as "active" or "inactive", got "${text}"`);
  }
  return status;
}

/**
 * Reads a number ≥ 0 (or > 0 with `positive`).
 *
 * @throws {UsageError} When it is not one.
 */
export function readNumber(text: string, what: string, { positive = false, integer = false } = {}): number {
  const value = text.trim() === '' ? NaN : Number(text);
  const ok = Number.isFinite(value) && (positive ? value > 0 : value >= 0) && (!integer || Number.isInteger(value));
  if (!ok) {
    throw new UsageError(`${what} must be a${integer ? ' whole' : ''} number ${positive ? '> 0' : '≥ 0'}, got "${text}"`);
  }
  return value;
}

/** The units a duration on the command line is given in, with their seconds. */
const DURATION_UNITS = { h: 3600, m: 60, s: 1 } as const;

/** The unit a duration was typed in: `h`, `m` or `s`. */
export type DurationUnit = keyof typeof DURATION_UNITS;

const DURATION = /^([+-]?)(\d+)(?:\.(\d+))?([hms]?)$/;

/**
 * Reads a duration of engine time (D38, D39): a number and a unit, `250h`, `90m`, `3600s`. A bare
 * number other than 0 is refused, whatever it would mean: `--every 250` could be hours as easily
 * as seconds.
 * A decimal number is read exactly (`1.5h` is 5400 s) and must come to whole seconds (`0.5s` is
 * refused). A sign is read too, so that the core's check of the value's range names the option and
 * says what it must be.
 *
 * @param text The argument as typed.
 * @param what The option, for the message, e.g. `--every`.
 * @returns Whole seconds.
 * @throws {UsageError} When it is not such a duration.
 */
export function readDuration(text: string, what: string): number {
  const match = DURATION.exec(text.trim().toLowerCase());
  if (!match) throw new UsageError(`${what} must be a duration such as 250h, 90m or 3600s, got "${text}"`);
  const [, sign, whole, fraction = '', unit] = match;
  // Zero is zero in every unit: only a number that is not zero needs its unit.
  if (unit === '' && /^0*$/.test(`${whole}${fraction}`)) return 0;
  if (unit === '') {
    const number = text.trim();
    throw new UsageError(`${what} ${number}: give a unit: ${number}h, ${number}m or ${number}s`);
  }
  // Exact decimal arithmetic: 1.1h is 3960 s, not 3960.0000000000005.
  const scaled = BigInt(`${whole}${fraction}`) * BigInt(DURATION_UNITS[unit as DurationUnit]);
  const divisor = 10n ** BigInt(fraction.length);
  if (scaled % divisor !== 0n) throw new UsageError(`${what} must come to whole seconds, got "${text}"`);
  const seconds = Number(scaled / divisor);
  if (!Number.isSafeInteger(seconds)) throw new UsageError(`${what} is too long, got "${text}"`);
  return sign === '-' ? -seconds : seconds;
}

/**
 * The unit a duration was typed in, so that what the CLI says back about it is in that unit.
 *
 * @param text A duration {@link readDuration} read.
 * @returns Its unit; `s` for text that is not one.
 */
export function durationUnit(text: string): DurationUnit {
  const unit = DURATION.exec(text.trim().toLowerCase())?.[4];
  return unit === 'h' || unit === 'm' ? unit : 's';
}

/**
 * Writes seconds in a unit, as a person would type it back: `1080000` in `h` is `300h`, `5400` is
 * `1.5h`. When the unit cannot say it exactly in four decimals, the next smaller one does: `3601`
 * in `h` is `3601s`, never a rounded `1.0003h`.
 *
 * @param seconds Whole seconds.
 * @param unit The unit the person typed.
 */
export function formatDuration(seconds: number, unit: DurationUnit): string {
  const units: DurationUnit[] = unit === 'h' ? ['h', 'm', 's'] : unit === 'm' ? ['m', 's'] : ['s'];
  const exact = units.find((candidate) => (seconds * 10_000) % DURATION_UNITS[candidate] === 0) ?? 's';
  return `${seconds / DURATION_UNITS[exact]}${exact}`;
}

/**
 * Reads a whole number of days (a sign included, as {@link readDuration} reads it), or `keyword`
 * (e.g. `none`) for `null`.
 *
 * @param keyword The word that stands for no value, if any.
 * @throws {UsageError} For anything else.
 */
export function readDays(text: string, what: string, keyword?: string): number | null {
  const trimmed = text.trim().toLowerCase();
  if (keyword !== undefined && trimmed === keyword) return null;
  const value = Number(trimmed);
  if (!/^[+-]?\d+$/.test(trimmed) || !Number.isSafeInteger(value)) {
    throw new UsageError(`${what} must be a whole number of days${keyword === undefined ? '' : ` or "${keyword}"`}, got "${text}"`);
  }
  return value;
}

/** A local date or date-time without an offset: an instant only once a zone is chosen, which the CLI never guesses. */
const WITHOUT_OFFSET = /^\d{4}-\d\d-\d\d(?:[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?)?$/;

/**
 * Reads an instant: ISO 8601 with an offset or `Z`, or `now` (the command's clock), within the
 * range of every instant a person gives (D50).
 *
 * @param now Epoch seconds of the command's clock.
 * @returns Epoch seconds (a fraction of a second is dropped).
 * @throws {UsageError} For an instant without an offset (naming the option), or anything else.
 */
export function readInstantOrNow(text: string, what: string, now: number): number {
  const trimmed = text.trim();
  if (trimmed.toLowerCase() === 'now') return now;
  if (WITHOUT_OFFSET.test(trimmed)) {
    throw new UsageError(
      `${what} "${text}" has no offset: write it with one, e.g. 2026-11-20T07:00:00-05:00 or 2026-11-20T12:00:00Z, or "now"`,
    );
  }
  let seconds: number;
  try {
    seconds = parseInstant(trimmed);
  } catch {
    throw new UsageError(`${what} must be an ISO 8601 instant with an offset, e.g. 2026-11-20T07:00:00-05:00, or "now", got "${text}"`);
  }
  return _inRange(seconds, text, what);
}
