import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// Every public entry point's export list, types included, is snapshotted: adding or removing a
// public name fails this test until the snapshot is updated on purpose (`npx vitest run -u
// test/public-surface.test.ts`), and every public name must be listed in its package's README.

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const ENTRY_POINTS = [
  { name: '@fleet-hours/core', source: 'packages/core/src/index.ts', readme: 'packages/core/README.md' },
  { name: '@fleet-hours/core/adapter', source: 'packages/core/src/adapter.ts', readme: 'packages/core/README.md' },
  { name: '@fleet-hours/core/testing', source: 'packages/core/src/testing/index.ts', readme: 'packages/core/README.md' },
  { name: '@fleet-hours/http', source: 'packages/http/src/index.ts', readme: 'packages/http/README.md' },
  { name: '@fleet-hours/storage-kysely', source: 'packages/storage-kysely/src/index.ts', readme: 'packages/storage-kysely/README.md' },
  { name: '@fleet-hours/server', source: 'packages/server/src/index.ts', readme: 'packages/server/README.md' },
  { name: '@fleet-hours/client', source: 'packages/client/src/index.ts', readme: 'packages/client/README.md' },
] as const;

function exportedNames(): Record<string, string[]> {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(root, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  if (!config) throw new Error('Cannot read tsconfig.json');
  const program = ts.createProgram(
    ENTRY_POINTS.map((entry) => join(root, entry.source)),
    { ...config.options, noEmit: true },
  );
  const checker = program.getTypeChecker();
  return Object.fromEntries(
    ENTRY_POINTS.map((entry) => {
      const sourceFile = program.getSourceFile(join(root, entry.source));
      const moduleSymbol = sourceFile && checker.getSymbolAtLocation(sourceFile);
      if (!moduleSymbol) throw new Error(`Cannot read the exports of ${entry.source}`);
      return [
        entry.name,
        checker
          .getExportsOfModule(moduleSymbol)
          .map((symbol) => symbol.name)
          .sort(),
      ];
    }),
  );
}

const names = exportedNames();

describe('public surfaces', () => {
  it('each entry point exports exactly the snapshotted names (a change to a public surface is deliberate)', () => {
    expect(names).toMatchSnapshot();
  });

  it.each(ENTRY_POINTS.map((entry) => [entry.name, entry] as const))('%s lists every public name in its README', (_name, entry) => {
    const readme = readFileSync(join(root, entry.readme), 'utf8');
    const missing = names[entry.name]!.filter((name) => !new RegExp(`\`[^\`\\n]*\\b${name}\\b[^\`\\n]*\``).test(readme));
    expect(missing, `${entry.readme} does not name these exports of ${entry.name}`).toEqual([]);
  });
});
