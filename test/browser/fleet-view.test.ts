/**
 * The fleet view (issue 12) in a real browser: the built CLI's demo, driven in headless Chromium
 * through puppeteer-core. Every figure the page shows is checked against the API's own answers.
 *
 * Chromium comes from PUPPETEER_EXECUTABLE_PATH or the usual system paths (puppeteer-core downloads
 * none; `.ci/run` installs the distribution's). Without one the tests are skipped, loudly.
 * Screenshots go to a temporary directory; with UPDATE_SCREENSHOTS=1 the one of the vehicles with
 * their service (1280 px wide, down to the end of the vehicles) also replaces docs/fleet-view.png,
 * the README's picture.
 */
import { accessSync, constants, copyFileSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createFleetHours,
  createMemoryStore,
  fingerprintApiKey,
  generateApiKey,
  localDateAt,
  parseLocalDate,
  startOfLocalDay,
} from '@fleet-hours/core';
import { createFleetHoursApp, serve, type RunningServer } from '@fleet-hours/http';
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
  readonly hour_meter_seconds: number;
  readonly hour_meter_read_at: string | null;
}
type ServiceStatus = 'ok' | 'due_soon' | 'overdue';
interface ServiceBody {
  readonly device_id: number;
  readonly data: readonly {
    readonly id: number;
    readonly name: string;
    readonly remaining_seconds: number;
    readonly remaining_days: number | null;
    readonly status: ServiceStatus;
  }[];
}
/** A shown limit: the service cell of a vehicle row, or a row of the due soon and overdue list. */
interface ShownLimit {
  readonly deviceId: number;
  readonly vehicle: string;
  readonly status: string | null;
  readonly scheduleId: number | null;
  readonly unit: string | null;
  readonly remaining: number | null;
  readonly badge: string | null;
  readonly remainingText: string | null;
  readonly schedule: string | null;
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
/** What is left of a limit in words — written here again as the oracle of the page's. */
const remainingWords = (unit: string | null, remaining: number): string => {
  const days = (count: number) => `${count} day${count === 1 ? '' : 's'}`;
  if (unit === 'seconds') return remaining > 0 ? `${hoursMinutes(remaining)} h left` : `${hoursMinutes(-remaining)} h over`;
  if (remaining === 0) return 'due today';
  return remaining > 0 ? `${days(remaining)} left` : `${days(-remaining)} over`;
};
const RANK: Record<ServiceStatus, number> = { ok: 0, due_soon: 1, overdue: 2 };
const worstOf = (service: ServiceBody | undefined): ServiceStatus | 'none' =>
  service?.data.length ? service.data.map((schedule) => schedule.status).sort((a, b) => RANK[b] - RANK[a])[0]! : 'none';

/** The service cells of the vehicles and the rows of the due soon and overdue list, as the page shows them. */
function shownService(page: Page): Promise<{ column: ShownLimit[]; list: ShownLimit[] }> {
  return page.evaluate(() => {
    const read = (element: Element, deviceId: number, vehicle: string) => ({
      deviceId,
      vehicle,
      status: element.getAttribute('data-status'),
      scheduleId: element.hasAttribute('data-schedule-id') ? Number(element.getAttribute('data-schedule-id')) : null,
      unit: element.getAttribute('data-unit'),
      remaining: element.hasAttribute('data-remaining') ? Number(element.getAttribute('data-remaining')) : null,
      badge: element.querySelector('.status')?.textContent ?? null,
      remainingText: element.querySelector('.remaining')?.textContent ?? null,
      schedule: element.querySelector('.schedule-name')?.textContent ?? null,
    });
    return {
      column: Array.from(document.querySelectorAll('#vehicles-body tr')).map((row) =>
        read(row.querySelector('td.service')!, Number(row.getAttribute('data-device-id')), row.querySelector('th button')!.textContent!),
      ),
      list: Array.from(document.querySelectorAll('#service-body tr[data-schedule-id]')).map((row) =>
        read(row, Number(row.getAttribute('data-device-id')), row.querySelector('.vehicle')!.textContent!),
      ),
    };
  });
}

/** The hour-meter cell of each vehicle row. */
function shownHourMeters(page: Page) {
  return page.$$eval('#vehicles-body tr', (rows) =>
    rows.map((row) => {
      const cell = row.querySelector('td.hour-meter')!;
      return {
        deviceId: Number(row.getAttribute('data-device-id')),
        seconds: Number(cell.getAttribute('data-seconds')),
        readAt: cell.getAttribute('data-read-at'),
        calibrated: cell.getAttribute('data-calibrated'),
        figure: cell.querySelector('.figure')!.textContent,
        mark: cell.querySelector('.uncalibrated')?.textContent ?? null,
        besideEngine: cell.previousElementSibling!.classList.contains('meter-engine'),
      };
    }),
  );
}

async function launchChromium(): Promise<Browser> {
  return puppeteer.launch({
    executablePath: (chromium as { path: string }).path,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
}

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
    browser = await launchChromium();
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
      // The built package inlines the bundle of the fleet view's modules made at build time: byte for
      // byte the one the sources make.
      const inlineScript = (html: string) => /<script>([\s\S]*?)<\/script>/.exec(html)?.[1];
      const served = inlineScript(await response!.text());
      const fromSource = createFleetHoursApp({
        fleetHours: createFleetHours({ store: createMemoryStore(), now: Date.now }),
        fleetView: true,
        logger: () => {},
      });
      expect(served).toBe(inlineScript(await (await fromSource.request('/')).text()));
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

      // The key lives in this tab's session storage, never in a URL or in local storage.
      expect(await page.evaluate(() => [sessionStorage.getItem('fleet-hours-api-key'), localStorage.length])).toEqual([key, 0]);
      expect(problems).toEqual([]);
      await page.close();
    },
  );

  it.skipIf(skipped)(
    title(
      "D62, P118: offers the fleet's days of the window as one CSV file, asked with the page's key in a header and saved as the API sent it",
    ),
    async () => {
      const page = await openPage(1200, 900);
      const downloads = mkdtempSync(join(tmpdir(), 'fleet-hours-csv-'));
      const cdp = await page.createCDPSession();
      await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: downloads });
      await page.goto(`${demo!.url}/`, { waitUntil: 'load' });
      expect(await page.$eval('#fleet-csv', (button) => [button.tagName, button.getAttribute('type'), button.textContent])).toEqual([
        'BUTTON',
        'button',
        'Download these days (CSV)',
      ]);
      await page.type('#api-key', key);
      await page.click('#key-form button[type=submit]');
      await page.waitForFunction(() => document.querySelectorAll('#vehicles-body tr').length > 0, { timeout: 60_000 });
      // A past window: its figures no longer change while the demo's vehicles report.
      const to = localDateAt(Math.floor(Date.now() / 1000), 'UTC')
        .subtract({ days: 2 })
        .toString();
      const from = shift(to, -6);
      await page.$eval('#from', (input, value) => ((input as HTMLInputElement).value = value), from);
      await page.$eval('#to', (input, value) => ((input as HTMLInputElement).value = value), to);
      const asked: { url: string; authorization: string | undefined; accept: string | undefined }[] = [];
      page.on('request', (request) => {
        if (request.url().includes('/api/v1/hours/daily') && request.headers().accept === 'text/csv')
          asked.push({ url: request.url(), authorization: request.headers().authorization, accept: request.headers().accept });
      });
      await page.click('#fleet-csv');
      await page.waitForFunction(() => (document.querySelector('#fleet-csv-note')?.textContent ?? '').startsWith('Saved '), {
        timeout: 60_000,
      });
      // One request, to the fleet's daily list of the window, with the key the page uses.
      expect(asked).toEqual([
        { url: `${demo!.url}/api/v1/hours/daily?from=${from}&to=${to}`, authorization: `Bearer ${key}`, accept: 'text/csv' },
      ]);
      const note = await page.$eval('#fleet-csv-note', (paragraph) => paragraph.textContent!);
      const fileName = /^Saved (fleet-hours-daily-\d{4}-\d{2}-\d{2}\.csv):/.exec(note)?.[1];
      expect(fileName, note).toBeDefined();
      // The saved file is the API's own CSV of that window.
      const saved = join(downloads, fileName!);
      for (let turn = 0; turn < 200 && !existsSync(saved); turn += 1) await new Promise((resolve) => setTimeout(resolve, 50));
      const expected = await (
        await fetch(`${demo!.url}/api/v1/hours/daily?from=${from}&to=${to}`, {
          headers: { Authorization: `Bearer ${key}`, Accept: 'text/csv' },
        })
      ).text();
      expect(expected.split('\r\n')[0]).toBe(
        'device_id,timezone,from,to,data.date,data.engine_seconds,data.moving_seconds,data.idle_seconds,data.day_seconds,' +
          'data.scheduled_seconds,data.engine_in_schedule_seconds,data.engine_outside_schedule_seconds,data.first_engine_on,' +
          'data.last_engine_off',
      );
      expect(readFileSync(saved, 'utf8')).toBe(expected);
      expect(problems).toEqual([]);
      await page.close();
    },
  );

  it.skipIf(skipped)(
    title(
      "shows the demo's hour meters beside the meters, each vehicle's service and the vehicles due soon and overdue, all as the API says (D38, D39)",
    ),
    async () => {
      const devices = (await api<{ data: DeviceBody[] }>('/api/v1/devices')).data;
      const metersBefore = await fleetPages<MeterBody>('/api/v1/meter', 'limit=500');
      const servicesBefore = await fleetPages<ServiceBody>('/api/v1/service', 'limit=500');

      const page = await openPage(1280, 1000);
      await page.goto(`${demo!.url}/`, { waitUntil: 'load' });
      await page.type('#api-key', key);
      await page.click('#key-form button[type=submit]');
      await page.waitForFunction(
        (count) =>
          document.querySelectorAll('#vehicles-body td.service[data-status]').length === count &&
          document.querySelectorAll('#vehicles-body td.hour-meter[data-seconds]').length === count &&
          document.querySelectorAll('#service-body tr').length > 0,
        { timeout: 60_000 },
        devices.length,
      );
      const { column, list } = await shownService(page);
      const hourMeters = await shownHourMeters(page);
      const metersAfter = await fleetPages<MeterBody>('/api/v1/meter', 'limit=500');
      const servicesAfter = await fleetPages<ServiceBody>('/api/v1/service', 'limit=500');
      const due = await fleetPages<ServiceBody>('/api/v1/service', 'status=due_soon,overdue&limit=500');

      // The hour meter, beside the engine meter, between the API's answers before and after; marked when uncalibrated.
      expect(hourMeters.map((cell) => cell.deviceId)).toEqual(devices.map((device) => device.id));
      for (const cell of hourMeters) {
        const before = metersBefore.find((meter) => meter.device_id === cell.deviceId)!;
        const after = metersAfter.find((meter) => meter.device_id === cell.deviceId)!;
        expect(cell.besideEngine).toBe(true);
        expect(cell.seconds).toBeGreaterThanOrEqual(before.hour_meter_seconds);
        expect(cell.seconds).toBeLessThanOrEqual(after.hour_meter_seconds);
        expect(cell.figure).toBe(hoursMinutes(cell.seconds));
        expect(cell.readAt).toBe(after.hour_meter_read_at);
        expect([cell.calibrated, cell.mark]).toEqual(after.hour_meter_read_at === null ? ['false', 'uncalibrated'] : ['true', null]);
      }
      expect(new Set(hourMeters.map((cell) => cell.calibrated))).toEqual(new Set(['true', 'false']));

      // Each vehicle's worst status, and a schedule in that status with what is left of it, between the API's answers.
      const schedulesOf = (services: readonly ServiceBody[], id: number | null) =>
        services.flatMap((service) => service.data).find((schedule) => schedule.id === id);
      for (const cell of column) {
        const worst = worstOf(servicesAfter.find((service) => service.device_id === cell.deviceId));
        expect(worstOf(servicesBefore.find((service) => service.device_id === cell.deviceId)), cell.vehicle).toBe(worst);
        expect(cell.status, cell.vehicle).toBe(worst);
        if (worst === 'none') continue;
        const before = schedulesOf(servicesBefore, cell.scheduleId)!;
        const after = schedulesOf(servicesAfter, cell.scheduleId)!;
        expect([after.status, cell.schedule, cell.badge], cell.vehicle).toEqual([
          worst,
          after.name,
          { ok: 'OK', due_soon: 'Due soon', overdue: 'Overdue' }[worst],
        ]);
        const field = cell.unit === 'days' ? 'remaining_days' : 'remaining_seconds';
        expect(cell.remaining!, cell.vehicle).toBeLessThanOrEqual(before[field]!);
        expect(cell.remaining!, cell.vehicle).toBeGreaterThanOrEqual(after[field]!);
        expect(cell.remainingText, cell.vehicle).toBe(remainingWords(cell.unit, cell.remaining!));
      }
      // The demo's first start: one vehicle overdue, two due soon (one of them by the calendar), the others ok or without schedules.
      expect(column.map((cell) => [cell.vehicle, cell.status, cell.schedule, cell.unit])).toEqual([
        ['Truck 14', 'due_soon', 'Engine oil and filter', 'seconds'],
        ['Bakery van B-7', 'overdue', 'Engine oil', 'seconds'],
        ['Island tug Kentia', 'due_soon', 'Annual hull survey', 'days'],
        ['Valley tractor 3', 'ok', 'Engine oil', 'seconds'],
        ['City bus 22', 'ok', 'Transmission fluid', 'seconds'],
        ['Harbour crane truck', 'ok', 'Hydraulic filters', 'seconds'],
        ['Courier van L-1', 'none', null, null],
        ['Tow truck L-2', 'none', null, null],
      ]);
      expect(column.find((cell) => cell.vehicle === 'Island tug Kentia')!.remainingText).toBe('12 days left');

      // The list: every schedule due soon or overdue, of exactly the vehicles the fleet endpoint's filter answers with.
      expect(list.map((row) => [row.vehicle, row.schedule, row.badge])).toEqual([
        ['Bakery van B-7', 'Engine oil', 'Overdue'],
        ['Island tug Kentia', 'Annual hull survey', 'Due soon'],
        ['Truck 14', 'Engine oil and filter', 'Due soon'],
      ]);
      expect(new Set(list.map((row) => row.deviceId))).toEqual(new Set(due.map((service) => service.device_id)));
      const dueSchedules = due.flatMap((service) => service.data).filter((schedule) => schedule.status !== 'ok');
      expect(list.map((row) => row.scheduleId).sort()).toEqual(dueSchedules.map((schedule) => schedule.id).sort());
      for (const row of list) expect(row.remainingText, row.schedule!).toBe(remainingWords(row.unit, row.remaining!));

      // The README's picture: the page from its top to the end of the vehicles, the due list above them.
      const bottom = await page.$eval('#vehicles', (table) => Math.ceil(table.getBoundingClientRect().bottom + window.scrollY));
      await page.screenshot({ path: join(shots, 'fleet-view-service.png'), clip: { x: 0, y: 0, width: 1280, height: bottom + 16 } });
      if (process.env.UPDATE_SCREENSHOTS === '1') copyFileSync(join(shots, 'fleet-view-service.png'), join(root, 'docs/fleet-view.png'));
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

/** Operator text that must reach the screen as text: were it parsed as HTML, its script would run or be refused by the page's policy. */
const HOSTILE_NAME = '<script>window.pwned = 1</script><img src=x onerror="window.pwned = 2">Brakes & "pads"';

describe('the fleet view in Chromium, over an app with schedules set by hand (D38, D39)', { timeout: 120_000 }, () => {
  // A clock that stands still, so every figure on the page is known to the second.
  const NOW = Date.UTC(2026, 10, 25, 15, 0) / 1000; // 2026-11-25T15:00:00Z: 10:00 in New York
  const hour = 3600;
  let server: RunningServer | undefined;
  let browser: Browser | undefined;
  let key = '';

  beforeAll(async () => {
    if (skipped) return;
    const store = createMemoryStore();
    const account = await store.createAccount({ name: 'Quarry Works', plan: 'business', now: NOW - 86_400 });
    key = generateApiKey();
    await store.createApiKey({
      accountId: account.id,
      fingerprint: await fingerprintApiKey(key),
      label: null,
      expiresAt: null,
      now: NOW - 86_400,
    });
    const vehicle = async (name: string, imei: string, timeZone: string, identity = {}) =>
      (await store.createDevice({ accountId: account.id, name, imei, registration: null, model: 'FMB920', timeZone, ...identity }))!;
    // P157: the excavator's identity in full, the grader's model alone.
    const excavator = await vehicle('Excavator 7', '356307042440001', 'America/New_York', {
      oemName: 'CAT',
      equipmentModel: '320',
      serialNumber: 'SN-0042',
      pin: 'CAT0320XK1234567',
    });
    const grader = await vehicle('Grader 2', '356307042440002', 'America/New_York', { equipmentModel: '140M' });
    const dumper = await vehicle('Dumper 5', '356307042440003', 'Europe/Berlin');
    const pump = await vehicle('Spare pump', '356307042440004', 'Europe/Berlin');
    // P157: the pump reported where it stands an hour ago, engine off (no engine time comes of it).
    await store.writeTelemetry({
      accountId: account.id,
      points: [{ deviceId: pump.id, time: NOW - 3600, ignition: false, speedKmh: 0, latitude: 52.52, longitude: 13.405 }],
      now: NOW,
    });
    // Each machine ran 10 hours a day on the 20th to the 24th: 50 h.
    for (const device of [excavator, grader, dumper]) {
      const segments = [20, 21, 22, 23, 24].map((day) => ({
        startedAt: Date.UTC(2026, 10, day, 12) / 1000,
        endedAt: Date.UTC(2026, 10, day, 22) / 1000,
        state: 'moving' as const,
      }));
      await store.importSegments({ deviceId: device.id, segments, reportedAt: NOW - 3600 });
    }
    // Excavator: read at 4,200 h before its first shift; the hostile schedule was done 20 h of engine time ago
    // (the 23rd at 12:00 UTC) with an interval of 8 h: 12 h over. Its oil is ok.
    await store.addHourMeterReading({
      deviceId: excavator.id,
      readAt: Date.UTC(2026, 10, 19) / 1000,
      readingSeconds: 4200 * hour,
      now: NOW,
    });
    await store.createServiceSchedule({
      deviceId: excavator.id,
      name: HOSTILE_NAME,
      intervalSeconds: 8 * hour,
      lastDoneAt: Date.UTC(2026, 10, 23, 12) / 1000,
      now: NOW,
    });
    await store.createServiceSchedule({
      deviceId: excavator.id,
      name: 'Engine oil',
      intervalSeconds: 250 * hour,
      lastDoneAt: Date.UTC(2026, 10, 19) / 1000,
      now: NOW,
    });
    // Grader: a yearly inspection last done on 2025-11-26 (New York): due on 2026-11-26, tomorrow; 1 day left of a 36-day margin.
    await store.createServiceSchedule({
      deviceId: grader.id,
      name: 'Yearly inspection',
      intervalSeconds: 2000 * hour,
      intervalDays: 365,
      lastDoneAt: Date.UTC(2025, 10, 26, 15) / 1000,
      now: NOW,
    });
    // Dumper: 30 h of 100 used since the 22nd at 12:00 UTC: 70 h left, ok.
    await store.createServiceSchedule({
      deviceId: dumper.id,
      name: 'Greasing',
      intervalSeconds: 100 * hour,
      lastDoneAt: Date.UTC(2026, 10, 22, 12) / 1000,
      now: NOW,
    });

    const fleetHours = createFleetHours({ store, now: () => NOW * 1000 });
    const app = createFleetHoursApp({ fleetHours, now: () => NOW * 1000, fleetView: true, logger: () => {} });
    server = await serve({ app, port: 0, handleSignals: false });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it.skipIf(skipped)(
    title(
      'shows the column, the list and the hour meter to the minute, a schedule named with <script> as text that runs nothing, and each machine’s identity and position (P157)',
    ),
    async () => {
      const problems: string[] = [];
      const page = await browser!.newPage();
      await page.setViewport({ width: 1280, height: 900 });
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(`console: ${message.text()}`);
      });
      page.on('pageerror', (error) => problems.push(`page error: ${String(error)}`));
      await page.goto(`${server!.url}/`, { waitUntil: 'load' });
      await page.type('#api-key', key);
      await page.click('#key-form button[type=submit]');
      await page.waitForFunction(
        () =>
          document.querySelectorAll('#vehicles-body td.service[data-status]').length === 4 &&
          document.querySelectorAll('#vehicles-body td.hour-meter[data-seconds]').length === 4,
        { timeout: 30_000 },
      );
      const { column, list } = await shownService(page);
      expect(column.map((cell) => [cell.vehicle, cell.badge, cell.remainingText, cell.schedule])).toEqual([
        ['Excavator 7', 'Overdue', '12:00 h over', HOSTILE_NAME],
        ['Grader 2', 'Due soon', '1 day left', 'Yearly inspection'],
        ['Dumper 5', 'OK', '70:00 h left', 'Greasing'],
        ['Spare pump', null, null, null],
      ]);
      expect(await page.$eval('#vehicles-body tr:last-child td.service', (cell) => cell.textContent)).toBe('–');
      expect(list.map((row) => [row.vehicle, row.schedule, row.badge, row.remainingText])).toEqual([
        ['Excavator 7', HOSTILE_NAME, 'Overdue', '12:00 h over'],
        ['Grader 2', 'Yearly inspection', 'Due soon', '1 day left'],
      ]);
      // The hour meter: 4,200 h + 50 h for the excavator; the others' own 50 h and 0 h, uncalibrated.
      expect((await shownHourMeters(page)).map((cell) => [cell.figure, cell.mark])).toEqual([
        ['4250:00', null],
        ['50:00', 'uncalibrated'],
        ['50:00', 'uncalibrated'],
        ['0:00', 'uncalibrated'],
      ]);

      // The name is text: no element came of it, its script never ran, and the page logged no refused script.
      const injected = await page.evaluate(() => ({
        elements: document.querySelectorAll('#fleet script, #fleet img').length,
        pwned: (window as unknown as { pwned?: number }).pwned ?? null,
        html: document.querySelector('#service-body .schedule-name')!.innerHTML,
      }));
      expect(injected).toEqual({
        elements: 0,
        pwned: null,
        html: '&lt;script&gt;window.pwned = 1&lt;/script&gt;&lt;img src=x onerror="window.pwned = 2"&gt;Brakes &amp; "pads"',
      });
      // P157: each machine's identity under its name, only what is given; the newest position as text linked to geo:.
      const places = await page.evaluate(() =>
        Array.from(document.querySelectorAll('#vehicles-body tr[data-device-id]')).map((row) => ({
          identity: row.querySelector('th .identity')?.textContent ?? null,
          position: row.querySelector('.last-report .position')?.textContent ?? null,
          link: row.querySelector('.last-report .position a')?.getAttribute('href') ?? null,
        })),
      );
      const at = await page.evaluate(() =>
        new Intl.DateTimeFormat(undefined, { timeZone: 'Europe/Berlin', dateStyle: 'medium', timeStyle: 'short' }).format(
          new Date('2026-11-25T14:00:00Z'),
        ),
      );
      expect(at).toMatch(/\b(3:00|15:00)\b/);
      expect(places).toEqual([
        { identity: 'CAT · 320 · S/N SN-0042 · PIN CAT0320XK1234567', position: null, link: null },
        { identity: '140M', position: null, link: null },
        { identity: null, position: null, link: null },
        { identity: null, position: `52.52000, 13.40500 at ${at}`, link: 'geo:52.52,13.405' },
      ]);
      expect(problems).toEqual([]);
      await page.close();
    },
  );
});

function shown(cells: readonly { readonly seconds: number }[]): { engine: number; moving: number; idle: number } {
  return { engine: cells[0]!.seconds, moving: cells[1]!.seconds, idle: cells[2]!.seconds };
}

interface ScheduleBody {
  readonly id: number;
  readonly name: string;
  readonly interval_seconds: number;
  readonly interval_days: number | null;
  readonly last_done_at: string;
  readonly last_done_hour_meter_seconds: number;
  readonly version?: string;
}
interface ReadingBody {
  readonly id: number;
  readonly read_at: string;
  readonly reading_seconds: number;
}

describe('the fleet view acts with a manage key, in Chromium (D56)', { timeout: 240_000 }, () => {
  const hour = 3600;
  let server: RunningServer | undefined;
  let browser: Browser | undefined;
  let readKey = '';
  let manageKey = '';
  let accountId = 0;
  let store: ReturnType<typeof createMemoryStore>;
  let imei = 356307042449000;

  /** The API's answer to a request with the manage key. */
  const call = async <T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${server!.url}${path}`, {
      method,
      headers: { Authorization: `Bearer ${manageKey}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : null) as T, headers: response.headers };
  };
  const schedulesOf = async (deviceId: number) =>
    (await call<{ data: ScheduleBody[] }>('GET', `/api/v1/devices/${deviceId}/service`)).body.data;
  const readingsOf = async (deviceId: number) =>
    (await call<{ data: ReadingBody[] }>('GET', `/api/v1/devices/${deviceId}/hour-meter/readings`)).body.data;

  /** A vehicle of its own for a test, in New York, with 10 h of engine time yesterday and one schedule. */
  const vehicle = async (name: string) => {
    const now = Math.floor(Date.now() / 1000);
    imei += 1;
    const device = (await store.createDevice({
      accountId,
      name,
      imei: String(imei),
      registration: null,
      model: 'FMB920',
      timeZone: 'America/New_York',
    }))!;
    await store.importSegments({
      deviceId: device.id,
      segments: [{ startedAt: now - 30 * hour, endedAt: now - 20 * hour, state: 'moving' }],
      reportedAt: now - 20 * hour,
    });
    await store.createServiceSchedule({
      deviceId: device.id,
      name: 'Engine oil',
      intervalSeconds: 250 * hour,
      lastDoneAt: now - 40 * hour,
      now,
    });
    return device;
  };

  beforeAll(async () => {
    if (skipped) return;
    store = createMemoryStore();
    const now = Math.floor(Date.now() / 1000);
    const account = await store.createAccount({ name: 'Quarry Works', plan: 'business', now: now - 86_400 });
    accountId = account.id;
    const issue = async (scope: 'read' | 'manage') => {
      const key = generateApiKey();
      await store.createApiKey({
        accountId,
        fingerprint: await fingerprintApiKey(key),
        label: scope,
        expiresAt: null,
        now: now - 86_400,
        scope,
      });
      return key;
    };
    readKey = await issue('read');
    manageKey = await issue('manage');
    const fleetHours = createFleetHours({ store, now: Date.now });
    const app = createFleetHoursApp({ fleetHours, now: Date.now, fleetView: true, logger: () => {} });
    server = await serve({ app, port: 0, handleSignals: false });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  /** The page at a size, the key entered, the chosen vehicle's panel drawn; problems it logs are collected. */
  const openWith = async (key: string, width: number, deviceId: number) => {
    const problems: string[] = [];
    const page = await browser!.newPage();
    await page.setViewport({ width, height: 900 });
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${String(error)}`));
    await page.goto(`${server!.url}/`, { waitUntil: 'load' });
    await page.type('#api-key', key);
    await page.click('#key-form button[type=submit]');
    await page.waitForFunction(
      (id) => Array.from((document.querySelector('#service-vehicle') as HTMLSelectElement).options).some((option) => option.value === id),
      { timeout: 30_000 },
      String(deviceId),
    );
    await page.select('#service-vehicle', String(deviceId));
    await page.waitForSelector('#schedules-body tr[data-schedule-id]', { timeout: 30_000 });
    return { page, problems };
  };
  /** Waits for the outcome of an action: the page says it was done. */
  const done = (page: Page, words: string) =>
    page.waitForFunction(
      (text) => (document.querySelector('#manage-result')?.textContent ?? '').includes(text),
      { timeout: 30_000 },
      words,
    );
  /** The wall time in New York some hours ago, as a datetime-local input holds it: "2026-11-27T07:30". */
  const wallTimeAgo = (page: Page, hours: number) =>
    page.evaluate(
      (ms) =>
        new Intl.DateTimeFormat('sv-SE', {
          timeZone: 'America/New_York',
          year: 'numeric',
          month: '2-digit',
          day: '2-digit',
          hour: '2-digit',
          minute: '2-digit',
          hourCycle: 'h23',
        })
          .format(new Date(Date.now() - ms))
          .replace(' ', 'T'),
      hours * 3_600_000,
    );
  const fitsWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);

  it.skipIf(skipped).each([
    ['desktop', 1280],
    ['phone', 375],
  ])(title('D56: with a read key, on %s, the schedules show and no control to change them does'), async (_size, width) => {
    const device = await vehicle(`Read-only loader ${width}`);
    const { page, problems } = await openWith(readKey, width, device.id);
    // The scope is asked once the key is in: wait for the answer before looking for controls.
    await page.waitForSelector('#service-panel[data-scope="read"]', { timeout: 30_000 });
    await page.waitForFunction(() => document.querySelector('#schedules-body .schedule-name')?.textContent === 'Engine oil', {
      timeout: 30_000,
    });
    const shown = await page.evaluate(() => ({
      manageHidden: (document.getElementById('manage') as HTMLElement).hidden,
      manageVisible: (document.getElementById('manage') as HTMLElement).getClientRects().length > 0,
      buttons: document.querySelectorAll('#service-panel button:not([hidden])').length,
      visibleForms: Array.from(document.querySelectorAll('#service-panel form')).filter((form) => form.getClientRects().length > 0).length,
      actionsColumn: (document.getElementById('schedule-actions-title') as HTMLElement).getClientRects().length,
    }));
    expect(shown).toEqual({ manageHidden: true, manageVisible: false, buttons: expect.any(Number), visibleForms: 0, actionsColumn: 0 });
    expect(await page.$$('#schedules-body button')).toHaveLength(0);
    expect(await fitsWidth(page)).toBe(true);
    expect(problems).toEqual([]);
    await page.close();
  });

  it.skipIf(skipped).each([
    ['desktop', 1280],
    ['phone', 375],
  ])(
    title(
      'D56: with a manage key, on %s, adds a reading, creates, edits and removes a schedule and records a service, each as the API then says',
    ),
    async (_size, width) => {
      const device = await vehicle(`Excavator ${width}`);
      const { page, problems } = await openWith(manageKey, width, device.id);
      await page.waitForSelector('#manage:not([hidden])', { visible: true, timeout: 30_000 });
      expect(await fitsWidth(page)).toBe(true);

      // A reading of the machine's own hour meter, now: the API lists it, the hour meter shown follows it.
      await page.type('#reading-hours', '4200');
      await page.click('#reading-form button[type=submit]');
      await done(page, 'Reading of 4200:00 h added');
      const readings = await readingsOf(device.id);
      expect(readings.map((reading) => reading.reading_seconds)).toEqual([4200 * hour]);
      await page.waitForFunction(
        (id) =>
          document.querySelector(`#vehicles-body tr[data-device-id="${id}"] td.hour-meter`)?.getAttribute('data-calibrated') === 'true',
        { timeout: 30_000 },
        device.id,
      );
      const meter = (await call<{ hour_meter_seconds: number; hour_meter_read_at: string }>('GET', `/api/v1/devices/${device.id}/meter`))
        .body;
      expect(meter.hour_meter_read_at).toBe(readings[0]!.read_at);
      expect(
        await page.$eval(`#vehicles-body tr[data-device-id="${device.id}"] td.hour-meter`, (cell) => cell.getAttribute('data-read-at')),
      ).toBe(readings[0]!.read_at);

      // A new schedule: 250 h or 180 days.
      await page.type('#schedule-name', 'Brake check');
      await page.type('#schedule-every-hours', '250');
      await page.type('#schedule-every-days', '180');
      await page.click('#schedule-submit');
      await done(page, 'Schedule Brake check created');
      const created = (await schedulesOf(device.id)).find((schedule) => schedule.name === 'Brake check')!;
      expect([created.interval_seconds, created.interval_days]).toEqual([250 * hour, 180]);
      const row = `#schedules-body tr[data-schedule-id="${created.id}"]`;
      await page.waitForSelector(row, { timeout: 30_000 });

      // Edited: every 300 h; the form sends what changed, with the version it knows (If-Match).
      const sent: { method: string; ifMatch: string | undefined; body: string | undefined }[] = [];
      page.on('request', (request) => {
        if (request.url().includes('/service/schedules'))
          sent.push({ method: request.method(), ifMatch: request.headers()['if-match'], body: request.postData() });
      });
      // The version the creation answered (the list of schedules carries none): the page keeps it for If-Match.
      const version = await page.$eval(row, (tr) => tr.getAttribute('data-version'));
      expect(version).toMatch(/^s-[0-9a-f]{16}$/);
      await page.click(`${row} .edit-button`);
      expect(await page.$eval('#schedule-name', (input) => (input as HTMLInputElement).value)).toBe('Brake check');
      await page.$eval('#schedule-every-hours', (input) => ((input as HTMLInputElement).value = ''));
      await page.type('#schedule-every-hours', '300');
      await page.click('#schedule-submit');
      await done(page, 'Schedule Brake check changed');
      expect((await schedulesOf(device.id)).find((schedule) => schedule.id === created.id)!.interval_seconds).toBe(300 * hour);
      expect(sent.at(-1)).toEqual({
        method: 'PATCH',
        ifMatch: `"${version}"`,
        body: JSON.stringify({ interval_seconds: 300 * hour }),
      });

      // Changed meanwhile by someone else: the page's change is refused (412), it says so and reloads; nothing of it applies.
      await page.waitForFunction(
        (selector) => !document.querySelector('#schedule-form[aria-busy]') && document.querySelector(selector),
        {},
        row,
      );
      await page.click(`${row} .edit-button`);
      const patched = await call<ScheduleBody>('PATCH', `/api/v1/devices/${device.id}/service/schedules/${created.id}`, {
        interval_days: 90,
      });
      expect(patched.status).toBe(200);
      await page.$eval('#schedule-name', (input) => ((input as HTMLInputElement).value = ''));
      await page.type('#schedule-name', 'Brake and clutch check');
      await page.click('#schedule-submit');
      await page.waitForFunction(
        () => (document.querySelector('#schedule-form .form-problem')?.textContent ?? '').includes('changed meanwhile, reloaded'),
        { timeout: 30_000 },
      );
      expect(sent.at(-1)!.ifMatch).not.toBe(`"${patched.body.version}"`);
      const afterConflict = (await schedulesOf(device.id)).find((schedule) => schedule.id === created.id)!;
      expect([afterConflict.name, afterConflict.interval_days]).toEqual(['Brake check', 90]);
      await page.waitForFunction(() => (document.querySelector('#schedule-every-days') as HTMLInputElement).value === '90', {
        timeout: 30_000,
      });
      await page.click('#schedule-cancel');

      // A refusal of the API is shown beside the field it names.
      await page.type('#schedule-name', 'Greasing');
      await page.type('#schedule-every-hours', '50');
      await page.type('#schedule-every-days', '0');
      await page.click('#schedule-submit');
      await page.waitForFunction(() => (document.querySelector('#schedule-every-days-problem')?.textContent ?? '') !== '', {
        timeout: 30_000,
      });
      expect(await page.$eval('#schedule-every-days', (input) => input.getAttribute('aria-invalid'))).toBe('true');
      expect(await page.$eval('#schedule-every-days-problem', (problem) => problem.textContent)).toContain('interval_days');
      expect((await schedulesOf(device.id)).map((schedule) => schedule.name)).not.toContain('Greasing');
      await page.$eval('#schedule-form', (form) => (form as HTMLFormElement).reset());

      // A service done at a chosen instant of the vehicle's clock, with the hour meter then: the schedule and the readings say so.
      const localYesterday = `${(await wallTimeAgo(page, 24)).slice(0, 10)}T07:30`;
      await page.click(`${row} .done-button`);
      expect(await page.$eval('#done-schedule', (select) => (select as HTMLSelectElement).value)).toBe(String(created.id));
      await page.$eval('#done-at', (input, value) => ((input as HTMLInputElement).value = value), localYesterday);
      await page.type('#done-hours', '4190:30');
      await page.click('#done-form button[type=submit]');
      await done(page, 'Service of Brake check recorded');
      const serviced = (await schedulesOf(device.id)).find((schedule) => schedule.id === created.id)!;
      expect(serviced.last_done_at.slice(0, 16)).toBe(localYesterday);
      expect(serviced.last_done_hour_meter_seconds).toBe(4190 * hour + 30 * 60);
      expect((await readingsOf(device.id)).map((reading) => reading.reading_seconds)).toEqual([4200 * hour, 4190 * hour + 30 * 60]);
      await page.waitForFunction(
        (selector, at) => document.querySelector(`${selector} td.last-done`)?.getAttribute('data-at') === at,
        { timeout: 30_000 },
        row,
        serviced.last_done_at,
      );

      // Removed, once confirmed.
      page.once('dialog', (dialog) => dialog.accept());
      await page.click(`${row} .remove-button`);
      await done(page, 'Schedule Brake check removed');
      expect((await schedulesOf(device.id)).map((schedule) => schedule.name)).toEqual(['Engine oil']);
      await page.waitForFunction((selector) => !document.querySelector(selector), { timeout: 30_000 }, row);

      expect(await fitsWidth(page)).toBe(true);
      await page.screenshot({ path: join(mkdtempSync(join(tmpdir(), 'fleet-hours-actions-')), `actions-${width}.png`), fullPage: true });
      expect(problems.filter((problem) => !/status of (400|412)/.test(problem))).toEqual([]);
      await page.close();
    },
  );

  it.skipIf(skipped)(
    title("D56: works from the keyboard: Enter on a row's Mark done leads to its form, Enter in a field sends it"),
    async () => {
      const device = await vehicle('Grader keys');
      const { page, problems } = await openWith(manageKey, 1280, device.id);
      await page.waitForSelector('#manage:not([hidden])', { visible: true, timeout: 30_000 });
      const scheduleId = (await schedulesOf(device.id))[0]!.id;
      await page.focus(`#schedules-body tr[data-schedule-id="${scheduleId}"] .done-button`);
      expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Mark done: Engine oil');
      await page.keyboard.press('Enter');
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('done-schedule');
      expect(await page.$eval('#done-schedule', (select) => (select as HTMLSelectElement).value)).toBe(String(scheduleId));
      await page.focus('#done-hours');
      await page.keyboard.type('320:15');
      await page.keyboard.press('Enter');
      await done(page, 'Service of Engine oil recorded');
      expect((await readingsOf(device.id)).map((reading) => reading.reading_seconds)).toEqual([320 * hour + 15 * 60]);
      expect((await schedulesOf(device.id))[0]!.last_done_hour_meter_seconds).toBe(320 * hour + 15 * 60);
      expect(problems).toEqual([]);
      await page.close();
    },
  );

  it.skipIf(skipped)(
    title('D56: a double click on "Record service" records one service; two requests racing with one Idempotency-Key record one too'),
    async () => {
      const device = await vehicle('Dumper double');
      const { page, problems } = await openWith(manageKey, 1280, device.id);
      await page.waitForSelector('#manage:not([hidden])', { visible: true, timeout: 30_000 });
      const posts: { key: string | undefined }[] = [];
      page.on('request', (request) => {
        if (request.method() === 'POST' && request.url().endsWith('/done')) posts.push({ key: request.headers()['idempotency-key'] });
      });
      // Two hours ago, so that the service recorded just after (now) is another reading.
      await page.$eval('#done-at', (input, value) => ((input as HTMLInputElement).value = value), await wallTimeAgo(page, 2));
      await page.type('#done-hours', '100');
      await page.click('#done-form button[type=submit]', { clickCount: 2, delay: 10 });
      await done(page, 'Service of Engine oil recorded');
      expect((await readingsOf(device.id)).map((reading) => reading.reading_seconds)).toEqual([100 * hour]);
      expect(posts).toHaveLength(1);
      expect(posts[0]!.key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

      // Two requests with the same key at once, from the page's origin, as a retry racing its first attempt would.
      const scheduleId = (await schedulesOf(device.id))[0]!.id;
      const answers = await page.evaluate(
        async (path, key) => {
          const once = () =>
            fetch(path, {
              method: 'POST',
              headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', 'Idempotency-Key': 'one-intent-of-the-user' },
              body: JSON.stringify({ hour_meter_seconds: 200 * 3600 }),
            }).then(async (response) => ({
              status: response.status,
              replayed: response.headers.get('Idempotent-Replayed'),
              body: await response.text(),
            }));
          // At once, then once more after both answered: the serial oracle of the same request sent twice.
          const racing = await Promise.all([once(), once()]);
          return [...racing, await once()];
        },
        `/api/v1/devices/${device.id}/service/schedules/${scheduleId}/done`,
        manageKey,
      );
      const [first, second, after] = answers as [(typeof answers)[0], (typeof answers)[0], (typeof answers)[0]];
      // One of the racing two ran; the other is its replay or was told it runs (409), as a serial pair would be run then replayed.
      const ran = [first, second].filter((answer) => answer.status === 200 && answer.replayed === null);
      expect(ran).toHaveLength(1);
      for (const answer of [first, second]) expect([200, 409]).toContain(answer.status);
      expect([after.status, after.replayed, after.body]).toEqual([200, 'true', ran[0]!.body]);
      expect((await readingsOf(device.id)).map((reading) => reading.reading_seconds)).toEqual([200 * hour, 100 * hour]);
      expect(problems.filter((problem) => !/status of 409/.test(problem))).toEqual([]);
      await page.close();
    },
  );
});

describe('the utilization panel of the fleet view, in Chromium (D60, D56)', { timeout: 120_000 }, () => {
  // Wednesday 2026-11-25 15:00 UTC: the current ISO week, 2026-W48, began on Monday the 23rd in every zone here.
  const NOW = Date.UTC(2026, 10, 25, 15, 0) / 1000;
  let server: RunningServer | undefined;
  let browser: Browser | undefined;
  let key = '';
  const names = ['Loader 3', 'Night digger', 'Sweeper 9', 'Spare loader'];

  beforeAll(async () => {
    if (skipped) return;
    const store = createMemoryStore();
    const account = await store.createAccount({ name: 'Quarry Works', plan: 'business', now: NOW - 30 * 86_400 });
    key = generateApiKey();
    const manage = generateApiKey();
    for (const [secret, scope] of [
      [key, 'read'],
      [manage, 'manage'],
    ] as const)
      await store.createApiKey({
        accountId: account.id,
        fingerprint: await fingerprintApiKey(secret),
        label: null,
        expiresAt: null,
        now: 0,
        scope,
      });
    const zones = ['UTC', 'Europe/Berlin', 'America/New_York', 'UTC'];
    const ids: number[] = [];
    for (const [index, name] of names.entries())
      ids.push(
        (await store.createDevice({
          accountId: account.id,
          name,
          imei: `35630704244100${index}`,
          model: 'FMB920',
          timeZone: zones[index]!,
        }))!.id,
      );
    const run = (deviceId: number, from: string, to: string) =>
      store.importSegments({
        deviceId,
        segments: [{ startedAt: Date.parse(from) / 1000, endedAt: Date.parse(to) / 1000, state: 'moving' }],
        reportedAt: NOW - 600,
      });
    // Loader: Monday 07:00–17:00 and Tuesday 08:00–12:00, all inside the calendar.
    await run(ids[0]!, '2026-11-23T07:00:00Z', '2026-11-23T17:00:00Z');
    await run(ids[0]!, '2026-11-24T08:00:00Z', '2026-11-24T12:00:00Z');
    // Night digger: Monday 20:00–23:00 Berlin time (after hours), Tuesday 07:00–09:00 (inside).
    await run(ids[1]!, '2026-11-23T20:00:00+01:00', '2026-11-23T23:00:00+01:00');
    await run(ids[1]!, '2026-11-24T07:00:00+01:00', '2026-11-24T09:00:00+01:00');
    // Sweeper: Tuesday 18:00–19:00 New York time (after hours).
    await run(ids[2]!, '2026-11-24T18:00:00-05:00', '2026-11-24T19:00:00-05:00');
    // The spare loader did not run: nothing after hours, utilization 0.
    const fleetHours = createFleetHours({ store, now: () => NOW * 1000 });
    const app = createFleetHoursApp({ fleetHours, now: () => NOW * 1000, fleetView: true, logger: () => {} });
    const shift = [['07:00', '17:00']];
    const put = await app.request('/api/v1/calendar', {
      method: 'PUT',
      headers: { Authorization: `Bearer ${manage}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ weekly: { mon: shift, tue: shift, wed: shift, thu: shift, fri: shift, sat: [], sun: [] }, exceptions: [] }),
    });
    expect(put.status).toBe(200);
    server = await serve({ app, port: 0, handleSignals: false });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it.skipIf(skipped)(
    title("D60, P145: lists every vehicle's current week with the API's figures, the most after hours first, then the lowest utilization"),
    async () => {
      const problems: string[] = [];
      const page = await browser!.newPage();
      await page.setViewport({ width: 1280, height: 900 });
      page.on('pageerror', (error) => problems.push(`page error: ${String(error)}`));
      await page.goto(`${server!.url}/`, { waitUntil: 'load' });
      await page.type('#api-key', key);
      await page.click('#key-form button[type=submit]');
      await page.waitForFunction(
        (count) =>
          document.querySelectorAll('#utilization-body tr[data-device-id]').length === count &&
          !document.querySelector('#utilization-body th.vehicle')!.textContent!.startsWith('Vehicle '),
        { timeout: 30_000 },
        names.length,
      );
      const rows = await page.$$eval('#utilization-body tr', (trs) =>
        trs.map((tr) => ({
          deviceId: Number(tr.getAttribute('data-device-id')),
          period: tr.getAttribute('data-period'),
          vehicle: tr.querySelector('th')!.textContent,
          cells: Array.from(tr.querySelectorAll('td'), (td) => td.textContent),
          afterHours: Number(tr.querySelector('td.after-hours')!.getAttribute('data-seconds')),
        })),
      );
      // The API's answer, read here with the same key: each vehicle's last period is the current week.
      const answer = (await (
        await fetch(`${server!.url}/api/v1/utilization?group_by=week`, { headers: { Authorization: `Bearer ${key}` } })
      ).json()) as {
        data: {
          device_id: number;
          data: {
            period: string;
            utilization: number | null;
            engine_in_schedule_seconds: number;
            engine_outside_schedule_seconds: number;
            scheduled_seconds: number;
          }[];
        }[];
      };
      const percent = (ratio: number | null) => (ratio === null ? '–' : `${(Math.round(ratio * 1000) / 10).toFixed(1)}%`);
      const expected = new Map(
        answer.data.map((entry) => {
          const week = entry.data.at(-1)!;
          return [
            entry.device_id,
            {
              period: week.period,
              cells: [
                percent(week.utilization),
                hoursMinutes(week.engine_outside_schedule_seconds),
                hoursMinutes(week.engine_in_schedule_seconds),
                hoursMinutes(week.scheduled_seconds),
              ],
            },
          ];
        }),
      );
      for (const row of rows)
        expect([row.vehicle, row.period, row.cells]).toEqual([
          row.vehicle,
          expected.get(row.deviceId)!.period,
          expected.get(row.deviceId)!.cells,
        ]);
      expect(rows.map((row) => row.period)).toEqual(['2026-W48', '2026-W48', '2026-W48', '2026-W48']);
      // Outliers first: 3 h and 1 h after hours, then of the two with none the spare loader (0 %) before the loader.
      expect(rows.map((row) => [row.vehicle, row.afterHours])).toEqual([
        ['Night digger', 3 * 3600],
        ['Sweeper 9', 3600],
        ['Spare loader', 0],
        ['Loader 3', 0],
      ]);
      expect(rows.map((row) => row.cells[0]).slice(2)).toEqual(['0.0%', expect.stringMatching(/^[1-9]\d?\.\d%$/)]);
      expect(await page.$eval('#utilization-week', (p) => p.textContent)).toContain('2026-W48');
      expect(problems).toEqual([]);
      await page.close();
    },
  );
});
