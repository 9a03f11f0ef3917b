import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { COMMANDS, GLOBAL_OPTIONS } from './command-specs.js';

const SOURCE = fileURLToPath(new URL('..', import.meta.url));

function _sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return _sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.startsWith('_test') ? [path] : [];
  });
}

/** The function each command runs, by command name: `STORE_COMMANDS` and the commands `runCli` runs itself. */
function _commandFunctions(): Map<string, string> {
  const text = readFileSync(join(SOURCE, 'run-cli.ts'), 'utf8');
  const table = text.slice(text.indexOf('const STORE_COMMANDS'), text.indexOf('};', text.indexOf('const STORE_COMMANDS')));
  const entries = [
    ...table.matchAll(/^\s+'?([a-z -]+?)'?: (\w+Command|\w+_COMMANDS\.\w+),$/gm),
    ...text.matchAll(/command\.name === '([a-z -]+)'\) return await (\w+Command)\(/g),
  ];
  return new Map(entries.map(([, command, fn]) => [fn!, command!]));
}

/**
 * The code of a command's function: a function declaration by its name, or for `GROUP_COMMANDS.verb`
 * (a group's commands made by one function, as the credential commands are) the `verb` property of
 * the object that function returns.
 */
function _commandRoot(program: ts.Program, fn: string): ts.Node | undefined {
  const statements = program
    .getSourceFiles()
    .filter((source) => source.fileName.startsWith(SOURCE))
    .flatMap((source) => source.statements);
  const [name, verb] = fn.split('.');
  if (verb === undefined) return statements.find((statement) => ts.isFunctionDeclaration(statement) && statement.name?.text === name);
  const made = statements
    .filter(ts.isVariableStatement)
    .flatMap((statement) => statement.declarationList.declarations)
    .find((declaration) => ts.isIdentifier(declaration.name) && declaration.name.text === name)?.initializer;
  if (made === undefined || !ts.isCallExpression(made) || !ts.isIdentifier(made.expression)) return undefined;
  const maker = statements.find(
    (statement): statement is ts.FunctionDeclaration =>
      ts.isFunctionDeclaration(statement) && statement.name?.text === (made.expression as ts.Identifier).text,
  );
  let found: ts.Node | undefined;
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAssignment(node) && ts.isIdentifier(node.name) && node.name.text === verb) found = node.initializer;
    else ts.forEachChild(node, visit);
  };
  if (maker) visit(maker);
  return found;
}

/** The source code a node leads to: the functions of this package it calls or names, followed through imports. */
function _reachedFunctions(checker: ts.TypeChecker, root: ts.Node): ts.Node[] {
  const seen = new Set<ts.Node>([root]);
  const queue = [root];
  const isOurs = (node: ts.Node) => node.getSourceFile().fileName.startsWith(SOURCE) && !node.getSourceFile().isDeclarationFile;
  while (queue.length > 0) {
    const visit = (node: ts.Node): void => {
      if (ts.isIdentifier(node)) {
        let symbol = checker.getSymbolAtLocation(node);
        if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
        for (const declaration of symbol?.declarations ?? []) {
          const callable =
            ts.isFunctionDeclaration(declaration) ||
            ts.isMethodDeclaration(declaration) ||
            (ts.isVariableDeclaration(declaration) &&
              declaration.initializer !== undefined &&
              (ts.isArrowFunction(declaration.initializer) || ts.isFunctionExpression(declaration.initializer)));
          if (callable && isOurs(declaration) && !seen.has(declaration)) {
            seen.add(declaration);
            queue.push(declaration);
          }
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(queue.shift()!);
  }
  return [...seen];
}

/** Every string a node holds (template literals with `${…}` between their parts). */
function _strings(node: ts.Node): string[] {
  const found: string[] = [];
  const visit = (child: ts.Node): void => {
    if (ts.isStringLiteral(child) || ts.isNoSubstitutionTemplateLiteral(child)) found.push(child.text);
    else if (ts.isTemplateExpression(child))
      found.push([child.head.text, ...child.templateSpans.map((span) => span.literal.text)].join(`\${…}`));
    ts.forEachChild(child, visit);
  };
  visit(node);
  return found;
}

/** Messages the code of a command holds but never prints for it: `startServer`'s refusal of a metrics port, which the demo never asks for. */
const UNREACHABLE = new Set(['demo --metrics-port']);

/**
 * The command a flag belongs to: the last command named before it in the text (`${…} create` in
 * the current command's group), `null` after `curl` (its own flags), else the command printing it.
 */
function _owner(before: string, command: string, names: readonly string[]): string | null {
  const group = command.split(' ')[0]!;
  const text = before.replaceAll(/\$\{…\} (?=[a-z])/g, `${group} `);
  let owner = command;
  let at = -1;
  for (const name of [...names, 'curl']) {
    for (const match of text.matchAll(new RegExp(`(?<![\\w-])${name} `, 'g'))) {
      if (match.index > at) [owner, at] = [name, match.index];
    }
  }
  return owner === 'curl' ? null : owner;
}

/**
 * D48: every setting a message names exists, under that name, on the command that prints it. For
 * each command, every string of the code it runs (its function and every function of this package
 * that function reaches, through imports too: the webhook sender's refusal for `serve`, `demo` and
 * `webhooks test`) that names a `--flag` must name one the command takes — or, when the text names
 * another command before the flag (`enable it with webhooks update --id 4 --enable`), one that
 * command takes.
 */
describe('D48: every --flag a message names exists on the command that prints it', () => {
  const program = ts.createProgram(_sources(SOURCE), {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    noEmit: true,
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  const specs = new Map(COMMANDS.map((command) => [command.name, command]));
  const takes = (command: string, flag: string) => flag in GLOBAL_OPTIONS || flag in (specs.get(command)?.options ?? {});
  const names = [...specs.keys()].sort((a, b) => b.length - a.length);

  const functions = _commandFunctions();
  it('finds the function of every command but migrate', () => {
    expect([...functions.values()].sort()).toEqual(
      COMMANDS.map((command) => command.name)
        .filter((name) => name !== 'migrate')
        .sort(),
    );
  });

  it('every flag named in the code a command runs is one it (or the command named before it) takes', () => {
    const missing: string[] = [];
    const checked = new Set<string>();
    for (const [fn, command] of functions) {
      const root = _commandRoot(program, fn);
      expect(root, fn).toBeDefined();
      for (const text of _reachedFunctions(checker, root!).flatMap(_strings)) {
        for (const match of text.matchAll(/(?<![\w-])--([a-z][a-z0-9-]*)/g)) {
          const owner = _owner(text.slice(0, match.index), command, names);
          if (owner === null || UNREACHABLE.has(`${owner} --${match[1]}`)) continue;
          checked.add(`${owner} --${match[1]}`);
          if (!takes(owner, match[1]!)) missing.push(`${command}: "${text}" names --${match[1]}, which ${owner} does not take`);
        }
      }
    }
    expect(missing).toEqual([]);
    // The refusal of a non-public address, reached from each command whose sender makes it.
    for (const command of ['serve', 'demo', 'webhooks test'])
      expect(checked, command).toContain(`${command} --webhook-allow-private-addresses`);
  });
});
