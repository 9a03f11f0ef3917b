/**
 * D64, P119–P123: the served AEMP feed through the app, on the memory store, PGlite and PostgreSQL:
 * XML checked with an XML parser against the names, namespace and version; a reader that follows
 * `Links` from page 1 to the end gets every device once; JSON on request; the values against the
 * read API's own meter; time series; the order of checks.
 */
import { createFleetHours, createMemoryStore, fingerprintApiKey, generateApiKey, type FleetHoursStore } from '@fleet-hours/core';
import { createFleetHoursApp } from '@fleet-hours/http';
import { createKyselyStore, createPGliteDatabase, migrateToLatest, type FleetHoursDatabase } from '@fleet-hours/storage-kysely';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestSchema, describeWithPostgres, resetTables, type TestPostgres } from './support/postgres.js';

const T0 = 1_793_491_200; // 2026-11-01T00:00:00Z
const HOUR = 3600;
const NOW = T0 + 10 * 24 * HOUR + 1234; // 2026-11-11T00:20:34Z
const NAMESPACE = 'http://www.jcmanet.or.jp/english2017/ISO/15143/-3/20190501';
const DEVICES = 205;
const iso = (seconds: number) => new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  parseTagValue: false,
  isArray: (name) => ['Links', 'Equipment', 'CumulativeOperatingHours', 'CumulativeIdleHours'].includes(name),
});

type Node = Record<string, unknown>;

/** An account of 205 devices: the first with an identity, a reading, a position, engine runs and a run going on at now. */
async function seed(store: FleetHoursStore) {
  const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
  const other = await store.createAccount({ name: 'Other', plan: 'business', now: T0 });
  const key = generateApiKey();
  await store.createApiKey({ accountId: account.id, fingerprint: await fingerprintApiKey(key), label: null, expiresAt: null, now: T0 });
  const ids: number[] = [];
  for (let index = 0; index < DEVICES; index += 1) {
    const device = (await store.createDevice({
      accountId: account.id,
      name: index === 0 ? 'Excavator <7> & "sons"' : `Machine ${index}`,
      imei: `35${String(index).padStart(13, '0')}`,
      model: 'FMB920',
      timeZone: 'Europe/Berlin',
      ...(index === 0 ? { oemName: 'Caterpillar', equipmentModel: '320', serialNumber: 'SN-001', pin: 'CAT0320XK1234567' } : {}),
    }))!;
    ids.push(device.id);
  }
  const foreign = (await store.createDevice({ accountId: other.id, name: 'Theirs', imei: '999', model: 'm', timeZone: 'UTC' }))!;
  const first = ids[0]!;
  await store.importSegments({
    deviceId: first,
    segments: [
      // Run 1: idle then moving, ends T0+3h. Run 2: ends T0+30h. Run 3 goes on at now.
      { startedAt: T0 + HOUR, endedAt: T0 + 2 * HOUR, state: 'idle' },
      { startedAt: T0 + 2 * HOUR, endedAt: T0 + 3 * HOUR, state: 'moving' },
      { startedAt: T0 + 24 * HOUR, endedAt: T0 + 30 * HOUR + 17, state: 'idle' },
      { startedAt: NOW - 600, endedAt: null, state: 'moving' },
    ],
  });
  await store.addHourMeterReading({ deviceId: first, readAt: T0 + 5 * HOUR, readingSeconds: 12_345 * HOUR + 2441, now: NOW });
  await store.importSegments({ deviceId: ids[1]!, segments: [{ startedAt: T0, endedAt: T0 + 7, state: 'idle' }] });
  await store.writeTelemetry({
    accountId: account.id,
    points: [{ deviceId: ids[2]!, time: T0 + 100, ignition: false, speedKmh: 0, latitude: 48.137154, longitude: 11.576124 }],
    now: NOW,
  });
  // P156: device 4 fed only by a source (the newest reading with idle gives it; one without, and a person's, do not);
  // device 5 counts idle of its own and has a source's reading too.
  const sourced = (deviceId: number, readAt: number, readingSeconds: number, idleSeconds?: number) =>
    store.addHourMeterReading({
      deviceId,
      readAt,
      readingSeconds,
      now: NOW,
      source: 'aemp:1',
      ...(idleSeconds === undefined ? {} : { idleSeconds }),
    });
  await sourced(ids[4]!, T0 + HOUR, 500 * HOUR, 100 * HOUR);
  await sourced(ids[4]!, T0 + 2 * HOUR, 501 * HOUR, 200 * HOUR);
  await sourced(ids[4]!, T0 + 3 * HOUR, 502 * HOUR);
  await store.addHourMeterReading({ deviceId: ids[4]!, readAt: T0 + 4 * HOUR, readingSeconds: 503 * HOUR, now: NOW });
  await store.importSegments({ deviceId: ids[5]!, segments: [{ startedAt: T0, endedAt: T0 + 10, state: 'idle' }] });
  await sourced(ids[5]!, T0 + HOUR, 50 * HOUR, HOUR);
  const fleetHours = createFleetHours({ store, now: () => NOW * 1000 });
  const app = createFleetHoursApp({ fleetHours, now: () => NOW * 1000, logger: () => {} });
  const get = (path: string, headers: Record<string, string> = {}, withKey = true) =>
    app.request(`http://fleet.example${path}`, { headers: { ...(withKey ? { Authorization: `Bearer ${key}` } : {}), ...headers } });
  return { ids, foreign, get };
}

/** Parses an XML answer after checking it is well formed, its root `Fleet` in the 2019 namespace and version. */
async function fleetOf(response: Response): Promise<Node> {
  expect(response.status).toBe(200);
  expect(response.headers.get('Content-Type')).toBe('application/xml; charset=UTF-8');
  const text = await response.text();
  expect(XMLValidator.validate(text)).toBe(true);
  const fleet = parser.parse(text).Fleet as Node;
  expect(fleet['@xmlns']).toBe(NAMESPACE);
  expect(fleet['@version']).toBe('20190501');
  expect(fleet['@snapshotTime']).toBe(iso(NOW));
  return fleet;
}

const links = (fleet: Node) => Object.fromEntries((fleet['Links'] as { rel: string; href: string }[]).map((link) => [link.rel, link.href]));

function describeFeed(makeStore: () => Promise<FleetHoursStore>): void {
  let feed: Awaited<ReturnType<typeof seed>>;
  beforeAll(async () => {
    feed = await seed(await makeStore());
  }, 120_000);

  it('D64: a reader following Links from page 1 gets every device once, 100 a page; past the last page is 404', async () => {
    const seen: string[] = [];
    let next: string | undefined = 'http://fleet.example/aemp/v2/Fleet/1';
    let pages = 0;
    while (next !== undefined) {
      const fleet = await fleetOf(await feed.get(new URL(next).pathname));
      pages += 1;
      const equipment = (fleet['Equipment'] ?? []) as Node[];
      expect(equipment.length).toBe(pages < 3 ? 100 : 5);
      for (const item of equipment) seen.push(String((item['EquipmentHeader'] as Node)['EquipmentID']));
      const rels = links(fleet);
      expect(rels['self']).toBe(next);
      expect(rels['last']).toBe('http://fleet.example/aemp/v2/Fleet/3');
      next = rels['next'];
    }
    expect(pages).toBe(3);
    expect(seen).toEqual(['Excavator <7> & "sons"', ...Array.from({ length: DEVICES - 1 }, (_, index) => `Machine ${index + 1}`)]);
    for (const page of ['4', '0', '01', 'x']) {
      const response = await feed.get(`/aemp/v2/Fleet/${page}`);
      expect(response.status).toBe(404);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('not_found');
    }
  });

  it('D64, P119, P120: the values of an equipment: the hour meter and idle of the read API, the newest position, running; absent elements when no value', async () => {
    const fleet = await fleetOf(await feed.get(`/aemp/v2/Fleet/Equipment/ID/${feed.ids[0]}`));
    expect(links(fleet)).toEqual({ self: `http://fleet.example/aemp/v2/Fleet/Equipment/ID/${feed.ids[0]}` });
    const [first] = fleet['Equipment'] as Node[];
    const meter = (await (await feed.get(`/api/v1/devices/${feed.ids[0]}/meter`)).json()) as {
      hour_meter_seconds: number;
      idle_seconds: number;
    };
    expect(first).toEqual({
      EquipmentHeader: {
        OEMName: 'Caterpillar',
        Model: '320',
        EquipmentID: 'Excavator <7> & "sons"',
        SerialNumber: 'SN-001',
        PIN: 'CAT0320XK1234567',
      },
      CumulativeOperatingHours: [{ '@datetime': iso(NOW), Hour: expect.stringMatching(/^\d+\.\d{6}$/) }],
      CumulativeIdleHours: [{ '@datetime': iso(NOW), Hour: expect.stringMatching(/^\d+\.\d{6}$/) }],
      EngineStatus: { '@datetime': iso(NOW), Running: 'true' },
    });
    const hours = (node: unknown) => Number(((node as Node[])[0] as Node)['Hour']);
    expect(Math.round(hours(first!['CumulativeOperatingHours']) * 3600)).toBe(meter.hour_meter_seconds);
    expect(Math.round(hours(first!['CumulativeIdleHours']) * 3600)).toBe(meter.idle_seconds);
    // Reported, not running; no identity but the name.
    const [second] = (await fleetOf(await feed.get(`/aemp/v2/Fleet/Equipment/ID/${feed.ids[1]}`)))['Equipment'] as Node[];
    expect(second!['EquipmentHeader']).toEqual({ EquipmentID: 'Machine 1' });
    expect(second!['EngineStatus']).toEqual({ '@datetime': iso(NOW), Running: 'false' });
    expect(second!['CumulativeIdleHours']).toEqual([{ '@datetime': iso(NOW), Hour: '0.001944' }]);
    expect(second!['Location']).toBeUndefined();
    // A position, and a device that never ran: no EngineStatus.
    const [third] = (await fleetOf(await feed.get(`/aemp/v2/Fleet/Equipment/ID/${feed.ids[2]}`)))['Equipment'] as Node[];
    expect(third!['Location']).toEqual({ '@datetime': iso(T0 + 100), Latitude: '48.137154', Longitude: '11.576124' });
    expect(third!['EngineStatus']).toBeUndefined();
    expect(third!['CumulativeOperatingHours']).toEqual([{ '@datetime': iso(NOW), Hour: '0.000000' }]);
  });

  it('D64, P122: JSON with Accept application/json or application/iso15143-snapshot+json: the same names as keys, hours with 6 places', async () => {
    for (const type of ['application/json', 'application/iso15143-snapshot+json']) {
      const response = await feed.get(`/aemp/v2/Fleet/Equipment/ID/${feed.ids[2]}`, { Accept: type });
      expect(response.status).toBe(200);
      expect(response.headers.get('Content-Type')).toBe(`${type}; charset=UTF-8`);
      const text = await response.text();
      expect(text).toContain('"Hour":0.000000');
      expect(JSON.parse(text)).toEqual({
        version: '20190501',
        snapshotTime: iso(NOW),
        Links: [{ rel: 'self', href: `http://fleet.example/aemp/v2/Fleet/Equipment/ID/${feed.ids[2]}` }],
        Equipment: [
          {
            EquipmentHeader: { EquipmentID: 'Machine 2' },
            Location: { datetime: iso(T0 + 100), Latitude: 48.137154, Longitude: 11.576124 },
            CumulativeOperatingHours: { datetime: iso(NOW), Hour: 0 },
            CumulativeIdleHours: { datetime: iso(NOW), Hour: 0 },
          },
        ],
      });
    }
  });

  it("P156: CumulativeIdleHours adds the idle of the device's newest source reading that gave one to the idle it counted, in XML and JSON", async () => {
    const idleOf = async (id: number) => {
      const [equipment] = (await fleetOf(await feed.get(`/aemp/v2/Fleet/Equipment/ID/${id}`)))['Equipment'] as Node[];
      return equipment!['CumulativeIdleHours'];
    };
    expect(await idleOf(feed.ids[4]!)).toEqual([{ '@datetime': iso(NOW), Hour: '200.000000' }]);
    expect(await idleOf(feed.ids[5]!)).toEqual([{ '@datetime': iso(NOW), Hour: '1.002778' }]);
    const page = await fleetOf(await feed.get('/aemp/v2/Fleet/1'));
    const hours = (page['Equipment'] as Node[]).slice(4, 6).map((equipment) => (equipment['CumulativeIdleHours'] as Node[])[0]!['Hour']);
    expect(hours).toEqual(['200.000000', '1.002778']);
    const response = await feed.get(`/aemp/v2/Fleet/Equipment/ID/${feed.ids[4]}`, { Accept: 'application/json' });
    const text = await response.text();
    expect(text).toContain('"CumulativeIdleHours":{"datetime":"2026-11-11T00:20:34Z","Hour":200.000000}');
    const [equipment] = (JSON.parse(text) as { Equipment: Node[] }).Equipment;
    expect(equipment!['CumulativeIdleHours']).toEqual({ datetime: iso(NOW), Hour: 200 });
    expect(equipment!['CumulativeOperatingHours']).toEqual({ datetime: iso(NOW), Hour: 503 });
  });

  it('D64, P121, P123: time series: a value at the end of every run ended in the window and one at its end (or now); the hour meter counts from the reading', async () => {
    const id = feed.ids[0];
    const series = async (kind: string, start: string, end: string, page = 1) => {
      const fleet = await fleetOf(await feed.get(`/aemp/v2/Fleet/Equipment/ID/${id}/${kind}/${start}/${end}/${page}`));
      const [equipment] = fleet['Equipment'] as Node[];
      return (equipment![kind] as Node[]).map((value) => [value['@datetime'], Math.round(Number(value['Hour']) * 3600)]);
    };
    const base = 12_345 * HOUR + 2441; // the reading at T0+5h
    expect(await series('CumulativeOperatingHours', '2026-11-01', '2026-11-02T12:00:00Z')).toEqual([
      // No reading at or before it: the engine seconds (D38, uncalibrated).
      [iso(T0 + 3 * HOUR), 2 * HOUR],
      [iso(T0 + 30 * HOUR + 17), base + 6 * HOUR + 17],
      [iso(T0 + 36 * HOUR), base + 6 * HOUR + 17],
    ]);
    expect(await series('CumulativeIdleHours', '2026-11-01T02:30:00Z', '2026-11-20', 1)).toEqual([
      [iso(T0 + 3 * HOUR), HOUR],
      [iso(T0 + 30 * HOUR + 17), 7 * HOUR + 17],
      [iso(NOW), 7 * HOUR + 17],
    ]);
    const past = await feed.get(`/aemp/v2/Fleet/Equipment/ID/${id}/CumulativeIdleHours/2026-11-01/2026-11-20/2`);
    expect(past.status).toBe(404);
  });

  it('D11, D64: 401 without a key before anything; 400 naming a bad window; 404 for a foreign device or another series', async () => {
    const id = feed.ids[0];
    const unauthorized = await feed.get(`/aemp/v2/Fleet/1`, {}, false);
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get('X-RateLimit-Limit')).not.toBeNull();
    expect((await feed.get('/aemp/v2/Nothing/here', {}, false)).status).toBe(401);
    expect((await feed.get('/aemp/v2/Nothing/here')).status).toBe(404);
    const bad = await feed.get(`/aemp/v2/Fleet/Equipment/ID/${id}/CumulativeOperatingHours/2026-11-01T00:00:00+01:00/2026-11-02/1`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(/startUTC/);
    const reversed = await feed.get(`/aemp/v2/Fleet/Equipment/ID/${id}/CumulativeOperatingHours/2026-11-03/2026-11-02T23:59:59Z/1`);
    expect(((await reversed.json()) as { error: { message: string } }).error.message).toMatch(/^Parameter endUTC/);
    for (const path of [
      `/aemp/v2/Fleet/Equipment/ID/${feed.foreign.id}`,
      `/aemp/v2/Fleet/Equipment/ID/${feed.foreign.id}/CumulativeIdleHours/2026-11-01/2026-11-02/1`,
      '/aemp/v2/Fleet/Equipment/ID/0',
      `/aemp/v2/Fleet/Equipment/ID/${id}/FuelUsed/2026-11-01/2026-11-02/1`,
    ]) {
      expect((await feed.get(path)).status).toBe(404);
    }
    const snapshot = await feed.get(`/aemp/v2/Fleet/Equipment/ID/${feed.foreign.id}`);
    expect(((await snapshot.json()) as { error: { code: string } }).error.code).toBe('device_not_found');
  });
}

describe('the served AEMP feed on the memory store (D64)', () => {
  describeFeed(async () => createMemoryStore());
});

describe('the served AEMP feed on Kysely over PGlite (D64)', () => {
  let pglite: Kysely<FleetHoursDatabase>;
  afterAll(async () => {
    await pglite?.destroy();
  });
  describeFeed(async () => {
    pglite = await createPGliteDatabase();
    await migrateToLatest(pglite);
    return createKyselyStore(pglite);
  });
});

describeWithPostgres('the served AEMP feed on Kysely over PostgreSQL (D64)', () => {
  let server: TestPostgres;
  afterAll(async () => {
    await server?.drop();
  });
  describeFeed(async () => {
    server = await createTestSchema();
    const db = server.connect({ max: 4 });
    await migrateToLatest(db);
    await resetTables(db);
    return createKyselyStore(db);
  });
});
