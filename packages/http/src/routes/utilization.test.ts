/**
 * D59 and D60 over the API: the day fields of every daily entry (single and fleet), and the
 * utilization routes, through `app.request()` on the fixture's memory store.
 */
import { describe, expect, it } from 'vitest';
import { createFixture, type Fixture } from '../testing/fixture.js';

interface ErrorJson {
  error: { status: number; code: string; message: string };
}
type Entry = Record<string, unknown> & { date: string; engine_seconds: number };
interface Daily {
  device_id: number;
  timezone: string;
  from: string;
  to: string;
  data: Entry[];
}

const SHIFT = [['07:00', '17:00']];
const CALENDAR = {
  weekly: { mon: SHIFT, tue: SHIFT, wed: SHIFT, thu: SHIFT, fri: SHIFT, sat: [['07:00', '12:00']], sun: [] },
  exceptions: [],
};
const NIGHTS = { weekly: { mon: [], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [['22:00', '02:00']] }, exceptions: [] };
const MARCH = 'from=2026-03-07&to=2026-03-10';

async function json<T>(response: Response, status = 200): Promise<T> {
  expect(response.status).toBe(status);
  return (await response.json()) as T;
}

const get = (fixture: Fixture, path: string) => fixture.request(path, fixture.keys.acme.key);

async function putCalendar(fixture: Fixture, path: string, calendar: unknown) {
  const response = await fixture.request(path, fixture.keys.acmeManage.key, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(calendar),
  });
  expect(response.status).toBe(200);
}

/** The 400 of a bad parameter: `invalid_parameter`, and the parameter it names in its message. */
async function refusal(response: Response) {
  const { error } = await json<ErrorJson>(response, 400);
  expect(error.code).toBe('invalid_parameter');
  return error.message;
}

describe('day fields in the daily series (D59)', () => {
  it('D59: without a calendar, each day has its true length (23 h on the spring DST day), nothing scheduled, every engine second outside', async () => {
    const fixture = await createFixture();
    const daily = await json<Daily>(await get(fixture, `/api/v1/devices/${fixture.devices.newYork.id}/hours/daily?${MARCH}`));
    expect(daily.data).toEqual([
      {
        ...{ date: '2026-03-07', engine_seconds: 86_400, moving_seconds: 82_800, idle_seconds: 3600, day_seconds: 86_400 },
        ...{ scheduled_seconds: 0, engine_in_schedule_seconds: 0, engine_outside_schedule_seconds: 86_400 },
        // The engine runs on into the next day: its last off is the next day's first instant.
        ...{ first_engine_on: '2026-03-07T00:00:00-05:00', last_engine_off: '2026-03-08T00:00:00-05:00' },
      },
      {
        ...{ date: '2026-03-08', engine_seconds: 82_800, moving_seconds: 79_200, idle_seconds: 3600, day_seconds: 82_800 },
        ...{ scheduled_seconds: 0, engine_in_schedule_seconds: 0, engine_outside_schedule_seconds: 82_800 },
        ...{ first_engine_on: '2026-03-08T00:00:00-05:00', last_engine_off: '2026-03-09T00:00:00-04:00' },
      },
      {
        ...{ date: '2026-03-09', engine_seconds: 86_400, moving_seconds: 82_800, idle_seconds: 3600, day_seconds: 86_400 },
        ...{ scheduled_seconds: 0, engine_in_schedule_seconds: 0, engine_outside_schedule_seconds: 86_400 },
        ...{ first_engine_on: '2026-03-09T00:00:00-04:00', last_engine_off: '2026-03-10T00:00:00-04:00' },
      },
      {
        ...{ date: '2026-03-10', engine_seconds: 0, moving_seconds: 0, idle_seconds: 0, day_seconds: 86_400 },
        ...{ scheduled_seconds: 0, engine_in_schedule_seconds: 0, engine_outside_schedule_seconds: 0 },
        ...{ first_engine_on: null, last_engine_off: null },
      },
    ]);
  });

  it("D58, D59: the account's default calendar serves a device without its own; a device's own replaces it; in + outside = engine", async () => {
    const fixture = await createFixture();
    const path = `/api/v1/devices/${fixture.devices.newYork.id}/hours/daily?${MARCH}`;
    await putCalendar(fixture, '/api/v1/calendar', CALENDAR);
    const fields = (entry: Entry) => [
      entry.date,
      entry.scheduled_seconds,
      entry.engine_in_schedule_seconds,
      entry.engine_outside_schedule_seconds,
    ];
    const byDefault = await json<Daily>(await get(fixture, path));
    expect(byDefault.data.map(fields)).toEqual([
      ['2026-03-07', 5 * 3600, 5 * 3600, 86_400 - 5 * 3600], // Saturday 07:00–12:00
      ['2026-03-08', 0, 0, 82_800], // Sunday: none
      ['2026-03-09', 36_000, 36_000, 86_400 - 36_000],
      ['2026-03-10', 36_000, 0, 0], // scheduled, the engine off
    ]);
    await putCalendar(fixture, `/api/v1/devices/${fixture.devices.newYork.id}/calendar`, NIGHTS);
    const own = await json<Daily>(await get(fixture, path));
    // Sunday 22:00 to Monday 02:00: 2 h on each day; on the 23-hour day the window keeps its wall-clock meaning.
    expect(own.data.map(fields)).toEqual([
      ['2026-03-07', 0, 0, 86_400],
      ['2026-03-08', 7200, 7200, 82_800 - 7200],
      ['2026-03-09', 7200, 7200, 86_400 - 7200],
      ['2026-03-10', 0, 0, 0],
    ]);
    for (const entry of [...byDefault.data, ...own.data])
      expect(Number(entry.engine_in_schedule_seconds) + Number(entry.engine_outside_schedule_seconds)).toBe(entry.engine_seconds);
    // Another account's default does not reach this device.
    const other = await fixture.request('/api/v1/calendar', fixture.keys.otherManage.key, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(CALENDAR),
    });
    expect(other.status).toBe(200);
    const kathmandu = await json<Daily>(
      await get(fixture, `/api/v1/devices/${fixture.devices.kathmandu.id}/hours/daily?from=2026-06-10&to=2026-06-10`),
    );
    expect(kathmandu.data[0]).toMatchObject({ date: '2026-06-10', scheduled_seconds: 36_000, day_seconds: 86_400 });
  });

  it('D22, D59: a run still on now counts up to now, and its day has no last engine off yet', async () => {
    const fixture = await createFixture();
    const now = Math.floor(fixture.now() / 1000);
    await fixture.store.importSegments({
      deviceId: fixture.devices.idle.id,
      segments: [{ startedAt: now - 7200, endedAt: null, state: 'idle' }],
    });
    const daily = await json<Daily>(await get(fixture, `/api/v1/devices/${fixture.devices.idle.id}/hours/daily?from=2026-12-01`));
    expect(daily.data).toEqual([
      {
        ...{ date: '2026-12-01', engine_seconds: 7200, moving_seconds: 0, idle_seconds: 7200, day_seconds: 86_400 },
        ...{ scheduled_seconds: 0, engine_in_schedule_seconds: 0, engine_outside_schedule_seconds: 7200 },
        ...{ first_engine_on: '2026-12-01T11:00:15+01:00', last_engine_off: null },
      },
    ]);
  });

  it('D32, D59: each element of the fleet daily page is the single daily body, calendars included', async () => {
    const fixture = await createFixture();
    await putCalendar(fixture, '/api/v1/calendar', CALENDAR);
    await putCalendar(fixture, `/api/v1/devices/${fixture.devices.kathmandu.id}/calendar`, NIGHTS);
    const page = await json<{ data: Daily[]; next_cursor: string | null }>(await get(fixture, `/api/v1/hours/daily?${MARCH}&limit=2`));
    const next = await json<{ data: Daily[]; next_cursor: string | null }>(
      await get(fixture, `/api/v1/hours/daily?${MARCH}&limit=2&cursor=${page.next_cursor}`),
    );
    const items = [...page.data, ...next.data];
    expect(items).toHaveLength(3);
    for (const item of items)
      expect(item).toEqual(await json<Daily>(await get(fixture, `/api/v1/devices/${item.device_id}/hours/daily?${MARCH}`)));
    expect(items[0]!.data[2]).toMatchObject({ date: '2026-03-09', scheduled_seconds: 36_000 });
  });
});

interface Utilization {
  device_id: number;
  timezone: string;
  from: string;
  to: string;
  group_by: string;
  data: Record<string, unknown>[];
}

describe('utilization (D60)', () => {
  it('D60: by ISO week, the periods cut by the window are partial; utilization and idle share unrounded, null without a divisor', async () => {
    const fixture = await createFixture();
    await putCalendar(fixture, '/api/v1/calendar', CALENDAR);
    const body = await json<Utilization>(
      await get(fixture, `/api/v1/devices/${fixture.devices.newYork.id}/utilization?${MARCH}&group_by=week`),
    );
    expect(body).toEqual({
      device_id: fixture.devices.newYork.id,
      timezone: 'America/New_York',
      from: '2026-03-07T00:00:00-05:00',
      to: '2026-03-10T23:59:59-04:00',
      group_by: 'week',
      data: [
        {
          ...{
            period: '2026-W10',
            from: '2026-03-07',
            to: '2026-03-08',
            engine_seconds: 169_200,
            moving_seconds: 162_000,
            idle_seconds: 7200,
          },
          ...{ scheduled_seconds: 18_000, engine_in_schedule_seconds: 18_000, engine_outside_schedule_seconds: 151_200, days_used: 2 },
          ...{ utilization: 1, idle_share: 7200 / 169_200 },
        },
        {
          ...{
            period: '2026-W11',
            from: '2026-03-09',
            to: '2026-03-10',
            engine_seconds: 86_400,
            moving_seconds: 82_800,
            idle_seconds: 3600,
          },
          ...{ scheduled_seconds: 72_000, engine_in_schedule_seconds: 36_000, engine_outside_schedule_seconds: 50_400, days_used: 1 },
          ...{ utilization: 0.5, idle_share: 3600 / 86_400 },
        },
      ],
    });
    const idle = await json<Utilization>(
      await get(fixture, `/api/v1/devices/${fixture.devices.idle.id}/utilization?${MARCH}&group_by=month`),
    );
    expect(idle.data).toEqual([
      {
        ...{ period: '2026-03', from: '2026-03-07', to: '2026-03-10', engine_seconds: 0, moving_seconds: 0, idle_seconds: 0 },
        ...{ scheduled_seconds: 5 * 3600 + 72_000, engine_in_schedule_seconds: 0, engine_outside_schedule_seconds: 0, days_used: 0 },
        ...{ utilization: 0, idle_share: null },
      },
    ]);
    // P130: without group_by, by day, one period per date of the daily series.
    const days = await json<Utilization>(await get(fixture, `/api/v1/devices/${fixture.devices.newYork.id}/utilization?${MARCH}`));
    expect(days.group_by).toBe('day');
    expect(days.data.map((period) => period.period)).toEqual(['2026-03-07', '2026-03-08', '2026-03-09', '2026-03-10']);
  });

  it('D60, D32: the fleet by device is a page of the single bodies, walked with its cursor', async () => {
    const fixture = await createFixture();
    const first = await json<{ data: Utilization[]; next_cursor: string }>(
      await get(fixture, `/api/v1/utilization?${MARCH}&group_by=week&limit=2`),
    );
    const second = await json<{ data: Utilization[]; next_cursor: null }>(
      await get(fixture, `/api/v1/utilization?${MARCH}&group_by=week&limit=2&by=device&cursor=${first.next_cursor}`),
    );
    expect(second.next_cursor).toBeNull();
    const items = [...first.data, ...second.data];
    expect(items.map((item) => item.device_id)).toEqual([
      fixture.devices.newYork.id,
      fixture.devices.kathmandu.id,
      fixture.devices.idle.id,
    ]);
    for (const item of items)
      expect(item).toEqual(
        await json<Utilization>(await get(fixture, `/api/v1/devices/${item.device_id}/utilization?${MARCH}&group_by=week`)),
      );
    // A cursor of the daily series is not one of this endpoint.
    const daily = await json<{ next_cursor: string }>(await get(fixture, `/api/v1/hours/daily?${MARCH}&limit=1`));
    expect(await refusal(await get(fixture, `/api/v1/utilization?cursor=${daily.next_cursor}`))).toContain('cursor');
  });

  it('D60, D61, P131: by tag, one element per tag in code-point order with device_count, the days of its devices added up; tag= narrows the scope', async () => {
    const fixture = await createFixture();
    const { newYork, kathmandu } = fixture.devices;
    await fixture.store.updateDevice({ deviceId: newYork.id, changes: { tags: ['north', 'Cranes'] } });
    await fixture.store.updateDevice({ deviceId: kathmandu.id, changes: { tags: ['north'] } });
    const window = 'from=2026-06-09&to=2026-06-16&group_by=month';
    const body = await json<{ data: Record<string, unknown>[]; next_cursor: null }>(
      await get(fixture, `/api/v1/utilization?${window}&by=tag`),
    );
    const single = async (id: number) =>
      (await json<Utilization>(await get(fixture, `/api/v1/devices/${id}/utilization?${window}`))).data[0]!;
    const [ny, ktm] = [await single(newYork.id), await single(kathmandu.id)];
    expect(body.next_cursor).toBeNull();
    expect(body.data.map((element) => [element.tag, element.device_count])).toEqual([
      ['Cranes', 1],
      ['north', 2],
    ]);
    expect(body.data[0]).toEqual({ tag: 'Cranes', device_count: 1, group_by: 'month', data: [ny] });
    const north = (body.data[1]!.data as Record<string, number>[])[0]!;
    expect(north).toMatchObject({
      period: '2026-06',
      engine_seconds: (ny.engine_seconds as number) + (ktm.engine_seconds as number),
      idle_seconds: (ny.idle_seconds as number) + (ktm.idle_seconds as number),
      days_used: (ny.days_used as number) + (ktm.days_used as number),
    });
    const narrowed = await json<{ data: Record<string, unknown>[] }>(await get(fixture, `/api/v1/utilization?${window}&by=tag&tag=Cranes`));
    expect(narrowed.data.map((element) => [element.tag, element.device_count])).toEqual([
      ['Cranes', 1],
      ['north', 1],
    ]);
  });

  it('D60: each refusal is 400 naming its parameter; another account’s device is 404; a key is required', async () => {
    const fixture = await createFixture();
    const device = `/api/v1/devices/${fixture.devices.newYork.id}/utilization`;
    for (const [path, field] of [
      [`${device}?group_by=year`, 'group_by'],
      [`${device}?group_by=week&group_by=day`, 'group_by'],
      [`${device}?from=2026-02-30`, 'from'],
      ['/api/v1/utilization?group_by=Week', 'group_by'],
      ['/api/v1/utilization?by=owner', 'by'],
      ['/api/v1/utilization?by=tag&tag=', 'tag'],
      ['/api/v1/utilization?limit=101', 'limit'],
    ] as const) {
      expect({ path, message: await refusal(await get(fixture, path)) }).toEqual({ path, message: expect.stringContaining(field) });
    }
    expect((await get(fixture, `/api/v1/devices/${fixture.devices.foreign.id}/utilization`)).status).toBe(404);
    expect((await fixture.request(device, null)).status).toBe(401);
  });
});
