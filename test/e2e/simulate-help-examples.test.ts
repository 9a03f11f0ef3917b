/**
 * Every example of `fleet-hours simulate --help` runs as printed against `fleet-hours demo`: the
 * token placeholder becomes the demo's ingest token, the URL the demo's (it listens on a free port
 * here, not 8080), and each run is cut to a few seconds with --duration.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, startCliServer } from '../support/cli.js';

const work = mkdtempSync(join(tmpdir(), 'fleet-hours-e2e-simulate-help-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The example lines of a help text: the indented lines after "Examples:". */
function helpExamples(help: string): string[] {
  const [, section = ''] = help.split('\nExamples:\n');
  return section
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

/** An example as arguments, run against `url` with `token` for at most `seconds`. */
function runnable(example: string, url: string, token: string, seconds: number): string[] {
  // Plain words only: a quote or a variable would need a shell to read it.
  expect(example, example).toMatch(/^fleet-hours simulate [\w .,:/…=-]+$/);
  const args = example
    .split(/\s+/)
    .slice(1)
    .map((word) => (word === 'fhi_…' ? token : word));
  const urlAt = args.indexOf('--url');
  if (urlAt === -1) args.push('--url', url);
  else args[urlAt + 1] = url;
  const durationAt = args.indexOf('--duration');
  if (durationAt === -1) args.push('--duration', String(seconds));
  else args[durationAt + 1] = String(seconds);
  return args;
}

describe('fleet-hours simulate --help examples', { timeout: 180_000 }, () => {
  it('each runs against the demo without a failed request', async () => {
    const help = await runCli(['simulate', '--help'], { cwd: work });
    const examples = helpExamples(help.stdout);
    expect(examples.length).toBeGreaterThanOrEqual(3);

    const demo = await startCliServer(['demo', '--port', '0'], (stdout) => (/Press Ctrl\+C to stop\./.test(stdout) ? stdout : null), {
      cwd: work,
    });
    try {
      const url = /serving at (http:\/\/127\.0\.0\.1:\d+)/.exec(demo.stdout())![1]!;
      const token = /Ingest\s+(fhi_\w{43})/.exec(demo.stdout())![1]!;
      for (const example of examples) {
        const args = runnable(example, url, token, 3);
        if (example.startsWith('fleet-hours simulate --url ')) expect(example).toContain('--url http://127.0.0.1:8080 '); // the demo's own port
        const result = await runCli(args, { cwd: work });
        expect(result.stderr, example).not.toMatch(/unknown_device|conflict|\b4\d\d\b/);
        expect(result.code, `${example}\n${result.stdout}\n${result.stderr}`).toBe(0);
        if (args.includes('--json')) {
          const summary = JSON.parse(result.stdout) as {
            accepted: number;
            duplicates: number;
            errors: unknown[];
            stopped_because: string | null;
          };
          expect(summary).toMatchObject({ errors: [], stopped_because: null });
          expect(summary.accepted + summary.duplicates, example).toBeGreaterThan(0);
        } else {
          // A point can be a duplicate of one the demo's own live feed sent in the same second.
          const [, accepted, duplicates] = /Accepted +([\d,]+), duplicates ([\d,]+)/.exec(result.stdout) ?? [];
          expect(Number(accepted?.replace(/,/g, '')) + Number(duplicates?.replace(/,/g, '')), example).toBeGreaterThan(0);
          expect(result.stdout, example).toMatch(/ 0 4xx, 0 5xx, 0 without an answer/);
        }
      }
    } finally {
      const stopped = await demo.stop('SIGTERM');
      expect(stopped.code).toBe(0);
    }
  });
});
