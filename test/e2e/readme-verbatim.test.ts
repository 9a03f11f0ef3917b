/**
 * A newcomer follows README.md verbatim on a fresh clone: every ```` ```sh ```` block, in order, run
 * by bash as printed, in a `git clone` of this repository (its committed tree) with a HOME of its
 * own, so `~/fleet-hours-demo` and `~/my-fleet` are the test's. Nothing is put in place but what the
 * README asks the reader to put: the printed key, ingest token and URL for `fh_…`, `fhi_…` and
 * http://127.0.0.1:8080.
 *
 * How the blocks are read (the markers are the words after `sh` in the info string, which a
 * renderer ignores):
 * - A command whose comment says "Ctrl+C" serves until stopped (`npm start`, `fleet-hours demo`):
 *   it runs in the background from when it prints "Press Ctrl+C to stop." while the blocks after
 *   it run, and is stopped as Ctrl+C does (SIGINT to its process group) when the next such command
 *   starts, before a block marked `stopped`, and at the end. It must exit cleanly.
 * - A block whose commands show their answers (`# {…}` lines) runs command by command; each must
 *   answer JSON without an `error` that holds every key the README shows and every text or null
 *   value it shows in full. Any other block runs as one script under `set -e`.
 * - `no-run` marks the one block that is not run here: `npm ci && npm test`, the suite this test
 *   is part of.
 * - The ```` ```js embed.mjs ```` block is saved as `embed.mjs` in `~/my-fleet` (made by the block
 *   before it) and run as the README says, `node embed.mjs`; it prints what its comment promises.
 *
 * `npm ci` runs as printed, with npm preferring its cache (the dependencies are there after the
 * checkout's own `npm ci`), so the install reaches the registry only for what the cache lacks; its
 * `prepare` builds the packages of the clone, which is most of this test's time.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, jsonEntries, newcomerEnv, shellCommands, shownKeys, shownValues } from '../support/readme.js';

const run = promisify(execFile);
const work = mkdtempSync(join(tmpdir(), 'fleet-hours-e2e-verbatim-'));
const home = join(work, 'home');
const clone = join(work, 'clone');

/** The newcomer's shell: no database of this machine's, HOME of the test's own. */
function shellEnv(): NodeJS.ProcessEnv {
  const env = newcomerEnv(home);
  delete env.DATABASE_URL;
  delete env.FLEET_HOURS_DATA_DIR;
  return env;
}

/** A fenced block of the README: its info string's words after the language, and its body. */
interface Block {
  readonly language: string;
  readonly markers: readonly string[];
  readonly name: string;
  readonly body: string;
}

function blocksOf(readme: string): Block[] {
  return [...readme.matchAll(/^```([^\n]*)\n([\s\S]*?)^```$/gm)].map((match) => {
    const [language = '', ...markers] = match[1]!.trim().split(/\s+/);
    return { language, markers, name: markers.join(' '), body: match[2]! };
  });
}

/** A command that serves until Ctrl+C, running in the background, with what it printed so far. */
interface Serving {
  readonly command: string;
  readonly child: ChildProcess;
  readonly output: () => string;
  readonly exited: Promise<string>;
}

describe('README.md, followed verbatim on a fresh clone', { timeout: 900_000 }, () => {
  let serving: Serving | null = null;
  const printed = { url: '', key: '', token: '' };

  afterAll(async () => {
    if (serving) await stop(serving).catch(() => {});
    rmSync(work, { recursive: true, force: true });
  });

  async function start(command: string): Promise<Serving> {
    const child = spawn('bash', ['-c', command], { cwd: clone, env: shellEnv(), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.setEncoding('utf8').on('data', (text: string) => (output += text));
    child.stderr!.setEncoding('utf8').on('data', (text: string) => (output += text));
    // 'close' waits for every process holding the pipes: the server itself has stopped, not only npm.
    const exited = new Promise<string>((done) => child.on('close', (code, signal) => done(signal ?? String(code))));
    await new Promise<void>((ready, failed) => {
      const timer = setTimeout(() => failed(new Error(`${command}\ndid not serve within 5 minutes:\n${output}`)), 300_000);
      const poll = setInterval(() => {
        if (!/Press Ctrl\+C to stop\./.test(output)) return;
        clearInterval(poll);
        clearTimeout(timer);
        ready();
      }, 100);
      void exited.then(() => {
        clearInterval(poll);
        clearTimeout(timer);
        failed(new Error(`${command}\nexited before it served:\n${output}`));
      });
    });
    const banner = output;
    printed.url = /serving at (http:\/\/127\.0\.0\.1:\d+)/.exec(banner)?.[1] ?? printed.url;
    printed.key = /\b(fh_\w{43})\b/.exec(banner)?.[1] ?? printed.key;
    printed.token = /\b(fhi_\w{43})\b/.exec(banner)?.[1] ?? printed.token;
    return { command, child, output: () => output, exited };
  }

  async function stop(server: Serving): Promise<void> {
    process.kill(-server.child.pid!, 'SIGINT');
    // As at a terminal, Ctrl+C ends npm or npx by the signal and the server cleanly.
    expect(['0', 'SIGINT'], `${server.command}\n${server.output()}`).toContain(await server.exited);
  }

  const fill = (command: string) =>
    command.replaceAll('http://127.0.0.1:8080', printed.url).replaceAll('fhi_…', printed.token).replaceAll('fh_…', printed.key);

  it('runs every shell block in order, the demo first, then its data from the command line, then the packages', async () => {
    await run('git', ['clone', '--quiet', ROOT, clone], { timeout: 60_000 });
    const readme = readFileSync(join(clone, 'README.md'), 'utf8');
    const blocks = blocksOf(readme);
    const shell = blocks.filter((block) => block.language === 'sh');
    expect(shell.length).toBeGreaterThanOrEqual(6);
    // The one block not run here is the suite itself.
    expect(shell.filter((block) => block.markers.includes('no-run')).map((block) => block.body.trim().split(/\s+#/)[0])).toEqual([
      'npm ci && npm test',
    ]);
    const ran: string[] = [];

    for (const block of blocks) {
      if (block.language === 'js' && block.name === 'embed.mjs') {
        // "This `embed.mjs` in `~/my-fleet` … (`node embed.mjs`)": the figures its comment promises.
        const project = join(home, 'my-fleet');
        writeFileSync(join(project, 'embed.mjs'), block.body);
        const { stdout } = await run(process.execPath, ['embed.mjs'], { cwd: project, env: shellEnv(), timeout: 60_000 });
        const daily = JSON.parse(stdout.trim().split('\n').at(-1)!) as { data: { date: string; engine_seconds: number }[] };
        const promised = [...block.body.matchAll(/(\d+) s on (\d{4}-\d{2}-\d{2})/g)].map(([, seconds, date]) => ({
          date,
          engine_seconds: Number(seconds),
        }));
        expect(promised).toHaveLength(2);
        expect(daily.data).toEqual(promised.map((day) => expect.objectContaining(day)));
        ran.push('node embed.mjs');
        continue;
      }
      if (block.language !== 'sh' || block.markers.includes('no-run')) continue;
      if (block.markers.includes('stopped') && serving) {
        await stop(serving);
        serving = null;
      }
      const commands = shellCommands(block.body);
      const answered = commands.some((entry) => entry.answer !== null);
      const serves = commands.filter((entry) => /#.*Ctrl\+C/.test(entry.command));
      if (serves.length > 0) {
        expect(commands, `a block that serves holds that one command:\n${block.body}`).toHaveLength(1);
        if (serving) await stop(serving);
        serving = await start(commands[0]!.command);
        expect(printed.url && printed.key && printed.token, serving.output()).toBeTruthy();
        ran.push(commands[0]!.command);
        continue;
      }
      if (!answered) {
        const script = fill(block.body);
        const result = await run('bash', ['-c', `set -e\n${script}`], {
          cwd: clone,
          env: shellEnv(),
          timeout: 300_000,
          maxBuffer: 16 * 1024 * 1024,
        }).catch((error: Error & { stdout?: string; stderr?: string }) => {
          throw new Error(`${block.body}\nfailed: ${error.message}\n${error.stdout ?? ''}${error.stderr ?? ''}`);
        });
        expect(result.stderr, block.body).not.toMatch(/\berror\b|No device|No service schedule/i);
        ran.push(...commands.map((entry) => entry.command));
        continue;
      }
      for (const { command, answer } of commands) {
        expect(answer, `the README shows no answer for: ${command}`).not.toBeNull();
        expect(serving, `nothing serves for: ${command}`).not.toBeNull();
        // A download (`curl -OJ`, D62): the file it says it saves, its header row as shown.
        const saves = /^saves (\S+)<today>\.csv: (.*?)…?$/.exec(answer!);
        if (saves) {
          await run('bash', ['-c', fill(command)], { cwd: clone, env: shellEnv(), timeout: 30_000 });
          const file = readdirSync(clone).find((name) => name.startsWith(saves[1]!) && name.endsWith('.csv'));
          expect(file, `${command}\nsaved no ${saves[1]}….csv`).toBeDefined();
          const header = readFileSync(join(clone, file!), 'utf8').split('\r\n')[0]!;
          expect(header.startsWith(saves[2]!), `${command}\nsaved a file beginning ${header}`).toBe(true);
          ran.push(command);
          continue;
        }
        const { stdout } = await run('bash', ['-c', fill(command)], { cwd: clone, env: shellEnv(), timeout: 30_000 });
        let body: unknown;
        expect(() => (body = JSON.parse(stdout)), `${command}\nanswered: ${stdout}`).not.toThrow();
        const entries = jsonEntries(body);
        expect(
          entries.some(([name]) => name === 'error'),
          `${command}\nanswered: ${stdout}`,
        ).toBe(false);
        const keys = new Set(entries.map(([name]) => name));
        for (const shown of shownKeys(answer!)) expect(keys.has(shown), `${command}\nanswered without "${shown}": ${stdout}`).toBe(true);
        for (const [name, value] of shownValues(answer!)) {
          expect(
            entries.some(([entryName, entryValue]) => entryName === name && entryValue === value),
            `${command}\nanswered without "${name}":${JSON.stringify(value)}: ${stdout}`,
          ).toBe(true);
        }
        ran.push(command);
      }
    }
    if (serving) {
      await stop(serving);
      serving = null;
    }

    // What a newcomer ran, in order: the demo and its curl lines, the demo again with a data
    // directory, the service commands against that directory, and the packages packed and used.
    const order = ['npm ci && npm start', '/api/v1/devices"', 'demo --data-dir', 'service create', 'npm pack', 'node embed.mjs'];
    const positions = order.map((part) => ran.findIndex((command) => command.includes(part)));
    expect(
      positions.every((position) => position >= 0),
      JSON.stringify(ran, null, 1),
    ).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  });
});
