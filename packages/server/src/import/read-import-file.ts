import { StringDecoder } from 'node:string_decoder';
import type { Readable } from 'node:stream';
import type { ImportRecord } from '@fleet-hours/core/adapter';
import { CommandError } from '../cli/cli-errors.js';
import { _describeFileError } from './_describe-file-error.js';
import { parseCsvLine } from './parse-csv-line.js';

/** The formats an import file can have. */
export type ImportFormat = 'ndjson' | 'csv';

/** One problem in an import file, at a 1-based line. */
export interface ImportProblem {
  readonly line: number;
  readonly message: string;
}

/** How many problems an {@link ImportFileError} lists; the rest are counted. */
export const MAX_LISTED_PROBLEMS = 20;

/**
 * An import file that cannot be imported: each problem is reported as `FILE:LINE: what is wrong`,
 * and nothing is written.
 */
export class ImportFileError extends CommandError {
  override readonly name: string = 'ImportFileError';
  readonly file: string;
  /** The first {@link MAX_LISTED_PROBLEMS} problems, by line. */
  readonly problems: readonly ImportProblem[];
  /** Every problem found, listed or not. */
  readonly problemCount: number;

  constructor(file: string, problems: readonly ImportProblem[], problemCount = problems.length, summary = 'nothing was imported') {
    const listed = problems.map((problem) => `${file}:${problem.line}: ${problem.message}`);
    const more = problemCount > problems.length ? [`… and ${problemCount - problems.length} more problems`] : [];
    super([...listed, ...more, `${problemCount === 1 ? '1 problem' : `${problemCount} problems`} in ${file}: ${summary}`].join('\n'));
    this.file = file;
    this.problems = problems;
    this.problemCount = problemCount;
  }
}

/** What {@link readImportFile} needs. */
export interface ReadImportFileInput<T> {
  /** The bytes of the file, or stdin. */
  readonly source: Readable;
  /** How the file is named in messages: its path as given, or `stdin`. */
  readonly name: string;
  /** A format from `--format` or the file's extension; sniffed from the first line when absent. */
  readonly format?: ImportFormat | undefined;
  /** Fields every record must have: CSV header columns, NDJSON keys (extra ones are ignored). */
  readonly columns: readonly string[];
  /** Turns one record into an item; throws with a message naming the field at fault. */
  readonly parse: (record: ImportRecord) => T;
  /** Called as bytes are read, for a progress bar. */
  readonly onProgress?: (bytesRead: number) => void;
}

/** What {@link readImportFile} read. */
export interface ImportFileContents<T> {
  readonly format: ImportFormat;
  /** The parsed records, in file order. */
  readonly items: T[];
  /** `lines[i]` is the 1-based line of `items[i]`. */
  readonly lines: number[];
  readonly bytesRead: number;
}

/**
 * Picks the format from a file name's extension: `.ndjson`, `.jsonl` and `.json` are NDJSON,
 * `.csv` is CSV (a trailing `.gz` is not understood: decompress into stdin).
 *
 * @returns The format, or `undefined` to sniff the first line.
 */
export function formatFromFileName(name: string): ImportFormat | undefined {
  const lower = name.toLowerCase();
  if (/\.(ndjson|jsonl|json)$/.test(lower)) return 'ndjson';
  if (lower.endsWith('.csv')) return 'csv';
  return undefined;
}

/**
 * Reads a whole NDJSON or CSV import file, checking every line before anything is written.
 * Blank lines are ignored; a UTF-8 byte order mark and CRLF line ends are accepted. NDJSON lines
 * are JSON objects; CSV starts with a header naming `columns` (in any order). Every bad line is
 * collected and reported together.
 *
 * @param input The source, its name, the expected columns and how to parse one record.
 * @returns The items with their line numbers.
 * @throws {ImportFileError} Listing every bad line as `FILE:LINE: what is wrong`.
 * @throws {CommandError} When the source cannot be read.
 * @example
 * ```ts
 * import { Readable } from 'node:stream';
 * import { parseSegmentRecord } from '@fleet-hours/core/adapter';
 * import { readImportFile } from '@fleet-hours/server';
 * const { items, lines } = await readImportFile({
 *   source: Readable.from(['started_at,ended_at,state\n', '\n', '2026-03-08T07:00:00Z,2026-03-08T07:45:00Z,moving\n']), // or fs.createReadStream(path)
 *   name: 'march.csv',
 *   columns: ['started_at', 'ended_at', 'state'],
 *   parse: parseSegmentRecord,
 * });
 * // items: [{ startedAt: 1772953200, endedAt: 1772955900, state: 'moving' }], lines: [3]
 * ```
 */
export async function readImportFile<T>(input: ReadImportFileInput<T>): Promise<ImportFileContents<T>> {
  const items: T[] = [];
  const lines: number[] = [];
  const problems: ImportProblem[] = [];
  let problemCount = 0;
  const report = (line: number, message: string) => {
    problemCount += 1;
    if (problems.length < MAX_LISTED_PROBLEMS) problems.push({ line, message });
  };

  let format = input.format;
  let header: { readonly names: readonly string[]; readonly wanted: readonly number[] } | null = null;
  let lineNumber = 0;
  let bytesRead = 0;
  let seenContent = false;

  const handleLine = (raw: string) => {
    lineNumber += 1;
    let text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (!seenContent && lineNumber === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text.trim() === '') return;
    if (!seenContent) {
      seenContent = true;
      format ??= text.trimStart().startsWith('{') ? 'ndjson' : 'csv';
      if (format === 'csv') {
        header = readCsvHeader(text, input.columns, lineNumber, input.name);
        return;
      }
    }
    let record: ImportRecord;
    try {
      record = format === 'csv' ? csvRecord(text, header!) : ndjsonRecord(text, input.columns);
    } catch (error) {
      report(lineNumber, (error as Error).message);
      return;
    }
    try {
      items.push(input.parse(record));
      lines.push(lineNumber);
    } catch (error) {
      report(lineNumber, (error as Error).message);
    }
  };

  const decoder = new StringDecoder('utf8');
  let pending = '';
  try {
    for await (const chunk of input.source) {
      const bytes: Buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      bytesRead += bytes.length;
      const text = pending + decoder.write(bytes);
      let start = 0;
      for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', start)) {
        handleLine(text.slice(start, newline));
        start = newline + 1;
      }
      pending = text.slice(start);
      input.onProgress?.(bytesRead);
    }
  } catch (error) {
    if (error instanceof ImportFileError) throw error;
    throw new CommandError(`Cannot read ${input.name}: ${_describeFileError(error)}`);
  }
  pending += decoder.end();
  if (pending !== '') handleLine(pending);

  if (problemCount > 0) throw new ImportFileError(input.name, problems, problemCount);
  return { format: format ?? input.format ?? 'ndjson', items, lines, bytesRead };
}

function readCsvHeader(text: string, columns: readonly string[], line: number, name: string) {
  const fail = (message: string): never => {
    throw new ImportFileError(name, [{ line, message }]);
  };
  let names: string[] = [];
  try {
    names = parseCsvLine(text).map((column) => column.trim().toLowerCase());
  } catch (error) {
    fail(`Cannot read the CSV header: ${(error as Error).message}`);
  }
  const expected = columns.join(',');
  const missing = columns.filter((column) => !names.includes(column));
  if (missing.length > 0) {
    const looksLikeData = /^\d{4}-\d{2}-\d{2}/.test(names[0] ?? '');
    fail(
      looksLikeData
        ? `The CSV file has no header: its first line must be ${expected}`
        : `The CSV header must name the columns ${expected}; missing ${missing.join(', ')} (got "${text.trim()}")`,
    );
  }
  const repeated = names.find((column, index) => columns.includes(column) && names.indexOf(column) !== index);
  if (repeated) fail(`The CSV header names the column ${repeated} twice`);
  return { names, wanted: columns.map((column) => names.indexOf(column)) };
}

function csvRecord(text: string, header: { readonly names: readonly string[] }): ImportRecord {
  let fields: string[];
  try {
    fields = parseCsvLine(text);
  } catch (error) {
    throw new Error((error as Error).message);
  }
  if (fields.length !== header.names.length) {
    throw new Error(`Expected ${header.names.length} CSV fields (${header.names.join(',')}), got ${fields.length}`);
  }
  const record: Record<string, string> = {};
  header.names.forEach((column, index) => {
    record[column] = fields[index]!;
  });
  return record;
}

function ndjsonRecord(text: string, columns: readonly string[]): ImportRecord {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`Not valid JSON: ${(error as Error).message.replace(/^Unexpected/, 'unexpected')}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new Error(`Expected a JSON object with ${columns.join(', ')}, got ${Array.isArray(value) ? 'an array' : JSON.stringify(value)}`);
  }
  const record = value as ImportRecord;
  const missing = columns.filter((column) => !(column in record));
  if (missing.length > 0) {
    const hint = missing.includes('ended_at') ? ' (ended_at is null for a segment still running)' : '';
    throw new Error(
      `${missing.length === 1 ? 'Field' : 'Fields'} ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} missing${hint}`,
    );
  }
  return record;
}
