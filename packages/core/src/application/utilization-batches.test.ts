/**
 * P148: the fleet's utilization by tag reads its devices in batches of 100, a fixed number of store
 * calls per batch and none per device (D49), so that no store call grows with the fleet; the answer
 * is the days of each tag's devices added up by period, as the single-device reads give them.
 */
import { Temporal } from 'temporal-polyfill';
import { describe, expect, it } from 'vitest';
import { utilizationPeriods, type UtilizationDay } from '../calendar/utilization.js';
import { createMemoryStore } from '../store/memory-store.js';
import { countedStore } from '../testing/counted-store.js';
import { createFleetHours } from './create-fleet-hours.js';

const HOUR = 3600;
const DAY = 86_400;
/** 2026-12-01T10:30:00Z. */
const NOW = Date.UTC(2026, 11, 1, 10, 30) / 1000;
const ZONES = ['UTC', 'Europe/Berlin', 'Asia/Kathmandu', 'America/St_Johns'] as const;
const TAGS = [['north'], ['north', 'south'], [], ['south']] as const;

describe('fleet utilization by tag at scale (P148, D49, D60)', () => {
  it('P148: 250 devices are read in 3 batches, one call of each kind per batch, and each tag adds up its devices\u2019 days', async () => {
    const { store, calls } = countedStore(createMemoryStore());
    const account = await store.createAccount({ name: 'Acme', plan: 'business', now: 0 });
    await store.putWorkCalendar({
      accountId: account.id,
      deviceId: null,
      calendar: { weekly: { mon: [['07:00', '17:00']], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] }, exceptions: [] },
    });
    const ids: number[] = [];
    for (let index = 0; index < 250; index += 1) {
      const device = (await store.createDevice({
        accountId: account.id,
        name: `Truck ${index}`,
        imei: `35${index}`,
        model: 'm',
        timeZone: ZONES[index % ZONES.length]!,
        tags: TAGS[index % TAGS.length]!,
      }))!;
      const start = NOW - (index % 40) * DAY - 5 * HOUR;
      await store.importSegments({
        deviceId: device.id,
        segments: [
          { startedAt: start, endedAt: start + 2 * HOUR + index, state: 'moving' },
          { startedAt: start + 3 * HOUR, endedAt: start + 4 * HOUR, state: 'idle' },
        ],
      });
      ids.push(device.id);
    }
    const fleetHours = createFleetHours({ store, now: () => NOW * 1000 });
    const window = { from: Temporal.PlainDate.from('2026-09-01'), to: Temporal.PlainDate.from('2026-11-30') };
    calls.clear();
    const byTag = await fleetHours.fleet.utilizationByTag({ accountId: account.id, ...window, groupBy: 'month' });
    expect(Object.fromEntries(calls)).toEqual({ listDevices: 3, listSegmentsMany: 3, findWorkCalendarsMany: 3 });
    // The oracle: each device's own daily series, its days put together per tag.
    const days = new Map<string, (UtilizationDay & { readonly date: string })[]>();
    const counts = new Map<string, number>();
    for (const [index, deviceId] of ids.entries()) {
      const series = (await fleetHours.daily({ accountId: account.id, deviceId, ...window }))!;
      for (const tag of TAGS[index % TAGS.length]!) {
        days.set(tag, [...(days.get(tag) ?? []), ...series.days]);
        counts.set(tag, (counts.get(tag) ?? 0) + 1);
      }
    }
    expect(byTag.map((one) => one.tag)).toEqual(['north', 'south']);
    for (const one of byTag) {
      const members = days.get(one.tag)!;
      const sorted = [...members].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
      expect(one).toEqual({
        tag: one.tag,
        deviceCount: counts.get(one.tag),
        groupBy: 'month',
        periods: utilizationPeriods(sorted, 'month'),
      });
    }
  });

  it('P154: a device without a calendar is read from the sums of its days; only the devices with one have their segments read', async () => {
    const memory = createMemoryStore();
    const asked: number[] = [];
    const listSegmentsMany = memory.listSegmentsMany!.bind(memory);
    memory.listSegmentsMany = async (input) => {
      asked.push(...input.requests.map((request) => request.deviceId));
      return listSegmentsMany(input);
    };
    const { store, calls } = countedStore(memory);
    const account = await store.createAccount({ name: 'Acme', plan: 'business', now: 0 });
    const calendar = {
      weekly: { mon: [['07:00', '17:00']], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] },
      exceptions: [],
    } as const;
    const scheduled: number[] = [];
    for (let index = 0; index < 150; index += 1) {
      const device = (await store.createDevice({
        accountId: account.id,
        name: `Truck ${index}`,
        imei: `36${index}`,
        model: 'm',
        timeZone: ZONES[index % ZONES.length]!,
        tags: ['north'],
      }))!;
      await store.importSegments({
        deviceId: device.id,
        segments: [{ startedAt: NOW - 3 * DAY, endedAt: NOW - 3 * DAY + HOUR, state: 'moving' }],
      });
      if (index % 3 === 0) {
        await store.putWorkCalendar({ accountId: account.id, deviceId: device.id, calendar });
        scheduled.push(device.id);
      }
    }
    const fleetHours = createFleetHours({ store, now: () => NOW * 1000 });
    const window = { from: Temporal.PlainDate.from('2026-09-01'), to: Temporal.PlainDate.from('2026-11-30') };
    calls.clear();
    const [byTag] = await fleetHours.fleet.utilizationByTag({ accountId: account.id, ...window, groupBy: 'month' });
    expect(Object.fromEntries(calls)).toEqual({ listDevices: 2, findWorkCalendarsMany: 2, listSegmentsMany: 2, sumSegmentSecondsMany: 2 });
    expect(asked.sort((a, b) => a - b)).toEqual(scheduled);
    expect(byTag!.deviceCount).toBe(150);
    expect(byTag!.periods.at(-1)).toMatchObject({ engineSeconds: 150 * HOUR, scheduledSeconds: 50 * 10 * HOUR * 5 });
  });
});
