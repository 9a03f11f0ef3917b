import openapiFetch, { type Client } from 'openapi-fetch';
import { FleetHoursApiError } from './fleet-hours-api-error.js';
import type { paths } from './generated/api.js';
import type { Page, PagedPath, PageInit, PageItem } from './paged-paths.js';
import { type RetryOptions, retryingFetch } from './retrying-fetch.js';

/**
 * openapi-fetch's `createClient`. Its CommonJS build sets `exports.default` with `__esModule`, and
 * Node's interop, which this package's CommonJS build follows, imports that whole object as the
 * default: there the function is its `default`.
 */
const createClient: typeof openapiFetch = (openapiFetch as unknown as { default?: typeof openapiFetch }).default ?? openapiFetch;

/** Options of {@link createFleetHoursClient}. */
export interface FleetHoursClientOptions {
  /** Where the API is served: the origin, plus the prefix it is mounted under if any (`https://fleet.example.com`). */
  readonly baseUrl: string;
  /** The API key (`fh_…`), sent as `Authorization: Bearer`; an ingest token for the ingestion routes. */
  readonly apiKey: string;
  /** The fetch that sends each request. Default: the global `fetch`. */
  readonly fetch?: (request: Request) => Promise<Response>;
  /** Retries of 429 and 503: a number of retries, or the options. Default `{ limit: 3, maxDelaySeconds: 60 }`; 0 never retries. */
  readonly retries?: number | RetryOptions;
}

/** The arguments after the path of `pages()` and `items()`: optional when the route needs no parameter. */
type PageArgs<Path extends PagedPath> = undefined extends PageInit<Path> ? [init?: PageInit<Path>] : [init: PageInit<Path>];

/**
 * The typed client: openapi-fetch's `GET`, `HEAD`, `POST`, `PATCH`… over every route, and page walks.
 * It asks for JSON, the API's default: the lists' CSV answers (`Accept: text/csv`) are for files, not for typed calls.
 */
export interface FleetHoursClient extends Client<paths, 'application/json'> {
  /**
   * Walks a paged route page by page, following `next_cursor` until the last page.
   *
   * @throws {FleetHoursApiError} When a page is refused (after the retries of a 429 or 503).
   */
  pages<Path extends PagedPath>(path: Path, ...init: PageArgs<Path>): AsyncGenerator<Page<Path>, void, undefined>;
  /**
   * Walks a paged route element by element: the `data` of every page in turn.
   *
   * @throws {FleetHoursApiError} When a page is refused (after the retries of a 429 or 503).
   */
  items<Path extends PagedPath>(path: Path, ...init: PageArgs<Path>): AsyncGenerator<PageItem<Path>, void, undefined>;
}

/** What a page walk needs of openapi-fetch's `GET`, without its per-path types. */
type UntypedGet = (
  path: string,
  init: { readonly params: { readonly query: Record<string, unknown> } },
) => Promise<{ data?: { readonly data: readonly unknown[]; readonly next_cursor: string | null }; error?: unknown; response: Response }>;

interface UntypedInit {
  readonly params?: { readonly query?: Record<string, unknown> };
}

/**
 * Creates a client of the Fleet Hours API (D57): a typed call for every route of its OpenAPI
 * document, page walks over every paged route, and retries of 429 and 503 after their
 * `Retry-After` for GET, HEAD and POST (each POST with an `Idempotency-Key` of its own, P90).
 *
 * @param options Where the API is, the key, and optionally a fetch and the retries.
 * @returns The client.
 * @throws {RangeError} When the retry options are not whole numbers ≥ 0.
 * @example
 * ```ts
 * // not executed: needs a running server
 * import { createFleetHoursClient } from '@fleet-hours/client';
 * const fleet = createFleetHoursClient({ baseUrl: 'https://fleet.example.com', apiKey: 'fh_…' });
 * const { data, error } = await fleet.GET('/api/v1/devices/{id}/hours', { params: { path: { id: 7 }, query: { from: '2026-03-01' } } });
 * for await (const hours of fleet.items('/api/v1/hours', { params: { query: { from: '2026-03-01' } } })) console.log(hours.engine_seconds);
 * ```
 */
export function createFleetHoursClient(options: FleetHoursClientOptions): FleetHoursClient {
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const retries = typeof options.retries === 'number' ? { limit: options.retries } : options.retries;
  const client = createClient<paths, 'application/json'>({
    baseUrl: options.baseUrl,
    headers: { Authorization: `Bearer ${options.apiKey}` },
    fetch: retryingFetch(send, retries),
  });
  const get = client.GET as unknown as UntypedGet;

  async function* pages(path: string, init: UntypedInit = {}) {
    let cursor = init.params?.query?.cursor;
    do {
      const query = { ...init.params?.query, ...(cursor === undefined ? {} : { cursor }) };
      const { data, error, response } = await get(path, { ...init, params: { ...init.params, query } });
      if (data === undefined) throw new FleetHoursApiError(response, error);
      yield data;
      cursor = data.next_cursor;
    } while (cursor !== null);
  }
  async function* items(path: string, init?: UntypedInit) {
    for await (const page of pages(path, init)) yield* page.data;
  }
  return Object.assign(client, { pages, items }) as unknown as FleetHoursClient;
}
