/**
 * P102 (D55) on the database itself: when the insert of the change-log entry fails in SQL (here a
 * trigger that refuses every row of `audit_entries`, as a full disk or a revoked right would), the
 * change written by the statements before it in the same transaction is rolled back with it; once
 * the entries can be written again, the same write keeps its change and one entry.
 */
import { createFleetHours, type ChangeOrigin, type FleetHours } from '@fleet-hours/core';
import { sql, type Kysely } from 'kysely';
import { beforeEach, describe, expect, it } from 'vitest';
import { describeWithPostgres, resetTables } from '../../../../test/support/postgres.js';
import type { FleetHoursDatabase } from '../schema/database-schema.js';
import { usePGlite, usePostgresSchema } from '../testing/fixture.js';
import { createKyselyStore, type KyselyFleetHoursStore } from './create-kysely-store.js';

const NOW = 1_795_000_000; // 2026-11-18T…Z
const HOUR = 3600;
const CLI: ChangeOrigin = { actor: { kind: 'cli' }, requestId: null };

/** A write of each resource, with what it changes as the store reads it. */
const WRITES: readonly {
  readonly name: string;
  run(manage: FleetHours['manage'], ids: { accountId: number; deviceId: number; tokenId: number }): Promise<unknown>;
}[] = [
  {
    name: 'device update',
    run: (manage, { accountId, deviceId }) => manage.updateDevice({ accountId, deviceId, fields: { name: 'Crane' }, origin: CLI }),
  },
  {
    name: 'reading added',
    run: (manage, { accountId, deviceId }) =>
      manage.addHourMeterReading({
        accountId,
        deviceId,
        fields: { read_at: '2026-11-17T00:00:00Z', reading_seconds: 9 * HOUR },
        origin: CLI,
      }),
  },
  {
    name: 'schedule created',
    run: (manage, { accountId, deviceId }) =>
      manage.createServiceSchedule({ accountId, deviceId, fields: { name: 'Oil', interval_seconds: 100 * HOUR }, origin: CLI }),
  },
  {
    name: 'webhook created',
    run: (manage, { accountId }) => manage.createWebhookEndpoint({ accountId, fields: { url: 'https://a.example/' }, origin: CLI }),
  },
  { name: 'ingest token revoked', run: (manage, { accountId, tokenId }) => manage.revokeIngestToken({ accountId, tokenId, origin: CLI }) },
];

function describeAtomicWrites(name: string, database: () => Kysely<FleetHoursDatabase>): void {
  describe(`P102 (D55): a change and its change-log entry in one transaction, on ${name}`, () => {
    let store: KyselyFleetHoursStore;
    let ids: { accountId: number; deviceId: number; tokenId: number };
    beforeEach(async () => {
      const db = database();
      await resetTables(db);
      await sql`drop trigger if exists refuse_audit on audit_entries`.execute(db);
      store = createKyselyStore(db);
      const account = await store.createAccount({ name: 'Acme', plan: 'business', now: NOW - HOUR });
      const device = (await store.createDevice({ accountId: account.id, name: 'Loader', imei: '1', model: 'm', timeZone: 'UTC' }))!;
      const token = (await store.createIngestToken({
        accountId: account.id,
        fingerprint: 'f'.repeat(64),
        label: null,
        expiresAt: null,
        now: NOW - HOUR,
      }))!;
      ids = { accountId: account.id, deviceId: device.id, tokenId: token.id };
    });

    /** What the writes change, as the store reads it. */
    const state = async () => ({
      devices: await store.listDevices({ accountId: ids.accountId }),
      readings: await store.listHourMeterReadings({ deviceIds: [ids.deviceId] }),
      schedules: await store.listServiceSchedules({ deviceIds: [ids.deviceId] }),
      endpoints: await store.listWebhookEndpoints({ accountId: ids.accountId }),
      tokens: await store.listIngestTokens({ accountId: ids.accountId }),
      audit: await store.listAuditEntries({ accountId: ids.accountId, limit: 10 }),
    });

    it('P103: the store operations of several statements join the unit: a zone change, a unique schedule name and an endpoint removed, all rolled back with it', async () => {
      const endpoint = (await store.createWebhookEndpoint({
        accountId: ids.accountId,
        url: 'https://a.example/',
        eventTypes: [],
        secret: `whsec_${'A'.repeat(43)}=`,
        now: NOW,
      }))!;
      const before = await state();
      const failure = new Error('the unit fails');
      await expect(
        store.atomically(async (unit) => {
          // Each of these opens a transaction of its own when called alone.
          await unit.updateDevice({ deviceId: ids.deviceId, changes: { timeZone: 'Europe/Berlin' } });
          await unit.createServiceSchedule({
            deviceId: ids.deviceId,
            name: 'Oil',
            intervalSeconds: HOUR,
            lastDoneAt: NOW,
            now: NOW,
            uniqueName: true,
          });
          await unit.removeWebhookEndpoint({ endpointId: endpoint.id });
          expect((await unit.findDevice({ accountId: ids.accountId, deviceId: ids.deviceId }))?.timeZone).toBe('Europe/Berlin');
          throw failure;
        }),
      ).rejects.toBe(failure);
      expect(await state()).toEqual(before);
    });

    for (const write of WRITES) {
      it(`P102: ${write.name}: an audit insert refused by the database rolls the change back; allowed again, one change and one entry`, async () => {
        const db = database();
        await sql`
          create or replace function refuse_audit() returns trigger language plpgsql as $$
          begin raise exception 'the change log cannot be written (test)'; end $$`.execute(db);
        await sql`create trigger refuse_audit before insert on audit_entries for each row execute function refuse_audit()`.execute(db);
        const { manage } = createFleetHours({ store, now: () => NOW * 1000 });
        const before = await state();
        await expect(write.run(manage, ids)).rejects.toThrow(/the change log cannot be written/);
        expect(await state()).toEqual(before);

        await sql`drop trigger refuse_audit on audit_entries`.execute(db);
        await expect(write.run(manage, ids)).resolves.not.toBeNull();
        const after = await state();
        expect(after.audit).toHaveLength(1);
        expect({ ...after, audit: [] }).not.toEqual({ ...before, audit: [] });
      });
    }
  });
}

describeAtomicWrites('PGlite', usePGlite());

describeWithPostgres('on PostgreSQL', () => {
  const { db } = usePostgresSchema(2);
  describeAtomicWrites('PostgreSQL', db);
});
