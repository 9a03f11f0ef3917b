import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, startCliServer } from '../support/cli.js';

const work = mkdtempSync(join(tmpdir(), 'fleet-hours-e2e-demo-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('fleet-hours demo (what `npm start` runs)', { timeout: 120_000 }, () => {
  it('serves a fresh seeded database and prints a URL, a key and curl lines that work (P17), with vehicles due soon and overdue on its first start (D38, D39)', async () => {
    // DATABASE_URL is set on purpose: the demo must ignore it and stay embedded.
    const demo = await startCliServer(['demo', '--port', '0'], (stdout) => (/Press Ctrl\+C to stop\./.test(stdout) ? stdout : null), {
      cwd: work,
      env: { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' },
    });
    try {
      const banner = demo.stdout();
      const url = /serving at (http:\/\/127\.0\.0\.1:\d+)/.exec(banner)?.[1];
      const key = /API key\s+(fh_\w{43})/.exec(banner)?.[1];
      expect(url).toBeDefined();
      expect(key).toBeDefined();

      const devices = await fetch(`${url}/api/v1/devices`, { headers: { Authorization: `Bearer ${key}` } });
      expect(devices.status).toBe(200);
      const { data } = (await devices.json()) as { data: { id: number; name: string; timezone: string }[] };
      expect(data.map((device) => device.timezone)).toEqual(
        expect.arrayContaining(['America/New_York', 'Europe/Berlin', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'America/Sao_Paulo']),
      );

      // The first start shows service due (D38, D39): the fleet endpoint's filter answers with the
      // vehicles due soon and overdue, each with all its schedules; the rest of the fleet is ok.
      const readService = async (query: string) => {
        const response = await fetch(`${url}/api/v1/service${query}`, { headers: { Authorization: `Bearer ${key}` } });
        expect(response.status).toBe(200);
        const body = (await response.json()) as {
          data: { device_id: number; hour_meter_seconds: number; data: { name: string; status: string }[] }[];
          next_cursor: string | null;
        };
        expect(body.next_cursor).toBeNull();
        return body.data.map((service) => ({
          vehicle: data.find((device) => device.id === service.device_id)!.name,
          schedules: service.data.map((schedule) => [schedule.name, schedule.status]),
        }));
      };
      expect(await readService('?status=due_soon,overdue')).toEqual([
        {
          vehicle: 'Truck 14',
          schedules: [
            ['Engine oil and filter', 'due_soon'],
            ['Air filter', 'ok'],
          ],
        },
        {
          vehicle: 'Bakery van B-7',
          schedules: [
            ['Engine oil', 'overdue'],
            ['Brake inspection', 'ok'],
          ],
        },
        {
          vehicle: 'Island tug Kentia',
          schedules: [
            ['Engine oil', 'ok'],
            ['Annual hull survey', 'due_soon'],
          ],
        },
      ]);
      const everyStatus = (await readService('')).flatMap((service) => service.schedules.map(([, status]) => status));
      expect(everyStatus.filter((status) => status === 'ok').length).toBe(everyStatus.length - 3);

      // Every printed curl line answers as its comment says.
      const curls = [...banner.matchAll(/# (.+)\n\s+curl -s -H "Authorization: Bearer (fh_\w+)" "([^"]+)"/g)];
      expect(curls.length).toBeGreaterThanOrEqual(7);
      for (const [, title, curlKey, curlUrl] of curls) {
        const response = await fetch(curlUrl!, { headers: { Authorization: `Bearer ${curlKey}` } });
        const body = (await response.json()) as Record<string, unknown>;
        if (title!.includes('403')) {
          expect(response.status, title).toBe(403);
          continue;
        }
        expect(response.status, title).toBe(200);
        if (title!.includes('(live)')) continue; // below
        if (curlUrl!.includes('/meter')) expect(body.engine_seconds as number, title).toBeGreaterThan(100 * 3600);
        if (curlUrl!.includes('/hours?')) expect(body.engine_seconds as number, title).toBeGreaterThanOrEqual(0);
        if (curlUrl!.endsWith('/hours')) expect(body.engine_seconds as number, title).toBeGreaterThan(0);
        if (curlUrl!.includes('/hours/daily')) expect((body.data as unknown[]).length, title).toBeGreaterThanOrEqual(7);
        if (curlUrl!.includes('/service?status=due_soon,overdue')) expect((body.data as unknown[]).length, title).toBe(3);
      }
      // The request log goes to the file the banner names, not to the terminal, so the banner stays on screen.
      const requestLog = /Requests are logged to (\S+) \(tail -f it/.exec(banner)?.[1];
      expect(requestLog).toBeDefined();
      await expect.poll(() => readFileSync(requestLog!, 'utf8'), { timeout: 5000 }).toMatch(/GET \/api\/v1\/devices → 200/);
      expect(demo.stderr()).not.toMatch(/→ \d{3}/);
    } finally {
      const result = await demo.stop('SIGTERM');
      expect(result.code).toBe(0);
    }
  });

  it('feeds two live vehicles through the ingestion endpoint: their meters grow, and the printed ingest lines work (D20, D22, D24)', async () => {
    const demo = await startCliServer(['demo', '--port', '0'], (stdout) => (/Press Ctrl\+C to stop\./.test(stdout) ? stdout : null), {
      cwd: work,
    });
    try {
      const banner = demo.stdout();
      const url = /serving at (http:\/\/127\.0\.0\.1:\d+)/.exec(banner)![1]!;
      expect(banner).toMatch(/Live\s+Courier van L-1 \(device \d+, IMEI \d{15}\) and Tow truck L-2 \(device \d+, IMEI \d{15}\)/);
      const ingestToken = /Ingest\s+(fhi_\w{43})/.exec(banner)?.[1];
      expect(ingestToken).toBeDefined();

      // The live meter's curl line, read twice a few seconds apart: the engine runs, so it grows (D22).
      const [, meterKey, meterUrl] = /# .+\(live\).+\n\s+curl -s -H "Authorization: Bearer (fh_\w+)" "([^"]+\/meter)"/.exec(banner)!;
      const readMeter = async () => {
        const response = await fetch(meterUrl!, { headers: { Authorization: `Bearer ${meterKey}` } });
        expect(response.status).toBe(200);
        return ((await response.json()) as { engine_seconds: number }).engine_seconds;
      };
      const first = await readMeter();
      await new Promise((resolve) => setTimeout(resolve, 3000));
      expect(await readMeter()).toBeGreaterThan(first);

      // The printed native curl line, sent as written: 200 and one point accepted or a duplicate.
      const native =
        /curl -s -X POST -H "Authorization: Bearer (fhi_\w+)" -H "Content-Type: (application\/x-ndjson)" --data-binary '([^']+)' "([^"]+)"/.exec(
          banner,
        );
      expect(native).not.toBeNull();
      const [, nativeToken, contentType, body, nativeUrl] = native!;
      expect(nativeToken).toBe(ingestToken);
      const sent = await fetch(nativeUrl!, {
        method: 'POST',
        headers: { Authorization: `Bearer ${nativeToken}`, 'Content-Type': contentType! },
        body,
      });
      expect(sent.status).toBe(200);
      const answer = (await sent.json()) as { accepted: number; duplicates: number };
      expect(answer.accepted + answer.duplicates).toBe(1);

      // The printed OsmAnd URL: no header, the token in the path, the server's clock as the time.
      const osmand = new RegExp(`curl -s "(${url}/ingest/osmand/fhi_\\w+\\?[^"]+)"`).exec(banner);
      expect(osmand).not.toBeNull();
      const position = await fetch(osmand![1]!);
      expect(position.status).toBe(200);
      expect(((await position.json()) as { accepted: number }).accepted).toBe(1);

      // The live feed's own requests are logged like any other, to the file: nothing scrolls the banner away.
      const requestLog = /Requests are logged to (\S+) \(tail -f it/.exec(banner)![1]!;
      await expect.poll(() => readFileSync(requestLog, 'utf8'), { timeout: 5000 }).toMatch(/POST \/ingest\/v1\/telemetry → 200/);
      expect(demo.stderr()).not.toMatch(/→ \d{3}/);
      expect(demo.stdout()).toBe(banner);
    } finally {
      const result = await demo.stop('SIGTERM');
      expect(result.code).toBe(0);
      expect(result.stderr).toMatch(/The live vehicles sent \d+ points? in \d+ requests? \(no errors\)/);
    }
  });

  it('refuses --database-url and a data dir that already holds a database', async () => {
    const refused = await runCli(['demo', '--database-url', 'postgres://u@127.0.0.1/x'], { cwd: work });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('demo always uses a fresh embedded database');
  });
});
