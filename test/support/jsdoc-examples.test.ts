import { describe, expect, test } from 'vitest';
import { expectThrows, extractJsdocExamples, prepareExample } from './jsdoc-examples.js';

const source = [
  "import { x } from './x.js';", // 1
  '/**', // 2
  ' * Does x.', // 3
  ' *', // 4
  ' * @param a The a.', // 5
  ' * @example', // 6
  ' * ```ts', // 7
  " * import { x } from '@fleet-hours/core';", // 8
  ' * x(1); // 2', // 9
  ' * ```', // 10
  ' * @example', // 11
  ' * ```ts', // 12
  ' * // not executed: needs a PostgreSQL server', // 13
  ' * await connect();', // 14
  ' * ```', // 15
  ' */', // 16
  'export function x() {}', // 17
].join('\n');

describe('extractJsdocExamples()', () => {
  test('finds every ```ts block of every @example, with the line of its fence, and reads the not-executed marker', () => {
    const { examples, problems } = extractJsdocExamples(source);
    expect(problems).toEqual([]);
    expect(examples).toEqual([
      { fenceLine: 7, code: "import { x } from '@fleet-hours/core';\nx(1); // 2", notExecuted: null },
      { fenceLine: 12, code: '// not executed: needs a PostgreSQL server\nawait connect();', notExecuted: 'needs a PostgreSQL server' },
    ]);
  });

  test('keeps the indentation inside a block and ignores code outside JSDoc comments', () => {
    const text = ['// @example', '/**', ' * @example', ' * ```ts', ' * f([', ' *   1,', ' * ]);', ' * ```', ' */'].join('\n');
    expect(extractJsdocExamples(text).examples).toEqual([{ fenceLine: 4, code: 'f([\n  1,\n]);', notExecuted: null }]);
  });

  test('reports an @example without a ```ts block, a block in another language, an unclosed block and a marker without a reason', () => {
    const text = [
      '/**',
      ' * @example',
      ' * f(1);',
      ' * @returns Something.',
      ' */',
      '/**',
      ' * @example',
      ' * ```js',
      ' * f(1);',
      ' * ```',
      ' */',
      '/**',
      ' * @example',
      ' * ```ts',
      ' * // not executed:',
      ' * f(1);',
      ' * ```',
      ' * @example',
      ' * ```ts',
      ' * f(1);',
      ' */',
    ].join('\n');
    expect(extractJsdocExamples(text).problems).toEqual([
      { line: 2, message: 'an @example has no ```ts block' },
      { line: 8, message: 'an @example block must be fenced as ```ts, got "```js"' },
      { line: 15, message: '"// not executed:" must give a reason' },
      { line: 19, message: 'an @example block is not closed with ```' },
      { line: 18, message: 'an @example has no ```ts block' },
    ]);
  });
});

describe('prepareExample()', () => {
  test('wraps a statement documented with "// throws" on its line or the next, keeping the line count', () => {
    const code = ['f(1); // 2', 'f(-1); // throws RangeError: x must be ≥ 0, got -1', '  await g();', '  // throws TypeError'].join('\n');
    expect(prepareExample(code, 'check')).toEqual({
      code: [
        'f(1); // 2',
        'await check(async () => { f(-1); }, "RangeError", "x must be ≥ 0, got -1"); // throws RangeError: x must be ≥ 0, got -1',
        '  await check(async () => { await g(); }, "TypeError");',
        '  // throws TypeError',
      ].join('\n'),
      problems: [],
    });
  });

  test('refuses "// throws" after a declaration, after a statement it cannot wrap, or without an error name', () => {
    const code = ['const x = f(-1); // throws RangeError', 'f(', '  -1);', '// throws RangeError', 'f(-1); // throws if negative'].join(
      '\n',
    );
    expect(prepareExample(code, 'check').problems).toEqual([
      { line: 1, message: '"// throws" must follow a one-line statement ending in ";" that declares nothing' },
      { line: 3, message: '"// throws" must follow a one-line statement ending in ";" that declares nothing' },
      { line: 5, message: 'write "// throws ErrorName" or "// throws ErrorName: message"' },
    ]);
  });
});

describe('expectThrows()', () => {
  const fail = (error: Error) => async () => {
    throw error;
  };

  test('accepts the named error with the documented message, where … matches any text', async () => {
    await expectThrows(fail(new RangeError('x must be ≥ 0, got -1')), 'RangeError', 'x must be ≥ 0, got -1');
    await expectThrows(fail(new RangeError('x must be ≥ 0, got -1 (see D3)')), 'RangeError', 'x must be … got -1…');
    await expectThrows(fail(new RangeError('anything')), 'RangeError');
  });

  test('fails when nothing is thrown, another error is thrown, or the message differs', async () => {
    await expect(expectThrows(async () => {}, 'RangeError')).rejects.toThrow(
      'Expected the statement to throw RangeError, but it did not throw',
    );
    await expect(expectThrows(fail(new TypeError('no')), 'RangeError')).rejects.toThrow('but it threw TypeError: no');
    await expect(expectThrows(fail(new RangeError('x must be ≥ 0, got -2')), 'RangeError', 'x must be ≥ 0, got -1')).rejects.toThrow(
      'Expected the message "x must be ≥ 0, got -1", but RangeError said "x must be ≥ 0, got -2"',
    );
    await expect(expectThrows(fail(new RangeError('a.b')), 'RangeError', 'a*b')).rejects.toThrow('Expected the message');
  });
});
