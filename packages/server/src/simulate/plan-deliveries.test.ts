import { telemetryToSegments, type TelemetryPoint } from '@fleet-hours/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mulberry32 } from './mulberry32.js';
import { planDeliveries } from './plan-deliveries.js';
import { simulateVehicle } from './vehicle-model.js';

describe('planDeliveries()', () => {
  it('never changes the set of distinct items, whatever the fractions and the seed (D20)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer(), { maxLength: 200 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: 1, max: 30 }),
        fc.integer(),
        (values, shuffle, resend, maxDelay, seed) => {
          const items = values.map((value, index) => ({ index, value }));
          const plan = [...planDeliveries(items, { shuffle, resend, maxDelay, random: mulberry32(seed) })];
          expect(new Set(plan.map((delivery) => delivery.item))).toEqual(new Set(items));
          // Each item once as itself, repeats only after that.
          const firsts = plan.filter((delivery) => !delivery.repeat);
          expect(firsts).toHaveLength(items.length);
          const seen = new Set<object>();
          for (const delivery of plan) {
            if (delivery.repeat) expect(seen.has(delivery.item)).toBe(true);
            seen.add(delivery.item);
          }
        },
      ),
    );
  });

  it('with no shuffle and no resend delivers in order, each once', () => {
    const plan = [...planDeliveries([1, 2, 3, 4, 5], { shuffle: 0, resend: 0, maxDelay: 3, random: mulberry32(1) })];
    expect(plan).toEqual([1, 2, 3, 4, 5].map((item) => ({ item, late: false, repeat: false })));
  });

  it('shuffles and resends about the fractions asked, late items at most maxDelay places behind', () => {
    const items = Array.from({ length: 10_000 }, (_, index) => index);
    const plan = [...planDeliveries(items, { shuffle: 0.1, resend: 0.05, maxDelay: 8, random: mulberry32(42) })];
    const late = plan.filter((delivery) => delivery.late).length;
    const repeats = plan.filter((delivery) => delivery.repeat).length;
    expect(late / items.length).toBeGreaterThan(0.08);
    expect(late / items.length).toBeLessThan(0.12);
    expect(repeats / items.length).toBeGreaterThan(0.04);
    expect(repeats / items.length).toBeLessThan(0.06);
    const firstPlaces = plan.filter((delivery) => !delivery.repeat).map((delivery) => delivery.item);
    const slips = firstPlaces.map((item, place) => Math.abs(place - item));
    expect(Math.max(...slips)).toBeLessThanOrEqual(8 * 2);
    expect(firstPlaces).not.toEqual(items);
  });

  it('is lazy: it reads an endless stream', () => {
    function* naturals() {
      for (let value = 0; ; value += 1) yield value;
    }
    const plan = planDeliveries(naturals(), { shuffle: 0.3, resend: 0.3, maxDelay: 5, random: mulberry32(9) });
    const taken: number[] = [];
    for (const delivery of plan) {
      taken.push(delivery.item);
      if (taken.length === 50) break;
    }
    expect(taken).toHaveLength(50);
  });

  it('a simulated day, shuffled and resent, gives the same segments as in order (D20, D21)', () => {
    const from = Date.UTC(2026, 10, 17, 6) / 1000;
    const reports = [...simulateVehicle({ seed: 4, vehicle: 0, from, until: from + 12 * 3600, intervalSeconds: 10, shiftStart: 'now' })];
    const toPoint = ({ time, ignition, speedKmh }: TelemetryPoint) => ({ time, ignition, speedKmh });
    const delivered = [...planDeliveries(reports, { shuffle: 0.2, resend: 0.1, maxDelay: 40, random: mulberry32(4) })].map((delivery) =>
      toPoint(delivery.item),
    );
    expect(delivered.length).toBeGreaterThan(reports.length);
    expect(telemetryToSegments(delivered)).toEqual(telemetryToSegments(reports.map(toPoint)));
  });

  it('refuses a fraction outside 0…1 and a maxDelay below 1', () => {
    expect(() => planDeliveries([1], { shuffle: 1.5, resend: 0, maxDelay: 1, random: Math.random }).next()).toThrow(
      'Option shuffle must be a fraction from 0 to 1, got 1.5',
    );
    expect(() => planDeliveries([1], { shuffle: 0, resend: 0, maxDelay: 0, random: Math.random }).next()).toThrow(RangeError);
  });
});
