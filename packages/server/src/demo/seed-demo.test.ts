import { createFleetHours, createMemoryStore, parseLocalDate } from '@fleet-hours/core';
import { describe, expect, it } from 'vitest';
import { demoExamples, formatDemoBanner, liveExamples } from './demo-banner.js';
import { DEMO_VEHICLES } from './demo-fleet.js';
import { seedLiveVehicles } from './live-vehicles.js';
import { seedDemo } from './seed-demo.js';

const NOW = Date.UTC(2026, 10, 21, 15, 30) / 1000;

describe('seedDemo()', () => {
  it('creates a business account with the demo fleet and a working key, and a starter account whose key is refused', async () => {
    const store = createMemoryStore();
    const seed = await seedDemo(store, { now: NOW, days: 30 });
    const fleetHours = createFleetHours({ store, now: () => NOW * 1000 });

    const access = await fleetHours.authenticate(`Bearer ${seed.key}`);
    expect(access.ok).toBe(true);
    // D51, D56: the read key reads; the manage key also changes the fleet, so the fleet view can act in the demo.
    expect(await fleetHours.authenticate(`Bearer ${seed.key}`)).toMatchObject({ ok: true, credential: { scope: 'read' } });
    expect(await fleetHours.authenticate(`Bearer ${seed.manageKey}`)).toMatchObject({ ok: true, credential: { scope: 'manage' } });
    const starter = await fleetHours.authenticate(`Bearer ${seed.starterKey}`);
    expect(starter).toMatchObject({ ok: false, denial: { status: 403, code: 'plan_without_api_access' } });

    const devices = await fleetHours.listDevices({ accountId: seed.account.id });
    expect(devices.map((device) => device.timeZone)).toEqual(DEMO_VEHICLES.map((vehicle) => vehicle.timeZone));
    expect(devices.every((device) => device.lastReportedAt === NOW)).toBe(true);

    let total = 0;
    for (const device of devices) {
      const meter = await fleetHours.meter({ accountId: seed.account.id, deviceId: device.id });
      expect(meter!.engineSeconds).toBeGreaterThan(0);
      total += (await store.listSegments({ deviceId: device.id })).length;
    }
    const starterDevices = await store.listDevices({ accountId: seed.starterAccount.id });
    expect(starterDevices).toHaveLength(1);
    total += (await store.listSegments({ deviceId: starterDevices[0]!.id })).length;
    expect(seed.segmentCount).toBe(total);
  });

  it("gives Truck 14 engine time on New York's 25-hour and 23-hour days, across the clock change", async () => {
    const store = createMemoryStore();
    const seed = await seedDemo(store, { now: NOW });
    const fleetHours = createFleetHours({ store, now: () => NOW * 1000 });
    const truck = seed.devices.find((device) => device.name === 'Truck 14')!;
    const query = (date: string) => ({
      accountId: seed.account.id,
      deviceId: truck.id,
      from: parseLocalDate('from', date),
      to: parseLocalDate('to', date),
    });

    const fall = await fleetHours.daily(query('2026-11-01'));
    expect(fall).toMatchObject({ timeZone: 'America/New_York', from: '2026-11-01T00:00:00-04:00', to: '2026-11-01T23:59:59-05:00' });
    expect(fall!.days[0]!.engineSeconds).toBeGreaterThan(0);
    const spring = await fleetHours.daily(query('2026-03-08'));
    expect(spring).toMatchObject({ from: '2026-03-08T00:00:00-05:00', to: '2026-03-08T23:59:59-04:00' });
    expect(spring!.days[0]!.engineSeconds).toBeGreaterThan(0);

    // One shift across the change itself (02:00 local): engine time in the hours before it and after it.
    const segments = await store.listSegments({ deviceId: truck.id });
    const runsBetween = (from: string, to: string) =>
      segments.some((segment) => segment.startedAt < Date.parse(to) / 1000 && (segment.endedAt ?? Infinity) > Date.parse(from) / 1000);
    expect(runsBetween('2026-11-01T00:00:00-04:00', '2026-11-01T01:00:00-05:00')).toBe(true); // to the second 01:00
    expect(runsBetween('2026-11-01T01:00:00-05:00', '2026-11-01T06:00:00-05:00')).toBe(true);
    expect(runsBetween('2026-03-08T00:00:00-05:00', '2026-03-08T03:00:00-04:00')).toBe(true); // to the skipped 02:00
    expect(runsBetween('2026-03-08T03:00:00-04:00', '2026-03-08T07:00:00-04:00')).toBe(true);
  });

  it('prints a banner with the URL, the key and a curl line for every endpoint', async () => {
    const seed = await seedDemo(createMemoryStore(), { now: NOW, days: 30 });
    const examples = demoExamples({ url: 'http://127.0.0.1:8080', seed, now: NOW });
    const banner = formatDemoBanner({ url: 'http://127.0.0.1:8080', seed, examples, dataDir: null });
    expect(banner).toContain('Fleet Hours demo is serving at http://127.0.0.1:8080');
    expect(banner).toContain(`API key   ${seed.key}`);
    expect(banner).toContain(`Manage    ${seed.manageKey}`);
    for (const path of [
      '/api/v1/devices"',
      '/hours"',
      '/hours/daily?from=',
      '/hours?from=',
      '/meter"',
      '/service?status=due_soon,overdue"',
    ]) {
      expect(
        examples.some((example) => example.command.includes(path)),
        path,
      ).toBe(true);
    }
    expect(examples.find((example) => example.title.includes('New York'))?.command).toContain('from=2026-10-29&to=2026-11-04');
    expect(examples.find((example) => example.title.includes('403'))?.command).toContain(seed.starterKey);
    expect(banner).toContain('every run starts fresh');
  });

  it('prints the live vehicles, the ingest token, a curl that sends a point and an OsmAnd URL', async () => {
    const store = createMemoryStore();
    const seed = await seedDemo(store, { now: NOW, days: 3 });
    const live = await seedLiveVehicles(store, { account: seed.account, now: NOW, days: 1 });
    const url = 'http://127.0.0.1:8080';
    const examples = liveExamples({ url, key: seed.key, live, now: NOW });
    const banner = formatDemoBanner({
      url,
      seed,
      examples: demoExamples({ url, seed, now: NOW }),
      dataDir: null,
      live: { seed: live, examples },
    });
    expect(banner).toContain(`Ingest    ${live.ingestToken}`);
    expect(banner).toMatch(/Live\s+Courier van L-1 \(device \d+, IMEI 356307042441062\) and Tow truck L-2/);
    expect(banner).toContain(
      `curl -s -X POST -H "Authorization: Bearer ${live.ingestToken}" -H "Content-Type: application/x-ndjson" --data-binary '{"imei":"356307042441062","time":"2026-11-21T15:30:00Z","ignition":true,"speed_kmh":42}' "${url}/ingest/v1/telemetry"`,
    );
    expect(banner).toContain(`curl -s -H "Authorization: Bearer ${seed.key}" "${url}/api/v1/devices/${live.devices[0]!.id}/meter"`);
    expect(banner).toContain(`"${url}/ingest/osmand/${live.ingestToken}?id=861585040812392&lat=52.52&lon=13.405&speed=0&ignition=true"`);
  });
});
