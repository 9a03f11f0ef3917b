import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatAempHours, MAX_AEMP_SECONDS } from './aemp-hours.js';

describe('formatAempHours (D64, P120)', () => {
  it('D64: round(Hour × 3600) gives the seconds back, for any whole seconds; always 6 places', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MAX_AEMP_SECONDS }), (seconds) => {
        const text = formatAempHours(seconds);
        expect(text).toMatch(/^\d+\.\d{6}$/);
        expect(Math.round(Number(text) * 3600)).toBe(seconds);
      }),
      { numRuns: 2000 },
    );
  });

  it('D64: agrees with an exact oracle in BigInt (seconds / 3600 rounded to the micro-hour)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MAX_AEMP_SECONDS }), (seconds) => {
        const micro = (BigInt(seconds) * 1_000_000n * 2n + 3600n) / 7200n;
        expect(formatAempHours(seconds)).toBe(`${micro / 1_000_000n}.${String(micro % 1_000_000n).padStart(6, '0')}`);
      }),
    );
  });

  it('names cases: 0, one second, one hour, the example of the contract', () => {
    expect(formatAempHours(0)).toBe('0.000000');
    expect(formatAempHours(1)).toBe('0.000278');
    expect(formatAempHours(3600)).toBe('1.000000');
    expect(formatAempHours(44_444_441)).toBe('12345.678056');
  });

  it('refuses fractions, negatives and values past the safe range', () => {
    for (const bad of [-1, 1.5, Number.NaN, MAX_AEMP_SECONDS + 1]) expect(() => formatAempHours(bad)).toThrow(RangeError);
  });
});
