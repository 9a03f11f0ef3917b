import { escapeControlCharacters } from '@fleet-hours/core';

/** A column of {@link formatTable}. */
export interface TableColumn {
  readonly header: string;
  /** Numbers read best right-aligned. Default `left`. */
  readonly align?: 'left' | 'right';
}

/**
 * Lays out rows as an aligned plain-text table: a header line, then one line per row, columns
 * separated by two spaces, no trailing spaces. `null` and `undefined` cells show as `-`.
 *
 * @param columns The columns.
 * @param rows One array of cells per row, in column order.
 * @returns The table, each line ending with a newline; just the header when there are no rows.
 */
export function formatTable(columns: readonly TableColumn[], rows: readonly (readonly unknown[])[]): string {
  const cells = rows.map((row) => columns.map((_, index) => cellText(row[index])));
  const widths = columns.map((column, index) => Math.max(displayWidth(column.header), ...cells.map((row) => displayWidth(row[index]!))));
  const line = (values: readonly string[]) =>
    `${values
      .map((value, index) => {
        const padding = ' '.repeat(widths[index]! - displayWidth(value));
        return columns[index]!.align === 'right' ? padding + value : value + padding;
      })
      .join('  ')
      .trimEnd()}\n`;
  return line(columns.map((column) => column.header)) + cells.map(line).join('');
}

/** A cell on one line, its other control characters escaped first, so that the widths count what is printed (D50). */
function cellText(value: unknown): string {
  if (value === null || value === undefined) return '-';
  return escapeControlCharacters(String(value).replace(/[\r\n\t]+/g, ' '));
}

// Code points, not UTF-16 units, so "São Paulo" lines up; wide CJK glyphs are rare in fleet data.
function displayWidth(text: string): number {
  let width = 0;
  for (const character of text) if (!/\p{Mn}/u.test(character)) width += 1;
  return width;
}

/**
 * A whole number with thousands separators, e.g. `1,000,000`: the same on every machine, unlike
 * `toLocaleString`.
 */
export function formatCount(value: number): string {
  return String(Math.round(value)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
