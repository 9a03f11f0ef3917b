import { describe, expect, it } from 'vitest';
import { createFixture } from '../testing/fixture.js';

const JSON_TYPE = { 'Content-Type': 'application/json' };
const NEW_DEVICE = { name: 'Excavator 4', imei: '490154203237518', model: 'FMC130', timezone: 'Europe/Berlin' };
type Fixture = Awaited<ReturnType<typeof createFixture>>;

/** A write with a JSON body. */
function write(fixture: Fixture, method: string, path: string, body: unknown) {
  return fixture.request(path, fixture.keys.acmeManage.key, { method, headers: JSON_TYPE, body: JSON.stringify(body) });
}

/** The ids of every device of a fleet page walked by `next_cursor`. */
async function walkIds(fixture: Fixture, path: string, query: string): Promise<number[]> {
  const ids: number[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 20; pages += 1) {
    const response = await fixture.request(`${path}?${query}${cursor === null ? '' : `&cursor=${cursor}`}`, fixture.keys.acme.key);
    expect(response.status).toBe(200);
    const page = (await response.json()) as { data: { device_id: number }[]; next_cursor: string | null };
    ids.push(...page.data.map((item) => item.device_id));
    cursor = page.next_cursor;
    if (cursor === null) break;
  }
  return ids;
}

describe('tags and identity of a device (D61, D63)', () => {
  it('P93, P94: POST keeps tags (trimmed, NFC, order kept) and identity; the list and PATCH show them; PATCH replaces the tags and "" clears a field', async () => {
    const fixture = await createFixture();
    const created = await write(fixture, 'POST', '/api/v1/devices', {
      ...NEW_DEVICE,
      tags: [' north ', 'Cranes', 'e\u0301t\u00e9'],
      oem_name: ' CAT ',
      equipment_model: '320',
      serial_number: 'SN 1',
      pin: 'CAT0320XABC01234',
    });
    expect(created.status).toBe(201);
    const device = (await created.json()) as { id: number; version: string };
    expect(device).toMatchObject({
      tags: ['north', 'Cranes', '\u00e9t\u00e9'],
      oem_name: 'CAT',
      equipment_model: '320',
      serial_number: 'SN 1',
      pin: 'CAT0320XABC01234',
    });
    const list = (await (await fixture.request('/api/v1/devices', fixture.keys.acme.key)).json()) as { data: unknown[] };
    expect(list.data.at(-1)).toEqual(device);

    const changed = await write(fixture, 'PATCH', `/api/v1/devices/${device.id}`, { tags: ['yard 2'], pin: '', serial_number: null });
    expect(changed.status).toBe(200);
    const afterChange = (await changed.json()) as { version: string };
    // D54: the tags and the identity are in the device's version, so the change gives it a new one.
    expect(afterChange).toEqual({ ...device, tags: ['yard 2'], pin: null, serial_number: null, version: afterChange.version });
    expect(afterChange.version).not.toBe(device.version);
    const cleared = await write(fixture, 'PATCH', `/api/v1/devices/${device.id}`, { tags: [] });
    expect(((await cleared.json()) as { tags: string[] }).tags).toEqual([]);
  });

  it('D54, P94: the ETag changes with the tags and the identity, and a stale one is 412', async () => {
    const fixture = await createFixture();
    const created = await write(fixture, 'POST', '/api/v1/devices', NEW_DEVICE);
    const { id } = (await created.json()) as { id: number };
    const first = created.headers.get('ETag')!;
    const tagged = await write(fixture, 'PATCH', `/api/v1/devices/${id}`, { tags: ['north'] });
    const second = tagged.headers.get('ETag')!;
    expect(second).not.toBe(first);
    const identified = await write(fixture, 'PATCH', `/api/v1/devices/${id}`, { oem_name: 'CAT' });
    expect(identified.headers.get('ETag')).not.toBe(second);
    const stale = await fixture.request(`/api/v1/devices/${id}`, fixture.keys.acmeManage.key, {
      method: 'PATCH',
      headers: { ...JSON_TYPE, 'If-Match': second },
      body: JSON.stringify({ tags: [] }),
    });
    expect(stale.status).toBe(412);
  });

  it.each([
    [{ tags: 'north' }, 'tags', /tags must be an array of strings/],
    [{ tags: [7] }, 'tags', /tags\[0\] must be a string/],
    [{ tags: ['ok', '  '] }, 'tags', /tags\[1\] must not be empty/],
    [{ tags: ['x'.repeat(65)] }, 'tags', /tags\[0\] must be at most 64 characters/],
    [{ tags: Array.from({ length: 21 }, (_, index) => `t${index}`) }, 'tags', /at most 20 tags, got 21/],
    [{ tags: ['north', ' north'] }, 'tags', /"north" twice/],
    [{ tags: ['a\u001b[2J'] }, 'tags', /tags\[0\] must be text without control characters/],
    [{ oem_name: 'CAT\u202e' }, 'oem_name', /oem_name must be text without control characters/],
    [{ equipment_model: 320 }, 'equipment_model', /equipment_model must be a string/],
    [{ serial_number: 'x'.repeat(201) }, 'serial_number', /serial_number must be at most 200 characters/],
    [{ pin: [] }, 'pin', /pin must be a string/],
  ])('P93, P94: refuses %j with 400 invalid_field naming %s, on POST and PATCH alike', async (fields, field, message) => {
    const fixture = await createFixture();
    for (const [method, path, body] of [
      ['POST', '/api/v1/devices', { ...NEW_DEVICE, ...fields }],
      ['PATCH', `/api/v1/devices/${fixture.devices.newYork.id}`, fields],
    ] as const) {
      const response = await write(fixture, method, path, body);
      expect(response.status).toBe(400);
      const { error } = (await response.json()) as { error: { code: string; field: string; message: string } };
      expect(error).toMatchObject({ code: 'invalid_field', field });
      expect(error.message).toMatch(message);
      expect(error.message).not.toContain('\u001b');
    }
    expect(await fixture.store.findDevice({ accountId: fixture.accounts.acme.id, deviceId: fixture.devices.newYork.id })).toMatchObject({
      tags: [],
      oemName: null,
    });
  });

  it('P93: a tag of 64 characters counts characters, not UTF-16 units: 64 emoji are one tag', async () => {
    const fixture = await createFixture();
    const response = await write(fixture, 'POST', '/api/v1/devices', { ...NEW_DEVICE, tags: ['🚜'.repeat(64)] });
    expect(response.status).toBe(201);
  });
});

describe('tag= on the device list and the fleet pages (D61, D49)', () => {
  /** The fixture's devices of acme tagged: New York `north`, Kathmandu `north` and `North`, the spare `South`; another account's `north`. */
  async function tagged() {
    const fixture = await createFixture();
    const { newYork, kathmandu, idle, foreign } = fixture.devices;
    for (const [device, tags] of [
      [newYork, ['north']],
      [kathmandu, ['North', 'north']],
      [idle, ['South']],
      [foreign, ['north']],
    ] as const)
      await fixture.store.updateDevice({ deviceId: device.id, changes: { tags } });
    return fixture;
  }

  it('P93: GET /api/v1/devices?tag= keeps the devices of the account having the tag, case-sensitive', async () => {
    const fixture = await tagged();
    const { newYork, kathmandu } = fixture.devices;
    const ids = async (query: string) =>
      ((await (await fixture.request(`/api/v1/devices${query}`, fixture.keys.acme.key)).json()) as { data: { id: number }[] }).data.map(
        (device) => device.id,
      );
    expect(await ids('?tag=north')).toEqual([newYork.id, kathmandu.id]);
    expect(await ids('?tag=%20North%20')).toEqual([kathmandu.id]);
    expect(await ids('?tag=NORTH')).toEqual([]);
  });

  it.each(['/api/v1/hours', '/api/v1/hours/daily', '/api/v1/meter', '/api/v1/service'])(
    '%s?tag= walks, a page at a time, the devices having the tag, and each is the body of the unfiltered page',
    async (path) => {
      const fixture = await tagged();
      const { newYork, kathmandu, idle } = fixture.devices;
      expect(await walkIds(fixture, path, 'tag=north&limit=1')).toEqual([newYork.id, kathmandu.id]);
      expect(await walkIds(fixture, path, 'tag=South&limit=1')).toEqual([idle.id]);
      expect(await walkIds(fixture, path, 'tag=none&limit=1')).toEqual([]);
      const unfiltered = (await (await fixture.request(`${path}?limit=5`, fixture.keys.acme.key)).json()) as {
        data: { device_id: number }[];
      };
      const filtered = (await (await fixture.request(`${path}?limit=5&tag=north`, fixture.keys.acme.key)).json()) as {
        data: { device_id: number }[];
      };
      expect(filtered.data).toEqual(unfiltered.data.filter((item) => [newYork.id, kathmandu.id].includes(item.device_id)));
    },
  );

  it('GET /api/v1/service takes tag= and status= together', async () => {
    const fixture = await tagged();
    const { newYork } = fixture.devices;
    const all = (await (await fixture.request('/api/v1/service?status=ok,due_soon,overdue', fixture.keys.acme.key)).json()) as {
      data: { device_id: number }[];
    };
    const both = (await (await fixture.request('/api/v1/service?status=ok,due_soon,overdue&tag=north', fixture.keys.acme.key)).json()) as {
      data: { device_id: number }[];
    };
    const north = [newYork.id, fixture.devices.kathmandu.id];
    expect(both.data).toEqual(all.data.filter((item) => north.includes(item.device_id)));
  });

  it.each([
    ['tag=', /Parameter tag must not be empty/],
    ['tag=%20', /Parameter tag must not be empty/],
    [`tag=${'x'.repeat(65)}`, /at most 64 characters/],
    ['tag=a%1B', /without control characters/],
    ['tag=a&tag=b', /Parameter tag is repeated/],
  ])('refuses %s with 400 invalid_parameter before anything is read', async (query, message) => {
    const fixture = await tagged();
    for (const path of ['/api/v1/devices', '/api/v1/hours', '/api/v1/hours/daily', '/api/v1/meter', '/api/v1/service']) {
      const response = await fixture.request(`${path}?${query}`, fixture.keys.acme.key);
      expect(response.status).toBe(400);
      const { error } = (await response.json()) as { error: { code: string; message: string } };
      expect(error.code).toBe('invalid_parameter');
      expect(error.message).toMatch(message);
      expect(error.message).not.toContain('\u001b');
    }
  });
});
