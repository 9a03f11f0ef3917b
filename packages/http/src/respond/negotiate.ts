/**
 * Content negotiation of the API's answers (D62, P116): JSON, the default, or CSV, by the request's
 * `Accept` as HTTP reads it — each type takes the quality of the most specific range that matches
 * it (`text/csv` over `text/*` over any type), the higher quality wins, then the more specific range,
 * then the range listed first, and JSON on a full tie. An `Accept` that names neither keeps JSON,
 * as before CSV existed.
 */

/** What a request asks of a route that can answer JSON or CSV. */
export type Negotiated =
  /** JSON: no `Accept`, JSON preferred, or neither type acceptable. */
  | 'json'
  /** CSV preferred, JSON acceptable too: a list answers CSV, any other route JSON. */
  | 'csv'
  /** CSV acceptable and JSON not: a list answers CSV, any other route 406. */
  | 'csv-only';

/** The CSV media type of the answers, with its charset. */
export const CSV_CONTENT_TYPE = 'text/csv; charset=utf-8';

interface _Match {
  readonly quality: number;
  readonly specificity: number;
  readonly position: number;
}

/**
 * What `Accept` asks: JSON or CSV (D62, P116). `text/csv` is `'csv-only'`;
 * `application/json, text/csv;q=0.5` is `'json'`.
 *
 * @param accept The `Accept` header, if any.
 * @returns `'json'`, `'csv'` or `'csv-only'`.
 */
export function negotiate(accept: string | undefined): Negotiated {
  if (accept === undefined || accept.trim() === '') return 'json';
  const ranges = accept.split(',').map((part, position) => {
    const [range = '', ...parameters] = part.split(';').map((piece) => piece.trim().toLowerCase());
    const q = parameters.find((parameter) => /^q\s*=/.test(parameter));
    const quality = q === undefined ? 1 : Number(q.replace(/^q\s*=\s*/, ''));
    return { range, quality: Number.isFinite(quality) ? Math.min(Math.max(quality, 0), 1) : 1, position };
  });
  const json = _match(ranges, 'application', 'json');
  const csv = _match(ranges, 'text', 'csv');
  if (csv.quality === 0) return 'json';
  if (json.quality === 0) return 'csv-only';
  const csvFirst =
    csv.quality !== json.quality
      ? csv.quality > json.quality
      : csv.specificity !== json.specificity
        ? csv.specificity > json.specificity
        : csv.position < json.position;
  return csvFirst ? 'csv' : 'json';
}

/** The most specific range of `Accept` that matches a type, and its quality; quality 0 when none does. */
function _match(ranges: readonly { range: string; quality: number; position: number }[], type: string, subtype: string): _Match {
  let best: _Match = { quality: 0, specificity: 0, position: Number.POSITIVE_INFINITY };
  for (const { range, quality, position } of ranges) {
    const specificity = range === `${type}/${subtype}` ? 3 : range === `${type}/*` ? 2 : range === '*/*' ? 1 : 0;
    if (specificity > best.specificity) best = { quality, specificity, position };
  }
  return best;
}
