/**
 * Executable docs: every ```ts block of an `@example` in the packages' JSDoc
 * (packages/*\/src/**\/*.ts, tests excluded) is type-checked with tsc and run, as Deno std runs its
 * examples. Conventions (see test/support/jsdoc-examples.ts and the README's Development section):
 * a block that starts with `// not executed: <reason>` (e.g. `needs a PostgreSQL server`) is
 * type-checked only; `statement; // throws RangeError: message` must throw that.
 *
 * The blocks are written as modules under .tmp/ (gitignored) inside the repository, so that the
 * `@fleet-hours/*` imports resolve through vitest's aliases and the root tsconfig's `paths`, both
 * to the packages' sources. They run with DATABASE_URL and FLEET_HOURS_DATA_DIR unset, each in a
 * scratch working directory of its own, so an example never reaches a database server and every
 * relative data directory (`./.fleet-hours/data`) is a throwaway PGlite one.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { extractJsdocExamples, prepareExample, type JsdocExample } from './support/jsdoc-examples.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const scratch = join(root, '.tmp', `jsdoc-examples-${process.pid}`);
const examplesDir = join(scratch, 'examples');
const cwdDir = join(scratch, 'cwd');

interface Located extends JsdocExample {
  /** The source file, relative to the repository root. */
  readonly source: string;
  /** The package directory name, e.g. `storage-kysely`. */
  readonly packageDir: string;
  /** The generated module. */
  readonly file: string;
  /** Whether a `// throws` statement was wrapped, so the module needs `expectThrows`. */
  readonly wrapsThrows: boolean;
}

function _sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/** Whether a process is alive: the scratch folder of a run that was killed is removed by the next. */
function _isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const examples: Located[] = [];
const problems: string[] = [];
const packagesDir = join(root, 'packages');
for (const packageDir of readdirSync(packagesDir).sort()) {
  for (const path of _sourceFiles(join(packagesDir, packageDir, 'src'))) {
    const source = relative(root, path);
    const found = extractJsdocExamples(readFileSync(path, 'utf8'));
    for (const problem of found.problems) problems.push(`${source}:${problem.line}: ${problem.message}`);
    for (const extracted of found.examples) {
      const prepared = prepareExample(extracted.code, '__expectThrows');
      for (const problem of prepared.problems) problems.push(`${source}:${extracted.fenceLine + problem.line}: ${problem.message}`);
      const example = { ...extracted, code: prepared.code, wrapsThrows: prepared.code !== extracted.code };
      const name = `${source
        .replace(/^packages\//, '')
        .replace(/\.ts$/, '')
        .replaceAll('/', '__')}__L${example.fenceLine}.ts`;
      examples.push({ ...example, source, packageDir, file: join(examplesDir, name) });
    }
  }
}

mkdirSync(join(root, '.tmp'), { recursive: true });
for (const entry of readdirSync(join(root, '.tmp'), { withFileTypes: true }).filter((e) => e.isDirectory())) {
  const pid = /^jsdoc-examples-(\d+)$/.exec(entry.name)?.[1];
  if (pid !== undefined && !_isRunning(Number(pid))) rmSync(join(root, '.tmp', entry.name), { recursive: true, force: true });
}
rmSync(scratch, { recursive: true, force: true });
mkdirSync(examplesDir, { recursive: true });
mkdirSync(cwdDir, { recursive: true });
// Line k of a generated module is line fenceLine + k of its source, so tsc's positions map back;
// line 1 imports what the `// throws` convention needs.
const helperImport = `import { expectThrows as __expectThrows } from '${relative(examplesDir, join(root, 'test', 'support', 'jsdoc-examples.js'))}';`;
for (const example of examples) {
  writeFileSync(example.file, `${example.wrapsThrows ? helperImport : ''}\n${example.code}\nexport {};\n`);
}
// A canary with a known type error: proof that tsc ran and checked this folder.
const canary = join(examplesDir, '__canary__.ts');
writeFileSync(canary, "const canary: number = 'not a number';\nexport {};\n");
writeFileSync(
  join(scratch, 'tsconfig.json'),
  JSON.stringify({ extends: '../../tsconfig.json', compilerOptions: { noEmit: true }, include: ['examples/*.ts'] }),
);

// tsc runs once the examples have run, in the last test: alongside them it took the CPU that the
// examples opening an embedded database need, and on a busy machine one of them hit its timeout.
let tscOutput: Promise<string> | null = null;
const typeCheck = () =>
  (tscOutput ??= new Promise<string>((resolve) => {
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    execFile(process.execPath, [tsc, '-p', join(scratch, 'tsconfig.json'), '--pretty', 'false'], { cwd: root }, (_error, stdout, stderr) =>
      resolve(`${stdout}${stderr}`),
    );
  }));

afterAll(async () => {
  await tscOutput; // never leave tsc reading files that are about to go
  rmSync(scratch, { recursive: true, force: true });
});

describe('JSDoc @example blocks', () => {
  test('every @example of packages/*/src has a closed ```ts block, and there are examples to run', () => {
    expect(problems).toEqual([]);
    expect(examples.length).toBeGreaterThan(40);
  });

  test('every example imports from its own package by its public name (STYLE: JSDoc)', () => {
    const offenders = examples
      .filter((example) => !new RegExp(`from '@fleet-hours/${example.packageDir}(/[a-z-]+)?'`).test(example.code))
      .map((example) => `${example.source}:${example.fenceLine}`);
    expect(offenders).toEqual([]);
  });
});

// Examples that register vitest suites (the shared contract suites of `@fleet-hours/core/testing`)
// run while this file is collected, inside a suite of their own.
const registersSuites = (example: Located) => example.code.includes("from '@fleet-hours/core/testing'");

describe('JSDoc @example blocks run', () => {
  const savedEnv = { DATABASE_URL: process.env.DATABASE_URL, FLEET_HOURS_DATA_DIR: process.env.FLEET_HOURS_DATA_DIR };
  beforeAll(() => {
    delete process.env.DATABASE_URL;
    delete process.env.FLEET_HOURS_DATA_DIR;
  });
  afterAll(() => {
    for (const [name, value] of Object.entries(savedEnv)) if (value !== undefined) process.env[name] = value;
  });

  for (const example of examples) {
    const name = `${example.source}:${example.fenceLine}`;
    if (example.notExecuted !== null) {
      test.skip(`${name} (type-checked only, not executed: ${example.notExecuted})`, () => {});
    } else if (registersSuites(example)) {
      describe(name, async () => {
        await import(/* @vite-ignore */ example.file);
      });
    } else {
      test(name, async () => {
        // A working directory of its own, so relative data directories never meet another example's.
        const savedCwd = process.cwd();
        const exitCode = process.exitCode;
        const workDir = join(cwdDir, basename(example.file, '.ts'));
        mkdirSync(workDir);
        process.chdir(workDir); // vitest's default `forks` pool allows it
        try {
          await import(/* @vite-ignore */ example.file);
          expect(process.exitCode ?? 0, 'the example set process.exitCode').toBe(exitCode ?? 0);
        } finally {
          process.chdir(savedCwd);
          process.exitCode = exitCode;
        }
      });
    }
  }
});

describe('JSDoc @example blocks type-check', () => {
  test('every example type-checks (tsc, strict, against the packages’ sources)', { timeout: 180_000 }, async () => {
    const byFile = new Map(examples.map((example) => [example.file, example]));
    const diagnostics: string[] = [];
    let canaryFound = false;
    let inExample = false; // whether the diagnostic that indented lines continue is an example's
    const output = await typeCheck();
    for (const line of output.split('\n')) {
      const match = /^(.+?)\((\d+),(\d+)\): (.*)$/.exec(line);
      if (match) {
        if (join(root, match[1]!) === canary && /^1,.*error TS2322/.test(`${match[2]},${match[4]}`)) canaryFound = true;
        const example = byFile.get(join(root, match[1]!));
        inExample = example !== undefined;
        if (example) diagnostics.push(`${example.source}:${example.fenceLine + Number(match[2]) - 1}:${match[3]}: ${match[4]}`);
      } else if (/^\s/.test(line) && inExample) {
        diagnostics[diagnostics.length - 1] += `\n${line}`;
      } else {
        inExample = false;
      }
    }
    expect(diagnostics.join('\n')).toBe('');
    expect(canaryFound, `tsc did not report the canary's type error; its output:\n${output}`).toBe(true);
  });
});
