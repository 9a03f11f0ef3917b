import { describe, expect, it } from 'vitest';
import { errorAnswer } from './error-answer.js';
import { FleetHoursError, InvalidFieldError, InvalidParameterError, SegmentOverlapError, StorageUnavailableError } from './errors.js';

describe('errorAnswer() (D16)', () => {
  it('answers a FleetHoursError with its code, the status of the table, its message and headers', () => {
    expect(
      errorAnswer(
        new FleetHoursError('method_not_allowed', {
          message: 'Method PUT is not allowed: use GET or HEAD',
          headers: { Allow: 'GET, HEAD' },
        }),
      ),
    ).toEqual({
      status: 405,
      code: 'method_not_allowed',
      message: 'Method PUT is not allowed: use GET or HEAD',
      headers: { Allow: 'GET, HEAD' },
      details: {},
      internal: false,
    });
  });

  it('D51, D52: the fields a refusal adds to the body (the scope needed, the field) reach the answer, never on a 5xx', () => {
    expect(errorAnswer(new InvalidFieldError('timezone', 'timezone: Unknown time zone "Mars"'))).toMatchObject({
      status: 400,
      code: 'invalid_field',
      details: { field: 'timezone' },
    });
    expect(errorAnswer(new FleetHoursError('insufficient_scope', { details: { scope: 'manage' } })).details).toEqual({ scope: 'manage' });
    expect(errorAnswer(new FleetHoursError('internal_error', { details: { table: 'api_keys' } })).details).toEqual({});
  });

  it('keeps the message of a client error: it says what to fix (D7)', () => {
    expect(errorAnswer(new InvalidParameterError('from', 'Cannot parse from "x": expected a date as YYYY-MM-DD'))).toMatchObject({
      status: 400,
      code: 'invalid_parameter',
      message: 'Cannot parse from "x": expected a date as YYYY-MM-DD',
    });
    expect(errorAnswer(new SegmentOverlapError([{ row: 2, otherRow: 1, stored: null }]))).toMatchObject({ status: 409, code: 'conflict' });
  });

  it('never passes on the message of a server error: the table says it (D16, D18)', () => {
    expect(errorAnswer(new StorageUnavailableError('connect ECONNREFUSED 127.0.0.1:5432'))).toEqual({
      status: 503,
      code: 'service_unavailable',
      message: 'The service is temporarily unavailable: retry shortly',
      headers: {},
      details: {},
      internal: true,
    });
  });

  it('answers anything else with 500 internal_error and nothing of it', () => {
    for (const thrown of [
      new Error('select * from api_keys failed'),
      new TypeError("Cannot read properties of undefined (reading 'x')"),
      'a string',
      null,
      Object.assign(new Error('x'), { code: 'not_found', status: 404 }),
    ]) {
      expect(errorAnswer(thrown)).toEqual({
        status: 500,
        code: 'internal_error',
        message: 'Internal error: it has been logged',
        headers: {},
        details: {},
        internal: true,
      });
    }
  });
});
