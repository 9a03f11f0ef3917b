import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKyselyStore, createPGliteDatabase, migrateToLatest } from '@fleet-hours/storage-kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliHarness } from '../testing/cli-harness.js';

const DAY = 86_400;
const NOW = Date.UTC(2026, 10, 25, 12) / 1000;

/**
 * `fleet-hours maintenance` (D42, D43) in-process over a Kysely store on PGlite: it creates the
 * partitions ahead, drops whole months past the retention given by flag or environment, keeps
 * every point of later months, and changes no answer of the meter.
 */
describe('fleet-hours maintenance (D42, D43, D45)', () => {
  let db: Awaited<ReturnType<typeof createPGliteDatabase>>;
  beforeAll(async () => {
    db = await createPGliteDatabase();
    await migrateToLatest(db);
  });
  afterAll(async () => {
    await db?.destroy();
  });

  it('drops the months past --telemetry-retention-days (or its variable), keeps the rest and every answer; a bad value is exit 2', async () => {
    const store = createKyselyStore(db);
    const account = await store.createAccount({ name: 'Acme', plan: 'business', now: NOW });
    const device = (await store.createDevice({ accountId: account.id, name: 'Truck', imei: '1', model: 'm', timeZone: 'UTC' }))!;
    // Points in July, September and November 2026.
    for (const month of [6, 8, 10])
      await store.writeTelemetry({
        accountId: account.id,
        points: Array.from({ length: 20 }, (_, index) => ({
          deviceId: device.id,
          time: Date.UTC(2026, month, 3) / 1000 + index * 60,
          ignition: true,
          speedKmh: 30,
        })),
        now: NOW,
      });
    const cli = createCliHarness({ store, now: NOW * 1000 });
    const meter = () => cli.json(['meter', '--device', String(device.id)]);
    const before = await meter();

    // The current month and the next two exist (created by the migration or now); a second run has nothing to do.
    expect(await cli.json(['maintenance'])).toMatchObject({ retention_days: 0, horizon: null, dropped: [] });
    expect(await cli.json(['maintenance'])).toEqual({
      retention_days: 0,
      horizon: null,
      created: [],
      dropped: [],
      pending: [],
      busy: false,
      idempotency_keys_removed: 0,
      audit: { retention_days: 365, horizon: '2025-11-25T12:00:00Z', removed: 0 },
    });
    const bad = await cli.run(['maintenance', '--telemetry-retention-days', '1.5']);
    expect([bad.code, bad.stderr]).toEqual([
      2,
      expect.stringContaining('--telemetry-retention-days must be a whole number from 0 to 36500, got "1.5"'),
    ]);

    // 100 days before 25 November is 17 August: July goes, September and November stay.
    const dropped = await cli.run(['maintenance'], { env: { FLEET_HOURS_TELEMETRY_RETENTION_DAYS: '100' } });
    expect(dropped).toEqual({
      code: 0,
      stdout:
        'Telemetry partitions created: none; dropped: telemetry_points_p202607; points before 2026-08-17T12:00:00Z are dropped (100 days).\nIdempotency keys past their 24 hours removed: 0.\n' +
        'Change log: removed 0 entries recorded before 2025-11-25T12:00:00Z (365 days).\n',
      stderr: '',
    });
    expect((await store.listTelemetryPoints({ deviceId: device.id })).map((point) => new Date(point.time * 1000).getUTCMonth())).toEqual([
      ...Array(20).fill(8),
      ...Array(20).fill(10),
    ]);
    expect(await meter()).toEqual(before);
    expect(await cli.json(['maintenance', '--telemetry-retention-days', String(100)])).toMatchObject({ dropped: [] });

    // D45: the horizon is the data's: `import telemetry`, without a retention setting of its own, refuses a
    // point of the dropped July naming FILE:LINE, writes nothing, and the meter stays.
    const work = mkdtempSync(join(tmpdir(), 'fleet-hours-maintenance-'));
    try {
      writeFileSync(
        join(work, 'late.ndjson'),
        [
          '{"time":"2026-09-03T01:00:00Z","ignition":true,"speed_kmh":3}',
          '{"time":"2026-07-03T01:00:00Z","ignition":true,"speed_kmh":3}',
        ].join('\n'),
      );
      const late = await createCliHarness({ store, now: NOW * 1000, cwd: work }).run([
        'import',
        'telemetry',
        '--device',
        String(device.id),
        'late.ndjson',
      ]);
      expect([late.code, late.stderr]).toEqual([
        1,
        'late.ndjson:2: Field time 2026-07-03T01:00:00Z is older than the retention horizon 2026-08-01T00:00:00Z (points before it were dropped)\n1 problem in late.ndjson: the import was refused and nothing was written\n',
      ]);

      // And `import segments`: a segment starting before the horizon refuses the file, naming its line; nothing is written.
      const segments = await store.listSegments({ deviceId: device.id });
      writeFileSync(
        join(work, 'late-segments.csv'),
        [
          'started_at,ended_at,state',
          '2026-10-01T01:00:00Z,2026-10-01T02:00:00Z,moving',
          '2026-07-10T01:00:00Z,2026-07-10T02:00:00Z,idle',
        ].join('\n'),
      );
      const lateSegments = await createCliHarness({ store, now: NOW * 1000, cwd: work }).run([
        'import',
        'segments',
        '--device',
        String(device.id),
        'late-segments.csv',
      ]);
      expect([lateSegments.code, lateSegments.stderr]).toEqual([
        1,
        'late-segments.csv:3: Field started_at 2026-07-10T01:00:00Z is older than the retention horizon 2026-08-01T00:00:00Z (points before it were dropped)\n1 problem in late-segments.csv: the import was refused and nothing was written\n',
      ]);
      expect(await store.listSegments({ deviceId: device.id })).toEqual(segments);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
    expect(await meter()).toEqual(before);
    expect((await cli.run(['verify'])).code).toBe(0);
    expect(NOW - 100 * DAY).toBe(Date.UTC(2026, 7, 17, 12) / 1000);
  });

  it('D53: removes the keys of idempotent POSTs past their 24 hours, of every account, and keeps the younger ones', async () => {
    const store = createKyselyStore(db);
    const account = await store.createAccount({ name: 'Keys', plan: 'business', now: NOW });
    const claim = (key: string, now: number) =>
      store.claimIdempotencyKey({
        accountId: account.id,
        key,
        fingerprint: 'f',
        claimId: key,
        now,
        expiredBefore: now - DAY,
        abandonedBefore: now - 60,
      });
    await claim('old', NOW - DAY - 1);
    await claim('young', NOW - DAY + 1);
    const cli = createCliHarness({ store, now: NOW * 1000 });
    expect(await cli.json(['maintenance'])).toMatchObject({ idempotency_keys_removed: 1 });
    expect(await store.findIdempotencyKey({ accountId: account.id, key: 'old' })).toBeNull();
    expect((await store.findIdempotencyKey({ accountId: account.id, key: 'young' }))?.claimId).toBe('young');
    expect((await cli.run(['maintenance'])).stdout).toContain('Idempotency keys past their 24 hours removed: 0.');
  });

  it('D55, P89: removes the change log entries older than --audit-retention-days (default 365, or its variable; 0 keeps all)', async () => {
    const store = createKyselyStore(db);
    const account = await store.createAccount({ name: 'Audited', plan: 'business', now: NOW });
    const entry = (daysAgo: number) => ({
      accountId: account.id,
      at: NOW - daysAgo * DAY,
      actor: { kind: 'cli' as const },
      requestId: null,
      action: 'device.update',
      resource: { type: 'device', id: String(daysAgo) },
      changes: { name: ['A', 'B'] as const },
    });
    for (const daysAgo of [400, 366, 365, 100, 0]) await store.appendAuditEntry(entry(daysAgo));
    const kept = async () => (await store.listAuditEntries({ accountId: account.id, limit: 10 })).map((each) => Number(each.resource.id));
    const cli = createCliHarness({ store, now: NOW * 1000 });

    expect(await cli.json(['maintenance', '--audit-retention-days', '0'])).toMatchObject({
      audit: { retention_days: 0, horizon: null, removed: 0 },
    });
    expect(await kept()).toEqual([0, 100, 365, 366, 400]);
    expect(await cli.json(['maintenance'])).toMatchObject({ audit: { retention_days: 365, horizon: '2025-11-25T12:00:00Z', removed: 2 } });
    expect(await kept()).toEqual([0, 100, 365]);
    const byVariable = await cli.run(['maintenance'], { env: { FLEET_HOURS_AUDIT_RETENTION_DAYS: '30' } });
    expect([byVariable.code, byVariable.stdout]).toEqual([
      0,
      expect.stringContaining('Change log: removed 2 entries recorded before 2026-10-26T12:00:00Z (30 days).\n'),
    ]);
    expect(await kept()).toEqual([0]);
    const bad = await cli.run(['maintenance', '--audit-retention-days', '-1']);
    expect([bad.code, bad.stderr]).toEqual([
      2,
      expect.stringContaining('--audit-retention-days must be a whole number from 0 to 36500, got "-1"'),
    ]);
  });
});
