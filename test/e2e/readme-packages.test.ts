/**
 * README.md's way to use the packages before they are published, from the clone, as printed:
 * `npx fleet-hours --help` and `npm link -w @fleet-hours/server` (the ```` ```sh pack ```` block and
 * `embed.mjs` run in readme-verbatim.test.ts, with every other block of the README).
 *
 * HOME is a fresh temporary folder, so `~/fleet-hours-packs` and `~/my-fleet` are the test's own;
 * npm keeps this machine's cache and user config and prefers the cache (the dependencies are there
 * after `npm ci`), so the install reaches the registry only for what the cache lacks.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { README, ROOT, newcomerEnv } from '../support/readme.js';

const run = promisify(execFile);
const home = mkdtempSync(join(tmpdir(), 'fleet-hours-e2e-packages-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

const npmEnv = (extra: Record<string, string> = {}) => newcomerEnv(home, extra);

const version = (JSON.parse(readFileSync(join(ROOT, 'packages/server/package.json'), 'utf8')) as { version: string }).version;

describe('README.md: the packages before they are published', { timeout: 120_000 }, () => {
  it('from the clone: npx fleet-hours --help runs the workspace CLI, npm link puts it on PATH', async () => {
    const inline = [...README.matchAll(/`((?:npx fleet-hours|npm link) [^`]+)`/g)].map((match) => match[1]!);
    expect(inline).toEqual(expect.arrayContaining(['npx fleet-hours --help', 'npm link -w @fleet-hours/server']));
    const help = await run('bash', ['-c', 'npx fleet-hours --help'], { cwd: ROOT, env: npmEnv(), timeout: 60_000 });
    expect(help.stdout).toMatch(/fleet-hours/);

    // A global prefix of the test's own, so that the link lands in its folder and nowhere else.
    const prefix = join(home, 'global');
    await run('bash', ['-c', 'npm link -w @fleet-hours/server'], {
      cwd: ROOT,
      env: npmEnv({ npm_config_prefix: prefix }),
      timeout: 60_000,
    });
    const linked = await run(join(prefix, 'bin', 'fleet-hours'), ['--version'], { timeout: 30_000 });
    expect(linked.stdout.trim()).toBe(version);
  });
});
