/**
 * The fleet view (issue 12) in a real browser: the built CLI's demo, driven in headless Chromium
 * through puppeteer-core. Every figure the page shows is checked against the API's own answers.
 *
 * Chromium comes from PUPPETEER_EXECUTABLE_PATH or the usual system paths (puppeteer-core downloads
 * none; `.ci/run` installs the distribution's). Without one the tests are skipped, loudly.
 * Screenshots go to a temporary directory; with UPDATE_SCREENSHOTS=1 the desktop one also replaces
 * docs/fleet-view.png.
 */
import { accessSync, constants, copyFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { localDateAt, parseLocalDate, startOfLocalDay } from '@fleet-hours/core';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCliServer, type CliServer } from '../support/cli.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Where Chromium is, or why there is none. */
function findChromium(): { readonly path: string } | { readonly reason: string } {
  const executable = (path: string) => {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  const named = process.env.PUPPETEER_EXECUTABLE_PATH;
  if (named)
    return executable(named) ? { path: named } : { reason: `PUPPETEER_EXECUTABLE_PATH names "${named}", which is not an executable file` };
  const candidates = [
    '/usr/bin/chromium',
    '/usr/bin/chromium-browser',
    '/usr/bin/google-chrome',
    '/usr/bin/google-chrome-stable',
    '/snap/bin/chromium',
  ];
  const found = candidates.find(executable);
  return found
    ? { path: found }
    : {
        reason: `no Chromium at ${candidates.join(', ')} and PUPPETEER_EXECUTABLE_PATH is not set (install it, e.g. apt-get install chromium)`,
      };
}

const chromium = findChromium();
const skipReason = 'reason' in chromium ? chromium.reason : null;
if (skipReason !== null) console.warn(`\n!!! test/browser/fleet-view.test.ts is SKIPPED: ${skipReason}\n`);
const skipped = skipReason !== null;
const title = (text: string) => (skipped ? `${text} (skipped: ${skipReason})` : text);

interface DeviceBody {
  readonly id: number;
  readonly name: string;
  readonly timezone: string;
  readonly last_reported_at: string | null;
}
interface MeterBody {
  readonly device_id: number;
  readonly engine_seconds: number;
  readonly moving_seconds: number;
  readonly idle_seconds: number;
}
interface DailyBody {
  readonly device_id: number;
  readonly timezone: string;
  readonly data: readonly {
    readonly date: string;
    readonly moving_seconds: number;
    readonly idle_seconds: number;
    readonly engine_seconds: number;
  }[];
}
interface Bar {
  readonly date: string;
  readonly moving: number;
  readonly idle: number;
  readonly daySeconds: number | null;
  readonly marker: string | null;
}

/** Whole seconds as hours:minutes, seconds dropped — written here again as the oracle of the page's. */
const hoursMinutes = (seconds: number) => `${Math.floor(seconds / 3600)}:${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}`;
const dayLength = (date: string, zone: string) =>
  startOfLocalDay(parseLocalDate('from', date).add({ days: 1 }), zone) - startOfLocalDay(parseLocalDate('from', date), zone);
const shift = (date: string, days: number) => parseLocalDate('from', date).add({ days }).toString();

describe('the fleet view in Chromium, over the real demo (issue 12)', { timeout: 240_000 }, () => {
  let demo: CliServer | undefined;
  let browser: Browser | undefined;
  let shots = '';
  let key = '';
  let starterKey = '';
  const problems: string[] = [];

  const api = async <T>(path: string): Promise<T> => {
    const response = await fetch(`${demo!.url}${path}`, { headers: { Authorization: `Bearer ${key}` } });
    if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}: ${await response.text()}`);
    return (await response.json()) as T;
  };
  const fleetPages = async <T>(path: string, query: string): Promise<T[]> => {
    const items: T[] = [];
    let cursor: string | null = null;
    do {
      const page: { data: T[]; next_cursor: string | null } = await api(
        `${path}?${query}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`,
      );
      items.push(...page.data);
      cursor = page.next_cursor;
    } while (cursor !== null);
    return items;
  };
  const bars = (page: Page, figure: string): Promise<Bar[]> =>
    page.$$eval(`#${figure} g.bar`, (groups) =>
      groups.map((bar) => ({
        date: bar.getAttribute('data-date')!,
        moving: Number(bar.getAttribute('data-moving-seconds')),
        idle: Number(bar.getAttribute('data-idle-seconds')),
        daySeconds: bar.getAttribute('data-day-seconds') === null ? null : Number(bar.getAttribute('data-day-seconds')),
        marker: bar.querySelector('.day-marker')?.textContent ?? null,
      })),
    );
  const openPage = async (width: number, height: number): Promise<Page> => {
    const page = await browser!.newPage();
    await page.setViewport({ width, height });
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${String(error)}`));
    return page;
  };

  beforeAll(async () => {
    if (skipped) return;
    shots = mkdtempSync(join(tmpdir(), 'fleet-hours-fleet-view-'));
    console.log(`Screenshots of the fleet view go to ${shots}`);
    demo = await startCliServer(['demo', '--port', '0', '--json'], (stdout) => {
      const line = stdout.split('\n').find((text) => text.startsWith('{') && text.endsWith('}'));
      return line === undefined ? null : (JSON.parse(line) as { url: string }).url;
    });
    const banner = JSON.parse(
      demo
        .stdout()
        .split('\n')
        .find((text) => text.startsWith('{'))!,
    ) as { key: string; starter_key: string };
    key = banner.key;
    starterKey = banner.starter_key;
    browser = await puppeteer.launch({
      executablePath: (chromium as { path: string }).path,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    });
  });

  afterAll(async () => {
    await browser?.close();
    const stopped = await demo?.stop('SIGTERM');
    if (stopped) expect(stopped.code).toBe(0);
  });

  it.skipIf(skipped)(
    title("shows every vehicle, its meters and last report, the fleet's days and one vehicle's DST day, all as the API says"),
    async () => {
      const devices = (await api<{ data: DeviceBody[] }>('/api/v1/devices')).data;
      expect(devices.length).toBeGreaterThanOrEqual(6);
      const metersBefore = await fleetPages<MeterBody>('/api/v1/meter', 'limit=500');

      const page = await openPage(1200, 900);
      const response = await page.goto(`${demo!.url}/`, { waitUntil: 'load' });
      expect(response!.status()).toBe(200);
      expect(response!.headers()['content-security-policy']).toContain("default-src 'none'");
      // The built package inlines the fleet view's script file byte for byte.
      const served = /<script>([\s\S]*?)<\/script>/.exec(await response!.text())?.[1];
      expect(served).toBe(readFileSync(join(root, 'packages/http/src/fleet-view-script.js'), 'utf8'));
      await page.type('#api-key', key);
      await page.click('#key-form button[type=submit]');
      await page.waitForFunction(
        (count) => document.querySelectorAll('#vehicles-body td.meter-engine[data-seconds]').length === count,
        { timeout: 60_000 },
        devices.length,
      );
      expect(page.url()).toBe(`${demo!.url}/`);

      // Vehicles in the API's order, each meter between the API's answers before and after, shown as h:mm.
      const rows = await page.$$eval('#vehicles-body tr', (trs) =>
        trs.map((row) => ({
          id: Number(row.getAttribute('data-device-id')),
          name: row.querySelector('th button')!.textContent,
          cells: ['engine', 'moving', 'idle'].map((kind) => {
            const cell = row.querySelector(`.meter-${kind}`)!;
            return { seconds: Number(cell.getAttribute('data-seconds')), text: cell.textContent };
          }),
          lastReport: row.querySelector('.last-report time')?.getAttribute('datetime') ?? null,
        })),
      );
      const metersAfter = await fleetPages<MeterBody>('/api/v1/meter', 'limit=500');
      // The demo's live vehicles report while the page loads: their last report lies between the API's answers before and after.
      const devicesAfter = (await api<{ data: DeviceBody[] }>('/api/v1/devices')).data;
      expect(rows.map((row) => [row.id, row.name])).toEqual(devices.map((device) => [device.id, device.name]));
      for (const row of rows) {
        const before = metersBefore.find((meter) => meter.device_id === row.id)!;
        const after = metersAfter.find((meter) => meter.device_id === row.id)!;
        (['engine', 'moving', 'idle'] as const).forEach((kind, index) => {
          const shown = row.cells[index]!;
          expect(shown.seconds, `${row.name} ${kind}`).toBeGreaterThanOrEqual(before[`${kind}_seconds`]);
          expect(shown.seconds, `${row.name} ${kind}`).toBeLessThanOrEqual(after[`${kind}_seconds`]);
          expect(shown.text, `${row.name} ${kind}`).toBe(hoursMinutes(shown.seconds));
        });
        expect(shown(row.cells).engine).toBe(shown(row.cells).moving + shown(row.cells).idle);
        const reportedBefore = devices.find((device) => device.id === row.id)!.last_reported_at;
        const reportedAfter = devicesAfter.find((device) => device.id === row.id)!.last_reported_at;
        if (reportedBefore === reportedAfter) expect(row.lastReport).toBe(reportedBefore);
        else {
          expect(Date.parse(row.lastReport!), row.name!).toBeGreaterThanOrEqual(Date.parse(reportedBefore!));
          expect(Date.parse(row.lastReport!), row.name!).toBeLessThanOrEqual(Date.parse(reportedAfter!));
        }
      }

      // A past window around the latest local day that is not 24 hours long in any vehicle's zone:
      // past in every zone (two days before today in UTC), so its figures no longer change.
      const lastDay = localDateAt(Math.floor(Date.now() / 1000), 'UTC')
        .subtract({ days: 2 })
        .toString();
      const withDst = devices
        .map((device) => {
          for (let date = lastDay, step = 0; step < 366; step += 1, date = shift(date, -1)) {
            if (dayLength(date, device.timezone) !== 86_400) return { device, date };
          }
          return null;
        })
        .filter((found) => found !== null)
        .sort((a, b) => (a.date < b.date ? 1 : a.date > b.date ? -1 : 0))[0]!;
      const from = shift(withDst.date, -3);
      const to = [shift(withDst.date, 3), lastDay].sort()[0]!;
      await page.$eval('#from', (input, value) => ((input as HTMLInputElement).value = value), from);
      await page.$eval('#to', (input, value) => ((input as HTMLInputElement).value = value), to);
      await page.click('#window-form button[type=submit]');
      await page.waitForFunction(
        (first) =>
          document.querySelector('#fleet-chart g.bar')?.getAttribute('data-date') === first &&
          !document.querySelector('#fleet-chart[aria-busy]'),
        { timeout: 60_000 },
        from,
      );

      // The fleet's bars: every vehicle's daily series from the fleet endpoint, summed by local date.
      const dailies = await fleetPages<DailyBody>('/api/v1/hours/daily', `from=${from}&to=${to}&limit=100`);
      expect(dailies.map((daily) => daily.device_id)).toEqual(devices.map((device) => device.id));
      const sums = new Map<string, { moving: number; idle: number }>();
      for (const daily of dailies) {
        for (const entry of daily.data) {
          const sum = sums.get(entry.date) ?? { moving: 0, idle: 0 };
          sums.set(entry.date, { moving: sum.moving + entry.moving_seconds, idle: sum.idle + entry.idle_seconds });
        }
      }
      const fleetBars = await bars(page, 'fleet-chart');
      expect(fleetBars).toEqual([...sums.entries()].sort().map(([date, sum]) => ({ date, ...sum, daySeconds: null, marker: null })));
      expect(fleetBars.some((bar) => bar.moving + bar.idle > 0)).toBe(true);

      // One vehicle: its own series, with its 23- or 25-hour day marked (measured in its zone).
      await page.select('#vehicle', String(withDst.device.id));
      await page.waitForFunction(
        (first, zone) =>
          document.querySelector('#vehicle-chart g.bar')?.getAttribute('data-date') === first &&
          (document.querySelector('#vehicle-chart figcaption')?.textContent ?? '').includes(zone),
        { timeout: 60_000 },
        from,
        withDst.device.timezone,
      );
      const single = await api<DailyBody>(`/api/v1/devices/${withDst.device.id}/hours/daily?from=${from}&to=${to}`);
      const vehicleBars = await bars(page, 'vehicle-chart');
      expect(vehicleBars.map((bar) => ({ date: bar.date, moving: bar.moving, idle: bar.idle }))).toEqual(
        single.data.map((entry) => ({ date: entry.date, moving: entry.moving_seconds, idle: entry.idle_seconds })),
      );
      for (const bar of vehicleBars) {
        const seconds = dayLength(bar.date, withDst.device.timezone);
        expect(bar.daySeconds, bar.date).toBe(seconds);
        const words = `${Math.floor(seconds / 3600)} h${seconds % 3600 ? ` ${(seconds % 3600) / 60} min` : ''}`;
        expect(bar.marker, bar.date).toBe(seconds === 86_400 ? null : words);
      }
      expect(vehicleBars.find((bar) => bar.date === withDst.date)!.marker).not.toBeNull();
      expect(await page.$eval('#vehicle-chart figcaption', (caption) => caption.textContent)).toContain(`${withDst.date} lasted`);

      await page.screenshot({ path: join(shots, 'fleet-view-desktop.png'), fullPage: true });
      if (process.env.UPDATE_SCREENSHOTS === '1') copyFileSync(join(shots, 'fleet-view-desktop.png'), join(root, 'docs/fleet-view.png'));

      // The key lives in this tab's session storage, never in a URL or in local storage.
      expect(await page.evaluate(() => [sessionStorage.getItem('fleet-hours-api-key'), localStorage.length])).toEqual([key, 0]);
      expect(problems).toEqual([]);
      await page.close();
    },
  );

  it.skipIf(skipped)(title('fits a 360 px phone screen without horizontal scrolling, and keeps the key across a reload'), async () => {
    const page = await openPage(360, 740);
    await page.goto(`${demo!.url}/`, { waitUntil: 'load' });
    await page.type('#api-key', key);
    await page.click('#key-form button[type=submit]');
    await page.waitForFunction(
      () =>
        document.querySelectorAll('#vehicles-body td.meter-engine[data-seconds]').length > 0 &&
        document.querySelectorAll('#fleet-chart g.bar').length > 0 &&
        document.querySelectorAll('#vehicle-chart g.bar').length > 0,
      { timeout: 60_000 },
    );
    await page.reload({ waitUntil: 'load' });
    // The key comes back from session storage: the page loads the fleet without asking again.
    await page.waitForFunction(
      () =>
        document.querySelectorAll('#vehicles-body td.meter-engine[data-seconds]').length > 0 &&
        document.querySelectorAll('#vehicle-chart g.bar').length > 0,
      { timeout: 60_000 },
    );
    const widths = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      client: document.documentElement.clientWidth,
      chart: document.querySelector('#fleet-chart svg')!.getBoundingClientRect().right,
    }));
    expect(widths.client).toBe(360);
    expect(widths.scroll).toBeLessThanOrEqual(widths.client);
    expect(widths.chart).toBeLessThanOrEqual(widths.client);
    await page.screenshot({ path: join(shots, 'fleet-view-phone.png'), fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  });

  it.skipIf(skipped)(
    title('captions the window the API applied when it shortened one of more than 365 days, and says in which zone the meters are "as of"'),
    async () => {
      const page = await openPage(1200, 900);
      await page.emulateTimezone('Europe/Berlin');
      await page.goto(`${demo!.url}/`, { waitUntil: 'load' });
      await page.type('#api-key', key);
      await page.click('#key-form button[type=submit]');
      await page.waitForFunction(
        () =>
          (document.querySelector('#meters-note')?.textContent ?? '').includes('as of') &&
          document.querySelectorAll('#vehicle option').length > 0,
        { timeout: 60_000 },
      );
      // The time of the meters in this browser's zone, with the zone: CET (GMT+1) or CEST (GMT+2), and its name.
      expect(await page.$eval('#meters-note', (note) => note.textContent)).toMatch(
        /as of \d{1,2}:\d{2}:\d{2}\s[AP]M GMT\+[12] \(Europe\/Berlin\);/,
      );

      const to = localDateAt(Math.floor(Date.now() / 1000), 'UTC')
        .subtract({ days: 2 })
        .toString();
      const from = shift(to, -500);
      await page.$eval('#from', (input, value) => ((input as HTMLInputElement).value = value), from);
      await page.$eval('#to', (input, value) => ((input as HTMLInputElement).value = value), to);
      await page.click('#window-form button[type=submit]');
      const caption = (figure: string) => page.$eval(`#${figure} figcaption`, (element) => element.textContent ?? '');
      await page.waitForFunction(
        (end) =>
          ['fleet-chart', 'vehicle-chart'].every((id) =>
            (document.querySelector(`#${id} figcaption`)?.textContent ?? '').includes(` to ${end} (shortened`),
          ),
        { timeout: 60_000 },
        to,
      );
      // The window the API applied, as its answer says: the chart's first day, not the From asked for.
      const vehicle = Number(await page.$eval('#vehicle', (select) => (select as HTMLSelectElement).value));
      const applied = (await api<{ from: string }>(`/api/v1/devices/${vehicle}/hours/daily?from=${from}&to=${to}`)).from.slice(0, 10);
      expect(applied).toBe(shift(to, -365));
      const note = `${applied} to ${to} (shortened from ${from}: the API answers at most 365 days before To)`;
      expect(await caption('vehicle-chart')).toContain(note);
      expect(await caption('fleet-chart')).toContain(note);
      expect((await bars(page, 'vehicle-chart'))[0]!.date).toBe(applied);
      expect(problems).toEqual([]);
      await page.close();
    },
  );

  it.skipIf(skipped)(title('says in words why a key is refused (403 for a starter-plan key)'), async () => {
    const page = await openPage(1000, 800);
    await page.goto(`${demo!.url}/`, { waitUntil: 'load' });
    await page.type('#api-key', starterKey);
    await page.click('#key-form button[type=submit]');
    await page.waitForFunction(() => (document.querySelector('#problem')?.textContent ?? '') !== '', { timeout: 30_000 });
    expect(await page.$eval('#problem', (box) => box.textContent)).toContain("This account's plan does not include API access (403");
    // A refused request is logged by the browser as a failed resource load; nothing else may be.
    expect(problems.filter((problem) => !/status of 403/.test(problem))).toEqual([]);
    await page.close();
  });
});

function shown(cells: readonly { readonly seconds: number }[]): { engine: number; moving: number; idle: number } {
  return { engine: cells[0]!.seconds, moving: cells[1]!.seconds, idle: cells[2]!.seconds };
}
