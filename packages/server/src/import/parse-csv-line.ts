/**
 * Splits one CSV line into fields (RFC 4180 quoting: `"a ""quoted"", field"`), e.g.
 * `2026-03-08T07:00:00Z,"",idle` → `['2026-03-08T07:00:00Z', '', 'idle']`. A line holds one
 * record: quoted fields cannot span lines in an import file.
 *
 * @param line One line without its line break.
 * @returns The fields, unquoted.
 * @throws {SyntaxError} For a quote that is not closed, or text after a closing quote.
 */
export function parseCsvLine(line: string): string[] {
  if (!line.includes('"')) return line.split(',');
  const fields: string[] = [];
  let index = 0;
  for (;;) {
    if (line[index] === '"') {
      let value = '';
      index += 1;
      for (;;) {
        const quote = line.indexOf('"', index);
        if (quote === -1) throw new SyntaxError('A quoted CSV field is not closed');
        value += line.slice(index, quote);
        if (line[quote + 1] === '"') {
          value += '"';
          index = quote + 2;
          continue;
        }
        index = quote + 1;
        break;
      }
      if (index < line.length && line[index] !== ',') throw new SyntaxError('Unexpected text after a closing quote in CSV');
      fields.push(value);
    } else {
      const comma = line.indexOf(',', index);
      const end = comma === -1 ? line.length : comma;
      const value = line.slice(index, end);
      if (value.includes('"')) throw new SyntaxError('A quote inside an unquoted CSV field');
      fields.push(value);
      index = end;
    }
    if (index >= line.length) return fields;
    index += 1; // the comma
    if (index === line.length) {
      fields.push('');
      return fields;
    }
  }
}
