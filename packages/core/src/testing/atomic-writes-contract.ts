/**
 * P102 in the storage contract: a store that offers `atomically` keeps what a unit wrote only when
 * the unit succeeds, and every write of `FleetHours.manage` is one unit with its change-log entry
 * (D55): when the entry cannot be written, the change is not kept either; when it can, each change
 * has exactly one entry.
 */
import { describe, expect, it } from 'vitest';
import { createFleetHours, type FleetHours } from '../application/create-fleet-hours.js';
import type { ChangeOrigin } from '../manage/change-log.js';
import { deviceEntityTag } from '../manage/device-writes.js';
import type { FleetHoursStore } from '../store/storage-port.js';
import type { StorageCapability } from './storage-capabilities.js';

const NOW = 1_795_000_000; // 2026-11-18T…Z
const HOUR = 3600;
const KEY: ChangeOrigin = { actor: { kind: 'api_key', label: 'ops', fingerprintPrefix: '0123abcd' }, requestId: 'req-1' };

/** The error of the change log in these tests: an audit insert that fails (a stalled database, a dropped connection). */
const AUDIT_DOWN = new Error('the change log cannot be written (test)');

/**
 * The store with a change log that cannot be written (P102): `appendAuditEntry` rejects with
 * `error`, in the store of each unit too; everything else is the store's. For the tests of a
 * write that must keep nothing when its entry fails.
 *
 * @param store The store.
 * @param error What `appendAuditEntry` rejects with.
 * @returns The store whose entries fail.
 */
export function withFailingAudit(store: FleetHoursStore, error: Error = AUDIT_DOWN): FleetHoursStore {
  return {
    ...store,
    appendAuditEntry: async () => {
      throw error;
    },
    ...(store.atomically && { atomically: (work) => store.atomically!((unit) => work(withFailingAudit(unit, error))) }),
  };
}

/** What the writes of `manage` start from: an account with a device, a reading, a schedule, an endpoint and an ingest token. */
async function seed(store: FleetHoursStore) {
  const account = await store.createAccount({ name: 'Acme', plan: 'business', now: NOW - 100 * HOUR });
  const accountId = account.id;
  const device = (await store.createDevice({ accountId, name: 'Loader', imei: '350000000000001', model: 'm', timeZone: 'UTC' }))!;
  const deviceId = device.id;
  const reading = (await store.addHourMeterReading({
    deviceId,
    readAt: NOW - 50 * HOUR,
    readingSeconds: 10 * HOUR,
    now: NOW - 50 * HOUR,
  }))!;
  const schedule = (await store.createServiceSchedule({
    deviceId,
    name: 'Oil',
    intervalSeconds: 100 * HOUR,
    lastDoneAt: NOW - 90 * HOUR,
    now: NOW - 90 * HOUR,
  }))!;
  const endpoint = (await store.createWebhookEndpoint({
    accountId,
    url: 'https://hooks.example/fleet',
    eventTypes: [],
    secret: `whsec_${'A'.repeat(43)}=`,
    now: NOW - 80 * HOUR,
  }))!;
  const token = (await store.createIngestToken({
    accountId,
    fingerprint: 'f'.repeat(64),
    label: 'yard',
    expiresAt: null,
    now: NOW - 80 * HOUR,
  }))!;
  return { accountId, deviceId, readingId: reading.id, scheduleId: schedule.id, endpointId: endpoint.id, tokenId: token.id };
}

type _Seeded = Awaited<ReturnType<typeof seed>>;

/** A write of `manage`, the change-log actions it makes when it succeeds, one per change, in order. */
interface _Write {
  readonly name: string;
  readonly actions: readonly string[];
  run(manage: FleetHours['manage'], seeded: _Seeded, sent: string[]): Promise<unknown>;
}

/** Every kind of write of `manage`, each possible on the seeded data, in an order in which each also succeeds after the ones before. */
const WRITES: readonly _Write[] = [
  {
    name: 'device create',
    actions: ['device.create'],
    run: (manage, { accountId }) =>
      manage.createDevice({ accountId, fields: { name: 'Crane', imei: '350000000000002', model: 'm', timezone: 'UTC' }, origin: KEY }),
  },
  {
    name: 'device update',
    actions: ['device.update'],
    run: (manage, { accountId, deviceId }) =>
      manage.updateDevice({ accountId, deviceId, fields: { name: 'Loader 2', timezone: 'Europe/Berlin' }, origin: KEY }),
  },
  {
    name: 'reading added',
    actions: ['hour_meter_reading.create'],
    run: (manage, { accountId, deviceId }) =>
      manage.addHourMeterReading({
        accountId,
        deviceId,
        fields: { read_at: '2026-11-17T00:00:00Z', reading_seconds: 40 * HOUR },
        origin: KEY,
      }),
  },
  {
    name: 'reading removed',
    actions: ['hour_meter_reading.delete'],
    run: (manage, { accountId, deviceId, readingId }) => manage.removeHourMeterReading({ accountId, deviceId, readingId, origin: KEY }),
  },
  {
    name: 'schedule created',
    actions: ['service_schedule.create'],
    run: (manage, { accountId, deviceId }) =>
      manage.createServiceSchedule({ accountId, deviceId, fields: { name: 'Filters', interval_seconds: 500 * HOUR }, origin: KEY }),
  },
  {
    name: 'schedule changed',
    actions: ['service_schedule.update'],
    run: (manage, { accountId, deviceId, scheduleId }) =>
      manage.updateServiceSchedule({ accountId, deviceId, scheduleId, fields: { interval_days: 90 }, origin: KEY }),
  },
  {
    name: 'service done with its hour meter',
    actions: ['hour_meter_reading.create', 'service_schedule.done'],
    run: (manage, { accountId, deviceId, scheduleId }) =>
      manage.recordServiceDone({
        accountId,
        deviceId,
        scheduleId,
        fields: { done_at: '2026-11-17T12:00:00Z', hour_meter_seconds: 45 * HOUR },
        origin: KEY,
      }),
  },
  {
    name: 'schedule removed',
    actions: ['service_schedule.delete'],
    run: (manage, { accountId, deviceId, scheduleId }) => manage.removeServiceSchedule({ accountId, deviceId, scheduleId, origin: KEY }),
  },
  {
    name: 'webhook created',
    actions: ['webhook.create'],
    run: (manage, { accountId }) => manage.createWebhookEndpoint({ accountId, fields: { url: 'https://other.example/hook' }, origin: KEY }),
  },
  {
    name: 'webhook changed',
    actions: ['webhook.update'],
    run: (manage, { accountId, endpointId }) =>
      manage.updateWebhookEndpoint({ accountId, endpointId, fields: { url: 'https://hooks.example/v2' }, origin: KEY }),
  },
  {
    name: 'webhook secret rotated',
    actions: ['webhook.rotate'],
    run: (manage, { accountId, endpointId }) => manage.rotateWebhookSecret({ accountId, endpointId, origin: KEY }),
  },
  {
    name: 'webhook tested',
    actions: ['webhook.test'],
    run: (manage, { accountId, endpointId }, sent) =>
      manage.testWebhookEndpoint({
        accountId,
        endpointId,
        origin: KEY,
        send: async ({ eventId }) => {
          sent.push(eventId);
          return null;
        },
      }),
  },
  {
    name: 'webhook removed',
    actions: ['webhook.delete'],
    run: (manage, { accountId, endpointId }) => manage.removeWebhookEndpoint({ accountId, endpointId, origin: KEY }),
  },
  {
    name: 'ingest token created',
    actions: ['ingest_token.create'],
    run: (manage, { accountId }) => manage.createIngestToken({ accountId, fields: { label: 'gate' }, origin: KEY }),
  },
  {
    name: 'ingest token revoked',
    actions: ['ingest_token.revoke'],
    run: (manage, { accountId, tokenId }) => manage.revokeIngestToken({ accountId, tokenId, origin: KEY }),
  },
];

/** Everything the writes of `manage` can change, as the store reads it. */
async function stateOf(store: FleetHoursStore, { accountId, deviceId }: _Seeded) {
  const devices = await store.listDevices({ accountId });
  const deviceIds = devices.map((device) => device.id);
  return {
    devices,
    readings: await store.listHourMeterReadings({ deviceIds }),
    schedules: await store.listServiceSchedules({ deviceIds }),
    endpoints: await store.listWebhookEndpoints({ accountId }),
    tokens: await store.listIngestTokens({ accountId }),
    audit: await store.listAuditEntries({ accountId, limit: 100 }),
    deviceId,
  };
}

/**
 * Registers the P102 tests inside `describeStorageContract`.
 *
 * @param options The store of the running test, and the capability-aware `it`.
 */
export function describeAtomicWritesContract(options: {
  readonly store: () => FleetHoursStore;
  readonly itWith: (capability: StorageCapability, title: string, test: () => Promise<void>) => void;
}): void {
  const { store, itWith } = options;
  const fleetHoursOver = (over: FleetHoursStore) => createFleetHours({ store: over, now: () => NOW * 1000 });

  describe('one unit per change and its change-log entry (D55, P102)', () => {
    itWith('atomically', 'P102: atomically() keeps what the unit wrote when it resolves, and answers its value', async () => {
      const answer = await store().atomically!(async (unit) => {
        const account = await unit.createAccount({ name: 'Acme', plan: 'business', now: NOW });
        return unit.createDevice({ accountId: account.id, name: 'Loader', imei: '1', model: 'm', timeZone: 'UTC' });
      });
      const [account] = await store().listAccounts();
      expect(await store().listDevices({ accountId: account!.id })).toEqual([answer]);
    });

    itWith('atomically', 'P102: atomically() keeps nothing of a unit that rejects, and rejects with its error', async () => {
      const account = await store().createAccount({ name: 'Acme', plan: 'business', now: NOW });
      const failure = new Error('the unit fails');
      await expect(
        store().atomically!(async (unit) => {
          await unit.createDevice({ accountId: account.id, name: 'Loader', imei: '1', model: 'm', timeZone: 'UTC' });
          await unit.setAccountPlan({ accountId: account.id, plan: 'starter' });
          // A unit inside the unit joins it: its writes go with the outer one.
          await unit.atomically!((inner) => inner.createAccount({ name: 'Other', plan: 'business', now: NOW }));
          throw failure;
        }),
      ).rejects.toBe(failure);
      expect(await store().listAccounts()).toEqual([account]);
      expect(await store().listDevices({ accountId: account.id })).toEqual([]);
      // The store works on after it.
      expect(await store().createDevice({ accountId: account.id, name: 'Loader', imei: '1', model: 'm', timeZone: 'UTC' })).not.toBeNull();
    });

    for (const write of WRITES) {
      itWith('atomically', `P102: ${write.name}: when its change-log entry cannot be written, the change is not kept either`, async () => {
        const seeded = await seed(store());
        const before = await stateOf(store(), seeded);
        const sent: string[] = [];
        await expect(write.run(fleetHoursOver(withFailingAudit(store())).manage, seeded, sent)).rejects.toBe(AUDIT_DOWN);
        expect(await stateOf(store(), seeded)).toEqual(before);
        // No test event was put in the outbox, nor sent.
        expect(sent).toEqual([]);
        expect(await store().claimDeliveries({ claimant: 'test', limit: 10, leaseSeconds: 60, now: NOW + HOUR })).toEqual([]);
      });
    }

    it('P102: when the entries can be written, each write keeps its change and exactly one entry per change', async () => {
      const seeded = await seed(store());
      const { manage } = fleetHoursOver(store());
      const sent: string[] = [];
      for (const write of WRITES) {
        const before = await stateOf(store(), seeded);
        await expect(write.run(manage, seeded, sent)).resolves.not.toBeNull();
        const after = await stateOf(store(), seeded);
        expect({ write: write.name, changed: JSON.stringify(after) !== JSON.stringify(before) }).toEqual({
          write: write.name,
          changed: true,
        });
        const added = after.audit.slice(0, after.audit.length - before.audit.length);
        expect({ write: write.name, actions: added.map((entry) => entry.action).reverse() }).toEqual({
          write: write.name,
          actions: write.actions,
        });
      }
      expect(sent).toHaveLength(1);
    });

    it('P150: a device changed between the read of an update and its unit: the change applies to the device as it then is, and its entry has that device as before', async () => {
      const { accountId, deviceId } = await seed(store());
      let between = true;
      // Another writer changes the device right after the update's first read of it.
      const racing: FleetHoursStore = {
        ...store(),
        findDevice: async (input) => {
          const found = await store().findDevice(input);
          if (between) {
            between = false;
            await store().updateDevice({ deviceId, changes: { model: 'between' } });
          }
          return found;
        },
      };
      const updated = await fleetHoursOver(racing).manage.updateDevice({ accountId, deviceId, fields: { name: 'Loader 2' }, origin: KEY });
      expect(updated).toMatchObject({ name: 'Loader 2', model: 'between' });
      expect(between).toBe(false);
      const entries = await store().listAuditEntries({ accountId, limit: 10 });
      expect(entries.map((entry) => [entry.action, entry.changes])).toEqual([['device.update', { name: ['Loader', 'Loader 2'] }]]);
    });

    it('P150: with If-Match, a device changed between the read and the unit is 412 and keeps the other change only', async () => {
      const { accountId, deviceId } = await seed(store());
      const read = (await store().findDevice({ accountId, deviceId }))!;
      const racing: FleetHoursStore = {
        ...store(),
        findDevice: async (input) => {
          const found = await store().findDevice(input);
          await store().updateDevice({ deviceId, changes: { model: 'between' } });
          return found;
        },
      };
      const fleetHours = fleetHoursOver(racing);
      await expect(
        fleetHours.manage.updateDevice({ accountId, deviceId, fields: { name: 'Loader 2' }, ifMatch: deviceEntityTag(read), origin: KEY }),
      ).rejects.toMatchObject({ code: 'precondition_failed' });
      expect(await store().findDevice({ accountId, deviceId })).toMatchObject({ name: 'Loader', model: 'between' });
      expect(await store().listAuditEntries({ accountId, limit: 10 })).toEqual([]);
    });
  });
}
