/** What the parts of the OpenAPI document built beside it (ingestion, the write routes) share. */
import { csvList, type CsvList } from '@fleet-hours/core';

/** A piece of the document, as plain JSON data. */
export type Json = Record<string, unknown>;

/** A reference to a component of the document: `ref('responses', 'NotFound')`. */
export const ref = (section: string, name: string) => ({ $ref: `#/components/${section}/${name}` });

/** The headers of every counted answer (D14) and its request id. */
export const RATE_LIMIT_HEADERS: Json = {
  'X-RateLimit-Limit': ref('headers', 'X-RateLimit-Limit'),
  'X-RateLimit-Remaining': ref('headers', 'X-RateLimit-Remaining'),
  'X-Request-Id': ref('headers', 'X-Request-Id'),
};

/**
 * The content of a route's 200 answer: its JSON schema and, for a list (core's `CSV_LISTS`, D62),
 * its CSV — asked for with `Accept: text/csv`, the whole list in one streamed answer (P117).
 *
 * @param name The route's name in core's tables.
 * @param schema Its JSON schema in `components.schemas`.
 */
export function answerContent(name: string, schema: string): Json {
  const list = csvList(name);
  return {
    'application/json': { schema: ref('schemas', schema) },
    ...(list
      ? {
          'text/csv': {
            schema: {
              type: 'string',
              description: `Sent for \`Accept: text/csv\`: RFC 4180 with CRLF line ends, \`Content-Disposition: attachment\`. The whole list in one answer (every page, no cursor), one row per entry${list.unwind ? ` and per element of its \`${list.unwind}\`` : ''}. Header: \`${list.columns.join(',')}\`${_variantHeaders(list)}. Text beginning with =, +, -, @, a tab or a carriage return is prefixed with \`'\`; arrays and maps are JSON text.`,
            },
          },
        }
      : {}),
  };
}

/** P143: the header of each other shape of a list's entries (`by=tag`), in words. */
function _variantHeaders(list: CsvList): string {
  const variants = list.variants;
  if (variants === undefined) return '';
  return Object.entries(variants.lists)
    .map(([value, other]) => `; with \`${variants.parameter}=${value}\`: \`${other.columns.join(',')}\``)
    .join('');
}

/** The 406 of a route that is not a list (P116): none for a list, which answers CSV too. */
export function notAcceptable(name: string): Json {
  return csvList(name) ? {} : { '406': ref('responses', 'NotAcceptable') };
}
