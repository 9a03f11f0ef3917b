import { Readable } from 'node:stream';
import type { SegmentInput } from '@fleet-hours/core';
import { parseSegmentRecord, parseTelemetryRecord } from '@fleet-hours/core/adapter';
import { describe, expect, it } from 'vitest';
import { formatFromFileName, ImportFileError, MAX_LISTED_PROBLEMS, readImportFile, type ImportFormat } from './read-import-file.js';

const SEGMENT_COLUMNS = ['started_at', 'ended_at', 'state'];
const T0 = Date.UTC(2026, 2, 8, 12) / 1000;

/** Feeds text in small chunks, so lines and multi-byte characters are split across chunks. */
const source = (text: string, chunk = 7) => {
  const bytes = Buffer.from(text);
  const chunks: Buffer[] = [];
  for (let offset = 0; offset < bytes.length; offset += chunk) chunks.push(bytes.subarray(offset, offset + chunk));
  return Readable.from(chunks);
};

const readSegments = (text: string, format?: ImportFormat, name = 'segments.txt') =>
  readImportFile<SegmentInput>({ source: source(text), name, format, columns: SEGMENT_COLUMNS, parse: parseSegmentRecord });

const problemsOf = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ImportFileError);
    return (error as ImportFileError).problems.map((problem) => `${problem.line}: ${problem.message}`);
  }
  throw new Error('expected the file to be refused');
};

describe('readImportFile()', () => {
  it('reads NDJSON segments with their line numbers, ignoring blank lines, CRLF and a BOM', async () => {
    const text =
      '\uFEFF{"started_at":"2026-03-08T12:00:00Z","ended_at":"2026-03-08T12:10:00Z","state":"idle"}\r\n' +
      '\n   \n' +
      '{"started_at":"2026-03-08T08:10:00-04:00","ended_at":null,"state":"moving","note":"ignored"}\n';
    const contents = await readSegments(text);
    expect(contents.format).toBe('ndjson');
    expect(contents.items).toEqual([
      { startedAt: T0, endedAt: T0 + 600, state: 'idle' },
      { startedAt: T0 + 600, endedAt: null, state: 'moving' },
    ]);
    expect(contents.lines).toEqual([1, 4]);
    expect(contents.bytesRead).toBe(Buffer.byteLength(text));
  });

  it('reads CSV with the header in any order, quoted fields and an empty ended_at for an open segment', async () => {
    const text = 'state,started_at,ended_at\nidle,2026-03-08T12:00:00Z,2026-03-08T12:10:00Z\n"moving","2026-03-08T12:10:00Z",\n';
    const contents = await readSegments(text);
    expect(contents.format).toBe('csv');
    expect(contents.items).toEqual([
      { startedAt: T0, endedAt: T0 + 600, state: 'idle' },
      { startedAt: T0 + 600, endedAt: null, state: 'moving' },
    ]);
    expect(contents.lines).toEqual([2, 3]);
  });

  it('reads a last line without a line break, and multi-byte text split across chunks', async () => {
    const text = 'started_at,ended_at,state\n2026-03-08T12:00:00Z,2026-03-08T12:10:00Z,idle';
    expect((await readSegments(text)).items).toHaveLength(1);
    const telemetry = await readImportFile({
      source: source('{"time":"2026-03-08T12:00:00Z","ignition":true,"speed_kmh":12.5,"driver":"Zoë Ångström"}\n', 3),
      name: 't.ndjson',
      columns: ['time', 'ignition', 'speed_kmh'],
      parse: parseTelemetryRecord,
    });
    expect(telemetry.items).toEqual([{ time: T0, ignition: true, speedKmh: 12.5 }]);
  });

  it('reports every bad line as line: message, and nothing is returned', async () => {
    const text = [
      '{"started_at":"2026-03-08T12:00:00Z","ended_at":"2026-03-08T12:10:00Z","state":"idle"}',
      '{"started_at":"2026-03-08T12:10:00Z","ended_at":"2026-03-08T12:20:00Z","state":"idle"',
      '[1,2]',
      '{"started_at":"2026-03-08 12:20","ended_at":"2026-03-08T12:30:00Z","state":"idle"}',
      '{"started_at":"2026-03-08T12:30:00Z","state":"idle"}',
      '{"started_at":"2026-03-08T12:40:00Z","ended_at":"2026-03-08T12:30:00Z","state":"idle"}',
      '{"started_at":"2026-03-08T12:40:00Z","ended_at":"2026-03-08T12:50:00Z","state":"parked"}',
    ].join('\n');
    const problems = await problemsOf(readSegments(text));
    expect(problems).toHaveLength(6);
    expect(problems[0]).toMatch(/^2: Not valid JSON: /);
    expect(problems[1]).toBe('3: Expected a JSON object with started_at, ended_at, state, got an array');
    expect(problems[2]).toBe('4: Field started_at "2026-03-08 12:20" is not an ISO 8601 instant with an offset');
    expect(problems[3]).toBe('5: Field ended_at is missing (ended_at is null for a segment still running)');
    expect(problems[4]).toBe('6: Field ended_at must be after started_at');
    expect(problems[5]).toBe('7: Field state must be "moving" or "idle", got "parked"');
  });

  it('the error message names the file and line of each problem, and counts them', async () => {
    await expect(readSegments('started_at,ended_at,state\nnot-a-time,,idle\n', undefined, 'march.csv')).rejects.toThrow(
      'march.csv:2: Field started_at "not-a-time" is not an ISO 8601 instant with an offset\n1 problem in march.csv: nothing was imported',
    );
  });

  it('refuses a CSV header that lacks a column, names one twice, or is missing altogether', async () => {
    expect(await problemsOf(readSegments('start,end,state\n', 'csv'))).toEqual([
      '1: The CSV header must name the columns started_at,ended_at,state; missing started_at, ended_at (got "start,end,state")',
    ]);
    expect(await problemsOf(readSegments('started_at,ended_at,state,state\n', 'csv'))).toEqual([
      '1: The CSV header names the column state twice',
    ]);
    expect(await problemsOf(readSegments('2026-03-08T12:00:00Z,2026-03-08T12:10:00Z,idle\n', 'csv'))).toEqual([
      '1: The CSV file has no header: its first line must be started_at,ended_at,state',
    ]);
  });

  it('refuses a CSV row with the wrong number of fields or broken quoting', async () => {
    const text = 'started_at,ended_at,state\n2026-03-08T12:00:00Z,idle\n"2026-03-08T12:00:00Z,2026-03-08T12:10:00Z,idle\n';
    expect(await problemsOf(readSegments(text))).toEqual([
      '2: Expected 3 CSV fields (started_at,ended_at,state), got 2',
      '3: A quoted CSV field is not closed',
    ]);
  });

  it(`lists the first ${MAX_LISTED_PROBLEMS} problems and counts the rest`, async () => {
    const text = `started_at,ended_at,state\n${'x,,idle\n'.repeat(25)}`;
    try {
      await readSegments(text);
      expect.unreachable();
    } catch (error) {
      const refused = error as ImportFileError;
      expect(refused.problems).toHaveLength(MAX_LISTED_PROBLEMS);
      expect(refused.problemCount).toBe(25);
      expect(refused.message).toContain('… and 5 more problems');
      expect(refused.message).toContain('25 problems in segments.txt');
    }
  });

  it('sniffs the format from the first non-empty line when none is given, and honours a given one', async () => {
    expect((await readSegments('\n\n{"started_at":"2026-03-08T12:00:00Z","ended_at":null,"state":"idle"}\n')).format).toBe('ndjson');
    expect((await readSegments('started_at,ended_at,state\n')).format).toBe('csv');
    const forced = await problemsOf(readSegments('{"started_at":"2026-03-08T12:00:00Z","ended_at":null,"state":"idle"}\n', 'csv'));
    expect(forced[0]).toMatch(/^1: (The CSV header|Cannot read the CSV header)/);
  });

  it('an empty file has no records', async () => {
    expect((await readSegments('')).items).toEqual([]);
    expect((await readSegments('\n\n')).items).toEqual([]);
  });

  it('reports progress in bytes read', async () => {
    const seen: number[] = [];
    const text = 'started_at,ended_at,state\n2026-03-08T12:00:00Z,2026-03-08T12:10:00Z,idle\n';
    await readImportFile({
      source: source(text, 10),
      name: 'f.csv',
      columns: SEGMENT_COLUMNS,
      parse: parseSegmentRecord,
      onProgress: (bytes) => seen.push(bytes),
    });
    expect(seen.at(-1)).toBe(Buffer.byteLength(text));
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
  });
});

describe('formatFromFileName()', () => {
  it('knows .ndjson, .jsonl, .json and .csv, in any case, and leaves the rest to sniffing', () => {
    expect(formatFromFileName('a.ndjson')).toBe('ndjson');
    expect(formatFromFileName('dir/a.JSONL')).toBe('ndjson');
    expect(formatFromFileName('a.json')).toBe('ndjson');
    expect(formatFromFileName('a.CSV')).toBe('csv');
    expect(formatFromFileName('a.txt')).toBeUndefined();
    expect(formatFromFileName('segments')).toBeUndefined();
  });
});
