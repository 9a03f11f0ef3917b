import { describe, expect, it } from 'vitest';
import type { ChangeReport } from '@fleet-hours/core';
import { createFixture, type Fixture } from '../testing/fixture.js';

const JSON_TYPE = { 'Content-Type': 'application/json' };
const HOUR = 3600;

/** A fixture whose change log is kept in a list (D55). */
async function fixtureWithLog(options: Parameters<typeof createFixture>[0] = {}) {
  const changes: ChangeReport[] = [];
  const fixture = await createFixture({ ...options, changeLog: { record: async (change) => void changes.push(change) } });
  return { fixture, changes };
}

function send(fixture: Fixture, method: string, path: string, key: string, body?: unknown, headers: Record<string, string> = {}) {
  return fixture.request(path, key, {
    method,
    headers: body === undefined ? headers : { ...JSON_TYPE, ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
}

async function errorOf(response: Response): Promise<{ status: number; code: string; field?: string }> {
  const body = (await response.json()) as { error: { code: string; field?: string } };
  return { status: response.status, code: body.error.code, ...(body.error.field === undefined ? {} : { field: body.error.field }) };
}

const readingsPath = (deviceId: number | string) => `/api/v1/devices/${deviceId}/hour-meter/readings`;
const schedulesPath = (deviceId: number | string) => `/api/v1/devices/${deviceId}/service/schedules`;

describe('hour-meter readings over HTTP (D38, D52, P76)', () => {
  it('POST records a reading: 201 with the hour meter it gives now, Location and ETag; GET lists them newest first', async () => {
    const { fixture, changes } = await fixtureWithLog();
    const { newYork } = fixture.devices;
    const key = fixture.keys.acmeManage.key;
    const first = await send(fixture, 'POST', readingsPath(newYork.id), key, {
      read_at: '2026-11-20T07:00:00-05:00',
      reading_seconds: 1000 * HOUR,
    });
    expect(first.status).toBe(201);
    const reading = (await first.json()) as Record<string, unknown>;
    expect(reading).toEqual({
      id: expect.any(Number),
      device_id: newYork.id,
      read_at: '2026-11-20T07:00:00-05:00',
      reading_seconds: 1000 * HOUR,
      source: 'manual',
      recorded_at: expect.stringMatching(/^2026-12-01T07:00:15-05:00$/),
      version: expect.stringMatching(/^r-[0-9a-f]{16}$/),
      // The fixture's truck moved 2 h on 28 November, after the reading.
      hour_meter_seconds: 1002 * HOUR,
      hour_meter_read_at: '2026-11-20T07:00:00-05:00',
    });
    expect(first.headers.get('ETag')).toBe(`"${reading.version}"`);
    expect(first.headers.get('Location')).toBe(`${readingsPath(newYork.id)}/${reading.id}`);
    // The meter agrees (D38).
    const meter = (await (await fixture.request(`/api/v1/devices/${newYork.id}/meter`, fixture.keys.acme.key)).json()) as Record<
      string,
      unknown
    >;
    expect(meter.hour_meter_seconds).toBe(1002 * HOUR);

    await send(fixture, 'POST', readingsPath(newYork.id), key, {
      read_at: '2026-11-25T07:00:00-05:00',
      reading_seconds: 1100 * HOUR,
      source: 'manual',
    });
    const list = await send(fixture, 'GET', readingsPath(newYork.id), key);
    expect(list.status).toBe(200);
    const page = (await list.json()) as { data: { read_at: string }[]; next_cursor: string | null };
    expect(page.data.map((each) => each.read_at)).toEqual(['2026-11-25T07:00:00-05:00', '2026-11-20T07:00:00-05:00']);
    expect(page.next_cursor).toBeNull();
    // A page at a time.
    const one = (await (await send(fixture, 'GET', `${readingsPath(newYork.id)}?limit=1`, key)).json()) as typeof page;
    expect(one.data.map((each) => each.read_at)).toEqual(['2026-11-25T07:00:00-05:00']);
    const next = (await (
      await send(fixture, 'GET', `${readingsPath(newYork.id)}?limit=1&cursor=${one.next_cursor}`, key)
    ).json()) as typeof page;
    expect([next.data.map((each) => each.read_at), next.next_cursor]).toEqual([['2026-11-20T07:00:00-05:00'], null]);
    expect(await errorOf(await send(fixture, 'GET', `${readingsPath(newYork.id)}?limit=501`, key))).toEqual({
      status: 400,
      code: 'invalid_parameter',
    });
    expect(await errorOf(await send(fixture, 'GET', `${readingsPath(newYork.id)}?cursor=nope`, key))).toEqual({
      status: 400,
      code: 'invalid_parameter',
    });

    // D55: each write reported with the key and the request.
    expect(changes.map((change) => change.action)).toEqual(['hour_meter_reading.create', 'hour_meter_reading.create']);
    expect(changes[0]).toMatchObject({
      accountId: fixture.accounts.acme.id,
      origin: { actor: { kind: 'api_key', fingerprintPrefix: expect.stringMatching(/^[0-9a-f]{8}$/) }, requestId: expect.any(String) },
      resource: { type: 'hour_meter_reading', id: String(reading.id) },
      before: null,
      after: { reading_seconds: 1000 * HOUR },
    });
  });

  it('refuses bad fields with 400 invalid_field naming the field (D50), before the device is looked up (P71)', async () => {
    const { fixture, changes } = await fixtureWithLog();
    const key = fixture.keys.acmeManage.key;
    const path = readingsPath(fixture.devices.newYork.id);
    const cases: [unknown, string][] = [
      [{ reading_seconds: 10, colour: 'red' }, 'colour'],
      [{ read_at: '2026-11-20T07:00:00Z' }, 'reading_seconds'],
      [{ reading_seconds: -1 }, 'reading_seconds'],
      [{ reading_seconds: 1.5 }, 'reading_seconds'],
      [{ reading_seconds: '10' }, 'reading_seconds'],
      [{ reading_seconds: 10, read_at: '2026-11-20T07:00:00' }, 'read_at'],
      [{ reading_seconds: 10, read_at: '0001-01-01T00:00:00Z' }, 'read_at'],
      [{ reading_seconds: 10, read_at: '2027-01-01T00:00:00Z' }, 'read_at'],
      [{ reading_seconds: 10, source: 'aemp:1' }, 'source'],
    ];
    for (const [body, field] of cases) {
      expect(await errorOf(await send(fixture, 'POST', path, key, body)), JSON.stringify(body)).toEqual({
        status: 400,
        code: 'invalid_field',
        field,
      });
      // The same body on a device that is not there: still the field first.
      expect((await errorOf(await send(fixture, 'POST', readingsPath(999), key, body))).field).toBe(field);
    }
    expect(await errorOf(await send(fixture, 'POST', path, key, '[1]'))).toEqual({ status: 400, code: 'invalid_body' });
    expect(await errorOf(await send(fixture, 'POST', path, key, '{"reading'))).toEqual({ status: 400, code: 'invalid_body' });
    expect((await fixture.request(path, key, { method: 'POST', body: '{}' })).status).toBe(415);
    expect(await fixture.store.listHourMeterReadings({ deviceIds: [fixture.devices.newYork.id] })).toEqual([]);
    expect(changes).toEqual([]);
  });

  it("another account's device or reading, and ids that are no ids, are 404 as a missing device (D11); a read key is 403", async () => {
    const fixture = await createFixture();
    const key = fixture.keys.acmeManage.key;
    const foreignReading = await fixture.store.addHourMeterReading({
      deviceId: fixture.devices.foreign.id,
      readAt: 1_700_000_000,
      readingSeconds: 5,
      now: 1_700_000_000,
    });
    const missing = { error: { status: 404, code: 'device_not_found', message: 'No such device on this account' } };
    for (const path of [readingsPath(fixture.devices.foreign.id), readingsPath('07'), readingsPath(999)]) {
      expect(await (await send(fixture, 'POST', path, key, { reading_seconds: 10 })).json()).toEqual(missing);
      expect(await (await send(fixture, 'GET', path, key)).json()).toEqual(missing);
    }
    for (const path of [
      `${readingsPath(fixture.devices.foreign.id)}/${foreignReading!.id}`,
      `${readingsPath(fixture.devices.newYork.id)}/${foreignReading!.id}`,
      `${readingsPath(fixture.devices.newYork.id)}/x`,
    ]) {
      const response = await send(fixture, 'DELETE', path, key);
      expect([response.status, await response.json()]).toEqual([404, missing]);
    }
    expect(await fixture.store.listHourMeterReadings({ deviceIds: [fixture.devices.foreign.id] })).toHaveLength(1);
    const read = await send(fixture, 'POST', readingsPath(fixture.devices.newYork.id), fixture.keys.acme.key, { reading_seconds: 10 });
    expect(await read.json()).toEqual({ error: { status: 403, code: 'insufficient_scope', message: expect.any(String), scope: 'manage' } });
    expect((await send(fixture, 'GET', readingsPath(fixture.devices.newYork.id), fixture.keys.acme.key)).status).toBe(403);
  });

  it('DELETE removes a reading: 204; with a stale If-Match 412 precondition_failed and nothing removed (D54)', async () => {
    const { fixture, changes } = await fixtureWithLog();
    const key = fixture.keys.acmeManage.key;
    const path = readingsPath(fixture.devices.newYork.id);
    const created = await send(fixture, 'POST', path, key, { read_at: '2026-11-20T07:00:00-05:00', reading_seconds: 10 });
    const { id } = (await created.json()) as { id: number };
    const tag = created.headers.get('ETag')!;
    // The same instant again replaces the value (same id, new version): the old tag is stale.
    const replaced = await send(fixture, 'POST', path, key, { read_at: '2026-11-20T12:00:00Z', reading_seconds: 20 });
    expect(((await replaced.json()) as { id: number }).id).toBe(id);
    expect(replaced.headers.get('ETag')).not.toBe(tag);
    expect(await errorOf(await send(fixture, 'DELETE', `${path}/${id}`, key, undefined, { 'If-Match': tag }))).toEqual({
      status: 412,
      code: 'precondition_failed',
    });
    expect(await fixture.store.listHourMeterReadings({ deviceIds: [fixture.devices.newYork.id] })).toHaveLength(1);
    const removed = await send(fixture, 'DELETE', `${path}/${id}`, key, undefined, { 'If-Match': replaced.headers.get('ETag')! });
    expect([removed.status, await removed.text()]).toEqual([204, '']);
    expect(await fixture.store.listHourMeterReadings({ deviceIds: [fixture.devices.newYork.id] })).toEqual([]);
    expect((await send(fixture, 'DELETE', `${path}/${id}`, key)).status).toBe(404);
    expect(changes.map((change) => change.action)).toEqual([
      'hour_meter_reading.create',
      'hour_meter_reading.update',
      'hour_meter_reading.delete',
    ]);
    expect(changes[2]).toMatchObject({ before: { reading_seconds: 20 }, after: null });
  });
});

describe('service schedules over HTTP (D39, D52, P76–P78)', () => {
  const OIL = { name: 'Engine oil', interval_seconds: 250 * HOUR, interval_days: 180 };

  it('POST creates a schedule: 201, the schedule as /service shows it with its version, Location and ETag', async () => {
    const { fixture, changes } = await fixtureWithLog();
    const { newYork } = fixture.devices;
    const response = await send(fixture, 'POST', schedulesPath(newYork.id), fixture.keys.acmeManage.key, { ...OIL, name: ' Engine oil ' });
    expect(response.status).toBe(201);
    const body = (await response.json()) as Record<string, unknown>;
    const service = (await (await fixture.request(`/api/v1/devices/${newYork.id}/service`, fixture.keys.acme.key)).json()) as {
      data: Record<string, unknown>[];
    };
    // P101: /service shows the schedule with the version its write answers.
    expect(body).toEqual(service.data[0]);
    expect(body.version).toMatch(/^s-[0-9a-f]{16}$/);
    expect(body).toMatchObject({
      name: 'Engine oil',
      interval_seconds: 250 * HOUR,
      due_soon_seconds: 25 * HOUR,
      due_soon_days: 18,
      status: 'ok',
    });
    expect(response.headers.get('ETag')).toBe(`"${body.version}"`);
    expect(response.headers.get('Location')).toBe(`${schedulesPath(newYork.id)}/${body.id}`);
    expect(changes).toMatchObject([
      { action: 'service_schedule.create', resource: { type: 'service_schedule', id: String(body.id) }, before: null },
    ]);
  });

  it('P78: 409 conflict for a name the device already has (also on a rename); another device may have it', async () => {
    const fixture = await createFixture();
    const key = fixture.keys.acmeManage.key;
    const { newYork, kathmandu } = fixture.devices;
    await send(fixture, 'POST', schedulesPath(newYork.id), key, OIL);
    expect(await errorOf(await send(fixture, 'POST', schedulesPath(newYork.id), key, { ...OIL, name: 'ENGINE OIL ' }))).toEqual({
      status: 409,
      code: 'conflict',
    });
    expect((await send(fixture, 'POST', schedulesPath(kathmandu.id), key, OIL)).status).toBe(201);
    const tyres = (await (
      await send(fixture, 'POST', schedulesPath(newYork.id), key, { name: 'Tyres', interval_seconds: 500 * HOUR })
    ).json()) as {
      id: number;
    };
    expect(await errorOf(await send(fixture, 'PATCH', `${schedulesPath(newYork.id)}/${tyres.id}`, key, { name: 'Engine oil' }))).toEqual({
      status: 409,
      code: 'conflict',
    });
    // Its own name again is no conflict.
    expect((await send(fixture, 'PATCH', `${schedulesPath(newYork.id)}/${tyres.id}`, key, { name: 'Tyres' })).status).toBe(200);
  });

  it('refuses bad fields with 400 invalid_field naming the field, before the device or schedule is looked up (P71)', async () => {
    const fixture = await createFixture();
    const key = fixture.keys.acmeManage.key;
    const cases: [unknown, string][] = [
      [{ ...OIL, colour: 'red' }, 'colour'],
      [{ interval_seconds: 10 }, 'name'],
      [{ name: 'Oil' }, 'interval_seconds'],
      [{ ...OIL, name: 'Oil\u202e' }, 'name'],
      [{ ...OIL, name: '   ' }, 'name'],
      [{ ...OIL, interval_seconds: 0 }, 'interval_seconds'],
      [{ ...OIL, interval_days: 'often' }, 'interval_days'],
      [{ ...OIL, due_soon_seconds: 300 * HOUR }, 'due_soon_seconds'],
      [{ name: 'Oil', interval_seconds: 10, due_soon_days: 3 }, 'due_soon_days'],
      [{ ...OIL, last_done_at: '2027-01-01T00:00:00Z' }, 'last_done_at'],
      [{ ...OIL, last_done_at: '9999-12-31T12:00:00Z' }, 'last_done_at'],
      [{ ...OIL, last_done_hour_meter_seconds: 10 }, 'last_done_hour_meter_seconds'],
    ];
    for (const [body, field] of cases) {
      for (const path of [schedulesPath(fixture.devices.newYork.id), schedulesPath(fixture.devices.foreign.id), schedulesPath('x')]) {
        expect(await errorOf(await send(fixture, 'POST', path, key, body)), `${path} ${JSON.stringify(body)}`).toEqual({
          status: 400,
          code: 'invalid_field',
          field,
        });
      }
    }
    const created = (await (await send(fixture, 'POST', schedulesPath(fixture.devices.newYork.id), key, OIL)).json()) as { id: number };
    for (const path of [`${schedulesPath(fixture.devices.newYork.id)}/${created.id}`, `${schedulesPath(fixture.devices.newYork.id)}/999`]) {
      expect(await errorOf(await send(fixture, 'PATCH', path, key, { interval_seconds: -5 }))).toEqual({
        status: 400,
        code: 'invalid_field',
        field: 'interval_seconds',
      });
      expect(await errorOf(await send(fixture, 'PATCH', path, key, {}))).toEqual({ status: 400, code: 'invalid_body' });
      expect(await errorOf(await send(fixture, 'POST', `${path}/done`, key, { done_at: 'yesterday' }))).toEqual({
        status: 400,
        code: 'invalid_field',
        field: 'done_at',
      });
      expect(await errorOf(await send(fixture, 'POST', `${path}/done`, key, { hour_meter_seconds: -1 }))).toEqual({
        status: 400,
        code: 'invalid_field',
        field: 'hour_meter_seconds',
      });
    }
  });

  it('PATCH changes the fields given; null removes the calendar interval and its margin; If-Match stale is 412 (D54)', async () => {
    const { fixture, changes } = await fixtureWithLog();
    const key = fixture.keys.acmeManage.key;
    const created = await send(fixture, 'POST', schedulesPath(fixture.devices.newYork.id), key, { ...OIL, due_soon_days: 10 });
    const { id } = (await created.json()) as { id: number };
    const path = `${schedulesPath(fixture.devices.newYork.id)}/${id}`;
    const tag = created.headers.get('ETag')!;
    const changed = await send(fixture, 'PATCH', path, key, { interval_days: null, due_soon_seconds: 5 * HOUR }, { 'If-Match': tag });
    expect(changed.status).toBe(200);
    expect(await changed.json()).toMatchObject({ interval_days: null, due_soon_days: null, due_soon_seconds: 5 * HOUR, due_date: null });
    expect(changed.headers.get('ETag')).not.toBe(tag);
    // The tag read before the change is stale now: 412, and nothing changes.
    expect(await errorOf(await send(fixture, 'PATCH', path, key, { name: 'Late' }, { 'If-Match': tag }))).toEqual({
      status: 412,
      code: 'precondition_failed',
    });
    expect(await errorOf(await send(fixture, 'DELETE', path, key, undefined, { 'If-Match': tag }))).toEqual({
      status: 412,
      code: 'precondition_failed',
    });
    expect((await fixture.store.findServiceSchedule({ scheduleId: id }))?.name).toBe('Engine oil');
    expect((await send(fixture, 'PATCH', path, key, { name: 'Oil' }, { 'If-Match': `"x", ${changed.headers.get('ETag')}` })).status).toBe(
      200,
    );
    expect(changes.at(-1)).toMatchObject({ action: 'service_schedule.update', before: { name: 'Engine oil' }, after: { name: 'Oil' } });
  });

  it('P101: /devices/{id}/service and /api/v1/service show each schedule with the version its writes answer and compare', async () => {
    const fixture = await createFixture();
    const key = fixture.keys.acmeManage.key;
    const { newYork } = fixture.devices;
    const created = await send(fixture, 'POST', schedulesPath(newYork.id), key, OIL);
    const { id } = (await created.json()) as { id: number };
    const path = `${schedulesPath(newYork.id)}/${id}`;
    const versionsShown = async () => {
      const one = (await (await fixture.request(`/api/v1/devices/${newYork.id}/service`, fixture.keys.acme.key)).json()) as {
        data: { id: number; version: string }[];
      };
      const fleet = (await (await fixture.request('/api/v1/service', fixture.keys.acme.key)).json()) as {
        data: { device_id: number; data: { id: number; version: string }[] }[];
      };
      const inFleet = fleet.data.find((device) => device.device_id === newYork.id)?.data.find((schedule) => schedule.id === id);
      return [one.data.find((schedule) => schedule.id === id)?.version, inFleet?.version];
    };
    const first = created.headers.get('ETag')!.slice(1, -1);
    expect(await versionsShown()).toEqual([first, first]);
    const changed = await send(fixture, 'PATCH', path, key, { name: 'Oil' }, { 'If-Match': `"${first}"` });
    const second = changed.headers.get('ETag')!.slice(1, -1);
    expect(second).not.toBe(first);
    expect(await versionsShown()).toEqual([second, second]);
    // The version a read shows is the If-Match the next write needs.
    const done = await send(fixture, 'POST', `${path}/done`, key, {}, { 'If-Match': `"${second}"` });
    expect(done.status).toBe(200);
    expect(await versionsShown()).toEqual([((await done.json()) as { version: string }).version, done.headers.get('ETag')?.slice(1, -1)]);
  });

  it('two changes sent at once with one If-Match, both read before either writes: one applies, the other is 412', async () => {
    const fixture = await createFixture({
      wrapStore: (store) => ({
        ...store,
        findServiceSchedule: async (input) => {
          const schedule = await store.findServiceSchedule(input);
          await new Promise((resolve) => setTimeout(resolve, 20));
          return schedule;
        },
      }),
    });
    const key = fixture.keys.acmeManage.key;
    const created = await send(fixture, 'POST', schedulesPath(fixture.devices.newYork.id), key, OIL);
    const { id } = (await created.json()) as { id: number };
    const tag = created.headers.get('ETag')!;
    const path = `${schedulesPath(fixture.devices.newYork.id)}/${id}`;
    const answers = await Promise.all(['A', 'B'].map((name) => send(fixture, 'PATCH', path, key, { name }, { 'If-Match': tag })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 412]);
    const winner = (await answers.find((answer) => answer.status === 200)!.json()) as { name: string };
    expect((await fixture.store.findServiceSchedule({ scheduleId: id }))?.name).toBe(winner.name);
  });

  it('POST …/done records a service now or at done_at; hour_meter_seconds is recorded as a reading too (P79)', async () => {
    const { fixture, changes } = await fixtureWithLog();
    const key = fixture.keys.acmeManage.key;
    const { newYork } = fixture.devices;
    const created = (await (
      await send(fixture, 'POST', schedulesPath(newYork.id), key, { ...OIL, last_done_at: '2026-06-01T00:00:00Z' })
    ).json()) as {
      id: number;
    };
    const path = `${schedulesPath(newYork.id)}/${created.id}/done`;
    // No body at all: a service now.
    const now = await fixture.request(path, key, { method: 'POST' });
    expect(now.status).toBe(200);
    expect(await now.json()).toMatchObject({ id: created.id, last_done_at: '2026-12-01T07:00:15-05:00', status: 'ok' });
    // No body with an Idempotency-Key (D53): still a service now, and the same request again is its replay.
    const keyed = { method: 'POST', headers: { 'Idempotency-Key': 'done-now-1' } };
    const first = await fixture.request(path, key, keyed);
    expect([first.status, ((await first.json()) as { id: number }).id]).toEqual([200, created.id]);
    const again = await fixture.request(path, key, keyed);
    expect([again.status, again.headers.get('Idempotent-Replayed')]).toEqual([200, 'true']);
    const at = await send(fixture, 'POST', path, key, { done_at: '2026-11-20T07:00:00-05:00', hour_meter_seconds: 1000 * HOUR });
    expect(at.status).toBe(200);
    const body = (await at.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ last_done_at: '2026-11-20T07:00:00-05:00', last_done_hour_meter_seconds: 1000 * HOUR });
    expect(at.headers.get('ETag')).toBe(`"${body.version}"`);
    const readings = await fixture.store.listHourMeterReadings({ deviceIds: [newYork.id] });
    expect(readings.map((reading) => reading.readingSeconds)).toEqual([1000 * HOUR]);
    expect(changes.map((change) => change.action)).toEqual([
      'service_schedule.create',
      'service_schedule.done',
      'service_schedule.done',
      'hour_meter_reading.create',
      'service_schedule.done',
    ]);
    // Another account's schedule is 404 as a missing device.
    const foreign = await fixture.store.createServiceSchedule({
      deviceId: fixture.devices.foreign.id,
      name: 'Theirs',
      intervalSeconds: 10,
      lastDoneAt: 0,
      now: 0,
    });
    for (const other of [
      `${schedulesPath(fixture.devices.foreign.id)}/${foreign!.id}/done`,
      `${schedulesPath(newYork.id)}/${foreign!.id}/done`,
    ]) {
      expect(await errorOf(await fixture.request(other, key, { method: 'POST' }))).toEqual({ status: 404, code: 'device_not_found' });
      expect(await errorOf(await send(fixture, 'PATCH', other.replace('/done', ''), key, { name: 'Mine' }))).toEqual({
        status: 404,
        code: 'device_not_found',
      });
      expect(await errorOf(await send(fixture, 'DELETE', other.replace('/done', ''), key))).toEqual({
        status: 404,
        code: 'device_not_found',
      });
    }
    expect((await fixture.store.findServiceSchedule({ scheduleId: foreign!.id }))?.name).toBe('Theirs');
    // A read key: 403 on every route.
    expect((await fixture.request(path, fixture.keys.acme.key, { method: 'POST' })).status).toBe(403);
  });

  it('DELETE removes a schedule: 204, and reports it as it stood', async () => {
    const { fixture, changes } = await fixtureWithLog();
    const key = fixture.keys.acmeManage.key;
    const created = await send(fixture, 'POST', schedulesPath(fixture.devices.newYork.id), key, OIL);
    const { id } = (await created.json()) as { id: number };
    const removed = await send(fixture, 'DELETE', `${schedulesPath(fixture.devices.newYork.id)}/${id}`, key, undefined, {
      'If-Match': created.headers.get('ETag')!,
    });
    expect(removed.status).toBe(204);
    expect(await fixture.store.findServiceSchedule({ scheduleId: id })).toBeNull();
    expect(changes.at(-1)).toMatchObject({ action: 'service_schedule.delete', before: { name: 'Engine oil' }, after: null });
    expect((await send(fixture, 'DELETE', `${schedulesPath(fixture.devices.newYork.id)}/${id}`, key)).status).toBe(404);
  });

  it('a path of these routes answers other methods 405 naming the ones it serves', async () => {
    const fixture = await createFixture();
    const key = fixture.keys.acmeManage.key;
    const put = await send(fixture, 'PUT', readingsPath(fixture.devices.newYork.id), key, {});
    expect([put.status, put.headers.get('Allow')]).toEqual([405, 'GET, HEAD, POST']);
    const head = await send(fixture, 'HEAD', readingsPath(fixture.devices.newYork.id), key);
    expect([head.status, await head.text()]).toEqual([200, '']);
    const get = await send(fixture, 'GET', `${schedulesPath(fixture.devices.newYork.id)}/1`, key);
    expect([get.status, get.headers.get('Allow')]).toEqual([405, 'PATCH, DELETE']);
  });
});
