import {
  createFleetHours,
  createMemoryStore,
  fingerprintApiKey,
  generateApiKey,
  scheduleVersion,
  type ChangeReport,
} from '@fleet-hours/core';
import { createFleetHoursApp } from '@fleet-hours/http';
import { describe, expect, it } from 'vitest';
import { createCliHarness } from '../testing/cli-harness.js';

const HOUR = 3600;
const NOW_MS = Date.UTC(2026, 10, 25, 15);

/**
 * P76: the CLI's `hour-meter` and `service` commands and the API's routes are one implementation
 * in the core: the same change made by each gives the same schedule or reading (and version), and
 * the same bad input is refused by both, naming the option or the field, with nothing written.
 */
describe('the CLI and the API agree on readings and schedules (D52, P76)', () => {
  const setUp = async () => {
    const store = createMemoryStore();
    const cli = createCliHarness({ now: NOW_MS, store });
    const account = (await store.createAccount({ name: 'Acme', plan: 'business', now: 0 }))!;
    const key = generateApiKey();
    await store.createApiKey({
      accountId: account.id,
      fingerprint: await fingerprintApiKey(key),
      label: 'ops',
      expiresAt: null,
      now: 0,
      scope: 'manage',
    });
    const device = async (imei: string) =>
      (await store.createDevice({ accountId: account.id, name: `Loader ${imei}`, imei, model: 'm', timeZone: 'Europe/Berlin' }))!.id;
    const [viaCli, viaApi] = [await device('1'), await device('2')];
    const changes: ChangeReport[] = [];
    const app = createFleetHoursApp({
      fleetHours: createFleetHours({ store, now: () => NOW_MS, changeLog: { record: async (change) => void changes.push(change) } }),
      now: () => NOW_MS,
      logger: () => {},
    });
    const api = (method: string, path: string, body?: unknown) =>
      app.request(`/api/v1/devices/${viaApi}${path}`, {
        method,
        headers: { Authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    return { store, cli, api, viaCli, viaApi };
  };

  /** A schedule's body without what names it (its id and device). */
  const shown = ({ id: _id, device_id: _device, version: _version, ...schedule }: Record<string, unknown>) => schedule;

  it('create, update and done give the same schedule and version from either front end', async () => {
    const { store, cli, api, viaCli } = await setUp();
    const fromCli = await cli.json<Record<string, unknown>>([
      'service',
      'create',
      '--device',
      String(viaCli),
      '--name',
      'Engine oil',
      '--every',
      '250h',
      '--every-days',
      '180',
      '--due-soon',
      '20h',
      '--last-done-at',
      '2026-11-01T08:00:00+01:00',
      '--last-done-hours',
      '1000h',
    ]);
    const created = await api('POST', '/service/schedules', {
      name: 'Engine oil',
      interval_seconds: 250 * HOUR,
      interval_days: 180,
      due_soon_seconds: 20 * HOUR,
      last_done_at: '2026-11-01T08:00:00+01:00',
      last_done_hour_meter_seconds: 1000 * HOUR,
    });
    expect(created.status).toBe(201);
    const fromApi = (await created.json()) as Record<string, unknown>;
    expect(shown(fromApi)).toEqual(shown(fromCli));
    const stored = async (id: unknown) => (await store.findServiceSchedule({ scheduleId: Number(id) }))!;
    expect(scheduleVersion(await stored(fromCli.id))).toBe(fromApi.version);

    const updatedCli = await cli.json<Record<string, unknown>>([
      'service',
      'update',
      '--id',
      String(fromCli.id),
      '--every-days',
      'none',
      '--due-soon',
      'default',
    ]);
    const updatedApi = (await (
      await api('PATCH', `/service/schedules/${fromApi.id}`, { interval_days: null, due_soon_seconds: null })
    ).json()) as Record<string, unknown>;
    expect(shown(updatedApi)).toEqual(shown(updatedCli));
    expect(scheduleVersion(await stored(fromCli.id))).toBe(updatedApi.version);

    const doneCli = await cli.json<Record<string, unknown>>([
      'service',
      'done',
      '--id',
      String(fromCli.id),
      '--at',
      '2026-11-20T10:00:00Z',
    ]);
    const doneApi = (await (
      await api('POST', `/service/schedules/${fromApi.id}/done`, { done_at: '2026-11-20T10:00:00Z' })
    ).json()) as Record<string, unknown>;
    expect(shown(doneApi)).toEqual(shown(doneCli));
    expect(scheduleVersion(await stored(fromCli.id))).toBe(doneApi.version);
  });

  it('a reading set by the CLI and posted to the API is the same reading', async () => {
    const { cli, api, viaCli } = await setUp();
    const fromCli = await cli.json<Record<string, unknown>>([
      'hour-meter',
      'set',
      '--device',
      String(viaCli),
      '--reading',
      '1200h',
      '--at',
      '2026-11-20T08:00:00+01:00',
    ]);
    const fromApi = (await (
      await api('POST', '/hour-meter/readings', { read_at: '2026-11-20T08:00:00+01:00', reading_seconds: 1200 * HOUR })
    ).json()) as Record<string, unknown>;
    const { hour_meter_seconds: _now, hour_meter_read_at: _from, ...reading } = fromApi;
    expect({ ...reading, id: 0, device_id: 0 }).toEqual({ ...fromCli, id: 0, device_id: 0 });
  });

  it('the same bad input is refused by both, naming the option or the field, and nothing is written', async () => {
    const { store, cli, api, viaCli, viaApi } = await setUp();
    const cases: [readonly string[], unknown, string, RegExp][] = [
      [
        ['--every', '250h', '--due-soon', '300h'],
        { interval_seconds: 250 * HOUR, due_soon_seconds: 300 * HOUR },
        'due_soon_seconds',
        /--due-soon \(300h\) must not be larger than --every \(250h\)/,
      ],
      [
        ['--every', '250h', '--due-soon-days', '3'],
        { interval_seconds: 250 * HOUR, due_soon_days: 3 },
        'due_soon_days',
        /--due-soon-days needs a calendar interval \(--every-days\)/,
      ],
      [
        ['--every', '250h', '--last-done-at', '2027-01-01T00:00:00Z'],
        { interval_seconds: 250 * HOUR, last_done_at: '2027-01-01T00:00:00Z' },
        'last_done_at',
        /--last-done-at must be an instant that is not in the future/,
      ],
    ];
    for (const [options, body, field, message] of cases) {
      const run = await cli.run(['service', 'create', '--device', String(viaCli), '--name', 'Oil', ...options]);
      expect([run.code, run.stderr]).toEqual([1, expect.stringMatching(message)]);
      const answer = await api('POST', '/service/schedules', { name: 'Oil', ...(body as object) });
      expect([answer.status, ((await answer.json()) as { error: { field: string } }).error.field]).toEqual([400, field]);
    }
    // A name the device already has: exit 1 and 409.
    await cli.json(['service', 'create', '--device', String(viaCli), '--name', 'Oil', '--every', '10h']);
    const again = await cli.run(['service', 'create', '--device', String(viaCli), '--name', 'oil', '--every', '10h']);
    expect([again.code, again.stderr]).toEqual([1, expect.stringMatching(/already has a service schedule named "oil"/)]);
    await api('POST', '/service/schedules', { name: 'Oil', interval_seconds: 10 * HOUR });
    expect((await api('POST', '/service/schedules', { name: 'oil', interval_seconds: 10 * HOUR })).status).toBe(409);
    expect(await store.listServiceSchedules({ deviceIds: [viaCli, viaApi] })).toHaveLength(2);
  });
});
