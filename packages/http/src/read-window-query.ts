import { InvalidParameterError, parseLocalDate } from '@fleet-hours/core';
import type { Context } from 'hono';

/** The window parameters of `/hours` and `/hours/daily` (D4, D5). */
export interface WindowParameters {
  readonly from: string | undefined;
  readonly to: string | undefined;
}

/**
 * Reads and checks `from` and `to` before any device is looked up, so a bad query answers the same
 * 400 whatever the device id (D7): a repeated parameter, a malformed or impossible date, or `from`
 * after `to`. Checks that need the device's zone (`from` after today when `to` is absent) are the
 * core's. Unknown parameters are ignored.
 *
 * @throws {InvalidParameterError} Naming the parameter at fault.
 */
export function readWindowQuery(c: Context): WindowParameters {
  const values: Record<'from' | 'to', string | undefined> = { from: undefined, to: undefined };
  for (const name of ['from', 'to'] as const) {
    const given = c.req.queries(name) ?? [];
    if (given.length > 1) {
      throw new InvalidParameterError(name, `Parameter ${name} is given ${given.length} times: give it once`);
    }
    if (given.length === 1) {
      values[name] = given[0]!;
      parseLocalDate(name, given[0]!);
    }
  }
  // Both are strict YYYY-MM-DD now, so text order is date order.
  if (values.from !== undefined && values.to !== undefined && values.from > values.to) {
    throw new InvalidParameterError('from', `Parameter from "${values.from}" is after to "${values.to}"`);
  }
  return values;
}
