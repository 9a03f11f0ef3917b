import { normalizeTimeZone, parseInstant } from '@fleet-hours/core';
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
 * Reads an ISO 8601 instant with an offset into epoch seconds.
 *
 * @throws {UsageError} When it has no offset or cannot be read.
 */
export function readInstant(text: string, what: string): number {
  try {
    return parseInstant(text.trim());
  } catch {
    throw new UsageError(`${what} must be an ISO 8601 instant with an offset, e.g. 2027-01-01T00:00:00Z, got "${text}"`);
  }
}

/**
 * Reads a non-empty text value, trimmed.
 *
 * @throws {UsageError} When it is empty.
 */
export function readText(text: string, what: string): string {
  const trimmed = text.trim();
  if (trimmed === '') throw new UsageError(`${what} must not be empty`);
  return trimmed;
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
