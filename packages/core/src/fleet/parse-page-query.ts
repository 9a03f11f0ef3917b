import { InvalidParameterError } from '../errors/errors.js';
import { PAGED_ENDPOINTS, type PagedEndpoint } from '../access/read-endpoints.js';

export type { FleetEndpoint } from '../access/read-endpoints.js';

/**
 * Devices per page of each fleet endpoint when `limit` is not given, and the most a page may hold
 * (D32): from `READ_ENDPOINTS`; and entries per page of the change log (P87), from `MANAGE_ENDPOINTS`.
 */
export const FLEET_PAGE_SIZES: Readonly<Record<PagedEndpoint, { readonly default: number; readonly max: number }>> = Object.freeze(
  Object.fromEntries(
    PAGED_ENDPOINTS.map(({ paging }) => [paging.cursor, Object.freeze({ default: paging.defaultLimit, max: paging.maxLimit })]),
  ) as Record<PagedEndpoint, { readonly default: number; readonly max: number }>,
);

/**
 * Query parameters as a router hands them over (Hono's `c.req.queries()`). Only `limit` and
 * `cursor` are read.
 */
export interface PageQueryParameters {
  readonly limit?: string | readonly string[] | undefined;
  readonly cursor?: string | readonly string[] | undefined;
}

/** A page as asked for: devices per page and where to go on from; `undefined` for the defaults (the first page). */
export interface PageQuery {
  readonly limit?: number | undefined;
  readonly cursor?: string | undefined;
}

/**
 * Parses the `limit` and `cursor` query parameters of a fleet endpoint (D32): `limit` is devices
 * per page, a whole number from 1 to the endpoint's maximum written in digits; `cursor` is the
 * opaque `next_cursor` of a previous page, read (and refused when it is malformed or foreign) by
 * the service, which knows the account. A repeated parameter is refused, like `from` and `to` (D7).
 *
 * @param parameters The query parameters.
 * @param endpoint The fleet endpoint asked.
 * @returns `limit` (`undefined` for the endpoint's default) and `cursor` as given.
 * @throws {InvalidParameterError} Naming the parameter at fault; `limit` is checked before `cursor`.
 * @example
 * ```ts
 * import { parsePageQuery } from '@fleet-hours/core/adapter';
 * parsePageQuery({ limit: '50' }, 'hours').limit; // 50
 * parsePageQuery({ limit: '101' }, 'daily'); // throws InvalidParameterError: Parameter limit "101" is out of range: give a whole number from 1 to 100
 * ```
 */
export function parsePageQuery(parameters: PageQueryParameters, endpoint: PagedEndpoint): PageQuery {
  const given = _single(parameters, 'limit');
  let limit: number | undefined;
  if (given !== undefined) {
    if (!/^[0-9]{1,9}$/.test(given)) {
      throw new InvalidParameterError(
        'limit',
        `Cannot parse limit "${_shown(given)}": give a whole number from 1 to ${FLEET_PAGE_SIZES[endpoint].max}`,
      );
    }
    limit = pageSize(endpoint, Number(given));
  }
  const cursor = _single(parameters, 'cursor');
  return limit === undefined ? { cursor } : { limit, cursor };
}

/**
 * The devices per page of a fleet request: the endpoint's default when `limit` is not given (D32).
 * Internal to the core: the one range check, for {@link parsePageQuery} and the service.
 *
 * @throws {InvalidParameterError} When `limit` is not a whole number from 1 to the endpoint's maximum.
 */
export function pageSize(endpoint: PagedEndpoint, limit: number | undefined): number {
  const { default: byDefault, max } = FLEET_PAGE_SIZES[endpoint];
  if (limit === undefined) return byDefault;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > max) {
    throw new InvalidParameterError('limit', `Parameter limit "${limit}" is out of range: give a whole number from 1 to ${max}`);
  }
  return limit;
}

function _single(parameters: PageQueryParameters, name: 'limit' | 'cursor'): string | undefined {
  const value = parameters[name];
  const given: readonly string[] = value === undefined ? [] : typeof value === 'string' ? [value] : value;
  if (given.length > 1) throw new InvalidParameterError(name, `Parameter ${name} is given ${given.length} times: give it once`);
  return given[0];
}

/** A parameter value as an error message quotes it: at most 40 characters. */
function _shown(value: string): string {
  return value.length > 40 ? `${value.slice(0, 40)}…` : value;
}
