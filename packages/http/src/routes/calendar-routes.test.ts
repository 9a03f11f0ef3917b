import { describe, expect, it } from 'vitest';
import { createFixture } from '../testing/fixture.js';

type Fixture = Awaited<ReturnType<typeof createFixture>>;
interface ErrorJson {
  error: { status: number; code: string; message: string; field?: string; scope?: string };
}

const DAY = [['07:00', '17:00']];
const WEEKLY = { mon: DAY, tue: DAY, wed: DAY, thu: DAY, fri: DAY, sat: [['07:00', '12:00']], sun: [] };
const CALENDAR = {
  weekly: WEEKLY,
  exceptions: [
    { date: '2026-12-25', windows: [] },
    { date: '2026-12-24', windows: [['07:00', '12:00']] },
  ],
};
/** The calendar as answers show it: exceptions by date. */
const SHOWN = { weekly: WEEKLY, exceptions: [CALENDAR.exceptions[1], CALENDAR.exceptions[0]] };
const NIGHTS = { weekly: { ...WEEKLY, fri: [['22:00', '06:00']] }, exceptions: [] };

function send(fixture: Fixture, method: string, path: string, key: string | null, body?: unknown, headers: Record<string, string> = {}) {
  return fixture.request(path, key, {
    method,
    headers: { ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
}

const devicePath = (fixture: Fixture, device: keyof Fixture['devices'] = 'newYork') =>
  `/api/v1/devices/${fixture.devices[device].id}/calendar`;
const manage = (fixture: Fixture) => fixture.keys.acmeManage.key;

async function answer(response: Response, status = 200) {
  expect(response.status).toBe(status);
  return { etag: response.headers.get('ETag'), body: (await response.json()) as Record<string, unknown> };
}

async function refusal(response: Response, status: number) {
  expect(response.status).toBe(status);
  return ((await response.json()) as ErrorJson).error;
}

describe('work calendars over the API (D52, D58, P113)', () => {
  it('D58, P113: a device without a calendar, on an account without a default, shows none in its zone', async () => {
    const fixture = await createFixture();
    expect(await answer(await send(fixture, 'GET', devicePath(fixture), manage(fixture)))).toEqual({
      etag: '"0"',
      body: { source: 'none', timezone: 'America/New_York', weekly: null, exceptions: [], version: 0 },
    });
    expect(await answer(await send(fixture, 'GET', '/api/v1/calendar', manage(fixture)))).toEqual({
      etag: '"0"',
      body: { source: 'none', timezone: null, weekly: null, exceptions: [], version: 0 },
    });
  });

  it("D58, P113: the account's default serves every device without its own; a device's own serves it alone", async () => {
    const fixture = await createFixture();
    expect(await answer(await send(fixture, 'PUT', '/api/v1/calendar', manage(fixture), CALENDAR))).toEqual({
      etag: '"1"',
      body: { source: 'account', timezone: null, ...SHOWN, version: 1 },
    });
    expect((await answer(await send(fixture, 'GET', devicePath(fixture, 'kathmandu'), manage(fixture)))).body).toEqual({
      source: 'account',
      timezone: 'Asia/Kathmandu',
      ...SHOWN,
      version: 0,
    });
    expect(await answer(await send(fixture, 'PUT', devicePath(fixture), manage(fixture), NIGHTS))).toEqual({
      etag: '"1"',
      body: { source: 'device', timezone: 'America/New_York', ...NIGHTS, version: 1 },
    });
    expect((await answer(await send(fixture, 'GET', devicePath(fixture), manage(fixture)))).body).toMatchObject({
      source: 'device',
      ...NIGHTS,
    });
    expect((await answer(await send(fixture, 'GET', devicePath(fixture, 'idle'), manage(fixture)))).body).toMatchObject({
      source: 'account',
      ...SHOWN,
    });
    // HEAD answers the headers of GET.
    const head = await send(fixture, 'HEAD', devicePath(fixture), manage(fixture));
    expect([head.status, head.headers.get('ETag')]).toEqual([200, '"1"']);
  });

  it("P113: PUT null removes the device's own: 200 with the calendar it uses now (the default), the version one more", async () => {
    const fixture = await createFixture();
    await send(fixture, 'PUT', '/api/v1/calendar', manage(fixture), CALENDAR);
    await send(fixture, 'PUT', devicePath(fixture), manage(fixture), NIGHTS);
    expect(await answer(await send(fixture, 'PUT', devicePath(fixture), manage(fixture), null))).toEqual({
      etag: '"2"',
      body: { source: 'account', timezone: 'America/New_York', ...SHOWN, version: 2 },
    });
    // Removing it again changes nothing; removing the default leaves none.
    expect((await answer(await send(fixture, 'PUT', devicePath(fixture), manage(fixture), null))).etag).toBe('"2"');
    expect((await answer(await send(fixture, 'PUT', '/api/v1/calendar', manage(fixture), null))).body).toEqual({
      source: 'none',
      timezone: null,
      weekly: null,
      exceptions: [],
      version: 2,
    });
    expect((await answer(await send(fixture, 'GET', devicePath(fixture), manage(fixture)))).body).toMatchObject({
      source: 'none',
      version: 2,
    });
  });

  it('D54: If-Match: the version read writes, a stale one is 412 and writes nothing; the same calendar again changes nothing', async () => {
    const fixture = await createFixture();
    const first = await answer(await send(fixture, 'PUT', devicePath(fixture), manage(fixture), CALENDAR, { 'If-Match': '"0"' }));
    expect(first.etag).toBe('"1"');
    const stale = await refusal(await send(fixture, 'PUT', devicePath(fixture), manage(fixture), NIGHTS, { 'If-Match': '"0"' }), 412);
    expect(stale.code).toBe('precondition_failed');
    expect((await answer(await send(fixture, 'GET', devicePath(fixture), manage(fixture)))).body).toMatchObject({ ...SHOWN, version: 1 });
    expect((await answer(await send(fixture, 'PUT', devicePath(fixture), manage(fixture), NIGHTS, { 'If-Match': '"1"' }))).etag).toBe(
      '"2"',
    );
    expect((await answer(await send(fixture, 'PUT', devicePath(fixture), manage(fixture), NIGHTS, { 'If-Match': '*' }))).etag).toBe('"2"');
    expect((await refusal(await send(fixture, 'PUT', '/api/v1/calendar', manage(fixture), null, { 'If-Match': '"3"' }), 412)).code).toBe(
      'precondition_failed',
    );
  });

  it('P111: a body sent back as GET shows it is accepted; other read-only values are 400 naming the field', async () => {
    const fixture = await createFixture();
    await send(fixture, 'PUT', devicePath(fixture), manage(fixture), CALENDAR);
    const { body } = await answer(await send(fixture, 'GET', devicePath(fixture), manage(fixture)));
    expect(
      (await answer(await send(fixture, 'PUT', devicePath(fixture), manage(fixture), { ...body, weekly: NIGHTS.weekly }))).body,
    ).toMatchObject({
      weekly: NIGHTS.weekly,
      version: 2,
    });
    for (const [field, value] of [
      ['timezone', 'Europe/Berlin'],
      ['version', 1],
      ['source', 'account'],
    ] as const) {
      const error = await refusal(await send(fixture, 'PUT', devicePath(fixture), manage(fixture), { ...CALENDAR, [field]: value }), 400);
      expect([error.code, error.field]).toEqual(['invalid_field', field]);
    }
    // The default has no zone.
    const zone = await refusal(await send(fixture, 'PUT', '/api/v1/calendar', manage(fixture), { ...CALENDAR, timezone: 'UTC' }), 400);
    expect(zone.field).toBe('timezone');
  });

  it('P111: each refusal of the body is 400 invalid_field naming its path; a body not JSON is invalid_body; nothing is written', async () => {
    const fixture = await createFixture();
    const cases: [unknown, string][] = [
      [{ ...CALENDAR, colour: 'red' }, 'colour'],
      [{ exceptions: [] }, 'weekly'],
      [{ weekly: { ...WEEKLY, sun: undefined } }, 'weekly.sun'],
      [
        {
          weekly: {
            ...WEEKLY,
            mon: [
              ['07:00', '12:00'],
              ['11:00', '12:30'],
            ],
          },
        },
        'weekly.mon[1]',
      ],
      [{ weekly: { ...WEEKLY, tue: [['07:00', '07:00']] } }, 'weekly.tue[0][1]'],
      [{ weekly: { ...WEEKLY, wed: [['24:00', '06:00']] } }, 'weekly.wed[0][0]'],
      [
        {
          weekly: WEEKLY,
          exceptions: [
            { date: '2026-12-25', windows: [] },
            { date: '2026-12-25', windows: [] },
          ],
        },
        'exceptions[1].date',
      ],
      [{ weekly: WEEKLY, exceptions: [{ date: '2026-13-01', windows: [] }] }, 'exceptions[0].date'],
    ];
    for (const [body, field] of cases) {
      for (const path of [devicePath(fixture), '/api/v1/calendar']) {
        const error = await refusal(await send(fixture, 'PUT', path, manage(fixture), body), 400);
        expect([error.code, error.field]).toEqual(['invalid_field', field]);
      }
    }
    expect((await refusal(await send(fixture, 'PUT', devicePath(fixture), manage(fixture), '{"weekly":'), 400)).code).toBe('invalid_body');
    expect((await refusal(await send(fixture, 'PUT', devicePath(fixture), manage(fixture), []), 400)).code).toBe('invalid_body');
    expect(
      (await refusal(await send(fixture, 'PUT', devicePath(fixture), manage(fixture), 'x', { 'Content-Type': 'text/plain' }), 415)).code,
    ).toBe('unsupported_media_type');
    // P71: a bad body is 400 whichever device it names.
    expect((await refusal(await send(fixture, 'PUT', '/api/v1/devices/999999/calendar', manage(fixture), { weekly: [] }), 400)).field).toBe(
      'weekly',
    );
    expect((await answer(await send(fixture, 'GET', devicePath(fixture), manage(fixture)))).body).toMatchObject({
      source: 'none',
      version: 0,
    });
  });

  it("D11: another account's device, or one that does not exist, is 404 as a missing device; a read key is 403 insufficient_scope", async () => {
    const fixture = await createFixture();
    for (const path of [devicePath(fixture, 'foreign'), '/api/v1/devices/999999/calendar', '/api/v1/devices/abc/calendar']) {
      expect((await refusal(await send(fixture, 'GET', path, manage(fixture)), 404)).code).toBe('device_not_found');
      expect((await refusal(await send(fixture, 'PUT', path, manage(fixture), CALENDAR), 404)).code).toBe('device_not_found');
    }
    // The other account's default is its own.
    await send(fixture, 'PUT', '/api/v1/calendar', fixture.keys.otherManage.key, CALENDAR);
    expect((await answer(await send(fixture, 'GET', '/api/v1/calendar', manage(fixture)))).body).toMatchObject({ source: 'none' });
    for (const [method, path] of [
      ['GET', devicePath(fixture)],
      ['PUT', devicePath(fixture)],
      ['GET', '/api/v1/calendar'],
      ['PUT', '/api/v1/calendar'],
    ] as const) {
      const error = await refusal(await send(fixture, method, path, fixture.keys.acme.key, method === 'PUT' ? CALENDAR : undefined), 403);
      expect([error.code, error.scope]).toEqual(['insufficient_scope', 'manage']);
    }
    expect((await refusal(await send(fixture, 'DELETE', devicePath(fixture), manage(fixture)), 405)).code).toBe('method_not_allowed');
  });

  it('D55: every change is audited with the key and request, [before, after] of the fields it changed; no change, no entry', async () => {
    const fixture = await createFixture();
    const key = manage(fixture);
    await send(fixture, 'PUT', devicePath(fixture), key, CALENDAR, { 'X-Request-Id': 'req-set' });
    await send(fixture, 'PUT', devicePath(fixture), key, CALENDAR);
    await send(fixture, 'PUT', devicePath(fixture), key, { ...CALENDAR, exceptions: [] }, { 'X-Request-Id': 'req-change' });
    await send(fixture, 'PUT', devicePath(fixture), key, null, { 'X-Request-Id': 'req-remove' });
    await send(fixture, 'PUT', '/api/v1/calendar', key, NIGHTS, { 'X-Request-Id': 'req-default' });
    const audit = (await (await send(fixture, 'GET', '/api/v1/audit', key)).json()) as { data: Record<string, unknown>[] };
    const id = String(fixture.devices.newYork.id);
    expect(audit.data.map(({ request_id, action, resource, changes }) => ({ request_id, action, resource, changes }))).toEqual([
      {
        request_id: 'req-default',
        action: 'work_calendar.update',
        resource: { type: 'work_calendar', id: 'default' },
        changes: { weekly: [null, NIGHTS.weekly], exceptions: [null, []] },
      },
      {
        request_id: 'req-remove',
        action: 'work_calendar.delete',
        resource: { type: 'work_calendar', id },
        changes: { weekly: [WEEKLY, null], exceptions: [[], null] },
      },
      {
        request_id: 'req-change',
        action: 'work_calendar.update',
        resource: { type: 'work_calendar', id },
        changes: { exceptions: [SHOWN.exceptions, []] },
      },
      {
        request_id: 'req-set',
        action: 'work_calendar.update',
        resource: { type: 'work_calendar', id },
        changes: { weekly: [null, WEEKLY], exceptions: [null, SHOWN.exceptions] },
      },
    ]);
    expect(audit.data[0]!.actor).toMatchObject({ kind: 'api_key' });
  });
});
