import { CSV_LISTS, csvFileName, csvListVariant, FleetHoursError, InvalidParameterError, type CsvListName } from '@fleet-hours/core';
import { FLEET_PAGE_SIZES, type PagedEndpoint, type PageQuery } from '@fleet-hours/core/adapter';
import type { Context, Handler, MiddlewareHandler } from 'hono';
import type { FleetHoursEnv } from '../app-env.js';
import { csvResponse, type ListPage } from '../respond/csv-response.js';
import { jsonResponse } from '../respond/json-response.js';
import { negotiate } from '../respond/negotiate.js';

export type { ListPage };

/**
 * Reads a list's first page (checking the whole query first, so that a bad one is 400 before
 * anything is read, P11). `whole`: the answer is CSV, the whole list — a paged list reads its
 * largest pages, from the first.
 */
export type ListReader = (c: Context<FleetHoursEnv>, request: { readonly whole: boolean }) => Promise<ListPage>;

/**
 * A list route (D62): JSON by default, its page as before; CSV when `Accept` prefers it or accepts
 * nothing else (P116): every page, streamed (P117). A CSV request with `cursor` is 400: the CSV
 * answer holds the whole list, from the first entry.
 *
 * @param name The route's name, its row of `CSV_LISTS`.
 * @param now The app's clock, epoch milliseconds: the date of the file's name.
 * @param read Reads the first page.
 */
export function listRoute(name: CsvListName, now: () => number, read: ListReader): Handler<FleetHoursEnv> {
  const list = CSV_LISTS[name];
  return async function listAnswer(c) {
    if (negotiate(c.req.header('Accept')) === 'json')
      return jsonResponse(c, (await read(c, { whole: false })).body, 200, { Vary: 'Accept' });
    if (c.req.queries('cursor') !== undefined)
      throw new InvalidParameterError('cursor', 'A CSV answer holds the whole list from its first entry: give no cursor');
    const first = await read(c, { whole: true });
    const date = new Date(now()).toISOString().slice(0, 10);
    // P143: the query was checked by the read; a parameter of the list may choose its shape (`by=tag`).
    const shape = 'variants' in list ? csvListVariant(list, c.req.query(list.variants.parameter)) : list;
    return csvResponse(c, shape, first, csvFileName(shape, date, c.req.param('id')), (error) => c.get('streamFailed')?.(error));
  };
}

/**
 * Every route that is not a list (D62, P116): a request that accepts CSV and not JSON is 406
 * `not_acceptable`, before the handler runs (so a write is not made); any other `Accept` is JSON.
 */
export const jsonOnly: MiddlewareHandler<FleetHoursEnv> = async (c, next) => {
  if (negotiate(c.req.header('Accept')) === 'csv-only') throw new FleetHoursError('not_acceptable');
  await next();
};

/**
 * A paged list from a page: its body and, while `nextCursor` is not null, the read of the next.
 *
 * @param read Reads the page after `cursor` (the first without one).
 * @param cursor The cursor of the request.
 */
export async function pagedList(
  read: (cursor: string | undefined) => Promise<{ readonly body: unknown; readonly nextCursor: string | null }>,
  cursor?: string,
): Promise<ListPage> {
  const { body, nextCursor } = await read(cursor);
  return { body, next: nextCursor === null ? null : () => pagedList(read, nextCursor) };
}

/** A list that is not paged: its one answer. */
export function wholeList(body: unknown): ListPage {
  return { body, next: null };
}

/** The page query of a paged list: a CSV answer (`whole`) reads the largest pages when `limit` is not given (P117). */
export function listPageQuery(query: PageQuery, endpoint: PagedEndpoint, whole: boolean): PageQuery {
  return whole && query.limit === undefined ? { ...query, limit: FLEET_PAGE_SIZES[endpoint].max } : query;
}
