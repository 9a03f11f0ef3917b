import { describe, expect, it } from 'vitest';
import { createFixture } from '../testing/fixture.js';

type Daily = {
  device_id: number;
  timezone: string;
  from: string;
  to: string;
  data: { date: string; engine_seconds: number; moving_seconds: number; idle_seconds: number }[];
};

/** D59: the day fields of a day of a device without a calendar: its length, nothing scheduled, every engine second outside. */
const unscheduled = (day_seconds: number, engine: number, first_engine_on: string | null, last_engine_off: string | null) => ({
  day_seconds,
  scheduled_seconds: 0,
  engine_in_schedule_seconds: 0,
  engine_outside_schedule_seconds: engine,
  first_engine_on,
  last_engine_off,
});

const get = async (fixture: Awaited<ReturnType<typeof createFixture>>, path: string) => {
  const response = await fixture.request(path, fixture.keys.acme.key);
  expect(response.status).toBe(200);
  return response.json() as Promise<Record<string, unknown>>;
};

describe('GET /api/v1/devices/{id}/hours/daily', () => {
  it('answers { device_id, timezone, from, to, data } with one entry per local day, the 23-hour day as one entry (D8)', async () => {
    const fixture = await createFixture();
    const id = fixture.devices.newYork.id;
    expect(await get(fixture, `/api/v1/devices/${id}/hours/daily?from=2026-03-07&to=2026-03-09`)).toEqual({
      device_id: id,
      timezone: 'America/New_York',
      from: '2026-03-07T00:00:00-05:00',
      to: '2026-03-09T23:59:59-04:00',
      data: [
        {
          ...{ date: '2026-03-07', engine_seconds: 86_400, moving_seconds: 82_800, idle_seconds: 3_600 },
          ...unscheduled(86_400, 86_400, '2026-03-07T00:00:00-05:00', '2026-03-08T00:00:00-05:00'),
        },
        {
          ...{ date: '2026-03-08', engine_seconds: 82_800, moving_seconds: 79_200, idle_seconds: 3_600 },
          ...unscheduled(82_800, 82_800, '2026-03-08T00:00:00-05:00', '2026-03-09T00:00:00-04:00'),
        },
        {
          ...{ date: '2026-03-09', engine_seconds: 86_400, moving_seconds: 82_800, idle_seconds: 3_600 },
          ...unscheduled(86_400, 86_400, '2026-03-09T00:00:00-04:00', '2026-03-10T00:00:00-04:00'),
        },
      ],
    });
  });

  it('answers the 25-hour day as one entry of 90 000 s', async () => {
    const fixture = await createFixture();
    const body = (await get(fixture, `/api/v1/devices/${fixture.devices.newYork.id}/hours/daily?from=2026-10-31&to=2026-11-02`)) as Daily;
    expect(body.data.map((entry) => [entry.date, entry.engine_seconds])).toEqual([
      ['2026-10-31', 86_400],
      ['2026-11-01', 90_000],
      ['2026-11-02', 86_400],
    ]);
  });

  it('adds up to /hours for the same window, second for second (D8)', async () => {
    const fixture = await createFixture();
    const id = fixture.devices.newYork.id;
    for (const query of ['?from=2026-03-01&to=2026-03-31', '?from=2026-10-25&to=2026-11-08', '', '?from=2020-01-01&to=2026-11-30']) {
      const daily = (await get(fixture, `/api/v1/devices/${id}/hours/daily${query}`)) as Daily;
      const hours = await get(fixture, `/api/v1/devices/${id}/hours${query}`);
      const sum = (field: 'engine_seconds' | 'moving_seconds' | 'idle_seconds') =>
        daily.data.reduce((total, entry) => total + entry[field], 0);
      expect({
        from: daily.from,
        to: daily.to,
        engine_seconds: sum('engine_seconds'),
        moving_seconds: sum('moving_seconds'),
        idle_seconds: sum('idle_seconds'),
      }).toEqual({
        from: hours.from,
        to: hours.to,
        engine_seconds: hours.engine_seconds,
        moving_seconds: hours.moving_seconds,
        idle_seconds: hours.idle_seconds,
      });
    }
  });

  it('puts an evening shift on the local day it was worked, not split by UTC midnight (spec 7)', async () => {
    const fixture = await createFixture();
    const body = (await get(fixture, `/api/v1/devices/${fixture.devices.newYork.id}/hours/daily?from=2026-06-15&to=2026-06-16`)) as Daily;
    expect(body.data).toEqual([
      {
        ...{ date: '2026-06-15', engine_seconds: 12_600, moving_seconds: 12_600, idle_seconds: 0 },
        ...unscheduled(86_400, 12_600, '2026-06-15T20:00:00-04:00', '2026-06-15T23:30:00-04:00'),
      },
      { date: '2026-06-16', engine_seconds: 0, moving_seconds: 0, idle_seconds: 0, ...unscheduled(86_400, 0, null, null) },
    ]);
  });

  it('buckets by +05:45 local days: Asia/Kathmandu', async () => {
    const fixture = await createFixture();
    const body = (await get(fixture, `/api/v1/devices/${fixture.devices.kathmandu.id}/hours/daily?from=2026-06-10&to=2026-06-11`)) as Daily;
    expect(body).toMatchObject({ from: '2026-06-10T00:00:00+05:45', to: '2026-06-11T23:59:59+05:45', timezone: 'Asia/Kathmandu' });
    expect(body.data).toEqual([
      {
        ...{ date: '2026-06-10', engine_seconds: 7_200, moving_seconds: 7_200, idle_seconds: 0 },
        ...unscheduled(86_400, 7_200, '2026-06-10T00:00:00+05:45', '2026-06-10T02:00:00+05:45'),
      },
      {
        // Idle then moving, touching: one run of the engine.
        ...{ date: '2026-06-11', engine_seconds: 7_200, moving_seconds: 3_600, idle_seconds: 3_600 },
        ...unscheduled(86_400, 7_200, '2026-06-11T01:45:00+05:45', '2026-06-11T03:45:00+05:45'),
      },
    ]);
  });

  it('defaults like /hours: eight local dates from seven days back to today, today counted up to now (D5, P5)', async () => {
    const fixture = await createFixture();
    const body = (await get(fixture, `/api/v1/devices/${fixture.devices.newYork.id}/hours/daily`)) as Daily;
    expect(body.data.map((entry) => entry.date)).toEqual([
      '2026-11-24',
      '2026-11-25',
      '2026-11-26',
      '2026-11-27',
      '2026-11-28',
      '2026-11-29',
      '2026-11-30',
      '2026-12-01',
    ]);
    expect(body.to).toBe('2026-12-01T07:00:15-05:00');
  });

  it('answers 400 for a repeated or impossible parameter, like /hours (D7)', async () => {
    const fixture = await createFixture();
    const id = fixture.devices.newYork.id;
    for (const query of ['?to=2026-03-01&to=2026-03-02', '?from=2025-02-29', '?from=2026-03-02&to=2026-03-01']) {
      const response = await fixture.request(`/api/v1/devices/${id}/hours/daily${query}`, fixture.keys.acme.key);
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('invalid_parameter');
    }
  });
});
