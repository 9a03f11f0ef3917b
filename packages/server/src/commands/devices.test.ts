import { createFleetHours, createMemoryStore } from '@fleet-hours/core';
import { createFleetHoursApp } from '@fleet-hours/http';
import { describe, expect, it } from 'vitest';
import { createCliHarness } from '../testing/cli-harness.js';

/** One store served by the CLI and by the API, with a manage key (D51). */
async function both() {
  const store = createMemoryStore();
  const cli = createCliHarness({ store });
  const account = await cli.json<{ id: number }>(['accounts', 'create', '--name', 'Acme']);
  // The key is made by the CLI too (D51).
  const { key } = await cli.json<{ key: string }>(['keys', 'create', '--account', String(account.id), '--scope', 'manage']);
  const app = createFleetHoursApp({ fleetHours: createFleetHours({ store, now: Date.now }), logger: () => {} });
  const api = async (method: string, path: string, body: unknown) => {
    const response = await app.request(path, {
      method,
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  return { cli, api, accountId: String(account.id) };
}

describe('devices create and update, by the CLI and by the API (D52: one implementation)', () => {
  it('give the same device for the same change', async () => {
    const { cli, api, accountId } = await both();
    const fields = { name: ' Loader 2 ', imei: '490154203237518', model: 'FMC130', timezone: 'europe/berlin', registration: 'B-LD 2' };
    const byCli = await cli.json<Record<string, unknown>>([
      ...['devices', 'create', '--account', accountId],
      ...Object.entries(fields).flatMap(([field, value]) => [`--${field}`, value]),
    ]);
    const byApi = await api('POST', '/api/v1/devices', { ...fields, imei: '490154203237519' });
    expect(byApi.status).toBe(201);
    // Two devices: their ids, IMEIs and so their versions (D54) differ; every other field is the same.
    expect({ ...byApi.body, id: 0, imei: '', version: '' }).toEqual({ ...byCli, id: 0, imei: '', version: '' });

    const change = { status: 'inactive', registration: '' };
    const updatedByCli = await cli.json<Record<string, unknown>>([
      ...['devices', 'update', String(byCli.id)],
      ...Object.entries(change).flatMap(([field, value]) => [`--${field}`, value]),
    ]);
    const updatedByApi = await api('PATCH', `/api/v1/devices/${byApi.body.id}`, change);
    expect({ ...updatedByApi.body, id: 0, imei: '', version: '' }).toEqual({ ...updatedByCli, id: 0, imei: '', version: '' });
    expect(updatedByCli).toMatchObject({ status: 'inactive', registration: null });
  });

  it.each([
    ['status', 'retired'],
    ['timezone', 'Mars/Olympus'],
    ['name', 'Van\u001b[2J'],
    ['model', ' '],
  ])('refuse a bad %s with the same message, the CLI naming its option (exit 2)', async (field, value) => {
    const { cli, api, accountId } = await both();
    const fields: Record<string, string> = { name: 'Van', imei: '490154203237518', model: 'FMC130', timezone: 'UTC', [field]: value };
    const byApi = await api('POST', '/api/v1/devices', fields);
    const byCli = await cli.run([
      ...['devices', 'create', '--account', accountId],
      ...Object.entries(fields).flatMap(([name, text]) => [`--${name}`, text]),
    ]);
    const error = byApi.body.error as { code: string; field: string; message: string };
    expect([byApi.status, error.code, error.field]).toEqual([400, 'invalid_field', field]);
    expect(byCli).toMatchObject({ code: 2, stdout: '' });
    expect(byCli.stderr).toContain(`fleet-hours: --${error.message}`);
  });
});

describe('tags and identity by the CLI (D61, D63, P93, P94)', () => {
  it('devices create takes --tag (repeated), --tags and the identity options; the API gives the same device', async () => {
    const { cli, api, accountId } = await both();
    const byCli = await cli.json<Record<string, unknown>>([
      ...['devices', 'create', '--account', accountId, '--name', 'Excavator', '--imei', '490154203237518', '--model', 'M'],
      ...['--timezone', 'UTC', '--tags', 'north,cranes', '--tag', ' yard 2 ', '--tag', 'North'],
      ...['--oem-name', 'CAT', '--equipment-model', '320', '--serial-number', 'SN1', '--pin', 'PIN1'],
    ]);
    expect(byCli).toMatchObject({
      tags: ['north', 'cranes', 'yard 2', 'North'],
      oem_name: 'CAT',
      equipment_model: '320',
      serial_number: 'SN1',
      pin: 'PIN1',
    });
    const byApi = await api('POST', '/api/v1/devices', {
      name: 'Excavator',
      imei: '490154203237519',
      model: 'M',
      timezone: 'UTC',
      tags: ['north', 'cranes', 'yard 2', 'North'],
      oem_name: 'CAT',
      equipment_model: '320',
      serial_number: 'SN1',
      pin: 'PIN1',
    });
    // Two devices: their ids, IMEIs and so their versions (D54) differ; every other field is the same.
    expect({ ...byApi.body, id: 0, imei: '', version: '' }).toEqual({ ...byCli, id: 0, imei: '', version: '' });

    // A change replaces the tags; --tags "" removes them; "" clears an identity field.
    const retagged = await cli.json<Record<string, unknown>>(['devices', 'update', String(byCli.id), '--tag', 'south', '--pin', '']);
    expect(retagged).toMatchObject({ tags: ['south'], pin: null, oem_name: 'CAT' });
    const untagged = await cli.json<Record<string, unknown>>(['devices', 'update', String(byCli.id), '--tags', '']);
    expect(untagged).toMatchObject({ tags: [] });
  });

  it('devices list shows the tags, and --tag keeps the devices having it', async () => {
    const { cli, accountId } = await both();
    const create = (imei: string, ...tags: string[]) =>
      cli.json<{ id: number }>([
        ...['devices', 'create', '--account', accountId, '--name', `D${imei}`, '--imei', imei, '--model', 'M', '--timezone', 'UTC'],
        ...tags.flatMap((tag) => ['--tag', tag]),
      ]);
    const north = await create('1', 'north', 'cranes');
    await create('2', 'South');
    const listed = await cli.run(['devices', 'list', '--account', accountId]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/TAGS/);
    expect(listed.stdout).toMatch(/north, cranes/);
    const only = await cli.json<{ data: { id: number }[] }>(['devices', 'list', '--account', accountId, '--tag', 'north']);
    expect(only.data.map((device) => device.id)).toEqual([north.id]);
    const none = await cli.run(['devices', 'list', '--account', accountId, '--tag', 'NORTH']);
    expect(none.stdout).toContain('no devices with the tag "NORTH"');
    const empty = await cli.run(['devices', 'list', '--account', accountId, '--tag', ' ']);
    expect(empty).toMatchObject({ code: 2, stdout: '' });
    expect(empty.stderr).toContain('--tag: must not be empty');
  });

  it.each([
    [['--tag', 'a', '--tag', 'a'], '--tags holds "a" twice'],
    [['--tags', 'a,,b'], '--tags[1] must not be empty'],
    [['--tag', 'x'.repeat(65)], '--tags[0] must be at most 64 characters'],
    [['--oem-name', 'CAT\u001b[2J'], '--oem-name must be text without control characters'],
  ])('refuses %j with exit 2 naming the option', async (options, message) => {
    const { cli, accountId } = await both();
    const result = await cli.run([
      ...['devices', 'create', '--account', accountId, '--name', 'D', '--imei', '1', '--model', 'M', '--timezone', 'UTC'],
      ...options,
    ]);
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toContain(message);
    expect(result.stderr).not.toContain('\u001b');
  });
});
