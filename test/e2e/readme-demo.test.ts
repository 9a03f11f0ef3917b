/**
 * A newcomer follows README.md: `npm start` (the built `fleet-hours demo`, as the script says),
 * then every command of its ```` ```sh demo ```` blocks, run by bash as printed, with only the
 * printed key, ingest token and URL put in place of `fh_…`, `fhi_…` and http://127.0.0.1:8080. Each
 * must answer the JSON the README shows below it: every key it names, and every text or null value
 * it shows in full. The ```` ```sh read ```` block keeps the demo's data in a directory, stops the demo
 * as Ctrl+C does (SIGINT to its process group) and reads a device with `fleet-hours daily`; HOME is
 * a temporary folder there, so `~/fleet-hours-demo` is the test's own.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { startCliServer } from '../support/cli.js';
import { README, ROOT, fencedBlocks, jsonEntries, shellCommands, shownKeys, shownValues } from '../support/readme.js';

const run = promisify(execFile);
const work = mkdtempSync(join(tmpdir(), 'fleet-hours-e2e-readme-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('README.md, followed by a newcomer', { timeout: 120_000 }, () => {
  it('gives the two commands, and npm start is the demo', () => {
    expect(README).toContain('npm ci && npm start');
    expect(README).toContain('npm ci && npm test');
    const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.start).toBe('fleet-hours demo');
  });

  it('every command of its demo blocks runs as printed against the demo and answers the JSON shown', async () => {
    const commands = fencedBlocks('sh demo').flatMap(shellCommands);
    expect(commands.length).toBeGreaterThanOrEqual(6);
    expect(commands.map((entry) => entry.command).join('\n')).toMatch(/\/ingest\/v1\/telemetry/);

    const demo = await startCliServer(['demo', '--port', '0'], (stdout) => (/Press Ctrl\+C to stop\./.test(stdout) ? stdout : null), {
      cwd: work,
    });
    try {
      const banner = demo.stdout();
      const url = /serving at (http:\/\/127\.0\.0\.1:\d+)/.exec(banner)?.[1];
      const key = /\b(fh_\w{43})\b/.exec(banner)?.[1];
      const ingestToken = /\b(fhi_\w{43})\b/.exec(banner)?.[1];
      expect(url && key && ingestToken, banner).toBeTruthy();

      for (const { command, answer } of commands) {
        expect(answer, `the README shows no answer for: ${command}`).not.toBeNull();
        const printed = command.replaceAll('http://127.0.0.1:8080', url!).replaceAll('fhi_…', ingestToken!).replaceAll('fh_…', key!);
        const { stdout } = await run('bash', ['-c', printed], { cwd: work, timeout: 30_000 });
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
      }
    } finally {
      const result = await demo.stop('SIGTERM');
      expect(result.code).toBe(0);
    }
  });

  it('the read block: the demo keeps its data in a directory, and fleet-hours daily reads a device from it', async () => {
    const commands = fencedBlocks('sh read')
      .flatMap(shellCommands)
      .map((entry) => entry.command);
    expect(commands).toHaveLength(2);
    const [demoCommand, readCommand] = commands as [string, string];
    expect(demoCommand).toMatch(/ demo /);
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: work };
    delete env.DATABASE_URL;
    delete env.FLEET_HOURS_DATA_DIR;

    // npx finds the workspace's own command only inside the clone, as the README says.
    const demo = spawn('bash', ['-c', demoCommand], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    demo.stdout.setEncoding('utf8').on('data', (text: string) => (output += text));
    demo.stderr.setEncoding('utf8').on('data', (text: string) => (output += text));
    // 'close' waits for every process holding the pipes: the demo itself has stopped, not only npx.
    const exited = new Promise<string>((done) => demo.on('close', (code, signal) => done(signal ?? String(code))));
    try {
      await new Promise<void>((ready, failed) => {
        const timer = setTimeout(() => failed(new Error(`the demo did not serve within 90 s:\n${output}`)), 90_000);
        const poll = setInterval(() => {
          if (!/Press Ctrl\+C to stop\./.test(output)) return;
          clearInterval(poll);
          clearTimeout(timer);
          ready();
        }, 100);
        demo.on('close', () => {
          clearInterval(poll);
          clearTimeout(timer);
          failed(new Error(`the demo exited before it served:\n${output}`));
        });
      });
    } finally {
      process.kill(-demo.pid!, 'SIGINT');
    }
    // As at a terminal, Ctrl+C ends npx by the signal and the demo cleanly.
    expect(['0', 'SIGINT'], output).toContain(await exited);

    const { stdout } = await run('bash', ['-c', readCommand], { cwd: ROOT, env, timeout: 60_000 });
    expect(stdout).toMatch(/Truck 14 \(device 1\)/);
    for (const date of ['2026-10-31', '2026-11-01', '2026-11-02'])
      expect(stdout).toMatch(new RegExp(`^${date}\\s+\\d+:\\d{2}:\\d{2}`, 'm'));
  });
});
