/**
 * An RFC 4180 reader for tests of CSV answers (D62): strict — every record ends with CRLF, a field
 * is quoted or holds no quote, comma or line break — so that a writer's mistake fails the test
 * instead of being read around.
 *
 * @param text A CSV text.
 * @returns Its records, each the list of its fields.
 * @throws {Error} On text that is not RFC 4180 with CRLF line ends.
 */
export function readCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let index = 0;
  while (index < text.length) {
    let field = '';
    if (text[index] === '"') {
      index += 1;
      for (;;) {
        const quote = text.indexOf('"', index);
        if (quote < 0) throw new Error('A quoted field is not closed');
        field += text.slice(index, quote);
        index = quote + 1;
        if (text[index] !== '"') break;
        field += '"';
        index += 1;
      }
    } else {
      const end = /[,\r]|$/.exec(text.slice(index))!.index;
      field = text.slice(index, index + end);
      if (/["\n]/.test(field)) throw new Error(`An unquoted field holds a quote or a line feed: ${JSON.stringify(field)}`);
      index += end;
    }
    record.push(field);
    if (text.startsWith('\r\n', index)) {
      records.push(record);
      record = [];
      index += 2;
    } else if (text[index] === ',') {
      index += 1;
    } else {
      throw new Error(`Expected a comma or CRLF at ${index}: ${JSON.stringify(text.slice(index, index + 10))}`);
    }
  }
  if (record.length > 0) throw new Error('The last record does not end with CRLF');
  return records;
}
