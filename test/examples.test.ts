/**
 * The embedding examples are documentation that must keep working: each runs as its own process,
 * by the command examples/README.md documents (from `examples/`, whose tsconfig.json resolves the
 * packages by their public names to the built dist), and its figures are checked
 * against values worked out by hand in the comments below.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { fencedBlocks } from './support/readme.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('..', import.meta.url));
const readme = readFileSync(new URL('../examples/README.md', import.meta.url), 'utf8');

/** The command examples/README.md documents, for embed-core.ts; the same with another file runs that one. */
const [documented] = fencedBlocks('sh', readme).map((block) => block.trim());

/** Runs an example by the documented command, from the root, with nothing in its environment put in place. */
async function runExample(name: string): Promise<string[]> {
  expect(readme, `examples/README.md lists ${name}`).toContain(`| \`${name}\` |`);
  const { stdout } = await run('bash', ['-c', documented!.replace('embed-core.ts', name)], { cwd: root, timeout: 60_000 });
  return stdout.trim().split('\n');
}

const jsonAfter = (lines: string[], prefix: string): unknown => {
  const line = lines.find((candidate) => candidate.startsWith(prefix));
  if (!line) throw new Error(`No line starting with "${prefix}" in:\n${lines.join('\n')}`);
  return JSON.parse(line.slice(line.indexOf('{')));
};

describe('examples', () => {
  it('examples/README.md documents one command to run an example', () => {
    expect(documented).toBe('cd examples && node --import tsx embed-core.ts');
  });

  it('embed-core.ts: a night shift across the 25-hour day of 2026-11-01 in New York (D2, D8)', async () => {
    const lines = await runExample('embed-core.ts');
    // 22:00 EDT to 06:00 EST is 8 real hours: 2 h on Oct 31 and 6 h on Nov 1; 45 of every 60 minutes moving.
    expect(lines).toContain('day 2026-10-31: engine 7200 s = moving 5400 s + idle 1800 s');
    expect(lines).toContain('day 2026-11-01: engine 21600 s = moving 16200 s + idle 5400 s');
    expect(jsonAfter(lines, 'total:')).toEqual({
      deviceId: 1,
      timeZone: 'America/New_York',
      from: '2026-10-31T00:00:00-04:00',
      to: '2026-11-01T23:59:59-05:00',
      engineSeconds: 28800,
      movingSeconds: 21600,
      idleSeconds: 7200,
    });
    expect(jsonAfter(lines, 'meter:')).toMatchObject({ since: '2026-10-31T22:00:00-04:00', engineSeconds: 28800 });
  });

  it("mount-in-hono.ts: the API mounted beside an application's own routes", async () => {
    const lines = await runExample('mount-in-hono.ts');
    expect(lines[0]).toBe('GET /health -> {"ok":true}');
    expect(lines[1]).toMatch(/^GET \/api\/v1\/devices -> 200 /);
    // 07:00–09:30 moving and 09:30–10:00 idle in Kathmandu (+05:45).
    expect(lines[2]).toBe(
      'GET /hours -> 200 limit=30 remaining=29 ' +
        JSON.stringify({
          device_id: 1,
          from: '2026-05-04T00:00:00+05:45',
          to: '2026-05-04T23:59:59+05:45',
          timezone: 'Asia/Kathmandu',
          engine_seconds: 10800,
          moving_seconds: 9000,
          idle_seconds: 1800,
        }),
    );
    expect(lines[3]).toMatch(/^GET \/api\/v1\/devices\/999\/meter -> 404 \{"error":\{"status":404,"code":"device_not_found"/);
  });

  it('kysely-pglite.ts: a user-built Kysely on PGlite, across the 23-hour day of 2026-03-29 in Berlin', async () => {
    const lines = await runExample('kysely-pglite.ts');
    // Moving 22:00–01:30 (+01:00): 2 h on the 28th, 1.5 h on the 29th; idle 03:30–05:00 (+02:00) on the 29th.
    expect(jsonAfter(lines, 'daily:')).toEqual({
      deviceId: 1,
      timeZone: 'Europe/Berlin',
      from: '2026-03-28T00:00:00+01:00',
      to: '2026-03-29T23:59:59+02:00',
      days: [
        // D59: the 23-hour day's length; no calendar, so every engine second is outside one.
        expect.objectContaining({ date: '2026-03-28', engineSeconds: 7200, movingSeconds: 7200, idleSeconds: 0, daySeconds: 86_400 }),
        expect.objectContaining({ date: '2026-03-29', engineSeconds: 10800, movingSeconds: 5400, idleSeconds: 5400, daySeconds: 82_800 }),
      ],
    });
    expect(jsonAfter(lines, 'meter:')).toMatchObject({ since: '2026-03-28T22:00:00+01:00', engineSeconds: 18000 });
  });

  it('typed-client.ts: the client walks the fleet page by page and creates a device with an Idempotency-Key (D57)', async () => {
    const lines = await runExample('typed-client.ts');
    // 08:00–10:00 moving, then 10, 20 and 30 minutes idle, in Lisbon (+01:00 in May).
    expect(jsonAfter(lines, 'hours:')).toEqual({
      device_id: 1,
      from: '2026-05-04T00:00:00+01:00',
      to: '2026-05-04T23:59:59+01:00',
      timezone: 'Europe/Lisbon',
      engine_seconds: 7800,
      moving_seconds: 7200,
      idle_seconds: 600,
    });
    expect(lines.filter((line) => line.startsWith('GET /api/v1/hours') || line.startsWith('device '))).toEqual([
      'GET /api/v1/hours?from=2026-05-04&to=2026-05-04&limit=2 -> 200',
      'device 1: engine 7800 s = moving 7200 s + idle 600 s',
      'device 2: engine 8400 s = moving 7200 s + idle 1200 s',
      expect.stringMatching(/^GET \/api\/v1\/hours\?from=2026-05-04&to=2026-05-04&limit=2&cursor=\S+ -> 200$/),
      'device 3: engine 9000 s = moving 7200 s + idle 1800 s',
    ]);
    expect(lines).toContain('POST /api/v1/devices (with an Idempotency-Key) -> 201');
    expect(jsonAfter(lines, 'created:')).toMatchObject({ id: 4, name: 'Loader 4', status: 'active', timezone: 'Europe/Lisbon' });
  });
});
