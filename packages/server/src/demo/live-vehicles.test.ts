import { createFleetHours, createMemoryStore } from '@fleet-hours/core';
import { createFleetHoursApp } from '@fleet-hours/http';
import { describe, expect, it } from 'vitest';
import { LIVE_VEHICLES, seedLiveVehicles, startLiveFeed } from './live-vehicles.js';

describe('seedLiveVehicles()', () => {
  it('adds the live vehicles with days of telemetry history (D20) and an ingest token (D24)', async () => {
    const store = createMemoryStore();
    const now = Math.floor(Date.now() / 1000);
    const account = await store.createAccount({ name: 'Demo Logistics', plan: 'business', now });
    const live = await seedLiveVehicles(store, { account, now });
    expect(live.devices.map((device) => [device.name, device.imei, device.timeZone])).toEqual(
      LIVE_VEHICLES.map((vehicle) => [vehicle.name, vehicle.imei, vehicle.timeZone]),
    );
    expect(live.ingestToken).toMatch(/^fhi_/);
    expect(live.pointCount).toBeGreaterThan(100);
    expect(await store.listIngestTokens({ accountId: account.id })).toHaveLength(1);
    const fleetHours = createFleetHours({ store, now: () => now * 1000 });
    for (const device of live.devices) {
      const points = await store.listTelemetryPoints({ deviceId: device.id });
      expect(points[0]!.time).toBeGreaterThanOrEqual(now - 3 * 86_400);
      expect(points.at(-1)!.time).toBeLessThan(now - 60);
      expect(device.lastReportedAt).toBe(points.at(-1)!.time);
      expect((await fleetHours.meter({ accountId: account.id, deviceId: device.id }))!.engineSeconds).toBeGreaterThan(3600);
    }
  });
});

describe('startLiveFeed()', () => {
  it('feeds the live vehicles through the real native endpoint, and their meters count up (D22)', async () => {
    const store = createMemoryStore();
    const app = createFleetHoursApp({ fleetHours: createFleetHours({ store, now: () => Date.now() }), logger: () => {} });
    const started = Math.floor(Date.now() / 1000);
    const account = await store.createAccount({ name: 'Demo Logistics', plan: 'business', now: started });
    const live = await seedLiveVehicles(store, { account, now: started, days: 1 });

    const feed = startLiveFeed({
      url: 'http://demo.test',
      ingestToken: live.ingestToken,
      devices: live.devices,
      fetch: async (url, init) => app.request(url, init),
    });
    // The first reports (engine on, a shift starts with the feed) are sent at once.
    const fed = async () =>
      (await Promise.all(live.devices.map((device) => store.listTelemetryPoints({ deviceId: device.id, start: started })))).every(
        (points) => points.length > 0,
      );
    for (let attempt = 0; attempt < 500 && !(await fed()); attempt += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    const summary = await feed.stop();
    expect(summary.errors).toEqual([]);
    expect(summary.accepted).toBeGreaterThanOrEqual(2);
    expect(summary.protocol).toBe('native');

    // Read a few seconds apart (a clock of the test's own): the newest point runs live, so the meter grows by exactly that.
    for (const device of live.devices) {
      const [newest] = (await store.listTelemetryPoints({ deviceId: device.id, start: started })).slice(-1);
      expect(newest!.ignition).toBe(true);
      const meterAt = async (seconds: number) =>
        (await createFleetHours({ store, now: () => seconds * 1000 }).meter({ accountId: account.id, deviceId: device.id }))!.engineSeconds;
      expect((await meterAt(newest!.time + 7)) - (await meterAt(newest!.time + 2))).toBe(5);
    }
  });
});
