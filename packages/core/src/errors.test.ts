import { describe, expect, it } from 'vitest';
import { InvalidParameterError, SegmentOverlapError, StorageUnavailableError } from './errors.js';

describe('InvalidParameterError (D7)', () => {
  it('names the parameter at fault and keeps the message', () => {
    const error = new InvalidParameterError('from', 'Cannot parse from "x": expected a date as YYYY-MM-DD');
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('InvalidParameterError');
    expect(error.parameter).toBe('from');
    expect(error.message).toBe('Cannot parse from "x": expected a date as YYYY-MM-DD');
  });
});

describe('SegmentOverlapError (D1)', () => {
  it('names each conflicting row and the row or stored segment it overlaps', () => {
    const error = new SegmentOverlapError([
      { row: 2, otherRow: null, stored: { startedAt: 0, endedAt: 10, state: 'idle' } },
      { row: 4, otherRow: 3, stored: null },
    ]);
    expect(error.name).toBe('SegmentOverlapError');
    expect(error.message).toBe('Import refused, nothing written: row 2 overlaps a stored segment; row 4 overlaps row 3');
    expect(error.conflicts).toHaveLength(2);
  });

  it('shows five conflicts and counts the rest', () => {
    const conflicts = Array.from({ length: 8 }, (_, index) => ({ row: index + 2, otherRow: 1, stored: null }));
    expect(new SegmentOverlapError(conflicts).message).toBe(
      'Import refused, nothing written: row 2 overlaps row 1; row 3 overlaps row 1; row 4 overlaps row 1; row 5 overlaps row 1; row 6 overlaps row 1 and 3 more',
    );
  });
});

describe('StorageUnavailableError (D18)', () => {
  it('has a default message and keeps its cause', () => {
    const cause = new Error('ECONNREFUSED');
    const error = new StorageUnavailableError(undefined, { cause });
    expect(error.name).toBe('StorageUnavailableError');
    expect(error.message).toBe('Storage is unavailable');
    expect(error.cause).toBe(cause);
    expect(new StorageUnavailableError('Database down').message).toBe('Database down');
  });
});
