import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createFixture } from '../testing/fixture.js';
import { createFleetApp, fleetArbitrary, walkPages } from '../testing/fleet-fixture.js';
import { createServiceFixture } from '../testing/service-fixture.js';

type ErrorBody = { error: { status: number; code: string; message: string } };

describe('GET /api/v1/meter (D32)', () => {
  it('answers { data, next_cursor }: every element the body of /devices/{id}/meter for that device, field for field and in the same order, for random fleets and page sizes', async () => {
    await fc.assert(
      fc.asyncProperty(fleetArbitrary, fc.integer({ min: 1, max: 4 }), async (fleet, limit) => {
        const { get, deviceIds } = await createFleetApp(fleet);
        const texts = await Promise.all(deviceIds.map(async (id) => (await get(`/api/v1/devices/${id}/meter`)).text()));
        const { elements, pages } = await walkPages(get, '/api/v1/meter', `limit=${limit}`);
        expect(elements).toEqual(texts);
        expect(pages).toBe(Math.max(1, Math.ceil(deviceIds.length / limit)));
      }),
      { numRuns: 30 },
    );
  });

  it("shows the fixture's devices with their meters, by ascending id", async () => {
    const { request, keys, devices } = await createFixture();
    const response = await request('/api/v1/meter', keys.acme.key);
    expect(response.status).toBe(200);
    expect(response.headers.get('Content-Type')).toBe('application/json; charset=UTF-8');
    expect(await response.json()).toEqual({
      data: [
        expect.objectContaining({
          device_id: devices.newYork.id,
          timezone: 'America/New_York',
          since: '2026-03-07T00:00:00-05:00',
          as_of: '2026-12-01T07:00:15-05:00',
        }),
        expect.objectContaining({
          device_id: devices.kathmandu.id,
          since: '2026-06-10T00:00:00+05:45',
          engine_seconds: 14_400,
          moving_seconds: 10_800,
          idle_seconds: 3_600,
        }),
        {
          device_id: devices.idle.id,
          timezone: 'Europe/Berlin',
          since: null,
          as_of: '2026-12-01T13:00:15+01:00',
          engine_seconds: 0,
          moving_seconds: 0,
          idle_seconds: 0,
          hour_meter_seconds: 0,
          hour_meter_read_at: null,
        },
      ],
      next_cursor: null,
    });
  });

  it('shows the hour meter of calibrated and uncalibrated devices, as /devices/{id}/meter does (D38)', async () => {
    const { request, keys, devices, hourMeters } = await createServiceFixture();
    const response = await request('/api/v1/meter', keys.acme.key);
    const { data } = (await response.json()) as { data: Record<string, unknown>[] };
    expect(
      data.map((element) => [element.device_id, element.engine_seconds, element.hour_meter_seconds, element.hour_meter_read_at]),
    ).toEqual([
      [devices.newYork.id, 538_200, hourMeters.newYork, '2026-11-01T00:00:00-04:00'],
      [devices.kathmandu.id, 14_400, 14_400, null],
      [devices.idle.id, 0, 1_000_000, '2026-11-30T01:00:00+01:00'],
    ]);
    for (const element of data) {
      const single = await request(`/api/v1/devices/${String(element.device_id)}/meter`, keys.acme.key);
      expect(await single.text()).toBe(JSON.stringify(element));
    }
  });

  it('ignores from and to, and refuses a bad limit or cursor naming it', async () => {
    const { request, keys } = await createFixture();
    expect((await request('/api/v1/meter?from=2026-02-30&to=x', keys.acme.key)).status).toBe(200);
    for (const [query, parameter] of [
      ['limit=501', 'limit'],
      ['limit=1.0', 'limit'],
      ['cursor=%E2%9C%93', 'cursor'],
    ]) {
      const response = await request(`/api/v1/meter?${query}`, keys.acme.key);
      expect(response.status).toBe(400);
      expect(((await response.json()) as ErrorBody).error.message).toContain(parameter!);
    }
  });
});
