/**
 * CSV text of the API's lists (D62): RFC 4180 fields and records, and the rows of an answer by the
 * columns of its list ({@link CsvList}). Pure text: the HTTP layer negotiates and streams it.
 */
import type { CsvList } from './csv-lists.js';

/** The line end of every record (RFC 4180). */
export const CSV_LINE_END = '\r\n';

/** D62: a text cell beginning with one of these is read as a formula by spreadsheets: it gets a leading `'`. */
const _FORMULA_START = /^[=+\-@\t\r]/;

/** A field that needs quotes (RFC 4180): it holds a quote, a comma or a line break. */
const _NEEDS_QUOTES = /[",\r\n]/;

/**
 * One field of a CSV record (D62, P115): `null` and a missing value are empty; a number or a boolean
 * as JSON writes it; a text with a leading `'` when it begins with `=`, `+`, `-`, `@`, a tab or a
 * carriage return (a spreadsheet would run it as a formula); an array or an object (`tags`, the
 * `changes` of an audit entry) as its JSON text. Quoted, with quotes doubled, when it holds a
 * quote, a comma or a line break.
 *
 * @param value A value of a JSON answer.
 * @returns The field, quoted when needed.
 * @example
 * ```ts
 * import { csvField } from '@fleet-hours/core';
 * csvField('=1+1'); // "'=1+1"
 * csvField('Truck, "big"'); // '"Truck, ""big"""'
 * csvField(['north', 'yard 2']); // '"[""north"",""yard 2""]"'
 * csvField(-3600); // '-3600'
 * ```
 */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  const text = typeof value === 'string' ? (_FORMULA_START.test(value) ? `'${value}` : value) : JSON.stringify(value);
  return _NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * One CSV record: its fields by {@link csvField}, separated by commas, ended by CRLF (RFC 4180).
 *
 * @param values The record's values, in column order.
 * @returns The record's line.
 */
export function csvRecord(values: readonly unknown[]): string {
  return `${values.map(csvField).join(',')}${CSV_LINE_END}`;
}

/**
 * The header record of a list (D62): its columns, the JSON field names of an entry.
 *
 * @param list The list, a row of `CSV_LISTS`.
 * @returns The header line.
 */
export function csvHeader(list: CsvList): string {
  return csvRecord(list.columns);
}

/**
 * The records of one answer of a list (a page, or the whole list when it is not paged), one per
 * entry (D62): the entries are the answer's `data` (`answer: 'list'`) or the answer itself
 * (`'entry'`); an entry with a nested list (`unwind`) is one record per element of it, the entry's
 * own fields repeated on each, and none when the nested list is empty. A column names a field of
 * the entry, or of an object in it with `.` (`actor.kind`); under the unwound field, of its element
 * (`data.engine_seconds`).
 *
 * @param answer The JSON answer of the list, as the API sends it.
 * @param list The list, a row of `CSV_LISTS`.
 * @returns The records' lines, in the answer's order; `''` for none.
 * @example
 * ```ts
 * import { CSV_LISTS, csvRows } from '@fleet-hours/core';
 * const daily = { device_id: 7, timezone: 'UTC', from: '2026-11-01T00:00:00+00:00', to: '2026-11-02T23:59:59+00:00',
 *   data: [{ date: '2026-11-01', engine_seconds: 60, moving_seconds: 60, idle_seconds: 0 }] };
 * csvRows(daily, CSV_LISTS.daily); // '7,UTC,2026-11-01T00:00:00+00:00,2026-11-02T23:59:59+00:00,2026-11-01,60,60,0\r\n'
 * ```
 */
export function csvRows(answer: unknown, list: CsvList): string {
  const entries = list.answer === 'entry' ? [answer] : _field(answer, 'data');
  if (!Array.isArray(entries)) return '';
  const paths = list.columns.map((column) => column.split('.'));
  let text = '';
  for (const entry of entries) {
    if (list.unwind === undefined) {
      text += csvRecord(paths.map((path) => _at(entry, path)));
      continue;
    }
    const nested = _field(entry, list.unwind);
    if (!Array.isArray(nested)) continue;
    for (const element of nested) text += csvRecord(paths.map((path) => _at({ ...(entry as object), [list.unwind!]: element }, path)));
  }
  return text;
}

function _at(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const name of path) current = _field(current, name);
  return current;
}

function _field(value: unknown, name: string): unknown {
  return value !== null && typeof value === 'object' && Object.hasOwn(value, name) ? (value as Record<string, unknown>)[name] : undefined;
}
