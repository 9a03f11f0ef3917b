/**
 * Reads the ```ts blocks of `@example` tags out of JSDoc comments, for
 * test/jsdoc-examples.test.ts, which type-checks and runs every one of them (executable docs, as
 * Deno std does). Conventions (README, Development):
 *
 * - A block whose first line is `// not executed: <reason>` is type-checked only, e.g.
 *   `// not executed: needs a PostgreSQL server`.
 * - A one-line statement followed by `// throws <ErrorName>: <message>`, on the same line or the
 *   next, must throw (or reject) that error, with that message (`…` stands for any text); the
 *   message may be left out.
 */

/** One ```ts block of an `@example` tag. */
export interface JsdocExample {
  /** 1-based line of the opening fence in the source file. */
  readonly fenceLine: number;
  /** The code with the comment's ` * ` prefixes removed; its line k is source line fenceLine + k. */
  readonly code: string;
  /** The reason given by a leading `// not executed: …` line, or `null` when the example runs. */
  readonly notExecuted: string | null;
}

/** What {@link extractJsdocExamples} found in one file. */
export interface ExtractedExamples {
  readonly examples: readonly JsdocExample[];
  /** Problems with the examples themselves, e.g. an `@example` without a ```ts block. */
  readonly problems: readonly { readonly line: number; readonly message: string }[];
}

const NOT_EXECUTED = /^\s*\/\/\s*not executed:(.*)$/;
const OPENING_FENCE = /^```(ts|typescript)\s*$/;

/**
 * The `@example` blocks of every JSDoc comment (`/** … *\/`) in a TypeScript source text.
 *
 * @param source The file's text.
 * @returns The examples in order, and any malformed ones as problems.
 */
export function extractJsdocExamples(source: string): ExtractedExamples {
  const lines = source.split('\n');
  const examples: JsdocExample[] = [];
  const problems: { line: number; message: string }[] = [];
  let index = 0;
  while (index < lines.length) {
    if (!/^\s*\/\*\*/.test(lines[index]!)) {
      index += 1;
      continue;
    }
    // One JSDoc comment: lines index..end, with their leading ` * ` removed.
    const start = index;
    while (index < lines.length && !lines[index]!.includes('*/')) index += 1;
    const end = Math.min(index, lines.length - 1);
    index = end + 1;
    const body = lines.slice(start, end + 1).map((line, offset) => ({
      line: start + offset + 1,
      text: line
        .replace(/^\s*\/\*\*\s?/, '')
        .replace(/\s*\*\/.*$/, '')
        .replace(/^\s*\*(?: |$)/, ''),
    }));
    for (let at = 0; at < body.length; at += 1) {
      if (!/^\s*@example\b/.test(body[at]!.text)) continue;
      const tagLine = body[at]!.line;
      let found = 0;
      // The tag runs to the next `@tag` at the start of a line, or to the end of the comment.
      for (at += 1; at < body.length && !/^\s*@\w/.test(body[at]!.text); at += 1) {
        const fence = body[at]!.text.trim();
        if (!fence.startsWith('```')) continue;
        if (!OPENING_FENCE.test(fence)) {
          problems.push({ line: body[at]!.line, message: `an @example block must be fenced as \`\`\`ts, got "${fence}"` });
        }
        const fenceLine = body[at]!.line;
        const code: string[] = [];
        for (at += 1; at < body.length && body[at]!.text.trim() !== '```'; at += 1) code.push(body[at]!.text);
        if (at >= body.length) {
          problems.push({ line: fenceLine, message: 'an @example block is not closed with ```' });
          break;
        }
        found += 1;
        const marker = NOT_EXECUTED.exec(code[0] ?? '');
        const reason = marker?.[1]?.trim() ?? null;
        if (reason === '') problems.push({ line: fenceLine + 1, message: '"// not executed:" must give a reason' });
        examples.push({ fenceLine, code: code.join('\n'), notExecuted: marker ? reason : null });
      }
      at -= 1;
      if (found === 0) problems.push({ line: tagLine, message: 'an @example has no ```ts block' });
    }
  }
  return { examples, problems };
}

/** A statement that the example says throws, as found by {@link prepareExample}. */
const THROWS_COMMENT = /^\/\/\s*throws\s+([A-Za-z_$][\w$]*)(?::\s*(.*?))?\s*$/;

/**
 * The example's code ready to run: every statement documented with `// throws …` wrapped in
 * `await expectThrows(…)`, on the same line, so that line numbers still match the source.
 *
 * @param code The example's code, as extracted.
 * @param helper The name under which {@link expectThrows} is in scope.
 * @returns The code, and problems (1-based lines of `code`) for `// throws` it cannot apply.
 */
export function prepareExample(code: string, helper: string): { code: string; problems: { line: number; message: string }[] } {
  const lines = code.split('\n');
  const problems: { line: number; message: string }[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index]!;
    const commentAt = line.search(/\/\/\s*throws\b/);
    if (commentAt === -1) continue;
    const comment = THROWS_COMMENT.exec(line.slice(commentAt).trim());
    if (!comment) {
      problems.push({ line: index + 1, message: 'write "// throws ErrorName" or "// throws ErrorName: message"' });
      continue;
    }
    // Same line (`statement; // throws …`) or the statement just above (`// throws …` alone).
    const own = line.slice(0, commentAt).trim();
    const at = own === '' ? index - 1 : index;
    const statement = (own === '' ? (lines[at] ?? '') : own).trim();
    if (
      !statement.endsWith(';') ||
      /^(const|let|var|import|export)\b/.test(statement) ||
      /(^|\s)\/\//.test(statement) ||
      !_balanced(statement)
    ) {
      problems.push({ line: at + 1, message: '"// throws" must follow a one-line statement ending in ";" that declares nothing' });
      continue;
    }
    const indent = /^\s*/.exec(lines[at]!)![0];
    const args = [JSON.stringify(comment[1]), ...(comment[2] ? [JSON.stringify(comment[2])] : [])].join(', ');
    lines[at] = `${indent}await ${helper}(async () => { ${statement} }, ${args});${own === '' ? '' : ` ${line.slice(commentAt)}`}`;
  }
  return { code: lines.join('\n'), problems };
}

/** Whether a line opens and closes its own brackets (string literals aside): a whole statement. */
function _balanced(line: string): boolean {
  const code = line.replace(/'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`(?:[^`\\]|\\.)*`/g, '""');
  let depth = 0;
  for (const char of code) {
    if ('([{'.includes(char)) depth += 1;
    else if (')]}'.includes(char) && --depth < 0) return false;
  }
  return depth === 0;
}

/**
 * Runs `action` and fails unless it throws or rejects with an error of that name (its `name` or
 * its class's) and, when given, that message, where `…` matches any text.
 *
 * @param action The statement of the example.
 * @param name The error's name, e.g. `RangeError`.
 * @param message The message, or `undefined` to accept any.
 */
export async function expectThrows(action: () => Promise<void>, name: string, message?: string): Promise<void> {
  let thrown: unknown;
  try {
    await action();
  } catch (error) {
    thrown = error;
  }
  if (thrown === undefined) throw new Error(`Expected the statement to throw ${name}, but it did not throw`);
  const error = thrown as { name?: unknown; message?: unknown; constructor?: { name?: unknown } };
  if (error.name !== name && error.constructor?.name !== name) {
    throw new Error(`Expected the statement to throw ${name}, but it threw ${String(error.name)}: ${String(error.message)}`, {
      cause: thrown,
    });
  }
  if (message !== undefined) {
    const pattern = new RegExp(
      `^${message
        .split('…')
        .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('[\\s\\S]*')}$`,
    );
    if (!pattern.test(String(error.message))) {
      throw new Error(`Expected the message "${message}", but ${name} said "${String(error.message)}"`, { cause: thrown });
    }
  }
}
