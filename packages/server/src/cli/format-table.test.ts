import { describe, expect, it } from 'vitest';
import { formatCount, formatTable } from './format-table.js';

describe('formatTable()', () => {
  it('aligns columns two spaces apart, numbers to the right, without trailing spaces', () => {
    const table = formatTable(
      [{ header: 'ID', align: 'right' }, { header: 'NAME' }, { header: 'PLAN' }],
      [
        [1, 'Acme Haulage', 'business'],
        [12, 'Bolt', null],
      ],
    );
    expect(table).toBe('ID  NAME          PLAN\n 1  Acme Haulage  business\n12  Bolt          -\n');
  });

  it('counts characters, not UTF-16 units or combining marks, so accented names line up', () => {
    const table = formatTable(
      [{ header: 'CITY' }, { header: 'N' }],
      [
        ['São Paulo', 1],
        ['Sa\u0303o Paulo', 2],
        ['Kathmandu', 3],
      ],
    );
    expect(table).toBe('CITY       N\nSão Paulo  1\nSa\u0303o Paulo  2\nKathmandu  3\n');
  });

  it('shows just the header for no rows, and flattens line breaks inside cells', () => {
    expect(formatTable([{ header: 'A' }], [])).toBe('A\n');
    expect(formatTable([{ header: 'A' }], [['x\ny']])).toBe('A\nx y\n');
  });
});

describe('formatCount()', () => {
  it('groups thousands the same on every machine', () => {
    expect(formatCount(0)).toBe('0');
    expect(formatCount(999)).toBe('999');
    expect(formatCount(1_000_000)).toBe('1,000,000');
    expect(formatCount(1234.6)).toBe('1,235');
  });
});
