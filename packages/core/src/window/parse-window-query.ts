import { Temporal } from 'temporal-polyfill';
import { InvalidParameterError } from '../errors/errors.js';
import { parseLocalDate } from '../time/local-date.js';

/** The dates of a window as given, parsed: local dates in the device zone, `undefined` for the default (D4, D5). */
export interface WindowDates {
  readonly from?: Temporal.PlainDate | undefined;
  readonly to?: Temporal.PlainDate | undefined;
}

/**
 * Query parameters as a router hands them over: each name with its value, or all its values when
 * it may repeat (Hono's `c.req.queries()`). Only `from` and `to` are read.
 */
export interface WindowQueryParameters {
  readonly from?: string | readonly string[] | undefined;
  readonly to?: string | readonly string[] | undefined;
}

const _NAMES = ['from', 'to'] as const;

/** The first local date a window may hold (P26): its start lies after 0001-01-01T00:00Z in every zone. */
export const FIRST_SUPPORTED_DATE = Temporal.PlainDate.from('0001-01-02');
/** The last local date a window may hold (P26): its end lies before 9999-12-31T23:59:59Z in every zone. */
export const LAST_SUPPORTED_DATE = Temporal.PlainDate.from('9999-12-30');

/**
 * Parses the `from` and `to` query parameters of `/hours` and `/hours/daily`, once (D7): a
 * repeated parameter, a malformed or impossible date, or `from` after `to` is refused naming the
 * parameter, and so is a date outside 0001-01-02 … 9999-12-30 (P26). Only the check that needs the device's zone — `from` after today when `to` is absent
 * — is left to `resolveWindow`, so a bad query answers the same 400 whatever the device (P11).
 * Other parameters are ignored.
 *
 * @param parameters The query parameters.
 * @returns The dates given.
 * @throws {InvalidParameterError} Naming the parameter at fault; `from` is checked before `to`.
 * @example
 * ```ts
 * import { parseWindowQuery } from '@fleet-hours/core';
 * parseWindowQuery({ from: '2026-03-01', to: ['2026-03-08'] }).to?.toString(); // '2026-03-08'
 * parseWindowQuery({ from: ['2026-03-01', '2026-03-02'] }); // throws InvalidParameterError: Parameter from is given 2 times: give it once
 * ```
 */
export function parseWindowQuery(parameters: WindowQueryParameters): WindowDates {
  const dates: { from?: Temporal.PlainDate; to?: Temporal.PlainDate } = {};
  for (const name of _NAMES) {
    const value = parameters[name];
    const given: readonly string[] = value === undefined ? [] : typeof value === 'string' ? [value] : value;
    if (given.length > 1) throw new InvalidParameterError(name, `Parameter ${name} is given ${given.length} times: give it once`);
    if (given.length === 1) dates[name] = _supported(name, parseLocalDate(name, given[0]!));
  }
  if (dates.from && dates.to && Temporal.PlainDate.compare(dates.from, dates.to) > 0) {
    throw new InvalidParameterError('from', `Parameter from "${dates.from.toString()}" is after to "${dates.to.toString()}"`);
  }
  return dates;
}

function _supported(name: string, date: Temporal.PlainDate): Temporal.PlainDate {
  if (Temporal.PlainDate.compare(date, FIRST_SUPPORTED_DATE) < 0 || Temporal.PlainDate.compare(date, LAST_SUPPORTED_DATE) > 0) {
    throw new InvalidParameterError(
      name,
      `Parameter ${name} "${date.toString()}" is outside the supported dates ${FIRST_SUPPORTED_DATE.toString()} to ${LAST_SUPPORTED_DATE.toString()}`,
    );
  }
  return date;
}
