import { describe, expect, it } from 'vitest';
import { createFleetHours } from '../application/create-fleet-hours.js';
import { InvalidParameterError } from '../errors/errors.js';
import { createMemoryStore } from '../store/memory-store.js';
import { deviceChangeFields, storeChangeLog } from './audit-log.js';
import { fieldChanges, type ChangeLog, type ChangeOrigin, type ChangeReport } from './change-log.js';

const T0 = 1_767_225_600; // 2026-01-01T00:00:00Z
const API: ChangeOrigin = { actor: { kind: 'api_key', label: 'ops', fingerprintPrefix: '0123abcd' }, requestId: 'req-7' };
const CLI: ChangeOrigin = { actor: { kind: 'cli' }, requestId: null };
const TRUCK = { name: 'Truck 1', imei: '350000000000001', model: 'FMB920', timezone: 'Europe/Berlin' };

/** A change log that keeps what it is told, for the test to read. */
function recordingChangeLog(): ChangeLog & { readonly reports: ChangeReport[] } {
  const reports: ChangeReport[] = [];
  return { reports, record: async (change) => void reports.push(change) };
}

async function setUp(options: { changeLog?: ChangeLog } = {}) {
  const store = createMemoryStore();
  let clock = T0 * 1000;
  const fleetHours = createFleetHours({ store, now: () => clock, ...options });
  const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
  const other = await store.createAccount({ name: 'Other', plan: 'business', now: T0 });
  return { store, fleetHours, account, other, tick: (seconds: number) => (clock += seconds * 1000) };
}

describe('device writes report their changes (D55)', () => {
  it('D55: a creation reports device.create with the origin, nothing before and the device by its API fields after', async () => {
    const changeLog = recordingChangeLog();
    const { fleetHours, account } = await setUp({ changeLog });
    const device = (await fleetHours.manage.createDevice({ accountId: account.id, fields: TRUCK, origin: API }))!;
    expect(changeLog.reports).toEqual([
      {
        accountId: account.id,
        origin: API,
        action: 'device.create',
        resource: { type: 'device', id: String(device.id) },
        before: null,
        after: {
          id: device.id,
          name: 'Truck 1',
          imei: '350000000000001',
          registration: null,
          model: 'FMB920',
          status: 'active',
          timezone: 'Europe/Berlin',
          // D61, D63
          tags: [],
          oem_name: null,
          equipment_model: null,
          serial_number: null,
          pin: null,
        },
      },
    ]);
  });

  it('D55: a change reports device.update with the device before and after, the CLI as its actor', async () => {
    const changeLog = recordingChangeLog();
    const { fleetHours, account } = await setUp({ changeLog });
    const device = (await fleetHours.manage.createDevice({ accountId: account.id, fields: TRUCK, origin: API }))!;
    await fleetHours.manage.updateDevice({ accountId: account.id, deviceId: device.id, fields: { name: 'Truck 2' }, origin: CLI });
    const report = changeLog.reports[1]!;
    expect(report).toMatchObject({
      accountId: account.id,
      origin: CLI,
      action: 'device.update',
      resource: { type: 'device', id: String(device.id) },
    });
    expect(report.before).toMatchObject({ name: 'Truck 1' });
    expect(report.after).toMatchObject({ name: 'Truck 2' });
  });

  it('D55, D61, D63: a change of tags or identity reports them by their API names, the list before and after', async () => {
    const changeLog = recordingChangeLog();
    const { fleetHours, account } = await setUp({ changeLog });
    const device = (await fleetHours.manage.createDevice({ accountId: account.id, fields: { ...TRUCK, tags: ['north'] }, origin: API }))!;
    await fleetHours.manage.updateDevice({
      accountId: account.id,
      deviceId: device.id,
      fields: { tags: ['north', 'cranes'], oem_name: 'CAT' },
      origin: CLI,
    });
    const report = changeLog.reports[1]!;
    expect(fieldChanges(report.before, report.after)).toEqual({ tags: [['north'], ['north', 'cranes']], oem_name: [null, 'CAT'] });
  });

  it('D55: a write that changes nothing reports nothing: refused fields, a missing or foreign device, a stale If-Match', async () => {
    const changeLog = recordingChangeLog();
    const { fleetHours, account, other } = await setUp({ changeLog });
    const device = (await fleetHours.manage.createDevice({ accountId: account.id, fields: TRUCK, origin: API }))!;
    await expect(fleetHours.manage.createDevice({ accountId: account.id, fields: { ...TRUCK, name: '' }, origin: API })).rejects.toThrow();
    await expect(fleetHours.manage.createDevice({ accountId: account.id, fields: TRUCK, origin: API })).rejects.toThrow(); // IMEI in use
    expect(
      await fleetHours.manage.updateDevice({ accountId: other.id, deviceId: device.id, fields: { name: 'X' }, origin: API }),
    ).toBeNull();
    expect(await fleetHours.manage.updateDevice({ accountId: account.id, deviceId: 999, fields: { name: 'X' }, origin: API })).toBeNull();
    await expect(
      fleetHours.manage.updateDevice({ accountId: account.id, deviceId: device.id, fields: { name: 'X' }, ifMatch: '"d-0"', origin: API }),
    ).rejects.toThrow(/If-Match/);
    expect(changeLog.reports.map((report) => report.action)).toEqual(['device.create']);
  });
});

describe('the change log kept in the store (D55, P87)', () => {
  it('D55: by default the writes land in the store: audit.list shows when, who, the request, and the fields changed', async () => {
    const { fleetHours, account, other, tick } = await setUp();
    const device = (await fleetHours.manage.createDevice({ accountId: account.id, fields: TRUCK, origin: API }))!;
    tick(60);
    await fleetHours.manage.updateDevice({
      accountId: account.id,
      deviceId: device.id,
      fields: { name: 'Truck 2', status: 'inactive' },
      origin: CLI,
    });
    const page = await fleetHours.audit.list({ accountId: account.id });
    expect(page.nextCursor).toBeNull();
    expect(page.entries).toEqual([
      {
        id: expect.any(Number),
        accountId: account.id,
        at: T0 + 60,
        actor: { kind: 'cli' },
        requestId: null,
        action: 'device.update',
        resource: { type: 'device', id: String(device.id) },
        changes: { name: ['Truck 1', 'Truck 2'], status: ['active', 'inactive'] },
      },
      expect.objectContaining({ at: T0, actor: API.actor, requestId: 'req-7', action: 'device.create' }),
    ]);
    expect(page.entries[1]!.changes).toMatchObject({ name: [null, 'Truck 1'], timezone: [null, 'Europe/Berlin'] });
    expect((await fleetHours.audit.list({ accountId: other.id })).entries).toEqual([]);
  });

  it('D55: secret fields are written as "[redacted]", their values nowhere in the entry', async () => {
    const store = createMemoryStore();
    const account = await store.createAccount({ name: 'Acme', plan: 'business', now: T0 });
    await storeChangeLog(store, () => T0 * 1000).record({
      accountId: account.id,
      origin: CLI,
      action: 'webhook.rotate',
      resource: { type: 'webhook', id: '3' },
      before: { url: 'https://a.example', secret: 'whsec_old' },
      after: { url: 'https://a.example', secret: 'whsec_new' },
      secretFields: ['secret'],
    });
    const [entry] = await store.listAuditEntries({ accountId: account.id, limit: 1 });
    expect(entry!.changes).toEqual({ secret: ['[redacted]', '[redacted]'] });
    expect(JSON.stringify(entry)).not.toMatch(/whsec_/);
  });

  it('P87: pages newest first walk every entry once; a cursor of another account or edited is refused naming cursor', async () => {
    const { fleetHours, account, other } = await setUp();
    for (let index = 0; index < 5; index += 1) {
      await fleetHours.manage.createDevice({ accountId: account.id, fields: { ...TRUCK, imei: `35000000000000${index}` }, origin: API });
      await fleetHours.manage.createDevice({ accountId: other.id, fields: { ...TRUCK, imei: `35000000000000${index}` }, origin: API });
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await fleetHours.audit.list({ accountId: account.id, limit: 2, cursor });
      seen.push(...page.entries.map((entry) => entry.resource.id));
      cursor = page.nextCursor ?? undefined;
      pages += 1;
    } while (cursor !== undefined);
    expect(pages).toBe(3);
    const created = (await fleetHours.listDevices({ accountId: account.id })).map((device) => String(device.id));
    expect(seen).toEqual([...created].reverse());

    const first = await fleetHours.audit.list({ accountId: account.id, limit: 2 });
    await expect(fleetHours.audit.list({ accountId: other.id, cursor: first.nextCursor! })).rejects.toThrow(InvalidParameterError);
    await expect(fleetHours.audit.list({ accountId: account.id, cursor: `${first.nextCursor!}x` })).rejects.toThrow(/cursor/);
    await expect(fleetHours.audit.list({ accountId: account.id, limit: 501 })).rejects.toThrow(/limit/);
  });

  it('D55: a device by its API fields: snake_case, the zone as timezone, without its account and last report', () => {
    expect(
      deviceChangeFields({
        id: 7,
        accountId: 1,
        name: 'Van',
        imei: '1',
        registration: null,
        model: 'M',
        status: 'active',
        timeZone: 'UTC',
        lastReportedAt: T0,
        tags: ['north'],
        oemName: 'CAT',
        equipmentModel: null,
        serialNumber: null,
        pin: null,
      }),
    ).toEqual({
      id: 7,
      name: 'Van',
      imei: '1',
      registration: null,
      model: 'M',
      status: 'active',
      timezone: 'UTC',
      // D61, D63
      tags: ['north'],
      oem_name: 'CAT',
      equipment_model: null,
      serial_number: null,
      pin: null,
    });
  });
});
