import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Readable } from 'node:stream';
import {
  formatInstant,
  InvalidSegmentError,
  SegmentOverlapError,
  BeyondRetentionError,
  createTelemetryWrites,
  TELEMETRY_IMPORT_BATCH_POINTS,
  TelemetryImportRefusedError,
  TelemetryOverlapError,
  type FleetHoursStore,
  type ImportSummary,
  type SegmentInput,
  type TelemetryImportResult,
  type TelemetryPoint,
} from '@fleet-hours/core';
import { parseSegmentRecord, parseTelemetryRecord } from '@fleet-hours/core/adapter';
import { CommandError, UsageError } from '../cli/cli-errors.js';
import type { CliIo } from '../cli/cli-io.js';
import { formatCount } from '../cli/format-table.js';
import { readId } from '../cli/option-values.js';
import { readServerSetting } from '../cli/server-settings.js';
import { createProgressBar, formatMegabytes } from '../cli/progress-bar.js';
import { _describeFileError } from '../import/_describe-file-error.js';
import { _deviceAccount } from './_device-account.js';
import { formatFromFileName, ImportFileError, readImportFile } from '../import/read-import-file.js';
import type { ImportFileContents, ImportFormat, ImportProblem, ReadImportFileInput } from '../import/read-import-file.js';
import { optionalOption, requiredOption, type CommandContext, type CommandResult } from './command-context.js';

/** Files at least this large get a progress bar (on a terminal only). */
const PROGRESS_BAR_MIN_BYTES = 2_000_000;

/** The columns of each kind of import file. */
export const SEGMENT_COLUMNS = ['started_at', 'ended_at', 'state'] as const;
export const TELEMETRY_COLUMNS = ['time', 'ignition', 'speed_kmh'] as const;

/** What `import segments` and `import telemetry` report, in `--json` and as text. */
export interface ImportReport extends ImportSummary {
  readonly device_id: number;
  readonly file: string;
  readonly format: ImportFormat;
  /** Records read from the file: segments, or telemetry points. */
  readonly records: number;
  /** Segments in the batch written (equal to `records` for a segment import). */
  readonly segments: number;
  readonly read_seconds: number;
  readonly write_seconds: number;
  /** Segments of the batch per second, reading and writing together. */
  readonly segments_per_second: number;
}

/** `import segments --device ID FILE`: one batch, one transaction (D1). */
export async function importSegmentsCommand(context: CommandContext): Promise<CommandResult> {
  const { deviceId, file, format } = readImportArguments(context);
  const source = await openSource(file, context.io);
  await requireDevice(await context.store(), deviceId);
  const started = performance.now();
  const contents = await readSource(context, source, { format, columns: SEGMENT_COLUMNS, parse: parseSegmentRecord });
  const readSeconds = (performance.now() - started) / 1000;
  const rowLines = contents.lines;
  const report = await writeBatch(context, {
    deviceId,
    name: source.name,
    format: contents.format,
    records: contents.items.length,
    segments: contents.items,
    lineOfRow: (row) => rowLines[row - 1],
    readSeconds,
    started,
  });
  return { json: report, text: importText(report, 'segments') };
}

/** What `import telemetry` reports, in `--json` and as text. */
export interface TelemetryImportReport {
  readonly device_id: number;
  readonly file: string;
  readonly format: ImportFormat;
  /** Points read from the file. */
  readonly records: number;
  /** Points that were new or changed a stored point (D21). */
  readonly accepted: number;
  /** Points equal to stored ones: nothing changed (a file imported again). */
  readonly duplicates: number;
  /** Transactions the points were written in, {@link TELEMETRY_BATCH_POINTS} points each at most. */
  readonly batches: number;
  readonly read_seconds: number;
  readonly write_seconds: number;
  /** Points per second, reading and writing together. */
  readonly points_per_second: number;
}

/** Points per `writeTelemetry` call (and transaction) of `import telemetry`: a native batch's most (docs/ingestion.md). */
export const TELEMETRY_BATCH_POINTS = TELEMETRY_IMPORT_BATCH_POINTS;

/**
 * `import telemetry --device ID FILE`: stores the file's points through the core's
 * `importTelemetry`, the same writes as HTTP ingestion (D23), so the device's segments are what
 * D20 makes of all its points, however they arrived, and the same retention rule refuses them:
 * the one the database recorded (D45) and `--telemetry-retention-days` (D43). The whole file is
 * read and checked first: a bad line is reported as FILE:LINE before anything is written. Then the
 * points are written in time order, in batches of {@link TELEMETRY_BATCH_POINTS}, each its own
 * transaction: a refusal of a later batch (an overlap with imported segments, D23) leaves the
 * earlier ones stored, and says so. Importing the same file again changes nothing (every point a
 * duplicate, D21).
 */
export async function importTelemetryCommand(context: CommandContext): Promise<CommandResult> {
  const { deviceId, file, format } = readImportArguments(context);
  const retentionDays = readServerSetting('telemetryRetentionDays', context.options, context.io.env, 'import telemetry');
  const source = await openSource(file, context.io);
  const store = await context.store();
  const accountId = await _deviceAccount(store, deviceId);
  if (accountId === null) throw new CommandError(`No device with id ${deviceId}`);
  const started = performance.now();
  const contents = await readSource<TelemetryPoint>(context, source, { format, columns: TELEMETRY_COLUMNS, parse: parseTelemetryRecord });
  const readSeconds = (performance.now() - started) / 1000;

  const writeStarted = performance.now();
  const writing = createProgressBar({
    stream: context.io.stderr,
    enabled: context.io.stderrIsTTY && contents.items.length > TELEMETRY_BATCH_POINTS,
    total: contents.items.length,
    label: `Writing ${source.name}`,
    formatAmount: (amount) => `${formatCount(amount)} points`,
  });
  let written: TelemetryImportResult;
  try {
    written = await createTelemetryWrites(store).importTelemetry({
      accountId,
      deviceId,
      points: contents.items,
      now: context.now,
      retentionDays,
      onBatch: writing.update,
    });
  } catch (error) {
    throw _telemetryRefusal(error, source.name, (index) => contents.lines[index]);
  } finally {
    writing.finish();
  }
  const { accepted, duplicates, batches } = written;
  const finished = performance.now();
  const totalSeconds = (finished - started) / 1000;
  const report: TelemetryImportReport = {
    device_id: deviceId,
    file: source.name,
    format: contents.format,
    records: contents.items.length,
    accepted,
    duplicates,
    batches,
    read_seconds: round(readSeconds, 3),
    write_seconds: round((finished - writeStarted) / 1000, 3),
    points_per_second: totalSeconds > 0 ? Math.round(contents.items.length / totalSeconds) : 0,
  };
  const text = [
    `Imported ${formatCount(report.records)} telemetry points from ${report.file} into device ${deviceId}: ${formatCount(accepted)} accepted, ${formatCount(duplicates)} duplicates (already stored).`,
    `Read in ${report.read_seconds.toFixed(1)} s, written in ${formatCount(batches)} batch${batches === 1 ? '' : 'es'} in ${report.write_seconds.toFixed(1)} s: ${formatCount(report.points_per_second)} points/s.`,
    '',
  ].join('\n');
  return { json: report, text };
}

/**
 * A refused telemetry import as `FILE:LINE: …` (D23, D26, D43, D45). Batches before it were
 * committed: the message says how many points were stored, so the operator knows where the file stands.
 */
function _telemetryRefusal(error: unknown, name: string, lineOf: (index: number) => number | undefined): unknown {
  if (!(error instanceof TelemetryImportRefusedError)) return error;
  const outcome =
    error.stored === 0
      ? 'the import was refused and nothing was written'
      : `this batch and the ones after it were not written; the ${formatCount(error.stored)} points before it were stored (batches of ${formatCount(TELEMETRY_BATCH_POINTS)} points are separate transactions)`;
  const line = error.index === undefined ? 0 : (lineOf(error.index) ?? 0);
  const text = error.cause.message.replace(/: nothing was written$/, '');
  // An overlap names the device and instant; a field's refusal (D26) and the retention horizon (D43, D45) name the field.
  const message = error.cause instanceof TelemetryOverlapError ? text : `Field ${text}`;
  return new ImportFileError(name, [{ line, message }], 1, outcome);
}

function readImportArguments(context: CommandContext) {
  const deviceId = readId(requiredOption(context, 'device'), '--device');
  const file = context.positionals[0]!;
  const formatText = optionalOption(context, 'format');
  let format: ImportFormat | undefined;
  if (formatText !== undefined) {
    const lower = formatText.trim().toLowerCase();
    if (lower === 'ndjson' || lower === 'jsonl') format = 'ndjson';
    else if (lower === 'csv') format = 'csv';
    else throw new UsageError(`--format must be ndjson or csv, got "${formatText}"`);
  } else if (file !== '-') {
    format = formatFromFileName(file);
  }
  return { deviceId, file, format };
}

/**
 * Fails early, before a long file is read, when the device does not exist. The port has no
 * lookup by device id alone; an empty batch is the contract's way to ask: it writes nothing and
 * answers `null` for a missing device.
 */
async function requireDevice(store: FleetHoursStore, deviceId: number): Promise<void> {
  const answer = await createTelemetryWrites(store).importSegments({ deviceId, segments: [] });
  if (answer === null) throw new CommandError(`No device with id ${deviceId}`);
}

interface Source {
  /** Opens the bytes: called once the database is ready, so nothing is left open on an early failure. */
  readonly stream: () => Readable;
  readonly name: string;
  /** Bytes, when known (not for stdin). */
  readonly size: number | undefined;
}

async function openSource(file: string, io: CliIo): Promise<Source> {
  if (file === '-') return { stream: () => io.stdin, name: 'stdin', size: undefined };
  const path = resolve(io.cwd, file);
  let size: number;
  try {
    const info = await stat(path);
    if (info.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
    size = info.size;
  } catch (error) {
    throw new CommandError(`Cannot read ${file}: ${_describeFileError(error)}`, { cause: error });
  }
  return { stream: () => createReadStream(path, { highWaterMark: 1 << 20 }), name: file, size };
}

/** Reads and checks the whole source as `readImportFile` does, with a progress bar on a terminal's stderr for a large file. */
async function readSource<T>(
  context: CommandContext,
  source: Source,
  read: Pick<ReadImportFileInput<T>, 'format' | 'columns' | 'parse'>,
): Promise<ImportFileContents<T>> {
  const progress = createProgressBar({
    stream: context.io.stderr,
    enabled: context.io.stderrIsTTY && source.size !== undefined && source.size >= PROGRESS_BAR_MIN_BYTES,
    total: source.size ?? 0,
    label: `Reading ${source.name}`,
    formatAmount: formatMegabytes,
  });
  return readImportFile({ ...read, source: source.stream(), name: source.name, onProgress: progress.update }).finally(progress.finish);
}

async function writeBatch(
  context: CommandContext,
  batch: {
    readonly deviceId: number;
    readonly name: string;
    readonly format: ImportFormat;
    readonly records: number;
    readonly segments: readonly SegmentInput[];
    readonly lineOfRow: (row: number) => number | undefined;
    readonly readSeconds: number;
    readonly started: number;
  },
): Promise<ImportReport> {
  const writeStarted = performance.now();
  const showStatus = context.io.stderrIsTTY && batch.segments.length >= 50_000;
  if (showStatus) context.io.stderr.write(`Writing ${formatCount(batch.segments.length)} segments in one transaction…`);
  let summary: ImportSummary | null;
  try {
    summary =
      batch.segments.length === 0
        ? { inserted: 0, closed: 0, skipped: 0 }
        : await createTelemetryWrites(await context.store()).importSegments({ deviceId: batch.deviceId, segments: batch.segments });
  } catch (error) {
    throw translateBatchError(error, batch.name, batch.lineOfRow);
  } finally {
    if (showStatus) context.io.stderr.write('\r\u001b[2K');
  }
  if (summary === null) throw new CommandError(`No device with id ${batch.deviceId}`);
  const finished = performance.now();
  const totalSeconds = (finished - batch.started) / 1000;
  return {
    device_id: batch.deviceId,
    file: batch.name,
    format: batch.format,
    records: batch.records,
    segments: batch.segments.length,
    ...summary,
    read_seconds: round(batch.readSeconds, 3),
    write_seconds: round((finished - writeStarted) / 1000, 3),
    segments_per_second: totalSeconds > 0 ? Math.round(batch.segments.length / totalSeconds) : 0,
  };
}

/** Turns a refused batch into `FILE:LINE: …` problems (D1: nothing was written). */
function translateBatchError(error: unknown, name: string, lineOfRow: (row: number) => number | undefined): unknown {
  const refused = 'the import was refused and nothing was written';
  if (error instanceof SegmentOverlapError || (error as Error | undefined)?.name === 'SegmentOverlapError') {
    const { conflicts } = error as SegmentOverlapError;
    const problems: ImportProblem[] = conflicts.map((conflict) => {
      const line = lineOfRow(conflict.row) ?? 0;
      if (conflict.otherRow !== null) {
        const otherLine = lineOfRow(conflict.otherRow);
        return {
          line,
          message: `Overlaps the segment of line ${otherLine ?? `row ${conflict.otherRow}`} (segments of one device must not overlap)`,
        };
      }
      const stored = conflict.stored;
      const span = stored ? ` ${formatSpan(stored.startedAt, stored.endedAt)} (${stored.state})` : '';
      return {
        line,
        message: `Overlaps the stored segment${span}; only an identical segment, or the same one closed, can be imported again`,
      };
    });
    problems.sort((a, b) => a.line - b.line);
    return new ImportFileError(name, problems.slice(0, 20), problems.length, refused);
  }
  if (error instanceof InvalidSegmentError) {
    // A rule the file's lines passed one by one but the batch broke (e.g. an instant before the
    // year 0001, which no store can hold): the error names the row, and the row its line.
    return new ImportFileError(name, [{ line: lineOfRow(error.row) ?? 0, message: error.reason }], 1, refused);
  }
  // D45: a segment starting before the retention horizon the database recorded: before it everything is final.
  if (error instanceof BeyondRetentionError) {
    const message = `Field ${error.message.replace(/^time /, 'started_at ').replace(/: nothing was written$/, '')}`;
    return new ImportFileError(name, [{ line: lineOfRow(error.index + 1) ?? 0, message }], 1, refused);
  }
  return error;
}

function formatSpan(startedAt: number, endedAt: number | null): string {
  return `${formatInstant(startedAt, 'UTC')} – ${endedAt === null ? 'still running' : formatInstant(endedAt, 'UTC')}`;
}

function importText(report: ImportReport, unit: string): string {
  const what =
    unit === 'segments'
      ? `${formatCount(report.records)} segments`
      : `${formatCount(report.records)} ${unit} (${formatCount(report.segments)} segments)`;
  return [
    `Imported ${what} from ${report.file} into device ${report.device_id}: ${formatCount(report.inserted)} inserted, ${formatCount(report.closed)} closed, ${formatCount(report.skipped)} skipped (already stored).`,
    `Read in ${report.read_seconds.toFixed(1)} s, written in one transaction in ${report.write_seconds.toFixed(1)} s: ${formatCount(report.segments_per_second)} segments/s.`,
    '',
  ].join('\n');
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
