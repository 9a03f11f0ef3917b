import { BeyondRetentionError, TelemetryOverlapError } from '../errors/errors.js';
import type { FleetHoursStore } from '../store/storage-port.js';
import { InvalidTelemetryPointError, type TelemetryPoint } from '../telemetry/telemetry-point.js';
import type { DeviceTelemetryPoint, ImportSummary, SegmentInput, TelemetryWriteResult } from '../types.js';
import { PositionBatcher } from './position-batcher.js';
import { checkRetention } from './retention.js';

/** A batch of telemetry for {@link TelemetryWrites.telemetry}. */
export interface TelemetryWriteInput {
  readonly accountId: number;
  readonly points: readonly DeviceTelemetryPoint[];
  /** The writer's clock, epoch seconds (D26): "too far ahead" and the retention horizon count from it. */
  readonly now: number;
  /** D43: days of telemetry the writer keeps; 0 or `undefined`: every point. */
  readonly retentionDays?: number | undefined;
}

/** One position of a single-position request (a Traccar forward, an OsmAnd report), named by its device's IMEI. */
export interface PositionWriteInput {
  readonly accountId: number;
  readonly point: DeviceTelemetryPoint & { readonly imei: string };
  /** The writer's clock when the position was read, epoch seconds (D26). */
  readonly now: number;
  /** D43: days of telemetry the writer keeps; 0 or `undefined`: every point. */
  readonly retentionDays?: number | undefined;
}

/** A device's whole telemetry history for {@link TelemetryWrites.importTelemetry}. */
export interface TelemetryImportInput {
  readonly accountId: number;
  readonly deviceId: number;
  /** In any order: they are written in time order. */
  readonly points: readonly TelemetryPoint[];
  /** Epoch seconds (D26). */
  readonly now: number;
  /** D43: days of telemetry the writer keeps; 0 or `undefined`: every point. */
  readonly retentionDays?: number | undefined;
  /** Points per batch (and transaction); default {@link TELEMETRY_IMPORT_BATCH_POINTS}. */
  readonly batchPoints?: number;
  /** Told, after each committed batch, how many points are stored so far. */
  readonly onBatch?: (written: number) => void;
}

/** What {@link TelemetryWrites.importTelemetry} did. */
export interface TelemetryImportResult {
  /** Points that were new or changed a stored point (D21). */
  readonly accepted: number;
  /** Points equal to stored ones: nothing changed. */
  readonly duplicates: number;
  /** Transactions the points were written in, {@link TELEMETRY_IMPORT_BATCH_POINTS} points each at most. */
  readonly batches: number;
}

/** Points per `writeTelemetry` call (and transaction) of an import: a native batch's most. */
export const TELEMETRY_IMPORT_BATCH_POINTS = 10_000;

/**
 * An import of telemetry refused by a batch (D23, D26, D43, D45): the store's or the retention
 * check's own error as `cause`, the point it names as its index in the caller's `points`, and how
 * many points earlier batches stored (each batch is its own transaction).
 */
export class TelemetryImportRefusedError extends Error {
  override readonly name = 'TelemetryImportRefusedError';
  /**
   * 0-based index in the caller's `points` of the refused point: the one the error names, or for an
   * overlap (`TelemetryOverlapError`) the point that covers its instant; `undefined` when none does.
   */
  readonly index: number | undefined;
  /** Points stored by the batches before the refused one. */
  readonly stored: number;
  override readonly cause: BeyondRetentionError | InvalidTelemetryPointError | TelemetryOverlapError;

  constructor(cause: BeyondRetentionError | InvalidTelemetryPointError | TelemetryOverlapError, index: number | undefined, stored: number) {
    super(cause.message, { cause });
    this.cause = cause;
    this.index = index;
    this.stored = stored;
  }
}

/**
 * The writes of the service (D20–D26, D43, D45): every front end — the HTTP ingestion routes, the
 * CLI's imports, the demo — writes telemetry and imports through these, so that the retention
 * rule and the batching of single positions hold alike whoever writes.
 */
export interface TelemetryWrites {
  /**
   * Writes one batch in one transaction (D20, D21): refused whole, before the store is asked, when
   * a point is older than the writer's retention (D43), and by the store for a point before the
   * horizon the data recorded (D45), an unknown device (D25), a point too far ahead (D26) or an
   * overlap with imported segments (D23).
   * @throws {BeyondRetentionError} (D43: with `keptDays`; D45: without)
   */
  telemetry(input: TelemetryWriteInput): Promise<TelemetryWriteResult>;
  /**
   * Writes one position, alone or in a shared write with the positions of the account that arrive
   * meanwhile (P34), and answers with its device's share, as if written alone; refused as
   * {@link TelemetryWrites.telemetry} refuses a batch.
   */
  position(input: PositionWriteInput): Promise<TelemetryWriteResult>;
  /**
   * Writes a device's points in time order, in batches of {@link TELEMETRY_IMPORT_BATCH_POINTS} (or `batchPoints`),
   * each its own transaction, the same path as live telemetry (D23). The whole history is checked
   * against the retention (D43) before anything is written; a batch the store refuses leaves the
   * earlier ones stored. Writing the same points again changes nothing (D21).
   * @throws {TelemetryImportRefusedError} Naming the refused point and what was stored before it.
   */
  importTelemetry(input: TelemetryImportInput): Promise<TelemetryImportResult>;
  /**
   * Imports a batch of segments in one transaction (D1, D23); `null` when there is no such device.
   * Refused whole by the store for a segment before the horizon the data recorded (D45).
   */
  importSegments(input: {
    readonly deviceId: number;
    readonly segments: readonly SegmentInput[];
    /** Epoch seconds of the report (P6); default the latest instant in `segments`. */
    readonly reportedAt?: number;
  }): Promise<ImportSummary | null>;
}

/**
 * The writes over a store. One per store is enough: positions are batched across every caller of
 * the same writes (an app's three routes, several apps over one service).
 *
 * @param store Where telemetry and segments are written.
 * @returns The writes.
 * @example
 * ```ts
 * import { createMemoryStore, createTelemetryWrites } from '@fleet-hours/core';
 * const store = createMemoryStore();
 * const now = 1_780_000_000;
 * const account = await store.createAccount({ name: 'Acme', plan: 'business', now });
 * const device = await store.createDevice({ accountId: account.id, name: 'Truck 1', imei: '356307042441013', model: 'FMB920', timeZone: 'UTC' });
 * const writes = createTelemetryWrites(store);
 * const point = { deviceId: device!.id, time: now - 60, ignition: true, speedKmh: 0 };
 * const result = await writes.telemetry({ accountId: account.id, points: [point], now, retentionDays: 30 });
 * result.accepted; // 1
 * // D43: a point older than 30 days is refused before the store is asked.
 * await writes.telemetry({ accountId: account.id, points: [{ ...point, time: now - 31 * 86_400 }], now, retentionDays: 30 }).catch((error) => error.code); // 'beyond_retention'
 * ```
 */
export function createTelemetryWrites(store: FleetHoursStore): TelemetryWrites {
  const batcher = new PositionBatcher(store);
  return {
    async telemetry(input) {
      checkRetention(input.points, input);
      return store.writeTelemetry({ accountId: input.accountId, points: input.points, now: input.now });
    },

    async position(input) {
      checkRetention([input.point], input);
      return batcher.write({ accountId: input.accountId, point: input.point, now: input.now });
    },

    async importTelemetry(input) {
      const { accountId, deviceId, points, now } = input;
      // In time order, so that each batch is one stretch of time; each point keeps its index for errors.
      const order = points.map((_point, index) => index).sort((a, b) => points[a]!.time - points[b]!.time || a - b);
      try {
        checkRetention(points, input);
      } catch (error) {
        if (error instanceof BeyondRetentionError) throw new TelemetryImportRefusedError(error, error.index, 0);
        throw error;
      }
      const size = input.batchPoints ?? TELEMETRY_IMPORT_BATCH_POINTS;
      if (!Number.isSafeInteger(size) || size < 1) throw new RangeError(`batchPoints must be a whole number ≥ 1, got ${String(size)}`);
      let accepted = 0;
      let duplicates = 0;
      let batches = 0;
      for (let offset = 0; offset < order.length; offset += size) {
        const indexes = order.slice(offset, offset + size);
        let result: TelemetryWriteResult;
        try {
          result = await store.writeTelemetry({ accountId, points: indexes.map((index) => ({ deviceId, ...points[index]! })), now });
        } catch (error) {
          if (error instanceof TelemetryOverlapError)
            throw new TelemetryImportRefusedError(error, _covering(points, order, error.instant), offset);
          if (error instanceof InvalidTelemetryPointError || error instanceof BeyondRetentionError)
            throw new TelemetryImportRefusedError(error, error.index === undefined ? undefined : indexes[error.index], offset);
          throw error;
        }
        accepted += result.accepted;
        duplicates += result.duplicates;
        batches += 1;
        input.onBatch?.(offset + indexes.length);
      }
      return { accepted, duplicates, batches };
    },

    importSegments(input) {
      return store.importSegments(input);
    },
  };
}

/** The index of the point that covers an instant: the last one at or before it, in time order. */
function _covering(points: readonly TelemetryPoint[], order: readonly number[], instant: number): number | undefined {
  let found: number | undefined;
  for (const index of order) {
    if (points[index]!.time > instant) break;
    found = index;
  }
  return found;
}
