import { deviceVersion } from '@fleet-hours/core';
import { describe, expect, it } from 'vitest';
import { createFixture } from '../testing/fixture.js';
import { createIngestFixture } from '../testing/ingest-fixture.js';

/** D61, D63: the fields of a device created without tags or identity. */
const UNTAGGED = { tags: [], oem_name: null, equipment_model: null, serial_number: null, pin: null, position: null };

describe('GET /api/v1/devices', () => {
  it('lists every device of the account by id, in snake_case, last_reported_at in the device zone, with a version (D9, D19, D54)', async () => {
    const { request, keys, devices } = await createFixture();
    const response = await request('/api/v1/devices', keys.acme.key);
    expect(response.status).toBe(200);
    expect(response.headers.get('Content-Type')).toBe('application/json; charset=UTF-8');
    expect(await response.json()).toEqual({
      data: [
        {
          id: devices.newYork.id,
          name: 'Truck NY',
          imei: devices.newYork.imei,
          registration: 'NY-1234',
          model: 'FMB920',
          status: 'active',
          timezone: 'America/New_York',
          last_reported_at: '2026-11-30T17:15:07-05:00',
          ...UNTAGGED,
          version: deviceVersion(devices.newYork),
        },
        {
          id: devices.kathmandu.id,
          name: 'Truck KTM',
          imei: devices.kathmandu.imei,
          registration: null,
          model: 'FMB920',
          status: 'active',
          timezone: 'Asia/Kathmandu',
          last_reported_at: '2026-06-11T03:45:00+05:45',
          ...UNTAGGED,
          version: deviceVersion(devices.kathmandu),
        },
        {
          id: devices.idle.id,
          name: 'Spare',
          imei: devices.idle.imei,
          registration: null,
          model: 'FMB920',
          status: 'active',
          timezone: 'Europe/Berlin',
          last_reported_at: null,
          ...UNTAGGED,
          version: deviceVersion(devices.idle),
        },
      ],
    });
  });

  it('shows a key only the devices of its own account (spec: Authentication 4)', async () => {
    const { request, keys, devices } = await createFixture();
    const body = (await (await request('/api/v1/devices', keys.other.key)).json()) as { data: { id: number }[] };
    expect(body.data.map((device) => device.id)).toEqual([devices.foreign.id]);
  });

  it('P157: shows each device its newest position, `at` in the device zone, after an OsmAnd point with lat/lon; null without; PATCH answers it too', async () => {
    const fixture = await createIngestFixture();
    const { request, keys, devices, tokens } = fixture;
    const time = Date.parse('2026-11-30T19:02:00Z') / 1000;
    const query = new URLSearchParams({
      id: devices.newYork.imei,
      timestamp: String(time),
      lat: '52.52',
      lon: '13.405',
      speed: '0',
      ignition: 'true',
    });
    expect((await fixture.app.request(`/ingest/osmand/${tokens.acme.token}?${String(query)}`)).status).toBe(200);
    const body = (await (await request('/api/v1/devices', keys.acme.key)).json()) as { data: { id: number; position: unknown }[] };
    expect(body.data.map((device) => [device.id, device.position])).toEqual([
      [devices.newYork.id, { latitude: 52.52, longitude: 13.405, at: '2026-11-30T14:02:00-05:00' }],
      [devices.kathmandu.id, null],
      [devices.idle.id, null],
    ]);
    const patched = await request(`/api/v1/devices/${devices.newYork.id}`, keys.acmeManage.key, {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ oem_name: 'CAT' }),
    });
    expect(patched.status).toBe(200);
    expect(await patched.json()).toMatchObject({
      oem_name: 'CAT',
      position: { latitude: 52.52, longitude: 13.405, at: '2026-11-30T14:02:00-05:00' },
    });
  });

  it('answers an empty list for an account without devices', async () => {
    const { request, store, keys, accounts } = await createFixture();
    await store.setAccountPlan({ accountId: accounts.starter.id, plan: 'business' });
    const response = await request('/api/v1/devices', keys.starter.key);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ data: [] });
  });
});
