import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeFleetCursor, encodeFleetCursor } from './fleet-cursor.js';
import { InvalidParameterError } from '../errors/errors.js';
import type { FleetEndpoint } from './parse-page-query.js';
import { thrownBy } from '../testing/refusal.js';

const ENDPOINTS: readonly FleetEndpoint[] = ['hours', 'daily', 'meter'];

const refusal = (text: string, endpoint: FleetEndpoint, accountId: number): InvalidParameterError =>
  thrownBy(InvalidParameterError, () => decodeFleetCursor(text, { endpoint, accountId }));

describe('the fleet cursor (D32, P33)', () => {
  it('reads back the position it was made for, as URL-safe text without padding', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ENDPOINTS),
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        (endpoint, accountId, afterDeviceId) => {
          const text = encodeFleetCursor({ endpoint, accountId, afterDeviceId });
          expect(text).toMatch(/^[A-Za-z0-9_-]+$/);
          expect(decodeFleetCursor(text, { endpoint, accountId })).toBe(afterDeviceId);
        },
      ),
    );
  });

  it('refuses a cursor of another endpoint, naming both', () => {
    const text = encodeFleetCursor({ endpoint: 'meter', accountId: 3, afterDeviceId: 9 });
    const error = refusal(text, 'daily', 3);
    expect(error.parameter).toBe('cursor');
    expect(error.message).toBe(
      'Parameter cursor is a cursor of /api/v1/meter, not of /api/v1/hours/daily: give the next_cursor of a page of this endpoint',
    );
  });

  it('refuses a cursor of another account', () => {
    const text = encodeFleetCursor({ endpoint: 'hours', accountId: 3, afterDeviceId: 9 });
    expect(refusal(text, 'hours', 4)).toMatchObject({
      parameter: 'cursor',
      message: 'Parameter cursor belongs to another account: give the next_cursor of a page read with a key of this account',
    });
  });

  it('refuses text that is not a cursor, quoting it', () => {
    const valid = encodeFleetCursor({ endpoint: 'hours', accountId: 3, afterDeviceId: 9 });
    const json = (value: unknown) => btoa(JSON.stringify(value)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    const malformed = [
      '',
      'abc',
      '!!!!',
      `${valid}=`,
      `${valid}A`,
      valid.slice(0, -2),
      valid.toLowerCase(),
      'x'.repeat(300),
      json([1, 'hours', 3, 9]),
      json([2, 'hours', 3, 9, 'x']),
      json({ v: 1 }),
      json([1, 'hours', 3, 0, 'x']),
      // A position edited by hand: the check tag no longer matches.
      json([1, 'hours', 3, 10, (JSON.parse(atob(valid)) as unknown[])[4]]),
    ];
    for (const text of malformed) {
      const error = refusal(text, 'hours', 3);
      expect(error.parameter).toBe('cursor');
      expect(error.message).toMatch(/^Parameter cursor ".*" is not a cursor of this API: give the next_cursor of a previous page$/);
    }
    expect(refusal('x'.repeat(300), 'hours', 3).message).toContain(`"${'x'.repeat(40)}…"`);
  });

  it('a random edit of a cursor is refused or still names a position of the same endpoint and account', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000 }),
        fc.nat(),
        fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'),
        (afterDeviceId, at, character) => {
          const text = encodeFleetCursor({ endpoint: 'daily', accountId: 5, afterDeviceId });
          const position = at % text.length;
          const edited = text.slice(0, position) + character + text.slice(position + 1);
          if (edited === text) return;
          expect(() => decodeFleetCursor(edited, { endpoint: 'daily', accountId: 5 })).toThrow(InvalidParameterError);
        },
      ),
    );
  });
});
