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
    expect({ ...byApi.body, id: 0, imei: '' }).toEqual({ ...byCli, id: 0, imei: '' });

    const change = { status: 'inactive', registration: '' };
    const updatedByCli = await cli.json<Record<string, unknown>>([
      ...['devices', 'update', String(byCli.id)],
      ...Object.entries(change).flatMap(([field, value]) => [`--${field}`, value]),
    ]);
    const updatedByApi = await api('PATCH', `/api/v1/devices/${byApi.body.id}`, change);
    expect({ ...updatedByApi.body, id: 0, imei: '' }).toEqual({ ...updatedByCli, id: 0, imei: '' });
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
