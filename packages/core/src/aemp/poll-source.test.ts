import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createFleetHours } from '../application/create-fleet-hours.js';
import type { ChangeOrigin, ChangeReport } from '../manage/change-log.js';
import { createMemoryStore } from '../store/memory-store.js';
import { formatInstant } from '../time/format-instant.js';
import type { Device } from '../types.js';
import type { AempNode } from './poll-page.js';
import { AempFetchError, aempPollRecordBody, pollAempSource } from './poll-source.js';

const NOW = 1_795_000_000;
const H = 3600;
const CLI: ChangeOrigin = { actor: { kind: 'cli' }, requestId: null };
const FEED = 'https://oem.example/aemp/Fleet';

function el(name: string, content: string | readonly AempNode[] = [], attributes: Record<string, string> = {}): AempNode {
  return typeof content === 'string'
    ? { name, attributes, text: content, children: [] }
    : { name, attributes, text: '', children: content };
}

interface Offered {
  readonly pin: string;
  readonly readAt: number;
  readonly readingSeconds: number;
}

/** A feed of pages `/Fleet/1…n`, each with `next` but the last. */
function feed(pages: readonly (readonly Offered[])[]): Map<string, AempNode> {
  return new Map(
    pages.map((equipment, index) => [
      `${FEED}/${index + 1}`,
      el('Fleet', [
        el('Links', [el('rel', 'self'), el('href', `${FEED}/${index + 1}`)]),
        ...(index + 1 < pages.length ? [el('Links', [el('rel', 'next'), el('href', `${FEED}/${index + 2}`)])] : []),
        ...equipment.map((each) =>
          el('Equipment', [
            el('EquipmentHeader', [el('PIN', each.pin)]),
            el('CumulativeOperatingHours', [el('Hour', (each.readingSeconds / H).toFixed(6))], {
              datetime: formatInstant(each.readAt, 'UTC'),
            }),
          ]),
        ),
      ]),
    ]),
  );
}

async function setUp(pins: readonly string[]) {
  const store = createMemoryStore();
  const changes: ChangeReport[] = [];
  const account = (await store.createAccount({ name: 'Acme', plan: 'business', now: 0 }))!;
  const devices: Device[] = [];
  for (const [index, pin] of pins.entries())
    devices.push(
      (await store.createDevice({ accountId: account.id, name: `M${index}`, imei: String(index), model: 'm', timeZone: 'UTC', pin }))!,
    );
  const fleetHours = createFleetHours({ store, now: () => NOW * 1000, changeLog: { record: async (change) => void changes.push(change) } });
  const poll = (pages: Map<string, AempNode>, fail?: (url: string) => AempFetchError | Error | null) =>
    pollAempSource({
      sourceId: 4,
      accountId: account.id,
      url: `${FEED}/1`,
      fetchPage: async (url) => {
        const failure = fail?.(url);
        if (failure) throw failure;
        const page = pages.get(url);
        if (!page) throw new AempFetchError(404, 'answered HTTP 404');
        return page;
      },
      store,
      writes: fleetHours.manage,
      origin: CLI,
      nowSeconds: () => NOW,
    });
  const stored = async () =>
    (await store.listHourMeterReadings({ deviceIds: devices.map((device) => device.id) })).map((reading) => [
      reading.deviceId,
      reading.readAt,
      reading.readingSeconds,
      reading.source,
    ]);
  return { store, changes, devices, poll, stored };
}

describe('pollAempSource (D65, D66)', () => {
  it('D65, D66: walks the pages, matches equipment, stores each new value marked with its source and records the poll', async () => {
    const { devices, poll, stored, changes } = await setUp(['P1', 'P2']);
    const record = await poll(
      feed([
        [
          { pin: 'P1', readAt: NOW - 100, readingSeconds: 10 * H },
          { pin: 'X9', readAt: NOW - 100, readingSeconds: 1 * H },
        ],
        [{ pin: 'p2', readAt: NOW - 50, readingSeconds: 20 * H }],
      ]),
    );
    expect(record).toEqual({
      sourceId: 4,
      startedAt: NOW,
      finishedAt: NOW,
      pages: 2,
      equipmentSeen: 3,
      matched: 2,
      unmatched: [{ pin: 'X9', oemName: null, serialNumber: null }],
      readingsStored: 2,
      readingsRefused: [],
      error: null,
      stop: 'no_next',
    });
    expect(await stored()).toEqual([
      [devices[0]!.id, NOW - 100, 10 * H, 'aemp:4'],
      [devices[1]!.id, NOW - 50, 20 * H, 'aemp:4'],
    ]);
    // D55: each reading stored is audited under the poll's origin, showing its source.
    expect(changes.map((change) => [change.action, change.origin.actor.kind, change.after?.source])).toEqual([
      ['hour_meter_reading.create', 'cli', 'aemp:4'],
      ['hour_meter_reading.create', 'cli', 'aemp:4'],
    ]);
    expect(aempPollRecordBody(9, record)).toMatchObject({
      id: 9,
      source_id: 4,
      equipment_seen: 3,
      unmatched: [{ pin: 'X9', oem_name: null, serial_number: null }],
      readings_stored: 2,
      readings_refused: [],
      error: null,
    });
  });

  it('D65: the next poll stores the same value once and refuses a lower one with a reason; a future instant is refused too', async () => {
    const { devices, poll, stored } = await setUp(['P1', 'P2']);
    await poll(feed([[{ pin: 'P1', readAt: NOW - 100, readingSeconds: 10 * H }]]));
    const again = await poll(
      feed([
        [
          { pin: 'P1', readAt: NOW - 10, readingSeconds: 10 * H },
          { pin: 'P1', readAt: NOW - 5, readingSeconds: 2 * H },
          { pin: 'P2', readAt: NOW + 60, readingSeconds: 2 * H },
        ],
      ]),
    );
    expect(again.readingsStored).toBe(0);
    expect(again.readingsRefused).toEqual([
      { deviceId: devices[0]!.id, readAt: NOW - 5, reason: "lower than this source's newest reading before it (10.000000 h)" },
      { deviceId: devices[1]!.id, readAt: NOW + 60, reason: 'read_at must be an instant that is not in the future' },
    ]);
    expect(aempPollRecordBody(1, again).readings_refused[0]).toMatchObject({ read_at: formatInstant(NOW - 5, 'UTC') });
    expect(await stored()).toEqual([[devices[0]!.id, NOW - 100, 10 * H, 'aemp:4']]);
  });

  it("D65: a person's reading is not the source's: the source's value is stored beside it", async () => {
    const { store, devices, poll, stored } = await setUp(['P1']);
    await store.addHourMeterReading({ deviceId: devices[0]!.id, readAt: NOW - 500, readingSeconds: 50 * H, now: NOW });
    await poll(feed([[{ pin: 'P1', readAt: NOW - 100, readingSeconds: 10 * H }]]));
    expect(await stored()).toEqual([
      [devices[0]!.id, NOW - 100, 10 * H, 'aemp:4'],
      [devices[0]!.id, NOW - 500, 50 * H, undefined],
    ]);
  });

  it('D66: an error ends the poll, recorded; what was stored before it stays', async () => {
    const { poll, stored } = await setUp(['P1', 'P2']);
    const pages = feed([[{ pin: 'P1', readAt: NOW - 100, readingSeconds: H }], [{ pin: 'P2', readAt: NOW - 100, readingSeconds: H }]]);
    const record = await poll(pages, (url) => (url.endsWith('/2') ? new AempFetchError(500, 'answered HTTP 500') : null));
    expect(record).toMatchObject({ pages: 1, readingsStored: 1, error: { status: 500, message: 'answered HTTP 500' }, stop: null });
    expect(await stored()).toHaveLength(1);
    // Anything else is not the feed's doing: it is thrown.
    await expect(poll(pages, () => new TypeError('bug'))).rejects.toThrow('bug');
  });

  it('D65, P126: any split of the same readings over polls and pages stores the same readings (the first instant of each value)', async () => {
    const reading = fc.record({
      device: fc.integer({ min: 0, max: 2 }),
      step: fc.integer({ min: 1, max: 5000 }),
      gain: fc.nat({ max: 3 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(reading, { minLength: 1, maxLength: 30 }), fc.array(fc.nat(), { maxLength: 60 }), async (steps, cuts) => {
        const { devices, poll, stored } = await setUp(['P0', 'P1', 'P2']);
        // Each device's meter: later readings at later instants, never lower.
        const at = [NOW - 200_000, NOW - 200_000, NOW - 200_000];
        const value = [0, 0, 0];
        const offered = steps.map(({ device, step, gain }) => {
          at[device]! += step;
          value[device]! += gain * 600;
          return { pin: `P${device}`, readAt: at[device]!, readingSeconds: value[device]! };
        });
        // Cut the readings into polls, and each poll into pages, where `cuts` says.
        const polls: Offered[][][] = [[[]]];
        for (const [index, each] of offered.entries()) {
          const cut = cuts[index] ?? 0;
          if (index > 0 && cut % 3 === 1) polls.push([[]]);
          else if (index > 0 && cut % 3 === 2) polls.at(-1)!.push([]);
          polls.at(-1)!.at(-1)!.push(each);
        }
        for (const pages of polls) expect((await poll(feed(pages))).readingsRefused).toEqual([]);
        const expected = new Map<string, [number, number, number, string]>();
        for (const each of offered) {
          const deviceId = devices[Number(each.pin.slice(1))]!.id;
          const key = `${deviceId}/${each.readingSeconds}`;
          if (!expected.has(key)) expected.set(key, [deviceId, each.readAt, each.readingSeconds, 'aemp:4']);
        }
        const byDeviceNewestFirst = (a: readonly unknown[], b: readonly unknown[]) =>
          (a[0] as number) - (b[0] as number) || (b[1] as number) - (a[1] as number);
        expect(await stored()).toEqual([...expected.values()].sort(byDeviceNewestFirst));
      }),
      { numRuns: 60 },
    );
  });
});
