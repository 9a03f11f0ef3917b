import type { MaybeOptionalInit } from 'openapi-fetch';
import type { paths } from './generated/api.js';

/** The JSON body of an operation's 200 answer. */
type JsonOk<Operation> = Operation extends { responses: { 200: { content: { 'application/json': infer Body } } } } ? Body : never;

/**
 * Every path whose GET answers a page: `{ data: [...], next_cursor }` (the fleet pages, and any
 * other list the API pages). Found from the generated types, so a paged route added to the
 * document is one here.
 */
export type PagedPath = {
  [Path in keyof paths]: paths[Path] extends { get: infer Operation }
    ? [JsonOk<Operation>] extends [never]
      ? never
      : JsonOk<Operation> extends { readonly data: readonly unknown[]; readonly next_cursor: string | null }
        ? Path
        : never
    : never;
}[keyof paths];

/** One page of a paged path, as the API answers it. */
export type Page<Path extends PagedPath> = paths[Path] extends { get: infer Operation } ? JsonOk<Operation> : never;

/** One element of a page's `data`. */
export type PageItem<Path extends PagedPath> = Page<Path>['data'][number];

/** What a paged path takes: its path and query parameters; a `cursor` given starts the walk there. */
export type PageInit<Path extends PagedPath> = MaybeOptionalInit<paths[Path], 'get'>;
