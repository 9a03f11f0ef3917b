/**
 * Reads the commands out of README.md, so that the newcomer tests run exactly what a reader copies.
 * A fenced block is picked by its info string (```` ```sh stopped ````, ```` ```sh pack ````,
 * ```` ```js embed.mjs ````): the first word is the language for the renderer, the rest names or
 * marks the block for the tests (test/e2e/readme-verbatim.test.ts says how).
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The bodies of every fenced block whose info string is exactly `info`, in order. */
export function fencedBlocks(info: string, text = README): string[] {
  const blocks: string[] = [];
  for (const match of text.matchAll(/^```([^\n]*)\n([\s\S]*?)^```$/gm)) {
    if (match[1]!.trim() === info) blocks.push(match[2]!);
  }
  return blocks;
}

/** A shell command of a block, with the answer its `# {…}` comment lines show (`null`: none). */
export interface ReadmeCommand {
  readonly command: string;
  readonly answer: string | null;
}

/**
 * The commands of a shell block: a line ending in `|` or `\` goes on into the next; the comment
 * lines after a command are the answer it shows.
 */
export function shellCommands(block: string): ReadmeCommand[] {
  const commands: { command: string; answer: string | null }[] = [];
  let pending = '';
  for (const line of block.split('\n')) {
    if (line.trim() === '') continue;
    if (pending === '' && line.startsWith('#')) {
      const last = commands.at(-1);
      if (last) last.answer = (last.answer === null ? '' : `${last.answer}\n`) + line.replace(/^#\s?/, '');
      continue;
    }
    pending += (pending === '' ? '' : '\n') + line;
    if (/[|\\]\s*$/.test(line)) continue;
    commands.push({ command: pending, answer: null });
    pending = '';
  }
  if (pending !== '') commands.push({ command: pending, answer: null });
  return commands;
}

/** Every key a JSON answer shown in the README names (`"engine_seconds":…` → `engine_seconds`). */
export function shownKeys(answer: string): string[] {
  return [...new Set([...answer.matchAll(/"(\w+)":/g)].map((match) => match[1]!))];
}

/** The string and null values the README shows in full (`"timezone":"America/New_York"`), by key. */
export function shownValues(answer: string): [string, string | null][] {
  return [...answer.matchAll(/"(\w+)":(null|"[^"…]*")/g)].map(([, key, value]) => [
    key!,
    value === 'null' ? null : (JSON.parse(value!) as string),
  ]);
}

/** Every [key, value] pair anywhere in a parsed JSON document. */
export function jsonEntries(value: unknown): [string, unknown][] {
  if (Array.isArray(value)) return value.flatMap(jsonEntries);
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) => [[key, inner] as [string, unknown], ...jsonEntries(inner)]);
}

/**
 * The environment a newcomer's shell has: this one without npm's own variables (a parent `npm test`
 * sets its prefix and paths), with HOME moved to `home` so that `~/…` is a test's own. npm keeps
 * this machine's cache and user config and prefers the cache, so an install reaches the registry
 * only for what the cache lacks.
 */
export function newcomerEnv(home: string, extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!/^npm_|^INIT_CWD$/i.test(name)) env[name] = value;
  const userConfig = process.env.npm_config_userconfig ?? join(homedir(), '.npmrc');
  return {
    ...env,
    HOME: home,
    npm_config_cache: process.env.npm_config_cache ?? join(homedir(), '.npm'),
    ...(existsSync(userConfig) ? { npm_config_userconfig: userConfig } : {}),
    npm_config_prefer_offline: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
    ...extra,
  };
}
