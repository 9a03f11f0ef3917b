import { describe, expect, it } from 'vitest';
import { deviceEntityTag } from '@fleet-hours/core';
import { createFixture } from '../testing/fixture.js';

const JSON_TYPE = { 'Content-Type': 'application/json' };
const NEW_DEVICE = { name: 'Excavator 4', imei: '490154203237518', model: 'FMC130', timezone: 'Europe/Berlin' };

/** A write with a JSON body. */
function write(fixture: Awaited<ReturnType<typeof createFixture>>, method: string, path: string, key: string, body: unknown) {
  return fixture.request(path, key, { method, headers: JSON_TYPE, body: JSON.stringify(body) });
}

describe('POST /api/v1/devices (D52)', () => {
  it('creates a device of the key’s account: 201, the device, its URL in Location; the list shows it', async () => {
    const fixture = await createFixture();
    const response = await write(fixture, 'POST', '/api/v1/devices', fixture.keys.acmeManage.key, {
      ...NEW_DEVICE,
      name: '  Excavator 4 ',
      timezone: 'europe/berlin',
      registration: 'B-EX 4',
    });
    expect(response.status).toBe(201);
    const device = (await response.json()) as { id: number; version: string };
    expect(device).toEqual({
      id: expect.any(Number),
      name: 'Excavator 4',
      imei: NEW_DEVICE.imei,
      registration: 'B-EX 4',
      model: 'FMC130',
      status: 'active',
      timezone: 'Europe/Berlin',
      last_reported_at: null,
      tags: [],
      oem_name: null,
      equipment_model: null,
      serial_number: null,
      pin: null,
      position: null,
      version: expect.stringMatching(/^d-[0-9a-f]{16}$/),
    });
    // D54: the version is the ETag without its quotes.
    expect(response.headers.get('ETag')).toBe(`"${device.version}"`);
    expect(response.headers.get('Location')).toBe(`/api/v1/devices/${device.id}`);
    const list = (await (await fixture.request('/api/v1/devices', fixture.keys.acme.key)).json()) as { data: { id: number }[] };
    expect(list.data.at(-1)).toEqual(device);
    const theirs = (await (await fixture.request('/api/v1/devices', fixture.keys.other.key)).json()) as { data: { id: number }[] };
    expect(theirs.data.map((row) => row.id)).not.toContain(device.id);
  });

  it('D51: a read key is refused with 403 insufficient_scope naming the scope, and nothing is created', async () => {
    const fixture = await createFixture();
    const before = await fixture.store.listDevices({ accountId: fixture.accounts.acme.id });
    const response = await write(fixture, 'POST', '/api/v1/devices', fixture.keys.acme.key, NEW_DEVICE);
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({
      error: { status: 403, code: 'insufficient_scope', message: expect.stringContaining('"manage"'), scope: 'manage' },
    });
    expect(response.headers.get('X-RateLimit-Limit')).toBe('60');
    expect(await fixture.store.listDevices({ accountId: fixture.accounts.acme.id })).toEqual(before);
  });

  it('D11: 401 without a key, 403 plan_without_api_access before the scope', async () => {
    const fixture = await createFixture();
    expect((await write(fixture, 'POST', '/api/v1/devices', '', NEW_DEVICE)).status).toBe(401);
    const starter = await write(fixture, 'POST', '/api/v1/devices', fixture.keys.starter.key, NEW_DEVICE);
    expect(((await starter.json()) as { error: { code: string } }).error.code).toBe('plan_without_api_access');
    const starterManage = await write(fixture, 'POST', '/api/v1/devices', fixture.keys.starterManage.key, NEW_DEVICE);
    expect(((await starterManage.json()) as { error: { code: string } }).error.code).toBe('plan_without_api_access');
  });

  it.each([
    [{ ...NEW_DEVICE, colour: 'red' }, 'colour'],
    [{ ...NEW_DEVICE, name: undefined }, 'name'],
    [{ ...NEW_DEVICE, imei: 490154203237518 }, 'imei'],
    [{ ...NEW_DEVICE, model: '   ' }, 'model'],
    [{ ...NEW_DEVICE, timezone: 'Mars/Olympus' }, 'timezone'],
    [{ ...NEW_DEVICE, timezone: '+02:00' }, 'timezone'],
    [{ ...NEW_DEVICE, status: 'retired' }, 'status'],
    [{ ...NEW_DEVICE, registration: 7 }, 'registration'],
    [{ ...NEW_DEVICE, name: 'Truck\u202e' }, 'name'],
    [{ ...NEW_DEVICE, name: 'x'.repeat(201) }, 'name'],
  ])('refuses %j with 400 invalid_field naming %s (D52; a status but active or inactive: P72)', async (body, field) => {
    const fixture = await createFixture();
    const response = await write(fixture, 'POST', '/api/v1/devices', fixture.keys.acmeManage.key, body);
    expect(response.status).toBe(400);
    const error = ((await response.json()) as { error: { code: string; field: string; message: string } }).error;
    expect(error).toMatchObject({ code: 'invalid_field', field });
    expect(error.message).toContain(field);
  });

  it('refuses a body that is not JSON (400 invalid_body), not an object, not sent as JSON (415), or over 64 KiB (413)', async () => {
    const fixture = await createFixture();
    const key = fixture.keys.acmeManage.key;
    const post = (body: string, headers: Record<string, string> = JSON_TYPE) =>
      fixture.request('/api/v1/devices', key, { method: 'POST', headers, body });
    const code = async (response: Response) => [response.status, ((await response.json()) as { error: { code: string } }).error.code];
    expect(await code(await post('{"name": '))).toEqual([400, 'invalid_body']);
    expect(await code(await post('[1]'))).toEqual([400, 'invalid_body']);
    expect(await code(await post(JSON.stringify(NEW_DEVICE), { 'Content-Type': 'text/plain' }))).toEqual([415, 'unsupported_media_type']);
    expect(await code(await post(JSON.stringify(NEW_DEVICE), {}))).toEqual([415, 'unsupported_media_type']);
    const big = JSON.stringify({ ...NEW_DEVICE, name: 'x'.repeat(64 * 1024) });
    expect(await code(await post(big))).toEqual([413, 'payload_too_large']);
    expect((await post(JSON.stringify(NEW_DEVICE), { 'Content-Type': 'application/json; charset=utf-8' })).status).toBe(201);
  });

  it('D25: an IMEI already on an active device of the account is 409 conflict; on another account it is free', async () => {
    const fixture = await createFixture();
    const taken = { ...NEW_DEVICE, imei: fixture.devices.newYork.imei };
    const response = await write(fixture, 'POST', '/api/v1/devices', fixture.keys.acmeManage.key, taken);
    expect(response.status).toBe(409);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('conflict');
    expect((await write(fixture, 'POST', '/api/v1/devices', fixture.keys.otherManage.key, taken)).status).toBe(201);
  });
});

describe('PATCH /api/v1/devices/{id} (D52)', () => {
  it('changes the fields given and answers the device; the reads show it', async () => {
    const fixture = await createFixture();
    const { newYork } = fixture.devices;
    const response = await write(fixture, 'PATCH', `/api/v1/devices/${newYork.id}`, fixture.keys.acmeManage.key, {
      name: 'Truck NY 2',
      registration: null,
      status: 'inactive',
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      id: newYork.id,
      name: 'Truck NY 2',
      imei: newYork.imei,
      registration: null,
      status: 'inactive',
      timezone: 'America/New_York',
    });
    expect(await fixture.store.findDevice({ accountId: fixture.accounts.acme.id, deviceId: newYork.id })).toMatchObject({
      name: 'Truck NY 2',
      status: 'inactive',
    });
  });

  it('changes the IMEI, and refuses one that names another active device of the account with 409', async () => {
    const fixture = await createFixture();
    const { newYork, kathmandu } = fixture.devices;
    const path = `/api/v1/devices/${newYork.id}`;
    expect((await write(fixture, 'PATCH', path, fixture.keys.acmeManage.key, { imei: kathmandu.imei })).status).toBe(409);
    const changed = await write(fixture, 'PATCH', path, fixture.keys.acmeManage.key, { imei: '490154203237518' });
    expect(await changed.json()).toMatchObject({ imei: '490154203237518' });
  });

  it('D11: another account’s device, a missing one and a malformed id answer the same 404, byte for byte', async () => {
    const fixture = await createFixture();
    const bodies = new Set<string>();
    for (const id of [fixture.devices.foreign.id, 99_999, 'abc', '0', '']) {
      const response = await write(fixture, 'PATCH', `/api/v1/devices/${id}`, fixture.keys.acmeManage.key, { name: 'Mine' });
      expect(response.status).toBe(404);
      bodies.add(await response.text());
    }
    expect(bodies.size).toBe(1);
    expect(await fixture.store.findDevice({ accountId: fixture.accounts.other.id, deviceId: fixture.devices.foreign.id })).toMatchObject({
      name: 'Their truck',
    });
  });

  it('P71: checks the fields before the device: 400 naming the field, an empty change, whatever the id', async () => {
    const fixture = await createFixture();
    for (const id of [fixture.devices.newYork.id, fixture.devices.foreign.id, 'abc']) {
      const response = await write(fixture, 'PATCH', `/api/v1/devices/${id}`, fixture.keys.acmeManage.key, { colour: 'red' });
      expect(await response.json()).toMatchObject({ error: { status: 400, code: 'invalid_field', field: 'colour' } });
      const empty = await write(fixture, 'PATCH', `/api/v1/devices/${id}`, fixture.keys.acmeManage.key, {});
      expect(await empty.json()).toMatchObject({ error: { status: 400, code: 'invalid_body' } });
    }
  });

  it('D51: a read key is 403 insufficient_scope, before the device is looked up', async () => {
    const fixture = await createFixture();
    const response = await write(fixture, 'PATCH', `/api/v1/devices/${fixture.devices.newYork.id}`, fixture.keys.acme.key, { name: 'x' });
    expect(await response.json()).toMatchObject({ error: { status: 403, code: 'insufficient_scope', scope: 'manage' } });
  });

  it('D17: other methods on a device path answer 405 naming PATCH; POST joins GET and HEAD on /devices', async () => {
    const fixture = await createFixture();
    const remove = await fixture.request(`/api/v1/devices/${fixture.devices.newYork.id}`, fixture.keys.acmeManage.key, { method: 'PUT' });
    expect(remove.status).toBe(405);
    expect(remove.headers.get('Allow')).toBe('PATCH');
    const put = await fixture.request('/api/v1/devices', fixture.keys.acmeManage.key, { method: 'PUT' });
    expect(put.headers.get('Allow')).toBe('GET, HEAD, POST');
    const hours = await fixture.request('/api/v1/hours', fixture.keys.acmeManage.key, { method: 'POST' });
    expect(hours.headers.get('Allow')).toBe('GET, HEAD');
  });
});

describe('versions of a device (D54)', () => {
  it('every write answers the device with its ETag, which changes with the device and not with telemetry', async () => {
    const fixture = await createFixture();
    const created = await write(fixture, 'POST', '/api/v1/devices', fixture.keys.acmeManage.key, NEW_DEVICE);
    const tag = created.headers.get('ETag');
    expect(tag).toMatch(/^"d-[0-9a-f]{16}"$/);
    const id = ((await created.json()) as { id: number }).id;
    const same = await write(fixture, 'PATCH', `/api/v1/devices/${id}`, fixture.keys.acmeManage.key, { name: NEW_DEVICE.name });
    expect(same.headers.get('ETag')).toBe(tag);
    const renamed = await write(fixture, 'PATCH', `/api/v1/devices/${id}`, fixture.keys.acmeManage.key, { name: 'Excavator 5' });
    expect(renamed.headers.get('ETag')).not.toBe(tag);
    // The fixture's New York truck has reported: its tag does not hold its last report.
    const { newYork } = fixture.devices;
    const a = await write(fixture, 'PATCH', `/api/v1/devices/${newYork.id}`, fixture.keys.acmeManage.key, { name: newYork.name });
    expect(a.headers.get('ETag')).toBe(deviceEntityTag({ ...newYork, lastReportedAt: null }));
  });

  it('PATCH with If-Match applies to the device as read; a stale tag is 412 precondition_failed and changes nothing', async () => {
    const fixture = await createFixture();
    const path = `/api/v1/devices/${fixture.devices.newYork.id}`;
    const key = fixture.keys.acmeManage.key;
    const patch = (body: unknown, ifMatch: string) =>
      fixture.request(path, key, { method: 'PATCH', headers: { ...JSON_TYPE, 'If-Match': ifMatch }, body: JSON.stringify(body) });
    const tag = deviceEntityTag(fixture.devices.newYork);
    const first = await patch({ name: 'First' }, tag);
    expect(first.status).toBe(200);
    const stale = await patch({ name: 'Second' }, tag);
    expect([stale.status, ((await stale.json()) as { error: { code: string } }).error.code]).toEqual([412, 'precondition_failed']);
    expect((await fixture.store.findDevice({ accountId: fixture.accounts.acme.id, deviceId: fixture.devices.newYork.id }))?.name).toBe(
      'First',
    );
    expect((await patch({ name: 'Third' }, `"other", ${first.headers.get('ETag')}`)).status).toBe(200);
    expect((await patch({ name: 'Fourth' }, '*')).status).toBe(200);
    // Another account's device is 404 whatever the tag, as a missing one (D11).
    const foreign = await fixture.request(`/api/v1/devices/${fixture.devices.foreign.id}`, key, {
      method: 'PATCH',
      headers: { ...JSON_TYPE, 'If-Match': '*' },
      body: JSON.stringify({ name: 'Mine' }),
    });
    expect(foreign.status).toBe(404);
  });

  it("D54: a device's version from GET /api/v1/devices, quoted, is the If-Match of its PATCH; a change gives a new version", async () => {
    const fixture = await createFixture();
    const { id } = fixture.devices.newYork;
    const key = fixture.keys.acmeManage.key;
    const listed = async () => {
      const body = (await (await fixture.request('/api/v1/devices', key)).json()) as {
        data: { id: number; name: string; version: string }[];
      };
      return body.data.find((device) => device.id === id)!;
    };
    const patch = (body: unknown, ifMatch: string) =>
      fixture.request(`/api/v1/devices/${id}`, key, {
        method: 'PATCH',
        headers: { ...JSON_TYPE, 'If-Match': ifMatch },
        body: JSON.stringify(body),
      });
    const before = await listed();
    expect(before.version).toMatch(/^d-[0-9a-f]{16}$/);
    const renamed = await patch({ name: 'Truck NY 2' }, `"${before.version}"`);
    expect(renamed.status).toBe(200);
    const answered = (await renamed.json()) as { name: string; version: string };
    const after = await listed();
    expect(after.version).not.toBe(before.version);
    expect([answered.version, renamed.headers.get('ETag')]).toEqual([after.version, `"${after.version}"`]);
    expect(after.name).toBe('Truck NY 2');
    // The version read before the change is stale now; a change that sets the same values keeps the version.
    const stale = await patch({ name: 'Truck NY 3' }, `"${before.version}"`);
    expect(stale.status).toBe(412);
    const same = await patch({ name: 'Truck NY 2' }, `"${after.version}"`);
    expect([same.status, ((await same.json()) as { version: string }).version]).toEqual([200, after.version]);
    expect((await listed()).version).toBe(after.version);
  });

  it('three changes sent at once with the same If-Match, all read before any writes: one applies, the others are 412', async () => {
    // Every read of a device waits, so that the three requests all read it before any of them changes it.
    const fixture = await createFixture({
      wrapStore: (store) => ({
        ...store,
        findDevice: async (input) => {
          const device = await store.findDevice(input);
          await new Promise((resolve) => setTimeout(resolve, 20));
          return device;
        },
      }),
    });
    const tag = deviceEntityTag(fixture.devices.newYork);
    const answers = await Promise.all(
      ['A', 'B', 'C'].map((name) =>
        fixture.request(`/api/v1/devices/${fixture.devices.newYork.id}`, fixture.keys.acmeManage.key, {
          method: 'PATCH',
          headers: { ...JSON_TYPE, 'If-Match': tag },
          body: JSON.stringify({ name }),
        }),
      ),
    );
    expect(answers.map((response) => response.status).sort()).toEqual([200, 412, 412]);
  });
});

describe('the budget of writes (D52, P71)', () => {
  it('counts every write route of a key on one budget, with the rate-limit headers on every answer, refusals included', async () => {
    const fixture = await createFixture({ rateLimits: { writes: 3 } });
    const key = fixture.keys.acmeManage.key;
    const id = fixture.devices.newYork.id;
    const answers = [
      await write(fixture, 'PATCH', `/api/v1/devices/${id}`, key, { name: 'A' }),
      await write(fixture, 'POST', '/api/v1/devices', key, { colour: 'red' }),
      await write(fixture, 'PATCH', `/api/v1/devices/${id}`, key, { name: 'B' }),
      await write(fixture, 'POST', '/api/v1/devices', key, NEW_DEVICE),
    ];
    expect(answers.map((response) => response.status)).toEqual([200, 400, 200, 429]);
    expect(answers.map((response) => response.headers.get('X-RateLimit-Limit'))).toEqual(['3', '3', '3', '3']);
    expect(answers.map((response) => response.headers.get('X-RateLimit-Remaining'))).toEqual(['2', '1', '0', '0']);
    expect(Number(answers[3]!.headers.get('Retry-After'))).toBeGreaterThanOrEqual(1);
    // The reads keep their own budgets.
    expect((await fixture.request('/api/v1/devices', key)).status).toBe(200);
    // Another key of the account has its own budget of writes.
    const other = await write(fixture, 'PATCH', `/api/v1/devices/${fixture.devices.foreign.id}`, fixture.keys.otherManage.key, {
      name: 'C',
    });
    expect(other.status).toBe(200);
  });
});
