import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';
import { parseLocalDate, startOfLocalDay } from '@fleet-hours/core';
import { Window } from 'happy-dom';
import { Hono } from 'hono';
import ts from 'typescript';
import { afterEach, describe, expect, it } from 'vitest';
import { createFixture, utc } from '../testing/fixture.js';
import { createFleetHoursApp } from '../create-fleet-hours-app.js';
import { fleetViewScript } from './fleet-view-script.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('base64');
const inline = (html: string, tag: 'script' | 'style') =>
  [...html.matchAll(new RegExp(`<${tag}(?: [^>]*)?>([\\s\\S]*?)</${tag}>`, 'g'))].map((match) => ({
    open: match[0].slice(0, match[0].indexOf('>') + 1),
    body: match[1]!,
  }));

/** The fixture's app with the fleet view turned on (its other options as the fixture sets them). */
async function fleetViewApp(rateLimits?: { unauthenticated: number }) {
  const fixture = await createFixture(rateLimits ? { rateLimits } : {});
  const app = createFleetHoursApp({
    fleetHours: fixture.fleetHours,
    now: fixture.now,
    fleetView: true,
    logger: (entry) => fixture.logs.push(entry),
    ...(rateLimits ? { rateLimits } : {}),
  });
  return { ...fixture, app };
}

describe('GET / with fleetView: true', () => {
  it('serves the fleet view without a key, not rate limited, with a request id (P14)', async () => {
    const { app, logs } = await fleetViewApp({ unauthenticated: 1 });
    for (let count = 0; count < 3; count += 1) {
      const response = await app.request('/');
      expect(response.status).toBe(200);
      expect(response.headers.get('Content-Type')).toBe('text/html; charset=UTF-8');
      expect(response.headers.get('X-RateLimit-Limit')).toBeNull();
      expect(response.headers.get('X-Request-Id')).not.toBeNull();
      expect(response.headers.get('Referrer-Policy')).toBe('no-referrer');
      expect(await response.text()).toMatch(/^<!doctype html>/);
    }
    expect(logs.map((entry) => [entry.route, entry.status])).toEqual([
      ['/', 200],
      ['/', 200],
      ['/', 200],
    ]);
  });

  it('admits exactly its inline script and style by hash, connects only to its own origin and submits no form', async () => {
    const { app } = await fleetViewApp();
    const response = await app.request('/');
    const html = await response.text();
    const policy = response.headers.get('Content-Security-Policy')!;
    const scripts = inline(html, 'script');
    const styles = inline(html, 'style');
    expect(scripts.map((script) => script.open)).toEqual(['<script>']);
    expect(styles.map((style) => style.open)).toEqual(['<style>']);
    expect(policy.split('; ')).toEqual([
      "default-src 'none'",
      `script-src 'sha256-${sha256(scripts[0]!.body)}'`,
      `style-src 'sha256-${sha256(styles[0]!.body)}'`,
      "connect-src 'self'",
      'img-src data:',
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ]);
    expect(response.headers.get('X-Content-Type-Options')).toBe('nosniff');
    // No inline event handlers or style attributes, which the policy would block.
    expect(html).not.toMatch(/\son[a-z]+=/i);
    expect(html).not.toMatch(/\sstyle=/i);
  });

  it('loads nothing from elsewhere: no URL of another origin, no external script, style, font or image', async () => {
    const html = await (await (await fleetViewApp()).app.request('/')).text();
    expect(html).not.toMatch(/https?:\/\//i);
    expect(html).not.toMatch(/\/\/[a-z0-9.-]+\.[a-z]{2,}/i);
    expect(html).not.toMatch(/<script[^>]*\ssrc=/i);
    expect(html).not.toMatch(/@import|url\(/i);
    expect(html).not.toMatch(/<img\b|<iframe\b/i);
    expect([...html.matchAll(/<link\b[^>]*>/gi)].map((match) => match[0])).toEqual(['<link rel="icon" href="data:,">']);
  });

  it('holds a script that parses, and labels every input', async () => {
    const html = await (await (await fleetViewApp()).app.request('/')).text();
    const [script] = inline(html, 'script');
    expect(() => new Script(script!.body)).not.toThrow();
    for (const [, id] of html.matchAll(/<(?:input|select)\b[^>]*\sid="([^"]+)"/g)) expect(html, id).toContain(`<label for="${id}">`);
    expect(html).toContain('<th scope="col">Vehicle</th>');
  });

  it('embeds its script as the bundle of the fleet-view modules, each a file that npm run typecheck checks (@ts-check)', async () => {
    const html = await (await (await fleetViewApp()).app.request('/')).text();
    const [script] = inline(html, 'script');
    expect(script!.body).toBe(await fleetViewScript());
    // One function scope for the page: nothing it declares leaks into the window.
    expect(script!.body).toMatch(/^"use strict";\n\(\(\) => \{\n {2}\/\/ dom\.js\n/);
    const folder = fileURLToPath(new URL('./fleet-view/', import.meta.url));
    const modules = readdirSync(folder).map((name) => join(folder, name));
    expect(modules.length).toBeGreaterThan(4);
    for (const module of modules) expect(readFileSync(module, 'utf8'), module).toMatch(/^\/\/ @ts-check\n/);
    // `npm run typecheck` is `tsc -p tsconfig.json`: its program holds every module, JavaScript allowed.
    const rootConfig = fileURLToPath(new URL('../../../../tsconfig.json', import.meta.url));
    const { config } = ts.readConfigFile(rootConfig, (path) => ts.sys.readFile(path));
    const parsed = ts.parseJsonConfigFileContent(config, ts.sys, fileURLToPath(new URL('../../../..', import.meta.url)));
    expect(parsed.options.allowJs).toBe(true);
    for (const module of modules) expect(parsed.fileNames).toContain(module);
  });

  it('answers HEAD with the headers only, and other methods 405 with Allow (D17)', async () => {
    const { app } = await fleetViewApp();
    const head = await app.request('/', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const post = await app.request('/', { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('Allow')).toBe('GET, HEAD');
  });
});

describe('GET / without fleetView', () => {
  it('is the JSON 404 of any path outside the API, counted per address (P23): the option is off by default', async () => {
    const { request } = await createFixture();
    const response = await request('/');
    expect(response.status).toBe(404);
    expect(response.headers.get('X-RateLimit-Limit')).not.toBeNull();
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('not_found');
  });

  it('leaves a host app its own / when mounted', async () => {
    const { app } = await createFixture();
    const host = new Hono().get('/', (c) => c.text('host home')).route('/', app);
    expect(await (await host.request('/')).text()).toBe('host home');
  });
});

// ------------------------------------------------------------------------------------------------
// The page's script in happy-dom, against a scripted API: what it asks for, what it shows.

interface Exchange {
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly method: string;
  readonly body: string | undefined;
}
type Answer = { status?: number; body: unknown; headers?: Record<string, string> } | 'network down';

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });

const device = (id: number, name: string, timezone: string) => ({
  id,
  name,
  imei: `35000000000${id}`.slice(0, 15),
  registration: `REG-${id}`,
  model: 'FMB920',
  status: 'active',
  timezone,
  last_reported_at: '2026-11-20T10:00:00-05:00',
});

const meter = (
  id: number,
  timezone: string,
  moving: number,
  idle: number,
  hourMeter: { seconds: number; readAt: string } | null = null,
) => ({
  device_id: id,
  timezone,
  since: '2025-01-01T00:00:00Z',
  as_of: '2026-11-23T12:00:00Z',
  engine_seconds: moving + idle,
  moving_seconds: moving,
  idle_seconds: idle,
  hour_meter_seconds: hourMeter === null ? moving + idle : hourMeter.seconds,
  hour_meter_read_at: hourMeter === null ? null : hourMeter.readAt,
});

/** A schedule of a service body (D39): the fields that matter to the page given, the rest filled in. */
const schedule = (
  id: number,
  name: string,
  status: 'ok' | 'due_soon' | 'overdue',
  hours: { interval: number; margin: number; remaining: number },
  days: { interval: number; margin: number; remaining: number } | null,
) => ({
  id,
  name,
  interval_seconds: hours.interval,
  interval_days: days?.interval ?? null,
  due_soon_seconds: hours.margin,
  due_soon_days: days?.margin ?? null,
  last_done_at: '2026-06-01T08:00:00-04:00',
  last_done_hour_meter_seconds: 40_000_000,
  due_hour_meter_seconds: 40_000_000 + hours.interval,
  due_date: days === null ? null : '2026-12-05',
  remaining_seconds: hours.remaining,
  remaining_days: days?.remaining ?? null,
  status,
});

/** Operator text that must be shown as text, never parsed as HTML. */
const HOSTILE_NAME = '<script>window.pwned = 1</script><img src=x onerror="window.pwned = 2">Brakes & "pads"';

const dailyOf = (id: number, timezone: string, from: string, to: string, perDay: (date: string) => [number, number]) => {
  const data = [];
  for (let date = parseLocalDate('from', from); date.toString() <= to; date = date.add({ days: 1 })) {
    const [moving, idle] = perDay(date.toString());
    data.push({ date: date.toString(), engine_seconds: moving + idle, moving_seconds: moving, idle_seconds: idle });
  }
  return { device_id: id, timezone, from: `${from}T00:00:00`, to: `${to}T23:59:59`, data };
};

describe('the fleet view in a browser (happy-dom, scripted API)', () => {
  const windows: Window[] = [];
  afterEach(async () => {
    await Promise.all(windows.splice(0).map((window) => window.happyDOM.close()));
  });

  /** Opens the page with fetch answered by `answer` (the page's own origin); the first request of a URL may be scripted to fail. */
  const open = async (
    answer: (url: URL, authorization: string, request: Exchange) => Answer | Promise<Response>,
    pagePath = '/',
    refreshSeconds = 30,
  ) => {
    const { app } = await fleetViewApp();
    const host = pagePath === '/' ? app : new Hono().route(pagePath, app);
    const served = await (await host.request(pagePath)).text();
    expect(served).toContain('data-refresh-seconds="30"');
    const html = served.replace('data-refresh-seconds="30"', `data-refresh-seconds="${refreshSeconds}"`);
    const window = new Window({
      url: `http://127.0.0.1:3000${pagePath}`,
      width: 1024,
      height: 768,
      settings: { enableJavaScriptEvaluation: true, suppressInsecureJavaScriptEnvironmentWarning: true },
    });
    windows.push(window);
    const sent: Exchange[] = [];
    Object.assign(window, {
      fetch: async (url: string, init: RequestInit & { headers: Record<string, string> }) => {
        const exchange = { url, headers: init.headers, method: init.method ?? 'GET', body: init.body as string | undefined };
        sent.push(exchange);
        const answered = answer(new URL(url, 'http://127.0.0.1:3000'), init.headers.Authorization ?? '', exchange);
        if (answered instanceof Promise) return answered;
        if (answered === 'network down') throw new TypeError('Failed to fetch');
        return json(answered.body, answered.status ?? 200, answered.headers ?? {});
      },
    });
    window.document.write(html);
    await window.happyDOM.waitUntilComplete();
    const document = window.document;
    const text = (selector: string) => document.querySelector(selector)?.textContent ?? '';
    const until = async (what: string, condition: () => boolean, ms = 8000) => {
      for (let waited = 0; !condition(); waited += 10) {
        if (waited > ms) throw new Error(`Waited in vain for ${what}; status "${text('#status')}", problem "${text('#problem')}"`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };
    const enterKey = (key: string) => {
      (document.getElementById('api-key') as unknown as { value: string }).value = key;
      (document.getElementById('key-form') as unknown as { requestSubmit(): void }).requestSubmit();
    };
    const setWindow = (from: string, to: string) => {
      (document.getElementById('from') as unknown as { value: string }).value = from;
      (document.getElementById('to') as unknown as { value: string }).value = to;
      (document.getElementById('window-form') as unknown as { requestSubmit(): void }).requestSubmit();
    };
    const chooseVehicle = (id: number) => {
      const select = document.getElementById('vehicle') as unknown as { value: string; dispatchEvent(event: unknown): void };
      select.value = String(id);
      select.dispatchEvent(new window.Event('change'));
    };
    const bars = (figure: string) =>
      [...document.querySelectorAll(`#${figure} g.bar`)].map((bar) => ({
        date: bar.getAttribute('data-date')!,
        moving: Number(bar.getAttribute('data-moving-seconds')),
        idle: Number(bar.getAttribute('data-idle-seconds')),
        daySeconds: bar.getAttribute('data-day-seconds') === null ? null : Number(bar.getAttribute('data-day-seconds')),
        marker: bar.querySelector('.day-marker')?.textContent ?? null,
      }));
    return { window, document, sent, text, until, enterKey, setWindow, chooseVehicle, bars };
  };

  const KEY = 'fh_secretsecretsecretsecretsecretsecretsecret';
  const fleet = [
    device(3, 'Truck NY', 'America/New_York'),
    device(7, 'Van Berlin', 'Europe/Berlin'),
    device(9, 'Tug Lord Howe', 'Australia/Lord_Howe'),
  ];

  /**
   * The fleet's schedules (D39). Truck NY: due soon by 9:30 of engine time. Van Berlin: overdue by
   * 14:00 (a hostile name) and a survey due today. Tug: overdue by a day, a survey 12 days away
   * (the calendar comes first) and oil due in 22:13. Remaining seconds carry odd seconds, dropped
   * as everywhere on the page.
   */
  const serviceOf = (one: { id: number; timezone: string }) => ({
    device_id: one.id,
    timezone: one.timezone,
    as_of: '2026-11-23T12:00:00Z',
    hour_meter_seconds: 45_000_000,
    data:
      {
        3: [
          schedule(
            31,
            'Engine oil',
            'due_soon',
            { interval: 900_000, margin: 90_000, remaining: 34_259 },
            { interval: 180, margin: 18, remaining: 95 },
          ),
          schedule(32, 'Air filter', 'ok', { interval: 1_800_000, margin: 180_000, remaining: 648_000 }, null),
        ],
        7: [
          schedule(
            71,
            HOSTILE_NAME,
            'overdue',
            { interval: 360_000, margin: 36_000, remaining: -50_459 },
            { interval: 365, margin: 36, remaining: 200 },
          ),
          schedule(
            72,
            'Annual survey',
            'due_soon',
            { interval: 14_400_000, margin: 1_440_000, remaining: 7_200_000 },
            { interval: 365, margin: 36, remaining: 0 },
          ),
        ],
        9: [
          schedule(
            91,
            'Hull survey',
            'due_soon',
            { interval: 14_400_000, margin: 1_440_000, remaining: 7_000_000 },
            { interval: 365, margin: 36, remaining: 12 },
          ),
          schedule(
            92,
            'Engine oil',
            'due_soon',
            { interval: 900_000, margin: 90_000, remaining: 80_000 },
            { interval: 180, margin: 18, remaining: 170 },
          ),
          schedule(
            93,
            'Tyres',
            'overdue',
            { interval: 3_600_000, margin: 360_000, remaining: 3_000_000 },
            { interval: 30, margin: 3, remaining: -1 },
          ),
        ],
      }[one.id] ?? [],
  });

  /** A well-behaved API over `fleet`: meters and schedules in pages of one (to follow next_cursor), daily in pages of two. */
  const scripted = (url: URL): Answer => {
    const from = url.searchParams.get('from') ?? '2026-11-17';
    const to = url.searchParams.get('to') ?? '2026-11-23';
    const cursor = Number(url.searchParams.get('cursor') ?? '0');
    const page = <T>(items: T[], size: number) => ({
      data: items.slice(cursor, cursor + size),
      next_cursor: cursor + size < items.length ? String(cursor + size) : null,
    });
    const perDay =
      (id: number) =>
      (date: string): [number, number] => [id * 1000 + Number(date.slice(8)) * 10, id * 100 + 7];
    if (url.pathname === '/api/v1/devices') return { body: { data: fleet } };
    if (url.pathname === '/api/v1/meter')
      return {
        body: page(
          fleet.map((one) =>
            meter(
              one.id,
              one.timezone,
              one.id * 3600 * 100 + 59,
              one.id * 1800 + 61,
              one.id === 7 ? null : { seconds: 12_500 * 3600 + one.id * 60 + 59, readAt: '2026-03-01T08:00:00-05:00' },
            ),
          ),
          1,
        ),
      };
    if (url.pathname === '/api/v1/service') return { body: page(fleet.map(serviceOf), 1) };
    if (url.pathname === '/api/v1/utilization')
      return {
        body: page(
          fleet.map((one) => ({
            device_id: one.id,
            timezone: one.timezone,
            data: [
              {
                ...{ period: '2026-W11', engine_in_schedule_seconds: one.id * 600, engine_outside_schedule_seconds: one.id * 60 },
                ...{ scheduled_seconds: 36_000, utilization: (one.id * 600) / 36_000 },
              },
            ],
          })),
          2,
        ),
      };
    if (url.pathname === '/api/v1/hours/daily')
      return {
        body: page(
          fleet.map((one) => dailyOf(one.id, one.timezone, from, to, perDay(one.id))),
          2,
        ),
      };
    const single = /^\/api\/v1\/devices\/(\d+)\/hours\/daily$/.exec(url.pathname);
    const one = fleet.find((candidate) => candidate.id === Number(single?.[1]));
    if (one) return { body: dailyOf(one.id, one.timezone, from, to, perDay(one.id)) };
    return { status: 404, body: { error: { status: 404, code: 'not_found', message: `No such endpoint: ${url.pathname}` } } };
  };

  it('shows every vehicle with its meters as hours:minutes, following next_cursor, and keeps the key out of every URL', async () => {
    const page = await open(scripted);
    page.enterKey(KEY);
    await page.until('the meters', () => page.document.querySelectorAll('#vehicles-body td.meter-engine[data-seconds]').length === 3);
    const rows = [...page.document.querySelectorAll('#vehicles-body tr')].map((row) => ({
      name: row.querySelector('th button')?.textContent,
      engine: row.querySelector('.meter-engine')?.textContent,
      moving: row.querySelector('.meter-moving')?.textContent,
      idle: row.querySelector('.meter-idle')?.textContent,
      last: row.querySelector('.last-report time')?.getAttribute('datetime'),
    }));
    // Truck NY: moving 300 h 0 min 59 s → "300:00"; idle 1 h 31 min 1 s → "1:31"; engine is the sum of the
    // seconds, 301 h 32 min 0 s → "301:32", not the sum of the rounded figures.
    expect(rows).toEqual([
      { name: 'Truck NY', engine: '301:32', moving: '300:00', idle: '1:31', last: '2026-11-20T10:00:00-05:00' },
      { name: 'Van Berlin', engine: '703:32', moving: '700:00', idle: '3:31', last: '2026-11-20T10:00:00-05:00' },
      { name: 'Tug Lord Howe', engine: '904:32', moving: '900:00', idle: '4:31', last: '2026-11-20T10:00:00-05:00' },
    ]);
    const meterUrls = page.sent.map((exchange) => exchange.url).filter((url) => url.startsWith('/api/v1/meter'));
    expect(meterUrls).toEqual(['/api/v1/meter?limit=500', '/api/v1/meter?limit=500&cursor=1', '/api/v1/meter?limit=500&cursor=2']);
    for (const exchange of page.sent) {
      expect(exchange.url).not.toContain(KEY);
      expect(exchange.headers.Authorization).toBe(`Bearer ${KEY}`);
    }
    expect(page.window.sessionStorage.getItem('fleet-hours-api-key')).toBe(KEY);
    expect(page.window.localStorage.length).toBe(0);
    expect(page.window.location.href).toBe('http://127.0.0.1:3000/');

    (page.document.getElementById('forget-key') as unknown as { click(): void }).click();
    expect(page.window.sessionStorage.getItem('fleet-hours-api-key')).toBeNull();
    expect(page.document.getElementById('fleet')!.hasAttribute('hidden')).toBe(true);
  });

  it("P157: shows each machine's identity (only what is given) and its newest position as text linked to geo:, loading no map", async () => {
    const identified = [
      {
        ...device(1, 'Excavator', 'Europe/Berlin'),
        oem_name: 'CAT',
        equipment_model: '320',
        serial_number: 'SN123',
        pin: 'CAT0320XABC',
        position: { latitude: 52.52, longitude: 13.405, at: '2026-11-20T14:02:00+01:00' },
      },
      { ...device(2, 'Loader', 'Europe/Berlin'), oem_name: null, equipment_model: '950', serial_number: null, pin: null, position: null },
    ];
    const page = await open((url) => {
      if (url.pathname === '/api/v1/devices') return { body: { data: identified } };
      return scripted(url);
    });
    page.enterKey(KEY);
    await page.until('the rows', () => page.document.querySelectorAll('#vehicles-body tr[data-device-id]').length === 2);
    const rows = [...page.document.querySelectorAll('#vehicles-body tr[data-device-id]')].map((row) => ({
      identity: row.querySelector('th .identity')?.textContent ?? null,
      position: row.querySelector('.last-report .position')?.textContent ?? null,
      link: row.querySelector('.last-report .position a')?.getAttribute('href') ?? null,
    }));
    const at = new Intl.DateTimeFormat(undefined, { timeZone: 'Europe/Berlin', dateStyle: 'medium', timeStyle: 'short' }).format(
      new Date('2026-11-20T13:02:00Z'),
    );
    expect(rows).toEqual([
      { identity: 'CAT · 320 · S/N SN123 · PIN CAT0320XABC', position: `52.52000, 13.40500 at ${at}`, link: 'geo:52.52,13.405' },
      { identity: '950', position: null, link: null },
    ]);
    expect(at).toContain('2:02');
    expect(page.sent.every((exchange) => exchange.url.startsWith('/'))).toBe(true);
  });

  /** The service column and the hour meter of each row, and the rows of the due soon and overdue list, as shown. */
  const serviceShown = (document: Window['document']) => ({
    column: [...document.querySelectorAll('#vehicles-body tr')].map((row) => {
      const cell = row.querySelector('td.service')!;
      return {
        id: Number(row.getAttribute('data-device-id')),
        status: cell.getAttribute('data-status'),
        badge: cell.querySelector('.status')?.textContent ?? null,
        remaining: cell.querySelector('.remaining')?.textContent ?? null,
        schedule: cell.querySelector('.schedule-name')?.textContent ?? null,
        text: cell.textContent,
      };
    }),
    list: [...document.querySelectorAll('#service-body tr')].map((row) => [
      row.querySelector('.vehicle')?.textContent ?? null,
      row.querySelector('.schedule-name')?.textContent ?? null,
      row.querySelector('.status')?.textContent ?? null,
      row.querySelector('.remaining')?.textContent ?? row.textContent,
    ]),
  });

  it("shows each vehicle's worst service status and what is left of its most urgent schedule: h:mm of engine time, or days when the calendar comes first (D39)", async () => {
    const page = await open(scripted);
    page.enterKey(KEY);
    await page.until('the service column', () => page.document.querySelectorAll('#vehicles-body td.service[data-status]').length === 3);
    expect(serviceShown(page.document).column).toEqual([
      {
        id: 3,
        status: 'due_soon',
        badge: 'Due soon',
        remaining: '9:30 h left',
        schedule: 'Engine oil',
        text: 'Due soon 9:30 h leftEngine oil',
      },
      {
        id: 7,
        status: 'overdue',
        badge: 'Overdue',
        remaining: '14:00 h over',
        schedule: HOSTILE_NAME,
        text: `Overdue 14:00 h over${HOSTILE_NAME}`,
      },
      { id: 9, status: 'overdue', badge: 'Overdue', remaining: '1 day over', schedule: 'Tyres', text: 'Overdue 1 day overTyres' },
    ]);
    expect(page.document.querySelector('#vehicles-body tr[data-device-id="9"] td.service')!.getAttribute('data-unit')).toBe('days');
    // The whole fleet's schedules come from the fleet endpoint's pages (D32), never a request per vehicle.
    const serviceUrls = page.sent.map((exchange) => exchange.url).filter((url) => url.includes('/service'));
    expect(serviceUrls).toEqual(['/api/v1/service?limit=500', '/api/v1/service?limit=500&cursor=1', '/api/v1/service?limit=500&cursor=2']);
  });

  it('lists every schedule due soon or overdue over the fleet, overdue first, then by the share of its interval left (D39)', async () => {
    const page = await open(scripted);
    page.enterKey(KEY);
    await page.until('the due list', () => page.document.querySelectorAll('#service-body tr[data-schedule-id]').length === 6);
    expect(serviceShown(page.document).list).toEqual([
      ['Van Berlin', HOSTILE_NAME, 'Overdue', '14:00 h over'],
      ['Tug Lord Howe', 'Tyres', 'Overdue', '1 day over'],
      ['Van Berlin', 'Annual survey', 'Due soon', 'due today'],
      ['Tug Lord Howe', 'Hull survey', 'Due soon', '12 days left'],
      ['Truck NY', 'Engine oil', 'Due soon', '9:30 h left'],
      ['Tug Lord Howe', 'Engine oil', 'Due soon', '22:13 h left'],
    ]);
    // Each remaining time says both limits in its tooltip.
    expect(page.document.querySelector('#service-body tr[data-schedule-id="91"] .remaining')!.getAttribute('title')).toBe(
      'due at 15111:06 h on the hour meter (1944:26 h left) or on 2026-12-05 (12 days left), whichever comes first',
    );
  });

  it('says so when nothing is due, and shows "–" for a vehicle without schedules (D39)', async () => {
    const page = await open((url) =>
      url.pathname === '/api/v1/service'
        ? {
            body: {
              data: fleet.map((one) => ({
                ...serviceOf(one),
                data:
                  one.id === 3 ? [schedule(31, 'Engine oil', 'ok', { interval: 900_000, margin: 90_000, remaining: 90_001 }, null)] : [],
              })),
              next_cursor: null,
            },
          }
        : scripted(url),
    );
    page.enterKey(KEY);
    await page.until('the service column', () => page.document.querySelectorAll('#vehicles-body td.service[data-status]').length === 3);
    const shown = serviceShown(page.document);
    expect(shown.column.map((row) => [row.id, row.status, row.text])).toEqual([
      [3, 'ok', 'OK 25:00 h leftEngine oil'],
      [7, 'none', '–'],
      [9, 'none', '–'],
    ]);
    expect(shown.list).toEqual([[null, null, null, 'Nothing is due soon or overdue.']]);
  });

  it("shows the machine's hour meter beside the meter, marked uncalibrated when it has no reading (D38)", async () => {
    const page = await open(scripted);
    page.enterKey(KEY);
    await page.until('the hour meters', () => page.document.querySelectorAll('#vehicles-body td.hour-meter[data-seconds]').length === 3);
    const cells = [...page.document.querySelectorAll('#vehicles-body tr')].map((row) => {
      const cell = row.querySelector('td.hour-meter')!;
      return [
        cell.previousElementSibling!.className,
        cell.getAttribute('data-seconds'),
        cell.getAttribute('data-calibrated'),
        cell.getAttribute('data-read-at'),
        cell.textContent,
      ];
    });
    expect(cells).toEqual([
      ['num meter-engine', String(45_000_000 + 239), 'true', '2026-03-01T08:00:00-05:00', '12500:03'],
      ['num meter-engine', String(7 * 360_000 + 59 + 7 * 1800 + 61), 'false', null, '703:32uncalibrated'],
      ['num meter-engine', String(45_000_000 + 599), 'true', '2026-03-01T08:00:00-05:00', '12500:09'],
    ]);
    expect(page.document.querySelector('#vehicles-body tr[data-device-id="7"] td.hour-meter')!.getAttribute('title')).toContain(
      "no reading of the machine's own hour meter yet",
    );
  });

  it('renders schedule names as text, never as HTML: no element and no script comes of them', async () => {
    const page = await open(scripted);
    page.enterKey(KEY);
    await page.until('the due list', () => page.document.querySelectorAll('#service-body tr[data-schedule-id]').length === 6);
    expect(page.document.querySelectorAll('#fleet script, #fleet img')).toHaveLength(0);
    expect(page.document.querySelector('#service-body tr[data-schedule-id="71"] .schedule-name')!.innerHTML).toBe(
      '&lt;script&gt;window.pwned = 1&lt;/script&gt;&lt;img src=x onerror="window.pwned = 2"&gt;Brakes &amp; "pads"',
    );
    expect((page.window as unknown as { pwned?: number }).pwned).toBeUndefined();
  });

  it('keeps the vehicles and meters on screen when the schedules cannot be read, and says so as a problem of its own', async () => {
    const page = await open((url) =>
      url.pathname === '/api/v1/service'
        ? { status: 500, body: { error: { status: 500, code: 'internal_error', message: 'The server failed' } } }
        : scripted(url),
    );
    page.enterKey(KEY);
    await page.until('the problem', () => page.text('#problem') !== '');
    await page.until('the meters', () => page.document.querySelectorAll('#vehicles-body td.meter-engine[data-seconds]').length === 3);
    expect(page.text('#problem')).toBe('Service: The server failed to answer (500: The server failed)');
    expect(page.document.querySelectorAll('#vehicles-body td.service[data-status]')).toHaveLength(0);
    expect(page.document.querySelectorAll('#service-body tr')).toHaveLength(0);
  });

  it("D60, P145: lists each vehicle's last week of the default window, the most after hours first, then the lowest utilization, nothing scheduled last", async () => {
    const week = (after: number, inside: number, scheduled: number, utilization: number | null) => ({
      ...{ period: '2026-W11', from: '2026-03-09', to: '2026-03-15', engine_outside_schedule_seconds: after },
      ...{ engine_in_schedule_seconds: inside, scheduled_seconds: scheduled, utilization },
    });
    const earlier = week(99_999, 0, 0, null);
    const answers = [
      { device_id: 3, timezone: 'America/New_York', data: [earlier, week(0, 18_000, 36_000, 0.5)] },
      { device_id: 7, timezone: 'Europe/Berlin', data: [earlier, week(0, 0, 0, null)] },
      { device_id: 9, timezone: 'Australia/Lord_Howe', data: [earlier, week(3659, 4444, 36_000, 0.123456)] },
    ];
    const page = await open((url) =>
      url.pathname === '/api/v1/utilization' ? { body: { data: answers, next_cursor: null } } : scripted(url),
    );
    page.enterKey(KEY);
    await page.until('the utilization rows', () => page.document.querySelectorAll('#utilization-body th.vehicle').length === 3);
    await page.until('the names', () => page.text('#utilization-body th.vehicle') !== 'Vehicle 9');
    const rows = Array.from(page.document.querySelectorAll('#utilization-body tr'), (row) =>
      Array.from(row.querySelectorAll('th, td'), (cell) => cell.textContent),
    );
    expect(rows).toEqual([
      ['Tug Lord Howe', '12.3%', '1:00', '1:14', '10:00'],
      ['Truck NY', '50.0%', '0:00', '5:00', '10:00'],
      ['Van Berlin', '–', '0:00', '0:00', '0:00'],
    ]);
    expect(page.text('#utilization-week')).toBe("Week 2026-W11, Monday up to now, in each vehicle's own zone.");
    const asked = page.sent.find((exchange) => exchange.url.startsWith('/api/v1/utilization'))!.url;
    expect([asked.includes('group_by=week'), asked.includes('from='), asked.includes('to=')]).toEqual([true, false, false]);
  });

  it("sums every vehicle's daily series by local date into the fleet bars, over all pages, with a text alternative", async () => {
    const page = await open(scripted);
    page.enterKey(KEY);
    page.setWindow('2026-10-30', '2026-11-02');
    await page.until(
      'the fleet bars',
      () => page.bars('fleet-chart').length === 4 && page.sent.some((exchange) => exchange.url.includes('from=2026-10-30')),
    );
    await page.until('the second page', () => page.bars('fleet-chart')[0]!.idle === 307 + 707 + 907);
    const expected = ['2026-10-30', '2026-10-31', '2026-11-01', '2026-11-02'].map((date) => {
      const day = Number(date.slice(8));
      return {
        date,
        moving: [3, 7, 9].reduce((sum, id) => sum + id * 1000 + day * 10, 0),
        idle: 307 + 707 + 907,
        daySeconds: null,
        marker: null,
      };
    });
    expect(page.bars('fleet-chart')).toEqual(expected);
    expect(page.sent.map((exchange) => exchange.url)).toEqual(
      expect.arrayContaining([
        '/api/v1/hours/daily?from=2026-10-30&to=2026-11-02&limit=100',
        '/api/v1/hours/daily?from=2026-10-30&to=2026-11-02&limit=100&cursor=2',
      ]),
    );
    expect(page.document.querySelector('#fleet-chart svg')!.getAttribute('aria-label')).toContain(
      'Engine time of all 3 vehicles per local day, 2026-10-30 to 2026-11-02',
    );
    expect([...page.document.querySelectorAll('#fleet-chart details tbody th')].map((cell) => cell.textContent)).toEqual(
      expected.map((day) => day.date),
    );
  });

  it('marks the 23-, 23.5-, 25- and 24.5-hour days of one vehicle, each local day measured in its own zone (D8)', async () => {
    const page = await open(scripted);
    page.enterKey(KEY);
    await page.until('the vehicle list', () => page.document.querySelectorAll('#vehicle option').length === 3);
    const cases = [
      { id: 3, zone: 'America/New_York', from: '2026-03-07', to: '2026-03-09' },
      { id: 3, zone: 'America/New_York', from: '2026-10-31', to: '2026-11-02' },
      { id: 7, zone: 'Europe/Berlin', from: '2026-10-24', to: '2026-10-26' },
      { id: 9, zone: 'Australia/Lord_Howe', from: '2026-04-04', to: '2026-04-06' },
      { id: 9, zone: 'Australia/Lord_Howe', from: '2026-10-03', to: '2026-10-05' },
    ];
    for (const { id, zone, from, to } of cases) {
      page.chooseVehicle(id);
      page.setWindow(from, to);
      await page.until(
        `${zone} ${from}`,
        () =>
          page.bars('vehicle-chart')[0]?.date === from &&
          page.document.querySelector('#vehicle-chart figcaption')!.textContent!.includes(zone),
      );
      const shown = page.bars('vehicle-chart');
      // The oracle: core's startOfLocalDay (Temporal), one day to the next.
      const lengths = shown.map(
        (bar) =>
          startOfLocalDay(parseLocalDate('from', bar.date).add({ days: 1 }), zone) -
          startOfLocalDay(parseLocalDate('from', bar.date), zone),
      );
      expect(
        shown.map((bar) => bar.daySeconds),
        `${zone} ${from}`,
      ).toEqual(lengths);
      expect(lengths.filter((seconds) => seconds !== 86_400)).toHaveLength(1);
      for (const [index, bar] of shown.entries()) {
        const seconds = lengths[index]!;
        const words = `${Math.floor(seconds / 3600)} h${seconds % 3600 ? ` ${(seconds % 3600) / 60} min` : ''}`;
        expect(bar.marker, `${zone} ${bar.date}`).toBe(seconds === 86_400 ? null : words);
      }
      expect(page.document.querySelector('#vehicle-chart figcaption')!.textContent).toMatch(/lasted \d+ h( 30 min)? \(clock change\)/);
    }
  });

  it('measures days where midnight is skipped or repeated, and a day that does not exist (P2), like core does', async () => {
    const odd = [
      device(1, 'São Paulo bus', 'America/Sao_Paulo'),
      device(2, 'Apia boat', 'Pacific/Apia'),
      device(4, 'Chatham crane', 'Pacific/Chatham'),
    ];
    const page = await open((url) => {
      if (url.pathname === '/api/v1/devices') return { body: { data: odd } };
      if (url.pathname === '/api/v1/meter') return { body: { data: [], next_cursor: null } };
      if (url.pathname === '/api/v1/hours/daily') return { body: { data: [], next_cursor: null } };
      const one = odd.find((candidate) => url.pathname === `/api/v1/devices/${candidate.id}/hours/daily`)!;
      return { body: dailyOf(one.id, one.timezone, url.searchParams.get('from')!, url.searchParams.get('to')!, () => [0, 0]) };
    });
    page.enterKey(KEY);
    await page.until('the vehicle list', () => page.document.querySelectorAll('#vehicle option').length === 3);
    const cases = [
      { id: 1, zone: 'America/Sao_Paulo', from: '2018-11-03', to: '2018-11-05' }, // 00:00 → 01:00: a 23-hour day starting at 01:00
      { id: 1, zone: 'America/Sao_Paulo', from: '2019-02-15', to: '2019-02-17' }, // 00:00 → 23:00 the day before: a 25-hour day
      { id: 2, zone: 'Pacific/Apia', from: '2011-12-29', to: '2011-12-31' }, // 30 December 2011 never happened in Samoa
      { id: 4, zone: 'Pacific/Chatham', from: '2026-09-26', to: '2026-09-28' }, // +12:45 → +13:45
    ];
    for (const { id, zone, from, to } of cases) {
      page.chooseVehicle(id);
      page.setWindow(from, to);
      await page.until(`${zone} ${from}`, () => page.bars('vehicle-chart')[0]?.date === from);
      const shown = page.bars('vehicle-chart');
      const lengths = shown.map(
        (bar) =>
          startOfLocalDay(parseLocalDate('from', bar.date).add({ days: 1 }), zone) -
          startOfLocalDay(parseLocalDate('from', bar.date), zone),
      );
      expect(
        shown.map((bar) => bar.daySeconds),
        `${zone} ${from}`,
      ).toEqual(lengths);
      expect(
        lengths.some((seconds) => seconds !== 86_400),
        `${zone} ${from} has an odd day`,
      ).toBe(true);
    }
  });

  it('waits as Retry-After says on 429 and says so on screen, then shows the data', async () => {
    let refused = 0;
    const page = await open((url) => {
      if (url.pathname === '/api/v1/meter' && refused === 0) {
        refused += 1;
        return {
          status: 429,
          headers: { 'Retry-After': '1' },
          body: { error: { status: 429, code: 'rate_limited', message: 'Rate limit of 60 requests per minute exceeded' } },
        };
      }
      return scripted(url);
    });
    page.enterKey(KEY);
    await page.until('the 429 notice', () => page.text('#status').includes('Meters: rate limited, retrying in 1 s'));
    await page.until(
      'the meters after the retry',
      () => page.document.querySelectorAll('#vehicles-body td.meter-engine[data-seconds]').length === 3,
    );
    expect(page.text('#status')).not.toContain('rate limited');
    expect(page.sent.filter((exchange) => exchange.url === '/api/v1/meter?limit=500')).toHaveLength(2);
  });

  it('retries while the network is down or the service answers 503, telling which', async () => {
    let failures = 0;
    const page = await open((url) => {
      if (url.pathname === '/api/v1/devices' && failures < 2) {
        failures += 1;
        return failures === 1
          ? 'network down'
          : {
              status: 503,
              headers: { 'Retry-After': '1' },
              body: { error: { status: 503, code: 'service_unavailable', message: 'The database cannot be reached' } },
            };
      }
      return scripted(url);
    });
    page.enterKey(KEY);
    await page.until('the network notice', () =>
      page.text('#status').includes('Vehicles: cannot reach the server (is the network down?), retrying in'),
    );
    await page.until('the 503 notice', () => page.text('#status').includes('Vehicles: the service is unavailable (503), retrying in 1 s'));
    await page.until(
      'the vehicles after the retries',
      () => page.document.querySelectorAll('#vehicles-body tr[data-device-id]').length === 3,
    );
  });

  it.each([
    [
      'revoked_api_key',
      401,
      'The API key is revoked',
      'The key is revoked: ask the account holder for a new one (401: The API key is revoked)',
    ],
    [
      'expired_api_key',
      401,
      'The API key has expired',
      'The key has expired: ask the account holder for a new one (401: The API key has expired)',
    ],
    ['unknown_api_key', 401, 'Unknown API key', 'The server does not know this key: check that it was copied whole (401: Unknown API key)'],
    [
      'plan_without_api_access',
      403,
      'No API access on plan "starter"',
      'This account\'s plan does not include API access (403: No API access on plan "starter")',
    ],
  ])('says in words what a %s answer means, and stops asking', async (code, status, message, words) => {
    const page = await open(() => ({ status, body: { error: { status, code, message } } }));
    page.enterKey(KEY);
    await page.until('the problem', () => page.text('#problem') !== '');
    // One problem, said once, although every request of the page was refused.
    expect(page.text('#problem')).toBe(words);
  });

  it("shows what the app's own endpoints answer: vehicles, meters, fleet days and a 25-hour day (D32, D8)", async () => {
    const { app, keys, devices } = await fleetViewApp();
    const ask = async <T>(path: string) =>
      (await (await app.request(path, { headers: { Authorization: `Bearer ${keys.acme.key}` } })).json()) as T;
    const page = await open((url) =>
      Promise.resolve(app.request(url.pathname + url.search, { headers: { Authorization: `Bearer ${keys.acme.key}` } })),
    );
    page.enterKey(keys.acme.key);
    page.setWindow('2026-10-31', '2026-11-02');
    await page.until('the meters', () => page.document.querySelectorAll('#vehicles-body td.meter-engine[data-seconds]').length === 3);
    // The fixture's clock stands still, so the page and the API agree to the second.
    const meters = (
      await ask<{ data: { device_id: number; engine_seconds: number; moving_seconds: number; idle_seconds: number }[] }>('/api/v1/meter')
    ).data;
    const shown = [...page.document.querySelectorAll('#vehicles-body tr')].map((row) => [
      Number(row.getAttribute('data-device-id')),
      ...['engine', 'moving', 'idle'].map((kind) => Number(row.querySelector(`.meter-${kind}`)!.getAttribute('data-seconds'))),
    ]);
    expect(shown).toEqual(meters.map((meter) => [meter.device_id, meter.engine_seconds, meter.moving_seconds, meter.idle_seconds]));
    expect(shown.map(([id]) => id)).toEqual([devices.newYork.id, devices.kathmandu.id, devices.idle.id]);

    await page.until('the fleet bars', () => page.bars('fleet-chart').length === 3);
    const dailies = (
      await ask<{ data: { data: { date: string; moving_seconds: number; idle_seconds: number }[] }[] }>(
        '/api/v1/hours/daily?from=2026-10-31&to=2026-11-02',
      )
    ).data;
    expect(page.bars('fleet-chart')).toEqual(
      ['2026-10-31', '2026-11-01', '2026-11-02'].map((date) => ({
        date,
        moving: dailies.reduce((sum, daily) => sum + daily.data.find((entry) => entry.date === date)!.moving_seconds, 0),
        idle: dailies.reduce((sum, daily) => sum + daily.data.find((entry) => entry.date === date)!.idle_seconds, 0),
        daySeconds: null,
        marker: null,
      })),
    );
    // Truck NY worked the whole of Sunday 1 November 2026, 25 hours (EDT → EST): the bar reaches the marked day length.
    await page.until('the vehicle bars', () => page.bars('vehicle-chart').length === 3);
    expect(page.bars('vehicle-chart')).toEqual([
      { date: '2026-10-31', moving: 86_400 - 3600, idle: 3600, daySeconds: 86_400, marker: null },
      { date: '2026-11-01', moving: 90_000 - 3600, idle: 3600, daySeconds: 90_000, marker: '25 h' },
      { date: '2026-11-02', moving: 86_400 - 3600, idle: 3600, daySeconds: 86_400, marker: null },
    ]);
  });

  it("shows what the app's own /meter and /service answer: the hour meter, each vehicle's worst status and most urgent limit, the due list (D38, D39)", async () => {
    const { app, store, keys, accounts, devices, clock } = await fleetViewApp();
    const now = clock.nowMs / 1000; // 2026-12-01T12:00:15Z, 07:00 in New York
    await store.addHourMeterReading({ deviceId: devices.newYork.id, readAt: utc(2026, 3, 1), readingSeconds: 12_500 * 3600, now });
    // 75 h of engine time since 31 October 04:00 UTC: 25 h of 100 left, ok. Inspection: due on 3 December, 2 days away (margin 3).
    await store.createServiceSchedule({
      deviceId: devices.newYork.id,
      name: 'Engine oil',
      intervalSeconds: 100 * 3600,
      lastDoneAt: utc(2026, 10, 31, 4),
      now,
    });
    await store.createServiceSchedule({
      deviceId: devices.newYork.id,
      name: 'Inspection',
      intervalSeconds: 1000 * 3600,
      intervalDays: 30,
      lastDoneAt: utc(2026, 11, 3, 12),
      now,
    });
    // Kathmandu ran 4 h since 9 June: a 2-hour interval is 2 h overdue.
    await store.createServiceSchedule({
      deviceId: devices.kathmandu.id,
      name: 'Engine oil',
      intervalSeconds: 7200,
      lastDoneAt: utc(2026, 6, 9),
      now,
    });
    const loader = (await store.createDevice({
      accountId: accounts.acme.id,
      name: 'Loader',
      imei: '356000000000099',
      model: 'FMB920',
      registration: null,
      timeZone: 'Europe/Berlin',
    }))!;
    await store.createServiceSchedule({ deviceId: loader.id, name: 'Greasing', intervalSeconds: 10 * 3600, lastDoneAt: now - 3600, now });

    const ask = async <T>(path: string) =>
      (await (await app.request(path, { headers: { Authorization: `Bearer ${keys.acme.key}` } })).json()) as T;
    const page = await open((url) =>
      Promise.resolve(app.request(url.pathname + url.search, { headers: { Authorization: `Bearer ${keys.acme.key}` } })),
    );
    page.enterKey(keys.acme.key);
    await page.until('the service column', () => page.document.querySelectorAll('#vehicles-body td.service[data-status]').length === 4);
    await page.until('the hour meters', () => page.document.querySelectorAll('#vehicles-body td.hour-meter[data-seconds]').length === 4);

    const shown = serviceShown(page.document);
    expect(shown.column.map((row) => [row.id, row.status, row.text])).toEqual([
      [devices.newYork.id, 'due_soon', 'Due soon 2 days leftInspection'],
      [devices.kathmandu.id, 'overdue', 'Overdue 2:00 h overEngine oil'],
      [devices.idle.id, 'none', '–'],
      [loader.id, 'ok', 'OK 10:00 h leftGreasing'],
    ]);
    expect(shown.list).toEqual([
      ['Truck KTM', 'Engine oil', 'Overdue', '2:00 h over'],
      ['Truck NY', 'Inspection', 'Due soon', '2 days left'],
    ]);
    // The fixture's clock stands still, so the page and the API agree to the second.
    const services = (
      await ask<{
        data: { device_id: number; data: { id: number; status: string; remaining_seconds: number; remaining_days: number | null }[] }[];
      }>('/api/v1/service')
    ).data;
    for (const row of page.document.querySelectorAll('#vehicles-body td.service[data-schedule-id], #service-body tr[data-schedule-id]')) {
      const schedule = services.flatMap((service) => service.data).find((one) => one.id === Number(row.getAttribute('data-schedule-id')))!;
      expect(row.getAttribute('data-status')).toBe(schedule.status);
      const unit = row.getAttribute('data-unit');
      expect(Number(row.getAttribute('data-remaining'))).toBe(unit === 'days' ? schedule.remaining_days : schedule.remaining_seconds);
    }
    const meters = (
      await ask<{ data: { device_id: number; hour_meter_seconds: number; hour_meter_read_at: string | null }[] }>('/api/v1/meter')
    ).data;
    const hourMeters = [...page.document.querySelectorAll('#vehicles-body tr')].map((row) => {
      const cell = row.querySelector('td.hour-meter')!;
      return [Number(row.getAttribute('data-device-id')), Number(cell.getAttribute('data-seconds')), cell.getAttribute('data-read-at')];
    });
    expect(hourMeters).toEqual(meters.map((meter) => [meter.device_id, meter.hour_meter_seconds, meter.hour_meter_read_at]));
    expect(hourMeters.map(([, , readAt]) => readAt !== null)).toEqual([true, false, false, false]);
  });

  it('reads the meters again periodically, so a running engine is seen counting up', async () => {
    let reads = 0;
    const page = await open(
      (url) => {
        if (url.pathname !== '/api/v1/meter') return scripted(url);
        reads += 1;
        return { body: { data: [meter(3, 'America/New_York', 3600 + reads * 60, 0)], next_cursor: null } };
      },
      '/',
      1,
    );
    page.enterKey(KEY);
    await page.until('the first meter', () => page.text('#vehicles-body tr[data-device-id="3"] .meter-engine') === '1:01');
    await page.until('a later meter', () => page.text('#vehicles-body tr[data-device-id="3"] .meter-engine') === '1:02');
    expect(page.text('#meters-note')).toContain('refreshed every 1 s');
  });

  it('captions the window the API applied, and why, when it shortened a window of more than 365 days', async () => {
    // As the server does: from is raised to 365 days before to, in each answer's from.
    const clamped = (url: URL): URL => {
      const to = url.searchParams.get('to');
      if (to === null) return url;
      const earliest = parseLocalDate('to', to).subtract({ days: 365 }).toString();
      if (url.searchParams.get('from')! < earliest) url.searchParams.set('from', earliest);
      return url;
    };
    const page = await open((url) => scripted(clamped(url)));
    page.enterKey(KEY);
    await page.until('the vehicle list', () => page.document.querySelectorAll('#vehicle option').length === 3);
    page.chooseVehicle(7);
    page.setWindow('2024-01-01', '2026-11-02');
    const caption = (figure: string) => page.text(`#${figure} figcaption`);
    await page.until(
      'both charts of the long window',
      () => caption('fleet-chart').includes('2025-11-02') && caption('vehicle-chart').includes('2025-11-02'),
    );
    const applied = '2025-11-02 to 2026-11-02 (shortened from 2024-01-01: the API answers at most 365 days before To)';
    expect(caption('fleet-chart')).toContain(`Engine time of all 3 vehicles per local day, ${applied}: engine`);
    expect(caption('vehicle-chart')).toContain(`Van Berlin per local day in Europe/Berlin, ${applied}: engine`);
    expect(page.bars('vehicle-chart')).toHaveLength(366);
    expect(page.bars('vehicle-chart')[0]!.date).toBe('2025-11-02');
    // A window within the limit is captioned as asked, without a note.
    page.setWindow('2026-10-01', '2026-11-02');
    await page.until('the short window', () => caption('vehicle-chart').includes('2026-10-01 to 2026-11-02:'));
    expect(caption('vehicle-chart')).not.toContain('shortened');
  });

  it('says in which zone the meters are "as of": the latest instant of all, in this browser\'s zone', async () => {
    const page = await open((url) => {
      if (url.pathname !== '/api/v1/meter') return scripted(url);
      // The same instants as text in two zones: "13:00+01:00" sorts after "07:00:01-05:00" as text but is one second earlier.
      return {
        body: {
          data: [
            { ...meter(3, 'America/New_York', 60, 0), as_of: '2026-11-23T07:00:01-05:00' },
            { ...meter(7, 'Europe/Berlin', 60, 0), as_of: '2026-11-23T13:00:00+01:00' },
          ],
          next_cursor: null,
        },
      };
    });
    page.enterKey(KEY);
    await page.until('the meters note', () => page.text('#meters-note').includes('as of'));
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    const time = new Date('2026-11-23T12:00:01Z').toLocaleTimeString(undefined, { timeZoneName: 'short' });
    expect(time).toMatch(/:01\b.*\S+$/);
    expect(page.text('#meters-note')).toContain(`as of ${time} (${zone});`);
  });

  it('shows nothing of an earlier key once another is entered, and forgets a refused key', async () => {
    const page = await open((url, authorization) =>
      authorization === `Bearer ${KEY}`
        ? scripted(url)
        : { status: 401, body: { error: { status: 401, code: 'revoked_api_key', message: 'The API key is revoked' } } },
    );
    page.enterKey(KEY);
    await page.until(
      'the vehicles',
      () => page.document.querySelectorAll('#vehicles-body tr[data-device-id]').length === 3 && page.bars('vehicle-chart').length > 0,
    );
    page.enterKey('fh_revokedrevokedrevokedrevokedrevokedrevoked');
    await page.until('the problem', () => page.text('#problem') !== '');
    expect(page.text('#problem')).toContain('The key is revoked');
    expect(page.document.querySelectorAll('#vehicles-body tr')).toHaveLength(0);
    expect(page.bars('fleet-chart')).toEqual([]);
    expect(page.bars('vehicle-chart')).toEqual([]);
    // A refused key is not kept for the next visit.
    expect(page.window.sessionStorage.getItem('fleet-hours-api-key')).toBeNull();
  });

  it('calls the API under the prefix it is mounted at', async () => {
    const page = await open((url) => scripted(new URL(url.pathname.replace(/^\/fleet/, '') + url.search, url)), '/fleet');
    page.enterKey(KEY);
    await page.until('the vehicles', () => page.document.querySelectorAll('#vehicles-body tr[data-device-id]').length === 3);
    expect(page.sent.every((exchange) => exchange.url.startsWith('/fleet/api/v1/'))).toBe(true);
    expect(page.document.getElementById('docs-link')!.getAttribute('href')).toBe('/fleet/docs');
  });

  /** The scripted API with `/api/v1/key` answering a scope, and the writes answered by `write`. */
  const withScope =
    (scope: 'read' | 'manage', write: (url: URL, request: Exchange) => Answer = () => ({ status: 500, body: {} })) =>
    (url: URL, _authorization: string, request: Exchange): Answer => {
      if (url.pathname === '/api/v1/key')
        return { body: { scope, label: null, fingerprint_prefix: '0123abcd', expires_at: null, account: { id: 1, name: 'Acme' } } };
      if (request.method !== 'GET') return write(url, request);
      return scripted(url);
    };
  const submit = (page: Awaited<ReturnType<typeof open>>, form: string) =>
    (page.document.getElementById(form) as unknown as { requestSubmit(): void }).requestSubmit();
  const type = (page: Awaited<ReturnType<typeof open>>, id: string, value: string) => {
    (page.document.getElementById(id) as unknown as { value: string }).value = value;
  };
  const writesOf = (page: Awaited<ReturnType<typeof open>>) => page.sent.filter((exchange) => exchange.method !== 'GET');

  it('D56, P96: shows the actions only to a key of the manage scope, asked of /api/v1/key; a read key sees the schedules and no control', async () => {
    for (const scope of ['read', 'manage'] as const) {
      const page = await open(withScope(scope));
      page.enterKey(KEY);
      await page.until('the panel', () => page.document.querySelectorAll('#schedules-body tr[data-schedule-id]').length === 2);
      await page.until('the scope', () => page.document.getElementById('service-panel')!.getAttribute('data-scope') === scope);
      const manage = page.document.getElementById('manage') as unknown as { hidden: boolean };
      expect([scope, manage.hidden, page.document.querySelectorAll('#schedules-body button').length]).toEqual(
        scope === 'manage' ? ['manage', false, 6] : ['read', true, 0],
      );
      expect([...page.document.querySelectorAll('#schedules-body .schedule-name')].map((cell) => cell.textContent)).toEqual([
        'Engine oil',
        'Air filter',
      ]);
    }
  });

  it('D56: keeps the focus on a schedule’s button when the periodic refresh draws the panel again', async () => {
    const page = await open(withScope('manage'), '/', 1);
    page.enterKey(KEY);
    await page.until('the actions', () => page.document.querySelectorAll('#schedules-body .edit-button').length === 2);
    (page.document.querySelector('#schedules-body tr[data-schedule-id="32"] .edit-button') as unknown as { focus(): void }).focus();
    const reads = page.sent.filter((exchange) => exchange.url.startsWith('/api/v1/service')).length;
    await page.until(
      'a refresh',
      () => page.sent.filter((exchange) => exchange.url.startsWith('/api/v1/service')).length >= reads + 2,
      5000,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    const active = page.document.activeElement!;
    expect([active.className, active.closest('tr')?.getAttribute('data-schedule-id')]).toEqual(['edit-button', '32']);
  });

  it('P97: one Idempotency-Key per intent — a second submit in flight sends nothing, a retry after a 503 sends the same key, the next intent a new one', async () => {
    let doneAnswers = 0;
    const page = await open(
      withScope('manage', (url) => {
        if (!url.pathname.endsWith('/done')) return { status: 500, body: {} };
        doneAnswers += 1;
        if (doneAnswers === 1)
          return {
            status: 503,
            body: { error: { status: 503, code: 'service_unavailable', message: 'Busy' } },
            headers: { 'Retry-After': '1' },
          };
        return {
          body: {
            ...schedule(31, 'Engine oil', 'ok', { interval: 900_000, margin: 90_000, remaining: 900_000 }, null),
            version: 's-0000000000000001',
          },
        };
      }),
    );
    page.enterKey(KEY);
    await page.until('the actions', () => page.document.querySelectorAll('#schedules-body .done-button').length === 2);
    type(page, 'done-hours', '250:30');
    submit(page, 'done-form');
    submit(page, 'done-form');
    expect((page.document.querySelector('#done-form button[type=submit]') as unknown as { disabled: boolean }).disabled).toBe(true);
    await page.until('the service recorded', () => page.text('#manage-result').includes('Service of Engine oil recorded'), 8000);
    const first = writesOf(page);
    expect(first.map((exchange) => [exchange.method, exchange.url, exchange.body])).toEqual([
      ['POST', '/api/v1/devices/3/service/schedules/31/done', JSON.stringify({ hour_meter_seconds: 250 * 3600 + 1800 })],
      ['POST', '/api/v1/devices/3/service/schedules/31/done', JSON.stringify({ hour_meter_seconds: 250 * 3600 + 1800 })],
    ]);
    const key = first[0]!.headers['Idempotency-Key'];
    expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(first[1]!.headers['Idempotency-Key']).toBe(key);
    // The answer's version goes with the next change of that schedule.
    expect(page.document.querySelector('#schedules-body tr[data-schedule-id="31"]')!.getAttribute('data-version')).toBe(
      's-0000000000000001',
    );
    submit(page, 'done-form');
    await page.until('the second service', () => writesOf(page).length === 3 && !page.document.querySelector('#done-form[aria-busy]'));
    expect(writesOf(page)[2]!.headers['Idempotency-Key']).not.toBe(key);
  });

  it('D56: shows a 400 of the API beside the field it names, and a 412 as changed meanwhile, reloading the figures', async () => {
    const page = await open(
      withScope('manage', (url, request) => {
        if (url.pathname.endsWith('/hour-meter/readings'))
          return {
            status: 400,
            body: {
              error: { status: 400, code: 'invalid_field', message: 'reading_seconds must be at most 100 years', field: 'reading_seconds' },
            },
          };
        if (request.method === 'PATCH')
          return {
            status: 412,
            body: { error: { status: 412, code: 'precondition_failed', message: 'The service schedule changed since it was read' } },
          };
        return { status: 500, body: {} };
      }),
    );
    page.enterKey(KEY);
    await page.until('the actions', () => page.document.querySelectorAll('#schedules-body .edit-button').length === 2);
    type(page, 'reading-hours', '999999999');
    submit(page, 'reading-form');
    await page.until('the refusal', () => page.text('#reading-hours-problem') !== '');
    expect(page.text('#reading-hours-problem')).toBe('reading_seconds must be at most 100 years');
    expect(page.document.getElementById('reading-hours')!.getAttribute('aria-invalid')).toBe('true');
    // Typed wrong: said beside the field, and nothing is sent.
    const sentBefore = writesOf(page).length;
    type(page, 'reading-hours', 'ten');
    submit(page, 'reading-form');
    expect(page.text('#reading-hours-problem')).toBe('Give engine hours, e.g. 250, 250:30 or 12.5');
    expect(writesOf(page)).toHaveLength(sentBefore);

    (page.document.querySelector('#schedules-body tr[data-schedule-id="31"] .edit-button') as unknown as { click(): void }).click();
    expect((page.document.getElementById('schedule-name') as unknown as { value: string }).value).toBe('Engine oil');
    type(page, 'schedule-name', 'Engine oil and filter');
    const servicesRead = page.sent.filter((exchange) => exchange.url.startsWith('/api/v1/service')).length;
    submit(page, 'schedule-form');
    await page.until('the conflict', () => page.text('#schedule-form .form-problem') !== '');
    expect(page.text('#schedule-form .form-problem')).toBe('It changed meanwhile, reloaded: check it and send again');
    const patch = writesOf(page).at(-1)!;
    expect([patch.method, patch.url, patch.body]).toEqual([
      'PATCH',
      '/api/v1/devices/3/service/schedules/31',
      JSON.stringify({ name: 'Engine oil and filter' }),
    ]);
    expect(patch.headers['Idempotency-Key']).toBeUndefined();
    await page.until('the reload', () => page.sent.filter((exchange) => exchange.url.startsWith('/api/v1/service')).length > servicesRead);
    await page.until(
      'the form refilled',
      () => (page.document.getElementById('schedule-name') as unknown as { value: string }).value === 'Engine oil',
    );
  });
});
