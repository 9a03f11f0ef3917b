/**
 * A request parameter that cannot be used (D7). `parameter` names it, so the HTTP layer can
 * answer 400 `invalid_parameter` saying which.
 */
export class InvalidParameterError extends Error {
  override readonly name = 'InvalidParameterError';
  /** The query parameter at fault, e.g. `from`. */
  readonly parameter: string;

  constructor(parameter: string, message: string) {
    super(message);
    this.parameter = parameter;
  }
}

/** One overlap found while planning an import (D1). Rows are 1-based positions in the batch. */
export interface SegmentConflict {
  readonly row: number;
  /** The other row of the batch it overlaps, or `null` when it overlaps a stored segment. */
  readonly otherRow: number | null;
  /** The stored segment it overlaps, when `otherRow` is `null`. */
  readonly stored: { readonly startedAt: number; readonly endedAt: number | null; readonly state: string } | null;
}

/** An import batch refused whole because segments overlap (D1). Nothing of the batch is written. */
export class SegmentOverlapError extends Error {
  override readonly name = 'SegmentOverlapError';
  readonly conflicts: readonly SegmentConflict[];

  constructor(conflicts: readonly SegmentConflict[]) {
    const shown = conflicts.slice(0, 5).map((conflict) =>
      conflict.otherRow === null
        ? `row ${conflict.row} overlaps a stored segment`
        : `row ${conflict.row} overlaps row ${conflict.otherRow}`,
    );
    const more = conflicts.length > 5 ? ` and ${conflicts.length - 5} more` : '';
    super(`Import refused, nothing written: ${shown.join('; ')}${more}`);
    this.conflicts = conflicts;
  }
}

/** The store cannot be reached (D18). The HTTP layer answers 503 `service_unavailable`. */
export class StorageUnavailableError extends Error {
  override readonly name = 'StorageUnavailableError';

  constructor(message = 'Storage is unavailable', options?: { cause?: unknown }) {
    super(message, options);
  }
}
