/**
 * The code's shape, as a newcomer meets it: the packages' sources import one another without
 * cycles, no function is longer than a screenful or two of code (data literals aside), and core and
 * storage are folders by domain. Read with the TypeScript compiler's parser, from the files git
 * tracks.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Source files of the packages (the contract suites for adapter authors included), their own tests aside. */
const sources = execFileSync('git', ['ls-files', '-z', 'packages'], { cwd: root, encoding: 'utf8' })
  .split('\0')
  .filter((path) => /^packages\/[^/]+\/src\/.*\.ts$/.test(path) && !path.endsWith('.test.ts') && existsSync(join(root, path)));
const parsed = new Map(
  sources.map((path) => [path, ts.createSourceFile(path, readFileSync(join(root, path), 'utf8'), ts.ScriptTarget.Latest, true)]),
);

/** The files of this repository a file imports by a relative path. */
function relativeImports(path: string, source: ts.SourceFile): string[] {
  const found: string[] = [];
  source.forEachChild(function visit(node) {
    const specifier =
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)
        ? node.moduleSpecifier.text
        : ts.isCallExpression(node) &&
            node.expression.kind === ts.SyntaxKind.ImportKeyword &&
            node.arguments[0] &&
            ts.isStringLiteral(node.arguments[0])
          ? node.arguments[0].text
          : undefined;
    if (specifier?.startsWith('.')) found.push(join(dirname(path), specifier.replace(/\.js$/, '.ts')));
    node.forEachChild(visit);
  });
  return found;
}

/** The cycles of a graph, as the nodes on each (Tarjan's strongly connected components). */
function cyclesOf(edges: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const connect = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    for (const target of edges.get(node) ?? []) {
      if (!index.has(target)) {
        connect(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (stack.includes(target)) low.set(node, Math.min(low.get(node)!, index.get(target)!));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (edges.get(node) ?? []).includes(node)) cycles.push(component.sort());
    }
  };
  for (const node of edges.keys()) if (!index.has(node)) connect(node);
  return cycles;
}

/** The local imports of every source file. */
const importEdges = new Map(
  [...parsed].map(([path, source]) => [path, relativeImports(path, source).filter((target) => parsed.has(target))]),
);

/** Every cycle of the import graph, as the files on it. */
function importCycles(): string[][] {
  return cyclesOf(importEdges);
}

/**
 * The cycles between the rooms of a package's `src` — each folder just under it one room, each
 * file at its root one room — with the imports that tie each: a room that imports from a room that
 * imports it (e.g. `cli/` ⇄ `commands/`). Tests are not rooms; fixtures beside the code are.
 */
function folderCycles(src: string): string[] {
  const roomOf = (path: string) => {
    const inside = path.slice(src.length + 1);
    const slash = inside.indexOf('/');
    return slash < 0 ? inside : inside.slice(0, slash + 1);
  };
  const ties = new Map<string, Map<string, string[]>>();
  for (const [path, targets] of importEdges) {
    if (!path.startsWith(`${src}/`)) continue;
    for (const target of targets) {
      const [from, to] = [roomOf(path), roomOf(target)];
      if (!target.startsWith(`${src}/`) || from === to) continue;
      if (!ties.has(from)) ties.set(from, new Map());
      const named = ties.get(from)!;
      named.set(to, [...(named.get(to) ?? []), `${path.slice(src.length + 1)} -> ${target.slice(src.length + 1)}`]);
    }
  }
  const edges = new Map([...ties].map(([from, to]) => [from, [...to.keys()]]));
  return cyclesOf(edges).map((rooms) => {
    const inside = rooms.flatMap((from) => rooms.flatMap((to) => ties.get(from)?.get(to) ?? []));
    return `${rooms.join(' ⇄ ')}: ${inside.join(', ')}`;
  });
}

const isFunction = (node: ts.Node): node is ts.FunctionLikeDeclaration =>
  ts.isFunctionDeclaration(node) ||
  ts.isFunctionExpression(node) ||
  ts.isArrowFunction(node) ||
  ts.isMethodDeclaration(node) ||
  ts.isConstructorDeclaration(node) ||
  ts.isAccessor(node);
const holdsFunction = (node: ts.Node): boolean => {
  let found = false;
  node.forEachChild(function visit(child) {
    if (!found && isFunction(child)) found = true;
    else if (!found) child.forEachChild(visit);
  });
  return found;
};
const isData = (node: ts.Node) =>
  (ts.isObjectLiteralExpression(node) ||
    ts.isArrayLiteralExpression(node) ||
    ts.isTemplateExpression(node) ||
    ts.isNoSubstitutionTemplateLiteral(node) ||
    ts.isTaggedTemplateExpression(node)) &&
  !holdsFunction(node);

/** Functions longer than `limit` lines once the lines inside data literals (objects, arrays, templates holding no function) are set aside. */
function longFunctions(limit: number): string[] {
  const long: string[] = [];
  for (const [path, source] of parsed) {
    const line = (position: number) => source.getLineAndCharacterOfPosition(position).line;
    source.forEachChild(function visit(node) {
      if (isFunction(node) && node.body) {
        const data = new Set<number>();
        node.body.forEachChild(function collect(child) {
          if (isData(child)) for (let at = line(child.getStart(source)) + 1; at < line(child.end); at += 1) data.add(at);
          else child.forEachChild(collect);
        });
        const lines = line(node.end) - line(node.getStart(source)) + 1 - data.size;
        if (lines > limit) long.push(`${path}:${line(node.getStart(source)) + 1} (${lines} lines)`);
      }
      node.forEachChild(visit);
    });
  }
  return long;
}

describe('the shape of the code', () => {
  it('reads every source file of the packages', () => {
    expect(parsed.size).toBeGreaterThan(100);
  });

  it('the packages import one another without a cycle', () => {
    expect(importCycles()).toEqual([]);
  });

  it.each(['packages/http/src', 'packages/server/src'])('%s: no folder imports from a folder that imports it', (src) => {
    const cycles = folderCycles(src);
    expect(cycles, cycles.join('\n')).toEqual([]);
  });

  it('no function is longer than 120 lines outside its data literals', () => {
    expect(longFunctions(120)).toEqual([]);
  });

  it('no file of the core is longer than 400 lines, its contract suites (testing/) aside', () => {
    const long = [...parsed.entries()]
      .filter(([path]) => path.startsWith('packages/core/src/') && !path.startsWith('packages/core/src/testing/'))
      .map(([path, source]) => ({ path, lines: source.text.split('\n').length - (source.text.endsWith('\n') ? 1 : 0) }))
      .filter(({ lines }) => lines > 400)
      .map(({ path, lines }) => `${path} (${lines} lines)`);
    expect(long).toEqual([]);
  });

  it.each(['packages/core/src', 'packages/storage-kysely/src'])('%s is folders by domain around its entry points', (folder) => {
    const entries = readdirSync(join(root, folder));
    const files = entries.filter((name) => statSync(join(root, folder, name)).isFile() && !name.endsWith('.test.ts'));
    const folders = entries.filter((name) => statSync(join(root, folder, name)).isDirectory());
    expect(folders.length).toBeGreaterThanOrEqual(4);
    // The entry points (index, adapter) and at most a few files that belong to no one domain.
    expect(files.length, `${folder} holds ${files.join(', ')}`).toBeLessThanOrEqual(4);
    expect(
      files.filter((name) => name.startsWith('_')),
      'folders instead of _ prefixes',
    ).toEqual([]);
  });
});
