import { describe, expect, it } from 'vitest';
import { createFixture } from '../testing/fixture.js';
import { checkFleetPagesMatchDevices, createFleetApp, walkPages } from '../testing/fleet-fixture.js';

type ErrorBody = { error: { status: number; code: string; message: string } };
type Daily = { device_id: number; timezone: string; from: string; to: string; data: { date: string; engine_seconds: number }[] };

describe('GET /api/v1/hours/daily (D32)', () => {
  it('answers { data, next_cursor }: every element the body of /devices/{id}/hours/daily for that device, field for field and in the same order, for random fleets, zones, windows and page sizes', async () => {
    await checkFleetPagesMatchDevices({
      path: '/hours/daily',
      numRuns: 30,
      allRefused: async (response) => {
        expect(response.status).toBe(400);
      },
      // P32: an empty window has no local date.
      refusedElement: (element, deviceId) => expect(JSON.parse(element)).toMatchObject({ device_id: deviceId, data: [] }),
    });
  });

  it('each element adds up to the element of /api/v1/hours for the same device and window (D8)', async () => {
    const { get } = await createFleetApp([
      {
        timeZone: 'America/New_York',
        pieces: [
          { offset: -300 * 24, hours: 40, moving: true },
          { offset: -10, hours: 5, moving: false },
        ],
        openLast: true,
      },
      { timeZone: 'Asia/Kathmandu', pieces: [{ offset: -24 * 7, hours: 30, moving: false }], openLast: false },
    ]);
    for (const query of ['', 'from=2026-01-01&to=2026-12-31', 'from=2025-11-01']) {
      const daily = (await walkPages(get, '/api/v1/hours/daily', query)).elements.map((element) => JSON.parse(element) as Daily);
      const hours = (await walkPages(get, '/api/v1/hours', query)).elements.map(
        (element) => JSON.parse(element) as { from: string; to: string; engine_seconds: number },
      );
      expect(
        daily.map((element) => ({
          from: element.from,
          to: element.to,
          engine_seconds: element.data.reduce((sum, day) => sum + day.engine_seconds, 0),
        })),
      ).toEqual(hours.map(({ from, to, engine_seconds }) => ({ from, to, engine_seconds })));
    }
  });

  it('pages 20 devices by default, at most 100', async () => {
    const { get } = await createFleetApp(Array.from({ length: 21 }, () => ({ timeZone: 'UTC', pieces: [], openLast: false })));
    const first = (await (await get('/api/v1/hours/daily')).json()) as { data: unknown[]; next_cursor: string | null };
    expect(first.data).toHaveLength(20);
    expect(first.next_cursor).not.toBeNull();
    expect(((await (await get('/api/v1/hours/daily?limit=100')).json()) as { data: unknown[]; next_cursor: null }).next_cursor).toBeNull();
    const tooMany = await get('/api/v1/hours/daily?limit=101');
    expect(tooMany.status).toBe(400);
    expect(((await tooMany.json()) as ErrorBody).error.message).toBe(
      'Parameter limit "101" is out of range: give a whole number from 1 to 100',
    );
  });

  it('answers 400 for a bad window like the single-device endpoint (D7), and for a cursor of /api/v1/hours (P33)', async () => {
    const { request, keys } = await createFixture();
    for (const query of ['from=2026-02-30', 'to=2026-03-01&to=2026-03-02', 'from=2026-03-02&to=2026-03-01']) {
      const fleet = await request(`/api/v1/hours/daily?${query}`, keys.acme.key);
      const single = await request(`/api/v1/devices/1/hours/daily?${query}`, keys.acme.key);
      expect([fleet.status, await fleet.text()]).toEqual([400, await single.text()]);
    }
    const cursor = ((await (await request('/api/v1/hours?limit=1', keys.acme.key)).json()) as { next_cursor: string }).next_cursor;
    const response = await request(`/api/v1/hours/daily?cursor=${cursor}`, keys.acme.key);
    expect(((await response.json()) as ErrorBody).error.message).toMatch(
      /^Parameter cursor is a cursor of \/api\/v1\/hours, not of \/api\/v1\/hours\/daily/,
    );
  });

  it("P32: a from after today in some zones gives those devices an empty window, and is 400 only when it is after today in every device's zone", async () => {
    // The fixture's now is 2026-12-01T12:00:15Z: 2 December has begun nowhere among its devices
    // (New York, Kathmandu +05:45, Berlin), so from=2026-12-02 is refused; adding a device in
    // Kiritimati (+14, already 2 December) makes it a fleet with one window and three empty ones.
    const { request, keys, store, accounts, devices } = await createFixture();
    const refused = await request('/api/v1/hours/daily?from=2026-12-02', keys.acme.key);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as ErrorBody).error.message).toBe(
      'Parameter from "2026-12-02" is after today in the zone of every device of the account (the latest is 2026-12-01 in America/New_York)',
    );
    const kiritimati = (await store.createDevice({
      accountId: accounts.acme.id,
      name: 'Line Islands',
      imei: '1',
      model: 'm',
      timeZone: 'Pacific/Kiritimati',
    }))!;
    const response = await request('/api/v1/hours/daily?from=2026-12-02', keys.acme.key);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { data: Daily[] };
    expect(body.data).toEqual([
      {
        device_id: devices.newYork.id,
        timezone: 'America/New_York',
        from: '2026-12-02T00:00:00-05:00',
        to: '2026-12-01T07:00:15-05:00',
        data: [],
      },
      {
        device_id: devices.kathmandu.id,
        timezone: 'Asia/Kathmandu',
        from: '2026-12-02T00:00:00+05:45',
        to: '2026-12-01T17:45:15+05:45',
        data: [],
      },
      {
        device_id: devices.idle.id,
        timezone: 'Europe/Berlin',
        from: '2026-12-02T00:00:00+01:00',
        to: '2026-12-01T13:00:15+01:00',
        data: [],
      },
      {
        device_id: kiritimati.id,
        timezone: 'Pacific/Kiritimati',
        from: '2026-12-02T00:00:00+14:00',
        to: '2026-12-02T02:00:15+14:00',
        data: [
          {
            ...{ date: '2026-12-02', engine_seconds: 0, moving_seconds: 0, idle_seconds: 0, day_seconds: 86_400 },
            ...{ scheduled_seconds: 0, engine_in_schedule_seconds: 0, engine_outside_schedule_seconds: 0 },
            ...{ first_engine_on: null, last_engine_off: null },
          },
        ],
      },
    ]);
  });

  it('counts 60 requests per minute on its own budget (D33)', async () => {
    const { request, keys } = await createFixture({ rateLimits: { fleetDaily: 3 } });
    for (let count = 0; count < 3; count += 1) expect((await request('/api/v1/hours/daily', keys.acme.key)).status).toBe(200);
    const refused = await request('/api/v1/hours/daily', keys.acme.key);
    expect([refused.status, refused.headers.get('X-RateLimit-Limit'), refused.headers.get('Retry-After')]).toEqual([429, '3', '45']);
    expect((await request('/api/v1/hours', keys.acme.key)).headers.get('X-RateLimit-Limit')).toBe('60');
  });
});
