/**
 * Test fixture of the fleet routes (not part of the package): an app over a memory store holding
 * a random fleet, a fixed clock, rate limits out of the way, and a walk over every page.
 */
import { createFleetHours, createMemoryStore, fingerprintApiKey, generateApiKey, type SegmentInput } from '@fleet-hours/core';
import { READ_ENDPOINTS } from '@fleet-hours/core/adapter';
import fc from 'fast-check';
import { expect } from 'vitest';
import { createFleetHoursApp } from '../create-fleet-hours-app.js';

const HOUR = 3600;
/** 2026-12-01T10:30:00Z: already 2 December in Kiritimati (+14), still 30 November in Pago Pago (−11). */
export const FLEET_NOW = Date.UTC(2026, 11, 1, 10, 30, 7) / 1000;
const ZONES = [
  'UTC',
  'America/New_York',
  'Europe/Berlin',
  'Asia/Kathmandu',
  'Pacific/Kiritimati',
  'Pacific/Pago_Pago',
  'Australia/Lord_Howe',
  'America/Sao_Paulo',
];

/** A random fleet: each device's zone and segments (hours around now, a year back at most). */
export const fleetArbitrary = fc.array(
  fc.record({
    timeZone: fc.constantFrom(...ZONES),
    pieces: fc.array(
      fc.record({ offset: fc.integer({ min: -400 * 24, max: 24 }), hours: fc.integer({ min: 1, max: 50 }), moving: fc.boolean() }),
      { maxLength: 5 },
    ),
    openLast: fc.boolean(),
  }),
  { maxLength: 7, size: 'small' },
);

/** A random query of `/hours` or `/hours/daily`: no dates, a `from`, or both, often around today (P32). */
export const windowQueryArbitrary = fc.oneof(
  fc.constant(''),
  fc.integer({ min: -420, max: 2 }).map((days) => `from=${_date(days)}`),
  fc.constantFrom(0, 1, 2).map((days) => `from=${_date(days)}`),
  fc
    .tuple(fc.integer({ min: -420, max: 2 }), fc.integer({ min: 0, max: 40 }))
    .map(([days, span]) => `from=${_date(days)}&to=${_date(days + span)}`),
);

function _date(daysFromFirstDecember: number): string {
  return new Date(Date.UTC(2026, 11, 1 + daysFromFirstDecember)).toISOString().slice(0, 10);
}

/** Builds the app over a store holding `fleet` for one account (and a device of another account between each). */
export async function createFleetApp(
  fleet: readonly { timeZone: string; pieces: readonly { offset: number; hours: number; moving: boolean }[]; openLast: boolean }[],
) {
  const store = createMemoryStore();
  const account = await store.createAccount({ name: 'Acme', plan: 'business', now: 0 });
  const other = await store.createAccount({ name: 'Other', plan: 'business', now: 0 });
  const key = generateApiKey();
  await store.createApiKey({ accountId: account.id, fingerprint: await fingerprintApiKey(key), label: null, expiresAt: null, now: 0 });
  const deviceIds: number[] = [];
  for (const [index, device] of fleet.entries()) {
    await store.createDevice({ accountId: other.id, name: `Theirs ${index}`, imei: `36${index}`, model: 'm', timeZone: 'UTC' });
    const created = (await store.createDevice({
      accountId: account.id,
      name: `Truck ${index}`,
      imei: `35${index}`,
      model: 'm',
      timeZone: device.timeZone,
    }))!;
    const sorted = [...device.pieces].sort((a, b) => a.offset - b.offset);
    const segments: SegmentInput[] = [];
    let free = -Infinity;
    for (const [position, piece] of sorted.entries()) {
      const startedAt = Math.max(FLEET_NOW + piece.offset * HOUR, free);
      free = startedAt + piece.hours * HOUR;
      segments.push({
        startedAt,
        endedAt: device.openLast && position === sorted.length - 1 ? null : free,
        state: piece.moving ? 'moving' : 'idle',
      });
    }
    if (segments.length > 0) await store.importSegments({ deviceId: created.id, segments });
    deviceIds.push(created.id);
  }
  const now = () => FLEET_NOW * 1000 + 250;
  const unlimited = 1_000_000;
  const app = createFleetHoursApp({
    fleetHours: createFleetHours({ store, now }),
    now,
    logger: () => {},
    // Every endpoint of the read API out of the way.
    rateLimits: Object.fromEntries(READ_ENDPOINTS.map((endpoint) => [endpoint.name, unlimited])),
  });
  const get = async (path: string, headers: Readonly<Record<string, string>> = {}): Promise<Response> =>
    app.request(path, { headers: { Authorization: `Bearer ${key}`, ...headers } });
  return { app, store, account, deviceIds, get };
}

/**
 * The fleet page property of `/api/v1` + `path` (D32), for random fleets, zones, windows and page
 * sizes: every page is walked; each element is, field for field, the body of
 * `/devices/{id}` + `path` for that device. When the device's own endpoint refuses the window,
 * `refusedElement` checks its element (P32); when every device refuses it, `allRefused` checks the
 * fleet's answer.
 */
export async function checkFleetPagesMatchDevices(options: {
  readonly path: '/hours' | '/hours/daily';
  readonly numRuns: number;
  readonly allRefused: (response: Response) => Promise<void>;
  readonly refusedElement: (element: string, deviceId: number) => void;
}): Promise<void> {
  await fc.assert(
    fc.asyncProperty(fleetArbitrary, windowQueryArbitrary, fc.integer({ min: 1, max: 4 }), async (fleet, query, limit) => {
      const { get, deviceIds } = await createFleetApp(fleet);
      const singles = await Promise.all(
        deviceIds.map(async (id) => get(`/api/v1/devices/${id}${options.path}${query ? `?${query}` : ''}`)),
      );
      const statuses = singles.map((response) => response.status);
      const texts = await Promise.all(singles.map((response) => response.text()));
      const pageQuery = [query, `limit=${limit}`].filter(Boolean).join('&');
      if (deviceIds.length > 0 && statuses.every((status) => status === 400)) {
        await options.allRefused(await get(`/api/v1${options.path}?${pageQuery}`));
        return;
      }
      const { elements, pages } = await walkPages(get, `/api/v1${options.path}`, pageQuery);
      expect(pages).toBe(Math.max(1, Math.ceil(deviceIds.length / limit)));
      expect(elements).toHaveLength(deviceIds.length);
      for (const [index, element] of elements.entries()) {
        if (statuses[index] === 200) {
          expect(element).toBe(texts[index]);
        } else {
          expect(statuses[index]).toBe(400);
          options.refusedElement(element, deviceIds[index]!);
        }
      }
    }),
    { numRuns: options.numRuns },
  );
}

/** Every page of a fleet endpoint, following `next_cursor`: the elements' JSON texts, in order, and the page count. */
export async function walkPages(
  get: (path: string) => Promise<Response>,
  path: string,
  query: string,
): Promise<{ elements: string[]; pages: number }> {
  const elements: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const separator = query === '' && cursor === null ? '' : '?';
    const response = await get(`${path}${separator}${[query, cursor === null ? '' : `cursor=${cursor}`].filter(Boolean).join('&')}`);
    if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
    const body = (await response.json()) as { data: unknown[]; next_cursor: string | null };
    expectKeys(body, ['data', 'next_cursor']);
    elements.push(...body.data.map((element) => JSON.stringify(element)));
    cursor = body.next_cursor;
    pages += 1;
  } while (cursor !== null && pages < 1000);
  return { elements, pages };
}

function expectKeys(body: object, keys: readonly string[]): void {
  if (JSON.stringify(Object.keys(body)) !== JSON.stringify(keys))
    throw new Error(`Expected the fields ${keys.join(', ')}, got ${Object.keys(body).join(', ')}`);
}
