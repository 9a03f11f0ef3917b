/**
 * D62, P143: the utilization lists in CSV through `app.request()`, on the memory store, on Kysely
 * over PGlite and over PostgreSQL: a device's periods, the fleet by device (every page in one
 * answer) and by tag, each row equal to the JSON answer's period with its entry's fields.
 */
import { createFleetHours, createMemoryStore, fingerprintApiKey, generateApiKey, type FleetHoursStore } from '@fleet-hours/core';
import { readCsv } from '@fleet-hours/core/testing';
import { createFleetHoursApp } from '@fleet-hours/http';
import { createKyselyStore, createPGliteDatabase, migrateToLatest, type FleetHoursDatabase } from '@fleet-hours/storage-kysely';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestSchema, describeWithPostgres, resetTables, type TestPostgres } from './support/postgres.js';

const DAY = 86_400;
const NOW = Date.UTC(2026, 10, 20, 12) / 1000; // Friday 2026-11-20
const ZONES = ['America/New_York', 'Asia/Kathmandu', 'Europe/Berlin', 'Australia/Lord_Howe', 'UTC'];
const TAGS = [['=north', 'yard'], ['yard'], [], ['+south'], ['yard', '=north']];
const SHIFT = [['07:00', '17:00']];
const CSV = { Accept: 'text/csv' };

type Json = Record<string, unknown>;

/** The cell a JSON value must be (D62): an independent statement of the guard, numbers as JSON writes them, null empty. */
function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return String(value);
}

/** The table a JSON list of entries with `data` periods must be: the entry's fields, then `data.` and each period field, one row per period. */
function table(entries: readonly Json[]): string[][] {
  const rows = entries.flatMap((entry) =>
    (entry.data as Json[]).map((period) => [
      ...Object.entries(entry).filter(([name]) => name !== 'data'),
      ...Object.entries(period).map(([name, value]): [string, unknown] => [`data.${name}`, value]),
    ]),
  );
  return [rows[0]!.map(([name]) => name), ...rows.map((row) => row.map(([, value]) => cell(value)))];
}

async function csvOf(response: Response): Promise<string[][]> {
  expect(response.status).toBe(200);
  expect(response.headers.get('Content-Type')).toBe('text/csv; charset=utf-8');
  return readCsv(await response.text());
}

/** Five vehicles in five zones with tags, engine time on most days of three weeks, the account's calendar Mon–Fri 07:00–17:00. */
async function seed(store: FleetHoursStore) {
  const account = await store.createAccount({ name: 'Acme', plan: 'business', now: NOW - 60 * DAY });
  const read = generateApiKey();
  const manage = generateApiKey();
  for (const [key, scope] of [
    [read, 'read'],
    [manage, 'manage'],
  ] as const)
    await store.createApiKey({
      accountId: account.id,
      fingerprint: await fingerprintApiKey(key),
      label: null,
      expiresAt: null,
      now: 0,
      scope,
    });
  const fleetHours = createFleetHours({ store, now: () => NOW * 1000 });
  const app = createFleetHoursApp({ fleetHours, now: () => NOW * 1000, logger: () => undefined });
  const request = (path: string, key: string, init: RequestInit = {}) =>
    app.request(path, { ...init, headers: { ...(init.headers as Record<string, string>), Authorization: `Bearer ${key}` } });
  const send = async (method: string, path: string, body: unknown) => {
    const response = await request(path, manage, { method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    expect([path, response.status]).toEqual([path, 200]);
  };
  const ids: number[] = [];
  for (const [index, timeZone] of ZONES.entries()) {
    const device = (await store.createDevice({ accountId: account.id, name: `Truck ${index}`, imei: `35${index}`, model: 'm', timeZone }))!;
    ids.push(device.id);
    const start = NOW - 21 * DAY;
    const segments = Array.from({ length: 21 }, (_, day) => ({
      startedAt: start + day * DAY + index * 3 * 3600,
      endedAt: start + day * DAY + index * 3 * 3600 + (2 + index) * 3600,
      state: day % 3 === 0 ? ('idle' as const) : ('moving' as const),
    })).filter((_, day) => (day + index) % 4 !== 0);
    await store.importSegments({ deviceId: device.id, segments });
    if (TAGS[index]!.length > 0) await send('PATCH', `/api/v1/devices/${device.id}`, { tags: TAGS[index] });
  }
  await send('PUT', '/api/v1/calendar', {
    weekly: { mon: SHIFT, tue: SHIFT, wed: SHIFT, thu: SHIFT, fri: SHIFT, sat: [], sun: [] },
    exceptions: [],
  });
  return { ids, get: (path: string, headers: Record<string, string> = {}) => request(path, read, { headers }) };
}

function describeUtilizationCsv(store: () => Promise<FleetHoursStore>): void {
  const window = 'from=2026-10-30&to=2026-11-20';

  it("D62, P143: a device's utilization is one row per period, its device_id, timezone, window and grouping on each, equal to its JSON", async () => {
    const { ids, get } = await seed(await store());
    for (const groupBy of ['day', 'week', 'month']) {
      const path = `/api/v1/devices/${ids[1]}/utilization?${window}&group_by=${groupBy}`;
      const json = (await (await get(path)).json()) as Json;
      const response = await get(path, CSV);
      expect(response.headers.get('Content-Disposition')).toBe(
        `attachment; filename="fleet-hours-device-${ids[1]}-utilization-2026-11-20.csv"`,
      );
      const rows = await csvOf(response);
      expect(rows).toEqual(table([json]));
      expect(rows.length - 1).toBe({ day: 22, week: 4, month: 2 }[groupBy]);
    }
  });

  it('D62, P143: the fleet by device is every page in one answer, one row per device per period, equal to the JSON pages walked', async () => {
    const { get } = await seed(await store());
    const entries: Json[] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const page = (await (
        await get(`/api/v1/utilization?${window}&group_by=week&limit=2${cursor ? `&cursor=${cursor}` : ''}`)
      ).json()) as {
        data: Json[];
        next_cursor: string | null;
      };
      entries.push(...page.data);
      cursor = page.next_cursor;
    }
    expect(entries).toHaveLength(ZONES.length);
    for (const limit of ['&limit=2', '']) {
      const response = await get(`/api/v1/utilization?${window}&group_by=week${limit}`, CSV);
      expect(response.headers.get('Content-Disposition')).toBe('attachment; filename="fleet-hours-utilization-2026-11-20.csv"');
      expect(await csvOf(response)).toEqual(table(entries));
    }
    // With `tag`, only the devices having it.
    const [header, ...yard] = await csvOf(await get(`/api/v1/utilization?${window}&group_by=month&tag=yard`, CSV));
    expect(header!.slice(0, 5)).toEqual(['device_id', 'timezone', 'from', 'to', 'group_by']);
    expect(new Set(yard.map((row) => row[1]))).toEqual(new Set([ZONES[0], ZONES[1], ZONES[4]]));
  });

  it("D62, P143: the fleet by tag is one row per tag per period; a tag that begins with '=' or '+' is guarded", async () => {
    const { get } = await seed(await store());
    const path = `/api/v1/utilization?${window}&group_by=week&by=tag`;
    const json = (await (await get(path)).json()) as { data: Json[] };
    const response = await get(path, CSV);
    expect(response.headers.get('Content-Disposition')).toBe('attachment; filename="fleet-hours-utilization-by-tag-2026-11-20.csv"');
    const rows = await csvOf(response);
    expect(rows).toEqual(table(json.data));
    expect(rows[0]!.slice(0, 4)).toEqual(['tag', 'device_count', 'group_by', 'data.period']);
    expect([...new Set(rows.slice(1).map((row) => `${row[0]} ${row[1]}`))]).toEqual(["'+south 1", "'=north 2", 'yard 3']);
    // A bad `by` is refused as in JSON, before anything is sent.
    const refused = await get(`/api/v1/utilization?${window}&by=vehicle`, CSV);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain('by');
  });
}

describe('utilization CSV on the memory store (D62)', () => {
  describeUtilizationCsv(async () => createMemoryStore());
});

describe('utilization CSV on Kysely over PGlite (D62)', () => {
  let pglite: Kysely<FleetHoursDatabase>;
  beforeAll(async () => {
    pglite = await createPGliteDatabase();
    await migrateToLatest(pglite);
  });
  afterAll(async () => {
    await pglite?.destroy();
  });
  describeUtilizationCsv(async () => {
    await resetTables(pglite);
    return createKyselyStore(pglite);
  });
});

describeWithPostgres('utilization CSV on Kysely over PostgreSQL (D62)', () => {
  let server: TestPostgres | undefined;
  let db: Kysely<FleetHoursDatabase>;
  beforeAll(async () => {
    server = await createTestSchema();
    db = server.connect();
    await migrateToLatest(db);
  });
  afterAll(async () => {
    await server?.drop();
  });
  describeUtilizationCsv(async () => {
    await resetTables(db);
    return createKyselyStore(db);
  });
});
