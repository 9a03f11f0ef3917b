/**
 * The documents for users — every README and docs/ apart from the two references for developers,
 * docs/rules.md and docs/decisions.md — speak in words, not rule numbers, and agree with the code:
 * their TypeScript snippets type-check against the packages' sources, the server README's source
 * layout names every command file and folder there is, and no shell block installs a package that
 * is not published.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { fencedBlocks } from './support/readme.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DEVELOPER_REFERENCES = new Set(['docs/rules.md', 'docs/decisions.md']);
/** At most this many rule ids across the user docs (the benchmarks' history cites the decisions it measured). */
const RULE_ID_BUDGET = 40;
const RULE_ID = /\b[DP]\d{1,3}\b/g;

const userDocs = execFileSync('git', ['ls-files', '-z', '*.md'], { cwd: root, encoding: 'utf8' })
  .split('\0')
  .filter((path) => path !== '' && !DEVELOPER_REFERENCES.has(path));
const read = (path: string) => readFileSync(join(root, path), 'utf8');

describe('the user docs', () => {
  it('are the READMEs and docs/ without rules.md and decisions.md', () => {
    expect(userDocs).toEqual(expect.arrayContaining(['README.md', 'packages/core/README.md', 'docs/operations.md', 'examples/README.md']));
    expect(userDocs).not.toContain('docs/rules.md');
  });

  it(`cite at most ${RULE_ID_BUDGET} rule ids (D12, P57) across them: the rules are said in words`, () => {
    const counts = Object.fromEntries(userDocs.map((path) => [path, read(path).match(RULE_ID)?.length ?? 0]));
    const total = Object.values(counts).reduce((sum, count) => sum + count, 0);
    expect(total, JSON.stringify(counts, null, 1)).toBeLessThanOrEqual(RULE_ID_BUDGET);
  });

  it('install nothing from the registry that is not published there (the packages come from the clone)', () => {
    for (const path of userDocs) {
      const shell = [...read(path).matchAll(/^```(?:sh|bash|shell)[^\n]*\n([\s\S]*?)^```$/gm)].map((match) => match[1]!).join('\n');
      expect(shell, path).not.toMatch(/npx @fleet-hours\/|npm (?:install|i) (?:-g |--global )?@fleet-hours\//);
    }
  });

  it('hold TypeScript snippets that type-check against the packages (a snippet is a module of its own)', () => {
    const configFile = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile);
    const config = ts.parseJsonConfigFileContent(configFile.config, ts.sys, root);
    expect(config.errors).toEqual([]);
    // Each snippet stands where its document is named under test/, so that it is an ES module of the root package.
    const snippets = new Map<string, { path: string; text: string }>();
    for (const path of userDocs)
      fencedBlocks('ts', read(path)).forEach((text, index) =>
        snippets.set(join(root, 'test', `${path.replaceAll('/', '_')}.snippet-${index + 1}.ts`), { path, text }),
      );
    expect(snippets.size).toBeGreaterThanOrEqual(8);

    const host = ts.createCompilerHost(config.options);
    const { fileExists, readFile } = host;
    host.fileExists = (file) => snippets.has(file) || fileExists.call(host, file);
    host.readFile = (file) => snippets.get(file)?.text ?? readFile.call(host, file);
    const program = ts.createProgram([...snippets.keys()], { ...config.options, noEmit: true, noUnusedLocals: false }, host);
    const problems = [...snippets.keys()].flatMap((file) =>
      ts.getPreEmitDiagnostics(program, program.getSourceFile(file)).map((diagnostic) => {
        const where =
          diagnostic.file && diagnostic.start !== undefined ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start) : null;
        return `${snippets.get(file)!.path} snippet ${file.replace(/.*snippet-/, '')} line ${(where?.line ?? 0) + 1}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ')}`;
      }),
    );
    expect(problems).toEqual([]);
  }, 120_000);
});

describe("packages/server/README.md's source layout", () => {
  const readme = read('packages/server/README.md');
  const layout = readme.slice(readme.indexOf('### Source layout'), readme.indexOf('\n## ', readme.indexOf('### Source layout')));
  const src = join(root, 'packages/server/src');

  it('has a row for every folder of src/', () => {
    const folders = readdirSync(src, { withFileTypes: true }).filter((entry) => entry.isDirectory());
    expect(folders.length).toBeGreaterThan(3);
    for (const folder of folders) expect(layout, folder.name).toContain(`| \`src/${folder.name}/\` |`);
  });

  it('names every command file of src/commands/', () => {
    const row = layout.split('\n').find((line) => line.startsWith('| `src/commands/` |')) ?? '';
    const files = readdirSync(join(src, 'commands')).filter(
      (name) => name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.startsWith('_'),
    );
    expect(files.length).toBeGreaterThan(10);
    for (const file of files) expect(row, file).toContain(`\`${file.replace(/\.ts$/, '')}\``);
  });
});
