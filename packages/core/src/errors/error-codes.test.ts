import { describe, expect, it } from 'vitest';
import { ERROR_CODES, ERROR_TABLE, isErrorCode } from './error-codes.js';

/** The codes of D16, in its order: the table starts with them. */
const D16 = [
  'missing_api_key',
  'unknown_api_key',
  'revoked_api_key',
  'expired_api_key',
  'plan_without_api_access',
  'rate_limited',
  'invalid_parameter',
  'device_not_found',
  'not_found',
  'method_not_allowed',
  'service_unavailable',
  'internal_error',
];

describe('ERROR_TABLE (D16)', () => {
  it("starts with the codes of D16 in their order, then P22, then those of the ingestion API, then D29's, then D51's, D52's, D54's, D53's and D62's", () => {
    expect(ERROR_CODES.slice(0, D16.length)).toEqual(D16);
    expect(ERROR_CODES.slice(D16.length)).toEqual([
      'multiple_credentials',
      'missing_ingest_token',
      'unknown_ingest_token',
      'revoked_ingest_token',
      'expired_ingest_token',
      'invalid_body',
      'payload_too_large',
      'unknown_device',
      'conflict',
      'beyond_retention',
      'bad_request',
      'request_timeout',
      'expectation_failed',
      'headers_too_large',
      'invalid_field',
      'unsupported_media_type',
      'precondition_failed',
      'insufficient_scope',
      'invalid_header',
      'idempotency_key_in_use',
      'idempotency_key_reused',
      'not_acceptable',
    ]);
  });

  it.each([
    [
      401,
      [
        'missing_api_key',
        'unknown_api_key',
        'revoked_api_key',
        'expired_api_key',
        'multiple_credentials',
        'missing_ingest_token',
        'unknown_ingest_token',
        'revoked_ingest_token',
        'expired_ingest_token',
      ],
    ],
    [400, ['invalid_parameter', 'invalid_body', 'bad_request', 'invalid_field', 'invalid_header']],
    [403, ['plan_without_api_access', 'insufficient_scope']],
    [404, ['device_not_found', 'not_found']],
    [405, ['method_not_allowed']],
    [406, ['not_acceptable']],
    [408, ['request_timeout']],
    [409, ['conflict', 'beyond_retention', 'idempotency_key_in_use']],
    [412, ['precondition_failed']],
    [413, ['payload_too_large']],
    [415, ['unsupported_media_type']],
    [417, ['expectation_failed']],
    [422, ['unknown_device', 'idempotency_key_reused']],
    [429, ['rate_limited']],
    [431, ['headers_too_large']],
    [500, ['internal_error']],
    [503, ['service_unavailable']],
  ])('maps status %i to exactly its codes', (status, codes) => {
    expect(ERROR_CODES.filter((code) => ERROR_TABLE[code].status === status)).toEqual(codes);
  });

  it('has a default message for every code in sentence case, without a trailing period', () => {
    for (const code of ERROR_CODES) {
      const { message } = ERROR_TABLE[code];
      expect([code, /^[A-Z]/.test(message), message.endsWith('.')]).toEqual([code, true, false]);
    }
  });

  it('is frozen as a list', () => {
    expect(Object.isFrozen(ERROR_CODES)).toBe(true);
  });
});

describe('isErrorCode()', () => {
  it('is true for the codes of the table only', () => {
    expect(ERROR_CODES.every(isErrorCode)).toBe(true);
    for (const value of ['ECONNREFUSED', '42P01', 'toString', '__proto__', 404, null, undefined]) expect(isErrorCode(value)).toBe(false);
  });
});
