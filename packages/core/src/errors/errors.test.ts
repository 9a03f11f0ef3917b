import { describe, expect, it } from 'vitest';
import { FleetHoursError, InvalidParameterError, isFleetHoursError, SegmentOverlapError, StorageUnavailableError } from './errors.js';

describe('FleetHoursError (D16)', () => {
  it('is thrown by code: status and default message come from the table', () => {
    const error = new FleetHoursError('device_not_found');
    expect(error).toBeInstanceOf(Error);
    expect([error.name, error.code, error.status, error.message, error.headers]).toEqual([
      'FleetHoursError',
      'device_not_found',
      404,
      'No such device on this account',
      {},
    ]);
  });

  it('takes a more specific message, headers and a cause', () => {
    const cause = new Error('inner');
    const error = new FleetHoursError('method_not_allowed', {
      message: 'Method PUT is not allowed: use GET or HEAD',
      headers: { Allow: 'GET, HEAD' },
      cause,
    });
    expect([error.status, error.message, error.headers, error.cause]).toEqual([
      405,
      'Method PUT is not allowed: use GET or HEAD',
      { Allow: 'GET, HEAD' },
      cause,
    ]);
    expect('cause' in new FleetHoursError('not_found')).toBe(false);
  });
});

describe('isFleetHoursError()', () => {
  it('recognises the class and its subclasses, never a plain error with the same message', () => {
    expect(isFleetHoursError(new FleetHoursError('not_found'))).toBe(true);
    expect(isFleetHoursError(new InvalidParameterError('from', 'x'))).toBe(true);
    expect(isFleetHoursError(new StorageUnavailableError())).toBe(true);
    expect(isFleetHoursError(new Error('No such endpoint'))).toBe(false);
    expect(isFleetHoursError(Object.assign(new Error('x'), { code: 'not_found' }))).toBe(false);
    expect(isFleetHoursError({ code: 'not_found' })).toBe(false);
  });

  it('recognises one made by a second copy of the package, by its brand and code', () => {
    const brand = Symbol.for('@fleet-hours/core/FleetHoursError');
    class OtherCopy extends Error {
      readonly code = 'invalid_parameter';
    }
    Object.defineProperty(OtherCopy.prototype, brand, { value: true });
    expect(isFleetHoursError(new OtherCopy('Cannot parse from "x"'))).toBe(true);
    const unknownCode = Object.assign(new OtherCopy('x'), { code: 'teapot' });
    expect(isFleetHoursError(unknownCode)).toBe(false);
  });
});

describe('InvalidParameterError (D7)', () => {
  it('names the parameter at fault and keeps the message', () => {
    const error = new InvalidParameterError('from', 'Cannot parse from "x": expected a date as YYYY-MM-DD');
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('InvalidParameterError');
    expect(error.parameter).toBe('from');
    expect(error.message).toBe('Cannot parse from "x": expected a date as YYYY-MM-DD');
    expect([error.code, error.status]).toEqual(['invalid_parameter', 400]);
    expect(error).toBeInstanceOf(FleetHoursError);
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
    expect([error.code, error.status]).toEqual(['conflict', 409]);
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
    expect([error.code, error.status]).toEqual(['service_unavailable', 503]);
    expect('cause' in new StorageUnavailableError()).toBe(false);
  });
});
