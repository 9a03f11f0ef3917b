import { describe, expect, it } from 'vitest';
import { formatHoursMinutes } from './format-hours-minutes.js';

describe('formatHoursMinutes()', () => {
  it('shows hours with thousands separators and two-digit minutes, dropping the seconds (D38)', () => {
    expect(formatHoursMinutes(0)).toBe('0:00');
    expect(formatHoursMinutes(59)).toBe('0:00');
    expect(formatHoursMinutes(900_000)).toBe('250:00');
    expect(formatHoursMinutes(45_000_000 + 3_599)).toBe('12,500:59');
  });

  it('shows time past due with a minus sign, but no "-0:00" for less than a minute past (D39)', () => {
    expect(formatHoursMinutes(-11_700)).toBe('-3:15');
    expect(formatHoursMinutes(-11_759)).toBe('-3:15');
    expect(formatHoursMinutes(-59)).toBe('0:00');
  });
});
