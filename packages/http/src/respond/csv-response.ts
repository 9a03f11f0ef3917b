import { csvHeader, csvRows, type CsvList } from '@fleet-hours/core';
import type { Context } from 'hono';
import type { FleetHoursEnv } from '../app-env.js';
import { CSV_CONTENT_TYPE } from './negotiate.js';

/** One answer of a list (a page, or the whole list when it is not paged) and how to read the next. */
export interface ListPage {
  /** The JSON answer, exactly as the API sends it. */
  readonly body: unknown;
  /** Reads the next page; `null` on the last. */
  readonly next: (() => Promise<ListPage>) | null;
}

/**
 * The CSV answer of a list (D62): the header, then the rows of every page, streamed (P117). The
 * first page was read before the answer starts, so that a refusal is still a JSON error with its
 * status; each later page is read only when the client has taken the one before (the stream pulls
 * with no read-ahead, and the Node server waits for the socket to drain), so the memory an export
 * holds is one page whatever the fleet's size. A failure after the headers are sent cannot change
 * the status: the stream is cut short (`onFailure` logs it first), so the client sees an incomplete
 * transfer rather than a file that looks whole.
 *
 * @param c The request's context: its headers so far (rate limits, request id) go on the answer.
 * @param list The list's row of `CSV_LISTS`.
 * @param first The first page, already read.
 * @param fileName The name `Content-Disposition` offers.
 * @param onFailure Told of a failure after the answer started.
 * @returns The streamed response.
 */
export function csvResponse(
  c: Context<FleetHoursEnv>,
  list: CsvList,
  first: ListPage,
  fileName: string,
  onFailure: (error: unknown) => void,
): Response {
  const encoder = new TextEncoder();
  let header = csvHeader(list);
  let page: ListPage | null = first;
  let next: ListPage['next'] = null;
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          // A page without rows (devices without days) gives nothing to send: read on until one does.
          for (;;) {
            if (page === null && next !== null) {
              const read: () => Promise<ListPage> = next;
              next = null;
              page = await read();
            }
            if (page === null) {
              if (header !== '') controller.enqueue(encoder.encode(header));
              controller.close();
              return;
            }
            const text = header + csvRows(page.body, list);
            header = '';
            next = page.next;
            page = null;
            if (text !== '') {
              controller.enqueue(encoder.encode(text));
              return;
            }
          }
        } catch (error) {
          onFailure(error);
          controller.error(error);
        }
      },
      cancel() {
        page = null;
        next = null;
      },
    },
    { highWaterMark: 0 },
  );
  return c.body(stream, 200, {
    'Content-Type': CSV_CONTENT_TYPE,
    'Content-Disposition': `attachment; filename="${fileName}"`,
    'Cache-Control': 'no-store',
    Vary: 'Accept',
  });
}
