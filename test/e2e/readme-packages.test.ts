/**
 * README.md's way to use the packages before they are published, followed as printed: from the
 * clone (`npx fleet-hours --help`, `npm link -w @fleet-hours/server`), and as `npm pack` tarballs
 * installed in a project of one's own (the ```` ```sh pack ```` block, run by bash line by line with
 * `set -e`), where the ```` ```js embed.mjs ```` block runs and prints what its comment says.
 *
 * HOME is a fresh temporary folder, so `~/fleet-hours-packs` and `~/my-fleet` are the test's own;
 * npm keeps this machine's cache and user config and prefers the cache (the dependencies are there
 * after `npm ci`), so the install reaches the registry only for what the cache lacks.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { README, ROOT, fencedBlocks } from '../support/readme.js';

const run = promisify(execFile);
const home = mkdtempSync(join(tmpdir(), 'fleet-hours-e2e-packages-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

/** This environment without npm's own variables (a parent `npm test` sets its prefix and paths), HOME moved. */
function npmEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
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

const version = (JSON.parse(readFileSync(join(ROOT, 'packages/server/package.json'), 'utf8')) as { version: string }).version;

describe('README.md: the packages before they are published', { timeout: 240_000 }, () => {
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

  it('elsewhere: the packed tarballs install in a fresh project, where npx fleet-hours and embed.mjs run', async () => {
    const [pack] = fencedBlocks('sh pack');
    expect(pack, 'README.md has a ```sh pack block').toBeDefined();
    const { stdout } = await run('bash', ['-c', `set -e\n${pack}`], {
      cwd: ROOT,
      env: npmEnv(),
      timeout: 180_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    // The block ends with `npx fleet-hours --version`, run in the new project.
    expect(stdout.trim().split('\n').at(-1)).toBe(version);

    const project = join(home, 'my-fleet');
    expect(JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')).dependencies).toMatchObject({
      '@fleet-hours/core': expect.stringMatching(/fleet-hours-core-.+\.tgz$/),
      '@fleet-hours/storage-kysely': expect.stringMatching(/fleet-hours-storage-kysely-.+\.tgz$/),
    });

    const [embed] = fencedBlocks('js embed.mjs');
    expect(embed, 'README.md has a ```js embed.mjs block').toBeDefined();
    writeFileSync(join(project, 'embed.mjs'), embed!);
    const output = await run(process.execPath, ['embed.mjs'], { cwd: project, env: npmEnv(), timeout: 60_000 });
    const daily = JSON.parse(output.stdout.trim().split('\n').at(-1)!) as { data: { date: string; engine_seconds: number }[] };
    // The figures the block's comment promises: "7200 s on 2026-10-31, 25200 s on 2026-11-01".
    const promised = [...embed!.matchAll(/(\d+) s on (\d{4}-\d{2}-\d{2})/g)].map(([, seconds, date]) => ({
      date,
      engine_seconds: Number(seconds),
    }));
    expect(promised).toHaveLength(2);
    expect(daily.data).toEqual(promised.map((day) => expect.objectContaining(day)));
  });
});
