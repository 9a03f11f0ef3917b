/**
 * The layout of packages/http/src (issue 31): folders by concern around a few files at the root,
 * test fixtures under testing/ (never reached from the package's entry point), and one meaning for
 * a leading `_`: a name private to its module, never exported — so no file is named with one.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const src = resolve(fileURLToPath(new URL('../packages/http/src', import.meta.url)));

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? [path, ...walk(path)] : [path];
  });
}
const entries = walk(src).map((path) => relative(src, path));
const sources = entries.filter((path) => /\.(ts|js)$/.test(path) && !path.endsWith('.test.ts'));

describe('packages/http/src', () => {
  it('holds at most 12 files at its root, the rest in folders by concern', () => {
    const files = readdirSync(src).filter((name) => statSync(join(src, name)).isFile());
    const folders = readdirSync(src).filter((name) => statSync(join(src, name)).isDirectory());
    expect(files.length, files.join(', ')).toBeLessThanOrEqual(12);
    expect(folders).toEqual(expect.arrayContaining(['ingest', 'middleware', 'node-server', 'openapi', 'pages', 'routes', 'testing']));
  });

  it('names no file or folder with a leading _', () => {
    expect(entries.filter((path) => path.split('/').some((part) => part.startsWith('_')))).toEqual([]);
  });

  it('exports no name with a leading _: the _ marks what stays inside its module', () => {
    const exported: string[] = [];
    for (const path of sources) {
      const source = ts.createSourceFile(path, readFileSync(join(src, path), 'utf8'), ts.ScriptTarget.Latest, true);
      for (const statement of source.statements) {
        const isExported =
          ts.canHaveModifiers(statement) && ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
        if (!isExported) continue;
        const names = ts.isVariableStatement(statement)
          ? statement.declarationList.declarations.map((declaration) => declaration.name.getText(source))
          : 'name' in statement && statement.name && ts.isIdentifier(statement.name as ts.Node)
            ? [(statement.name as ts.Identifier).text]
            : [];
        for (const name of names) if (name.startsWith('_')) exported.push(`${path}: ${name}`);
      }
    }
    expect(exported).toEqual([]);
  });

  it('keeps its test fixtures under testing/, reached only from tests', () => {
    const fixtures = sources.filter((path) => /fixture/.test(path));
    expect(fixtures.length).toBeGreaterThan(0);
    expect(fixtures.filter((path) => !path.startsWith('testing/'))).toEqual([]);
    const reachingTesting = sources.filter(
      (path) => !path.startsWith('testing/') && /from '[./]*testing\//.test(readFileSync(join(src, path), 'utf8')),
    );
    expect(reachingTesting).toEqual([]);
    expect(existsSync(join(src, 'testing/index.ts'))).toBe(false);
  });
});
