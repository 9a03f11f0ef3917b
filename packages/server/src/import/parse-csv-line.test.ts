import { describe, expect, it } from 'vitest';
import { parseCsvLine } from './parse-csv-line.js';

describe('parseCsvLine()', () => {
  it('splits plain fields, keeping empty ones', () => {
    expect(parseCsvLine('a,b,c')).toEqual(['a', 'b', 'c']);
    expect(parseCsvLine('2026-03-08T07:00:00Z,,idle')).toEqual(['2026-03-08T07:00:00Z', '', 'idle']);
    expect(parseCsvLine('a,')).toEqual(['a', '']);
    expect(parseCsvLine('')).toEqual(['']);
  });

  it('unquotes RFC 4180 fields, with commas and doubled quotes inside', () => {
    expect(parseCsvLine('"a,b","say ""hi""",c')).toEqual(['a,b', 'say "hi"', 'c']);
    expect(parseCsvLine('x,""')).toEqual(['x', '']);
    expect(parseCsvLine('"",x,"",')).toEqual(['', 'x', '', '']);
  });

  it('refuses an unclosed quote, text after a closing quote and a stray quote', () => {
    expect(() => parseCsvLine('"abc,def')).toThrow('A quoted CSV field is not closed');
    expect(() => parseCsvLine('"abc"x,def')).toThrow('Unexpected text after a closing quote in CSV');
    expect(() => parseCsvLine('ab"c,def')).toThrow('A quote inside an unquoted CSV field');
  });
});
