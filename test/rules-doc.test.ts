import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// docs/rules.md is the map from every rule to the one file that implements it and the test that
// holds it. This test keeps the map true: every rule is listed, the files it names exist, and the
// test it names cites the rule by number.

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const rulesText = readFileSync(join(root, 'docs/rules.md'), 'utf8');
const decisionsText = readFileSync(join(root, 'docs/decisions.md'), 'utf8');

interface RuleEntry {
  readonly id: string;
  readonly body: string;
}

function ruleEntries(text: string): RuleEntry[] {
  const entries: RuleEntry[] = [];
  const headings = [...text.matchAll(/^### ([DP]\d+)\b.*$/gm)];
  headings.forEach((heading, index) => {
    const end = headings[index + 1]?.index ?? text.length;
    entries.push({ id: heading[1]!, body: text.slice(heading.index!, end) });
  });
  return entries;
}

const entries = ruleEntries(rulesText);
const projectRules = [...decisionsText.matchAll(/^- \*\*(P\d+)\b/gm)].map((match) => match[1]!);

describe('docs/rules.md', () => {
  it('lists every product rule D1–D57, those of D58–D66 built so far, and every project rule of docs/decisions.md, once each', () => {
    const ids = entries.map((entry) => entry.id);
    expect(new Set(ids).size).toBe(ids.length);
    // D58–D66 (issues 33, 34) are listed as their work lands.
    const later = ids.filter((id) => /^D(5[89]|6[0-6])$/.test(id));
    const expected = [...Array.from({ length: 57 }, (_, index) => `D${index + 1}`), ...later, ...projectRules];
    expect(projectRules.length).toBeGreaterThanOrEqual(20);
    expect([...ids].sort()).toEqual([...expected].sort());
  });

  it.each(entries.map((entry) => [entry.id, entry] as const))(
    '%s names its code and test, or the issue that will build it',
    (id, entry) => {
      const notYet = /^Not yet: issue \d+/m.test(entry.body);
      const located = /^Code: `([^`]+)` · Test: `([^`]+)`$/m.exec(entry.body);
      expect(notYet || located !== null, `${id} needs "Code: … · Test: …" or "Not yet: issue N"`).toBe(true);
      if (!located) return;
      const [, code, test] = located as unknown as [string, string, string];
      expect(existsSync(join(root, code)), `${id}: ${code} does not exist`).toBe(true);
      expect(existsSync(join(root, test)), `${id}: ${test} does not exist`).toBe(true);
      expect(readFileSync(join(root, test), 'utf8'), `${id}: ${test} does not cite ${id}`).toMatch(new RegExp(`\\b${id}\\b`));
    },
  );
});

describe('the repository explains itself', () => {
  const markdownFiles = [
    'README.md',
    ...readdirSync(join(root, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => `docs/${name}`),
    ...readdirSync(join(root, 'packages')).map((name) => `packages/${name}/README.md`),
    'examples/README.md',
  ].filter((path) => existsSync(join(root, path)));

  it.each(markdownFiles)('%s links only to files inside the repository', (path) => {
    const text = readFileSync(join(root, path), 'utf8');
    expect(text, `${path} mentions the steering folder shared/`).not.toMatch(/\bshared\/(spec|STYLE)/);
    for (const [, target] of text.matchAll(/\]\(([^)#\s]+)[^)]*\)/g)) {
      if (/^[a-z]+:/i.test(target!)) continue; // an absolute URL such as http://127.0.0.1:8080/docs
      const file = resolve(join(root, dirname(path)), target!);
      expect(relative(root, file).startsWith('..'), `${path} links outside the repository: ${target}`).toBe(false);
      expect(existsSync(file), `${path} links to a missing file: ${target}`).toBe(true);
    }
  });

  // Every file of ours that names a Markdown file names one that is here: a document the code cites
  // is one a reader of the repository can open. A bare name is found beside the file that names it,
  // at the root or in docs/; a path, from the root or from that file.
  const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' })
    .split('\0')
    .filter(
      (path) =>
        /\.(ts|mts|mjs|js|md|json|yml|yaml|sh)$/.test(path) && !path.startsWith('test/__snapshots__/') && existsSync(join(root, path)),
    );

  it('every Markdown file named in code, tests and docs exists in the repository', () => {
    expect(tracked.length).toBeGreaterThan(100);
    const missing: string[] = [];
    for (const path of tracked) {
      const text = readFileSync(join(root, path), 'utf8');
      for (const match of text.matchAll(/(?<![\w./-])((?:\.{1,2}\/|[\w-]+\/)*[\w-]+\.md)\b/g)) {
        const named = match[1]!;
        const candidates = named.includes('/')
          ? [resolve(root, dirname(path), named), resolve(root, named)]
          : [join(root, dirname(path), named), join(root, named), join(root, 'docs', named)];
        if (!candidates.some((candidate) => !relative(root, candidate).startsWith('..') && existsSync(candidate)))
          missing.push(`${path}: ${named}`);
      }
    }
    expect(missing).toEqual([]);
  });

  // A comment says why the code is as it is; figures and their history live in docs/decisions.md
  // and the benchmarks' README, where they can be measured again.
  it('comments in the packages give reasons, not measurements or their history', () => {
    const narrating = /\bmeasured\b|\bfell from\b|\bbefore P\d+\b|\b(?:instead of|against) [\d.,–]+ ?(?:ms|s|points\/s)\b/i;
    const found: string[] = [];
    for (const path of tracked.filter((file) => /^packages\/[^/]+\/src\/.*\.ts$/.test(file) && !file.endsWith('.test.ts'))) {
      readFileSync(join(root, path), 'utf8')
        .split('\n')
        .forEach((line, index) => {
          if (/^\s*(?:\/\/|\*|\/\*)/.test(line) && narrating.test(line)) found.push(`${path}:${index + 1}: ${line.trim()}`);
        });
    }
    expect(found).toEqual([]);
  });
});
