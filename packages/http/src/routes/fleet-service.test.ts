import { SERVICE_STATUSES } from '@fleet-hours/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createFleetApp, FLEET_NOW, fleetArbitrary, walkPages } from '../testing/fleet-fixture.js';
import { createServiceFixture } from '../testing/service-fixture.js';

type ErrorBody = { error: { status: number; code: string; message: string } };
type ServicePage = { data: { device_id: number; data: { status: string }[] }[]; next_cursor: string | null };

const DAY = 86_400;

/** Random readings and schedules of one device, around the fleet fixture's now (D38, D39). */
const maintenanceArbitrary = fc.record({
  readings: fc.array(fc.record({ daysAgo: fc.integer({ min: 0, max: 400 }), hours: fc.integer({ min: 0, max: 50_000 }) }), {
    maxLength: 2,
  }),
  schedules: fc.array(
    fc.record({
      hours: fc.integer({ min: 1, max: 2_000 }),
      days: fc.option(fc.integer({ min: 1, max: 400 })),
      dueSoonHours: fc.option(fc.integer({ min: 0, max: 500 })),
      daysAgo: fc.integer({ min: 0, max: 500 }),
      lastDoneHours: fc.option(fc.integer({ min: 0, max: 50_000 })),
    }),
    { maxLength: 3 },
  ),
});

/** A status filter as a client writes it: none, one status, or several separated by commas. */
const statusQueryArbitrary = fc.option(fc.subarray([...SERVICE_STATUSES], { minLength: 1 }).map((statuses) => statuses.join(',')));

describe('GET /api/v1/service (D39, D32)', () => {
  it('answers { data, next_cursor }: every element the body of /devices/{id}/service for that device, and with status only the devices with a schedule in one of them, for random fleets, schedules and page sizes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fleetArbitrary.chain((fleet) =>
          fc.tuple(fc.constant(fleet), fc.array(maintenanceArbitrary, { minLength: fleet.length, maxLength: fleet.length })),
        ),
        fc.integer({ min: 1, max: 4 }),
        statusQueryArbitrary,
        async ([fleet, maintenance], limit, status) => {
          const { get, deviceIds, store } = await createFleetApp(fleet);
          for (const [index, deviceId] of deviceIds.entries()) {
            const { readings, schedules } = maintenance[index]!;
            for (const reading of readings)
              await store.addHourMeterReading({
                deviceId,
                readAt: FLEET_NOW - reading.daysAgo * DAY,
                readingSeconds: reading.hours * 3600,
                now: FLEET_NOW,
              });
            for (const [position, schedule] of schedules.entries()) {
              await store.createServiceSchedule({
                deviceId,
                name: `Schedule ${position}`,
                intervalSeconds: schedule.hours * 3600,
                intervalDays: schedule.days,
                dueSoonSeconds: schedule.dueSoonHours === null ? null : schedule.dueSoonHours * 3600,
                lastDoneAt: FLEET_NOW - schedule.daysAgo * DAY,
                lastDoneHourMeterSeconds: schedule.lastDoneHours === null ? null : schedule.lastDoneHours * 3600,
                now: FLEET_NOW,
              });
            }
          }
          const wanted = status === null ? null : status.split(',');
          const singles = await Promise.all(deviceIds.map(async (id) => (await get(`/api/v1/devices/${id}/service`)).text()));
          const expected = singles.filter(
            (text) =>
              wanted === null ||
              (JSON.parse(text) as ServicePage['data'][number]).data.some((schedule) => wanted.includes(schedule.status)),
          );
          const query = [status === null ? '' : `status=${status}`, `limit=${limit}`].filter(Boolean).join('&');
          const { elements, pages } = await walkPages(get, '/api/v1/service', query);
          expect(elements).toEqual(expected);
          if (wanted === null) expect(pages).toBe(Math.max(1, Math.ceil(deviceIds.length / limit)));
        },
      ),
      { numRuns: 25 },
    );
  });

  it("shows the account's devices with their schedules by ascending id, never another account's", async () => {
    const { request, keys, bodies } = await createServiceFixture();
    const response = await request('/api/v1/service', keys.acme.key);
    expect(response.status).toBe(200);
    expect(response.headers.get('Content-Type')).toBe('application/json; charset=UTF-8');
    expect(await response.text()).toBe(JSON.stringify({ data: [bodies.newYork, bodies.kathmandu, bodies.idle], next_cursor: null }));
  });

  it.each([
    ['overdue', ['newYork']],
    ['due_soon', ['newYork', 'idle']],
    ['ok', ['newYork', 'kathmandu']],
    ['due_soon,overdue', ['newYork', 'idle']],
    ['overdue,ok,overdue', ['newYork', 'kathmandu']],
    ['ok,due_soon,overdue', ['newYork', 'kathmandu', 'idle']],
  ] as const)('with status=%s keeps the devices with a schedule in one of them, each with all its schedules', async (status, names) => {
    const { request, keys, bodies } = await createServiceFixture();
    const response = await request(`/api/v1/service?status=${status}`, keys.acme.key);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ data: names.map((name) => bodies[name]), next_cursor: null });
  });

  it('pages by limit matching devices with a status filter: the cursor is the last device read (D32)', async () => {
    const { request, keys, bodies } = await createServiceFixture();
    const first = (await (await request('/api/v1/service?status=due_soon&limit=1', keys.acme.key)).json()) as ServicePage;
    expect(first).toEqual({ data: [bodies.newYork], next_cursor: expect.stringMatching(/^[A-Za-z0-9_-]+$/) });
    // Truck KTM has nothing due soon: the second page reads on to the spare.
    const second = (await (
      await request(`/api/v1/service?status=due_soon&limit=1&cursor=${first.next_cursor}`, keys.acme.key)
    ).json()) as ServicePage;
    expect(second).toEqual({ data: [bodies.idle], next_cursor: null });
    // Without a filter: one device a page.
    const { elements, pages } = await walkPages(async (path) => request(path, keys.acme.key), '/api/v1/service', 'limit=1');
    expect(pages).toBe(3);
    expect(elements).toEqual([bodies.newYork, bodies.kathmandu, bodies.idle].map((body) => JSON.stringify(body)));
  });

  it.each([
    ['status=late', /Parameter status "late" is not one of ok, due_soon, overdue/],
    ['status=OVERDUE', /status "OVERDUE"/],
    ['status=', /status ""/],
    ['status=overdue,', /status ""/],
    ['status=overdue&status=ok', /status is repeated/],
  ])('answers 400 invalid_parameter naming status for %s', async (query, message) => {
    const { request, keys } = await createServiceFixture();
    const response = await request(`/api/v1/service?${query}`, keys.acme.key);
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as ErrorBody;
    expect(error).toMatchObject({ status: 400, code: 'invalid_parameter' });
    expect(error.message).toMatch(message);
    expect(error.message).toContain('status');
  });

  it('refuses a bad limit or cursor naming it: a cursor of /meter or of another account is no cursor of /service (D32)', async () => {
    const { request, keys } = await createServiceFixture();
    const meterCursor = ((await (await request('/api/v1/meter?limit=1', keys.acme.key)).json()) as ServicePage).next_cursor!;
    const otherCursor = ((await (await request('/api/v1/service?limit=1', keys.acme.key)).json()) as ServicePage).next_cursor!;
    expect(meterCursor).toEqual(expect.any(String));
    for (const [query, parameter, key] of [
      ['limit=0', 'limit', keys.acme.key],
      ['limit=501', 'limit', keys.acme.key],
      ['limit=1&limit=2', 'limit', keys.acme.key],
      [`cursor=${meterCursor}`, 'cursor', keys.acme.key],
      ['cursor=%E2%9C%93', 'cursor', keys.acme.key],
      [`cursor=${otherCursor}`, 'cursor', keys.other.key],
    ]) {
      const response = await request(`/api/v1/service?${query}`, key);
      expect([query, response.status]).toEqual([query, 400]);
      expect(((await response.json()) as ErrorBody).error.message).toContain(parameter);
    }
    expect((await request('/api/v1/service?limit=500', keys.acme.key)).status).toBe(200);
  });

  it('allows 60 requests a minute per key by default, on a budget of its own, and refuses the 61st (D13, D14, D33)', async () => {
    const { request, keys, devices } = await createServiceFixture();
    for (let count = 1; count <= 60; count += 1) {
      const response = await request('/api/v1/service', keys.acme.key);
      expect([response.status, response.headers.get('X-RateLimit-Limit'), response.headers.get('X-RateLimit-Remaining')]).toEqual([
        200,
        '60',
        String(60 - count),
      ]);
    }
    const refused = await request('/api/v1/service?status=overdue', keys.acme.key);
    expect([refused.status, refused.headers.get('Retry-After'), refused.headers.get('X-RateLimit-Reset')]).toEqual([429, '45', '45']);
    expect((await request(`/api/v1/devices/${devices.newYork.id}/service`, keys.acme.key)).headers.get('X-RateLimit-Remaining')).toBe('29');
    expect((await request('/api/v1/meter', keys.acme.key)).headers.get('X-RateLimit-Remaining')).toBe('59');
  });

  it("takes its limit from the app's rateLimits.fleetService, and counts a refused query before it is read (D11, D13)", async () => {
    const { request, keys } = await createServiceFixture({ rateLimits: { fleetService: 2 } });
    const headers = (response: Response) => [
      response.status,
      response.headers.get('X-RateLimit-Limit'),
      response.headers.get('X-RateLimit-Remaining'),
    ];
    expect(headers(await request('/api/v1/service', keys.acme.key))).toEqual([200, '2', '1']);
    // A bad query is counted too (D11: 429 comes before 400).
    expect(headers(await request('/api/v1/service?status=late', keys.acme.key))).toEqual([400, '2', '0']);
    expect(headers(await request('/api/v1/service', keys.acme.key))).toEqual([429, '2', '0']);
    expect(headers(await request('/api/v1/service?status=late', keys.acme.key))).toEqual([429, '2', '0']);
  });
});
