import { describe, expect, it } from 'vitest';
import { createFleetHours } from './create-fleet-hours.js';
import { createMemoryStore } from '../store/memory-store.js';
import type { FleetHoursStore } from '../store/storage-port.js';

const HOUR = 3600;
/** 2026-03-12T19:04:05Z. */
const NOW = Date.UTC(2026, 2, 12, 19, 4, 5) / 1000;

/** The memory store, its calls named as they are made, without the capabilities named in `without`. */
function counted(memory: FleetHoursStore, without: readonly string[] = []) {
  const calls: string[] = [];
  const store = Object.fromEntries(
    Object.entries(memory)
      .filter(([name]) => !without.includes(name))
      .map(([name, method]) => [
        name,
        (...args: unknown[]) => {
          calls.push(name);
          return (method as (...a: unknown[]) => unknown)(...args);
        },
      ]),
  ) as unknown as FleetHoursStore;
  return { store, calls };
}

/** An account of `size` devices, every third running now (an open segment), the others stopped an hour ago; another account's devices in between. */
async function fleetOf(size: number) {
  const memory = createMemoryStore();
  const account = await memory.createAccount({ name: 'Acme', plan: 'business', now: 0 });
  const other = await memory.createAccount({ name: 'Other', plan: 'business', now: 0 });
  for (let index = 0; index < size; index += 1) {
    const device = (await memory.createDevice({
      accountId: account.id,
      name: `m${index}`,
      imei: `m${index}`,
      model: 'm',
      timeZone: 'UTC',
    }))!;
    await memory.createDevice({ accountId: other.id, name: `o${index}`, imei: `o${index}`, model: 'm', timeZone: 'UTC' });
    const running = index % 3 === 0;
    await memory.importSegments({
      deviceId: device.id,
      segments: [{ startedAt: NOW - 3 * HOUR, endedAt: running ? null : NOW - HOUR, state: index % 2 === 0 ? 'moving' : 'idle' }],
    });
  }
  return { memory, accountId: account.id };
}

describe('the AEMP snapshot page reads its page and the last second (P151, P152)', () => {
  it('P151, P152: a page costs the same store calls whatever the fleet size: its page by number and the segments of the last second, no whole list and no sum', async () => {
    const asked: string[][] = [];
    for (const size of [150, 420]) {
      const { memory, accountId } = await fleetOf(size);
      const { store, calls } = counted(memory);
      const page = await createFleetHours({ store, now: () => NOW * 1000 }).aemp.fleet({ accountId, page: 2 });
      expect(page!.lastPage).toBe(Math.ceil(size / 100));
      expect(page!.equipment.map((equipment) => equipment.running)).toEqual(
        Array.from({ length: Math.min(100, size - 100) }, (_, index) => (100 + index) % 3 === 0),
      );
      asked.push([...calls].sort());
    }
    expect(asked[0]).toEqual(asked[1]);
    expect(asked[0]).toContain('listDevicePage');
    expect(asked[0]).toContain('listSegmentsMany');
    expect(asked[0]).not.toContain('listDevices');
    expect(asked[0]).not.toContain('sumSegmentSecondsMany');
  });

  it('P151, P152: a store without the page by number or the segments of many devices gives the same pages, from its whole list and its sums', async () => {
    const { memory, accountId } = await fleetOf(230);
    const withAll = createFleetHours({ store: counted(memory).store, now: () => NOW * 1000 });
    const { store, calls } = counted(memory, ['listDevicePage', 'listSegmentsMany']);
    const without = createFleetHours({ store, now: () => NOW * 1000 });
    for (const page of [1, 2, 3, 4, 0])
      expect(await without.aemp.fleet({ accountId, page })).toEqual(await withAll.aemp.fleet({ accountId, page }));
    expect(calls).toContain('listDevices');
    expect(calls).toContain('sumSegmentSecondsMany');
  });
});
