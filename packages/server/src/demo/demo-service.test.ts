import { createFleetHours, createMemoryStore, type DeviceService, type ServiceStatus } from '@fleet-hours/core';
import { describe, expect, it } from 'vitest';
import { DEMO_VEHICLES } from './demo-fleet.js';
import { engineTimeStart } from './demo-service.js';
import { LIVE_VEHICLES, seedLiveVehicles } from './live-vehicles.js';
import { seedDemo } from './seed-demo.js';

/** Where each demo vehicle stands on the demo's first start (D39): its worst status, null without schedules. */
const EXPECTED_WORST: Readonly<Record<string, ServiceStatus | null>> = {
  'Truck 14': 'due_soon',
  'Bakery van B-7': 'overdue',
  'Island tug Kentia': 'due_soon',
  'Valley tractor 3': 'ok',
  'City bus 22': 'ok',
  'Harbour crane truck': 'ok',
  'Courier van L-1': null,
  'Tow truck L-2': null,
};

// Days of every season, a DST change in Berlin and New York among them: the statuses must not depend on the day.
const RUN_DAYS = [
  Date.UTC(2026, 0, 15, 9, 0) / 1000,
  Date.UTC(2026, 2, 29, 3, 30) / 1000,
  Date.UTC(2026, 4, 20, 12, 0) / 1000,
  Date.UTC(2026, 6, 4, 22, 15) / 1000,
  Date.UTC(2026, 10, 21, 15, 30) / 1000,
];

async function seededAt(now: number) {
  const store = createMemoryStore();
  const seed = await seedDemo(store, { now });
  const live = await seedLiveVehicles(store, { account: seed.account, now, days: 1 });
  const fleetHours = createFleetHours({ store, now: () => now * 1000 });
  const names = new Map([...seed.devices, ...live.devices].map((device) => [device.id, device.name]));
  const services = async (statuses?: readonly ServiceStatus[]): Promise<DeviceService[]> => [
    ...(await fleetHours.fleet.service({ accountId: seed.account.id, limit: 500, statuses })).items,
  ];
  return { store, seed, live, fleetHours, names, services };
}

describe('seedDemoService(): the demo fleet’s hour meters and schedules (D38, D39)', () => {
  it.each(RUN_DAYS.map((now) => [new Date(now * 1000).toISOString(), now]))(
    'on %s, Truck 14 and Island tug Kentia are due soon, Bakery van B-7 overdue and the other schedules ok, each exactly where DEMO_VEHICLES says (D39)',
    async (_day, now) => {
      const { names, services } = await seededAt(now);
      const all = await services();
      const worst = Object.fromEntries(
        all.map((service) => {
          const statuses = service.schedules.map((schedule) => schedule.status);
          const status = statuses.includes('overdue')
            ? 'overdue'
            : statuses.includes('due_soon')
              ? 'due_soon'
              : statuses.length
                ? 'ok'
                : null;
          return [names.get(service.deviceId)!, status];
        }),
      );
      expect(worst).toEqual(EXPECTED_WORST);

      // The fleet endpoint's filter answers with the vehicles due soon or overdue, in id order.
      const due = await services(['due_soon', 'overdue']);
      expect(due.map((service) => names.get(service.deviceId))).toEqual(['Truck 14', 'Bakery van B-7', 'Island tug Kentia']);
      expect((await services(['overdue'])).map((service) => names.get(service.deviceId))).toEqual(['Bakery van B-7']);

      // Each schedule stands where its plan says: so many engine hours left, to the second, or so many days.
      for (const vehicle of DEMO_VEHICLES) {
        const service = all.find((candidate) => names.get(candidate.deviceId) === vehicle.name)!;
        expect(service.schedules.map((schedule) => schedule.name)).toEqual((vehicle.service ?? []).map((plan) => plan.name));
        for (const [index, plan] of (vehicle.service ?? []).entries()) {
          const schedule = service.schedules[index]!;
          if ('hours' in plan.left) expect(schedule.remainingSeconds, `${vehicle.name}: ${plan.name}`).toBe(plan.left.hours * 3600);
          else expect(schedule.remainingDays, `${vehicle.name}: ${plan.name}`).toBe(plan.left.days);
        }
      }
    },
    60_000,
  );

  it('reads the hour meter when each tracker was fitted: the hour meter is that reading plus the meter, or the meter alone, uncalibrated, without one (D38)', async () => {
    const now = RUN_DAYS[4]!;
    const { seed, live, fleetHours } = await seededAt(now);
    const vehicles = [...DEMO_VEHICLES, ...LIVE_VEHICLES];
    const devices = [...seed.devices, ...live.devices];
    expect(seed.service).toEqual({ readings: 5, schedules: 10 });
    for (const device of devices) {
      const vehicle = vehicles.find((candidate) => candidate.name === device.name)!;
      const meter = (await fleetHours.meter({ accountId: seed.account.id, deviceId: device.id }))!;
      if (vehicle.hourMeterHours === undefined) {
        expect(meter.hourMeterReadAt, device.name).toBeNull();
        expect(meter.hourMeterSeconds, device.name).toBe(meter.engineSeconds);
      } else {
        expect(meter.hourMeterReadAt, device.name).not.toBeNull();
        expect(Date.parse(meter.hourMeterReadAt!) / 1000, device.name).toBeLessThanOrEqual(Date.parse(meter.since!) / 1000);
        expect(meter.hourMeterSeconds, device.name).toBe(vehicle.hourMeterHours * 3600 + meter.engineSeconds);
      }
    }
    expect(devices.filter((device) => vehicles.find((vehicle) => vehicle.name === device.name)!.hourMeterHours === undefined)).toHaveLength(
      2,
    );
  });

  it('places a last service at the start of a history too short for it, so a short demo still seeds every schedule', async () => {
    const now = RUN_DAYS[4]!;
    const store = createMemoryStore();
    const seed = await seedDemo(store, { now, days: 30 });
    expect(seed.service).toEqual({ readings: 5, schedules: 10 });
    const schedules = await store.listServiceSchedules({ deviceIds: seed.devices.map((device) => device.id) });
    for (const schedule of schedules) {
      const [first] = await store.listSegments({ deviceId: schedule.deviceId });
      expect(schedule.lastDoneAt).toBeGreaterThanOrEqual(first!.startedAt);
      expect(schedule.lastDoneAt).toBeLessThan(now);
      expect(schedule.lastDoneHourMeterSeconds).toBeNull();
    }
  });
});

describe('engineTimeStart()', () => {
  const segments = [
    { startedAt: 1000, endedAt: 1600, state: 'idle' as const },
    { startedAt: 2000, endedAt: 2300, state: 'moving' as const },
    { startedAt: 5000, endedAt: null, state: 'moving' as const },
  ];

  it('counts an open segment up to now, and finds the instant inside an earlier segment', () => {
    expect(engineTimeStart(segments, 5500, 500)).toBe(5000);
    expect(engineTimeStart(segments, 5500, 100)).toBe(5400);
    expect(engineTimeStart(segments, 5500, 600)).toBe(2200);
    expect(engineTimeStart(segments, 5500, 800)).toBe(2000);
    expect(engineTimeStart(segments, 5500, 900)).toBe(1500);
  });

  it('is null when the segments hold less engine time than asked', () => {
    expect(engineTimeStart(segments, 5500, 1401)).toBeNull();
    expect(engineTimeStart(segments, 5500, 1400)).toBe(1000);
    expect(engineTimeStart([], 5500, 1)).toBeNull();
  });
});
