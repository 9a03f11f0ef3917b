/**
 * D62: every list of the API answers CSV on request — the header and rows against the JSON answer,
 * the formula guard and quoting (P115), negotiation and the 406 of other routes (P116), and the
 * whole list streamed page by page, refusals before the stream as JSON (P117).
 */
import { createFleetHours, createMemoryStore, CSV_LISTS, fingerprintApiKey, generateApiKey, type FleetHoursStore } from '@fleet-hours/core';
import { readCsv } from '@fleet-hours/core/testing';
import { describe, expect, it } from 'vitest';
import { createFleetHoursApp } from '../create-fleet-hours-app.js';
import type { AccessLogEntry } from '../middleware/access-log/index.js';
import { createFixture, type Fixture } from '../testing/fixture.js';
import { createFleetApp, walkPages } from '../testing/fleet-fixture.js';
import { createIngestFixture } from '../testing/ingest-fixture.js';

const CSV = { Accept: 'text/csv' };
const HOUR = 3600;

/** The cell the CSV must hold for a JSON value: an independent statement of P115. */
function expectedCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/**
 * The header and rows the CSV must have for JSON entries: nested objects flattened with `.` in the
 * JSON's order, except a free-form map (the audit's `changes`); an entry's `data` list (`unwind`)
 * one row per element.
 */
function expectedTable(entries: readonly Record<string, unknown>[], unwind: boolean): { header: string[]; rows: string[][] } {
  const flatten = (value: Record<string, unknown>, prefix = ''): [string, unknown][] =>
    Object.entries(value).flatMap(([name, field]): [string, unknown][] =>
      field !== null && typeof field === 'object' && !Array.isArray(field) && name !== 'changes'
        ? flatten(field as Record<string, unknown>, `${prefix}${name}.`)
        : [[`${prefix}${name}`, field]],
    );
  const rows = entries.flatMap((entry) =>
    unwind ? (entry.data as Record<string, unknown>[]).map((element) => flatten({ ...entry, data: element })) : [flatten(entry)],
  );
  return { header: rows[0]?.map(([name]) => name) ?? [], rows: rows.map((row) => row.map(([, value]) => expectedCell(value))) };
}

async function csvOf(response: Response): Promise<string[][]> {
  expect(response.status).toBe(200);
  expect(response.headers.get('Content-Type')).toBe('text/csv; charset=utf-8');
  const text = await response.text();
  expect(text.endsWith('\r\n')).toBe(true);
  return readCsv(text);
}

/** Seeds what every list shows: names that need the guard and quotes, schedules, readings, changes, a webhook, a token. */
async function seededLists(): Promise<Fixture> {
  const fixture = await createIngestFixture();
  const { request, keys, devices } = fixture;
  // P157: a position for each device, flattened as `position.latitude`, `position.longitude`, `position.at`.
  const time = fixture.nowSeconds - 600;
  const located = [devices.newYork, devices.kathmandu, devices.idle].map((device, index) => {
    return { device_id: device.id, time, ignition: true, speed_kmh: 0, latitude: 10 + index, longitude: -20.5 - index };
  });
  expect((await fixture.sendBatch(located)).status).toBe(200);
  const key = keys.acmeManage.key;
  const send = (method: string, path: string, body: unknown) =>
    request(path, key, { method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const patched = await send('PATCH', `/api/v1/devices/${devices.newYork.id}`, {
    name: '=HYPERLINK("http://x.example")',
    tags: ['north', 'yard, 2'],
  });
  expect(patched.status).toBe(200);
  expect((await send('PATCH', `/api/v1/devices/${devices.kathmandu.id}`, { name: '-Truck, "KTM"' })).status).toBe(200);
  expect((await send('PATCH', `/api/v1/devices/${devices.idle.id}`, { name: '@spare+1' })).status).toBe(200);
  for (const [name, hours] of [
    ['Engine oil', 250],
    ['Greasing', 2],
  ] as const)
    expect(
      (await send('POST', `/api/v1/devices/${devices.newYork.id}/service/schedules`, { name, interval_seconds: hours * HOUR })).status,
    ).toBe(201);
  for (const day of ['2026-11-20', '2026-11-25'])
    expect(
      (
        await send('POST', `/api/v1/devices/${devices.newYork.id}/hour-meter/readings`, {
          read_at: `${day}T07:00:00-05:00`,
          reading_seconds: 1000 * HOUR,
        })
      ).status,
    ).toBe(201);
  expect((await send('POST', '/api/v1/webhooks', { url: 'https://ops.example.com/hooks' })).status).toBe(201);
  expect((await send('POST', '/api/v1/ingest-tokens', { label: '+gateway' })).status).toBe(201);
  return fixture;
}

describe('CSV of every list (D62)', () => {
  it('D62: each list answers its JSON entries as rows: the header the JSON field names in order, nested objects flattened with a dot, a nested list one row per element', async () => {
    const fixture = await seededLists();
    const { request, keys, devices } = fixture;
    const read = keys.acme.key;
    const manage = keys.acmeManage.key;
    const webhooks = (await (await request('/api/v1/webhooks', manage)).json()) as { data: { id: number }[] };
    const cases: [keyof typeof CSV_LISTS, string, string][] = [
      ['devices', '/api/v1/devices', read],
      ['daily', `/api/v1/devices/${devices.newYork.id}/hours/daily?from=2026-10-30&to=2026-11-03`, read],
      ['fleetHours', '/api/v1/hours?from=2026-03-01&to=2026-11-30', read],
      ['fleetDaily', '/api/v1/hours/daily?from=2026-11-01&to=2026-11-03', read],
      ['fleetMeter', '/api/v1/meter', read],
      ['utilization', `/api/v1/devices/${devices.newYork.id}/utilization?from=2026-10-30&to=2026-11-03&group_by=week`, read],
      ['fleetUtilization', '/api/v1/utilization?from=2026-11-01&to=2026-11-03', read],
      ['service', `/api/v1/devices/${devices.newYork.id}/service`, read],
      ['fleetService', '/api/v1/service', read],
      ['listAudit', '/api/v1/audit', manage],
      ['listHourMeterReadings', `/api/v1/devices/${devices.newYork.id}/hour-meter/readings`, manage],
      ['listWebhooks', '/api/v1/webhooks', manage],
      ['listIngestTokens', '/api/v1/ingest-tokens', manage],
    ];
    for (const [name, path, key] of cases) {
      const list = CSV_LISTS[name];
      const json = (await (await request(path, key)).json()) as Record<string, unknown> & { data: Record<string, unknown>[] };
      const entries = list.answer === 'entry' ? [json] : json.data;
      const expected = expectedTable(entries, 'unwind' in list);
      expect(expected.rows.length, name).toBeGreaterThan(0);
      const [header, ...rows] = await csvOf(await request(path, key, { headers: CSV }));
      expect(header, name).toEqual([...list.columns]);
      expect(header, name).toEqual(expected.header);
      expect(rows, name).toEqual(expected.rows);
    }
    // A list without entries is its header alone.
    const deliveries = await request(`/api/v1/webhooks/${webhooks.data[0]!.id}/deliveries`, manage, { headers: CSV });
    expect(await csvOf(deliveries)).toEqual([[...CSV_LISTS.listWebhookDeliveries.columns]]);
  });

  it('D62, P115: guards text that a spreadsheet would run as a formula, quotes commas and quotes, writes tags as JSON text and ends every line with CRLF', async () => {
    const { request, keys } = await seededLists();
    const text = await (await request('/api/v1/devices', keys.acme.key, { headers: CSV })).text();
    expect(text.split('\r\n').at(-1)).toBe('');
    expect(text.replaceAll('\r\n', '')).not.toMatch(/[\r\n]/);
    expect(text).toContain(`,"'=HYPERLINK(""http://x.example"")",`);
    expect(text).toContain(`,"'-Truck, ""KTM""",`);
    expect(text).toContain(`,'@spare+1,`);
    expect(text).toContain(`,"[""north"",""yard, 2""]",`);
    const rows = readCsv(text);
    expect(rows.slice(1).map((row) => row[1])).toEqual(['\'=HYPERLINK("http://x.example")', '\'-Truck, "KTM"', "'@spare+1"]);
  });

  it('D62: a fleet daily export is one row per device per day, device_id and timezone on each, equal to the JSON pages walked', async () => {
    const zones = [
      'America/New_York',
      'Asia/Kathmandu',
      'Europe/Berlin',
      'Pacific/Kiritimati',
      'UTC',
      'Australia/Lord_Howe',
      'America/Sao_Paulo',
    ];
    const { get } = await createFleetApp(
      zones.map((timeZone, index) => ({
        timeZone,
        pieces: [{ offset: -24 * (index + 1), hours: 30, moving: index % 2 === 0 }],
        openLast: index === 0,
      })),
    );
    const query = 'from=2026-11-20&to=2026-12-01';
    const { elements, pages } = await walkPages(get, '/api/v1/hours/daily', `${query}&limit=2`);
    expect(pages).toBe(4);
    const expected = expectedTable(
      elements.map((element) => JSON.parse(element) as Record<string, unknown>),
      true,
    );
    for (const limit of ['&limit=2', '&limit=3', '']) {
      const [header, ...rows] = await csvOf(await get(`/api/v1/hours/daily?${query}${limit}`, CSV));
      expect(header).toEqual(expected.header);
      expect(rows).toEqual(expected.rows);
    }
    const [, ...rows] = await csvOf(await get(`/api/v1/hours/daily?${query}`, CSV));
    // Twelve local days for each vehicle, each row naming its vehicle and zone.
    expect(rows).toHaveLength(zones.length * 12);
    expect(new Set(rows.map((row) => `${row[0]} ${row[1]}`)).size).toBe(zones.length);
    expect(rows.map((row) => row[1])).toEqual(zones.flatMap((zone) => Array<string>(12).fill(zone)));
  });

  it('P117: names the file, counts as one request of the route, and refuses a cursor', async () => {
    const { request, keys } = await createFixture();
    const response = await request('/api/v1/hours/daily', keys.acme.key, { headers: CSV });
    expect(response.headers.get('Content-Disposition')).toBe('attachment; filename="fleet-hours-daily-2026-12-01.csv"');
    expect(response.headers.get('Cache-Control')).toBe('no-store');
    expect(response.headers.get('X-RateLimit-Remaining')).toBe('59');
    await response.text();
    const device = await request('/api/v1/devices/1/hours/daily', keys.acme.key, { headers: CSV });
    expect(device.headers.get('Content-Disposition')).toBe('attachment; filename="fleet-hours-device-1-daily-2026-12-01.csv"');
    const cursor = await request('/api/v1/hours/daily?cursor=abc', keys.acme.key, { headers: CSV });
    expect([cursor.status, await cursor.json()]).toEqual([
      400,
      {
        error: {
          status: 400,
          code: 'invalid_parameter',
          message: 'A CSV answer holds the whole list from its first entry: give no cursor',
        },
      },
    ]);
  });

  it('P117: a refusal before the stream is the JSON error of the JSON request, with its status', async () => {
    const { request, keys, devices } = await createFixture();
    for (const [path, key] of [
      ['/api/v1/hours/daily?from=2026-02-30', keys.acme.key],
      ['/api/v1/hours/daily?from=2026-03-02&to=2026-03-01', keys.acme.key],
      ['/api/v1/hours/daily?from=2026-12-05', keys.acme.key],
      ['/api/v1/hours/daily?limit=101', keys.acme.key],
      [`/api/v1/devices/${devices.foreign.id}/hours/daily`, keys.acme.key],
      ['/api/v1/devices/x/service', keys.acme.key],
      ['/api/v1/devices', null],
      ['/api/v1/audit', keys.acme.key],
    ] as const) {
      const json = await request(path, key);
      const csv = await request(path, key, { headers: CSV });
      expect([path, csv.status, csv.headers.get('Content-Type'), await csv.text()]).toEqual([
        path,
        json.status,
        'application/json; charset=UTF-8',
        await json.text(),
      ]);
      expect(csv.status).toBeGreaterThanOrEqual(400);
    }
  });
});

describe('content negotiation (D62, P116)', () => {
  it.each([
    ['text/csv', 'csv'],
    ['text/csv; charset=utf-8', 'csv'],
    ['text/*', 'csv'],
    ['text/csv, application/json', 'csv'],
    ['application/json;q=0.5, text/csv', 'csv'],
    ['text/csv, */*', 'csv'],
    ['application/json, text/csv', 'json'],
    ['application/json, text/csv;q=0.9', 'json'],
    ['text/csv;q=0.5, */*', 'json'],
    ['text/csv;q=0, application/json', 'json'],
    ['text/csv;q=0', 'json'],
    ['*/*', 'json'],
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'json'],
    ['text/plain', 'json'],
    ['', 'json'],
  ])('Accept: %s on a list answers %s', async (accept, type) => {
    const { request, keys } = await createFixture();
    const response = await request('/api/v1/devices', keys.acme.key, accept === '' ? {} : { headers: { Accept: accept } });
    expect(response.status).toBe(200);
    expect(response.headers.get('Content-Type')).toBe(type === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=UTF-8');
    expect(response.headers.get('Vary')).toBe('Accept');
  });

  it('P116: a route that is not a list answers 406 to a request that accepts CSV and not JSON, JSON otherwise; a write is not made', async () => {
    const { request, keys, devices } = await createFixture();
    for (const path of [`/api/v1/devices/${devices.newYork.id}/hours`, `/api/v1/devices/${devices.newYork.id}/meter`, '/api/v1/key']) {
      const refused = await request(path, keys.acme.key, { headers: CSV });
      expect([path, refused.status, await refused.json()]).toEqual([
        path,
        406,
        {
          error: {
            status: 406,
            code: 'not_acceptable',
            message: 'This route answers JSON only: accept "application/json"; CSV ("text/csv") is served by the list routes',
          },
        },
      ]);
      expect(refused.headers.get('X-RateLimit-Limit')).not.toBeNull();
      const json = await request(path, keys.acme.key, { headers: { Accept: 'text/csv, application/json;q=0.1' } });
      expect([path, json.status, json.headers.get('Content-Type')]).toEqual([path, 200, 'application/json; charset=UTF-8']);
    }
    const write = await request(`/api/v1/devices/${devices.newYork.id}`, keys.acmeManage.key, {
      method: 'PATCH',
      headers: { ...CSV, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Renamed' }),
    });
    expect(write.status).toBe(406);
    const device = (await (await request('/api/v1/devices', keys.acme.key)).json()) as { data: { name: string }[] };
    expect(device.data[0]!.name).toBe('Truck NY');
    // Authentication still comes first (D11).
    expect((await request('/api/v1/key', null, { headers: CSV })).status).toBe(401);
  });
});

/** An app over a memory store holding `count` devices with a day of engine time each; the store counts its calls and can be made to fail. */
async function streamingApp(count: number) {
  const memory = createMemoryStore();
  const account = await memory.createAccount({ name: 'Big fleet', plan: 'business', now: 0 });
  const key = generateApiKey();
  await memory.createApiKey({ accountId: account.id, fingerprint: await fingerprintApiKey(key), label: null, expiresAt: null, now: 0 });
  const now = Date.UTC(2026, 11, 1, 12) / 1000;
  for (let index = 0; index < count; index += 1) {
    const device = (await memory.createDevice({
      accountId: account.id,
      name: `Unit ${index}`,
      imei: `35${index}`,
      model: 'm',
      timeZone: 'UTC',
    }))!;
    await memory.importSegments({
      deviceId: device.id,
      segments: [{ startedAt: now - 86_400 + index, endedAt: now - 80_000, state: 'moving' }],
    });
  }
  let failing = false;
  let calls = 0;
  const store = new Proxy(memory, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls += 1;
        if (failing) throw new Error('the database went away');
        return (value as (...callArgs: unknown[]) => unknown).apply(target, args);
      };
    },
  }) as FleetHoursStore;
  const logs: AccessLogEntry[] = [];
  const app = createFleetHoursApp({
    fleetHours: createFleetHours({ store, now: () => now * 1000 }),
    now: () => now * 1000,
    logger: (entry) => logs.push(entry),
  });
  const get = (path: string) => app.request(path, { headers: { ...CSV, Authorization: `Bearer ${key}` } });
  return { get, calls: () => calls, logs, fail: () => (failing = true) };
}

describe('a streamed export (D62, P117)', () => {
  it('P117: reads page after page as the client takes the stream; rows arrive in device order and the body ends with CRLF', async () => {
    const { get, calls } = await streamingApp(240);
    const response = await get('/api/v1/hours/daily?from=2026-11-30&to=2026-11-30&limit=20');
    const afterFirstPage = calls();
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    let chunks = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      chunks += 1;
    }
    // One chunk a page, each read only when asked for: the store was called again as the body was read.
    expect(chunks).toBe(12);
    expect(calls()).toBeGreaterThan(afterFirstPage);
    expect(text.endsWith('\r\n')).toBe(true);
    const [header, ...rows] = readCsv(text);
    expect(header![0]).toBe('device_id');
    expect(rows.map((row) => Number(row[0]))).toEqual(Array.from({ length: 240 }, (_, index) => index + 1));
    expect(rows.every((row) => row[4] === '2026-11-30')).toBe(true);
  });

  it('P117: a failure after the headers cuts the stream short, never a file that looks whole, and is logged', async () => {
    const { get, fail, logs } = await streamingApp(30);
    const response = await get('/api/v1/meter?limit=10');
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(readCsv(first)).toHaveLength(11);
    fail();
    await expect(reader.read()).rejects.toThrow('the database went away');
    const failed = logs.filter((entry) => entry.error_code === 'stream_failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ route: '/api/v1/meter', status: 200, error: { message: 'the database went away' } });
  });
});
