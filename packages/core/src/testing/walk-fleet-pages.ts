import type { FleetPage } from '../application/read-queries.js';

/**
 * Every page of a fleet read, following `nextCursor` from the first page (D32), for the tests of
 * paging. Stops after `maxPages`, so that a cursor that never ends fails the test instead of hanging it.
 */
export async function walkFleetPages<Item>(
  read: (cursor: string | undefined) => Promise<FleetPage<Item>>,
  maxPages: number,
): Promise<FleetPage<Item>[]> {
  const pages: FleetPage<Item>[] = [];
  let cursor: string | undefined;
  do {
    const page = await read(cursor);
    pages.push(page);
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined && pages.length < maxPages);
  return pages;
}
