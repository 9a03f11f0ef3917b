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
});
