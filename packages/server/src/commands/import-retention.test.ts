/**
 * D43, D45: `import telemetry` and HTTP ingestion refuse a point beyond the retention through the
 * same core operation (`createTelemetryWrites`, `FleetHours.writes`): the same refusal (the core's
 * `BeyondRetentionError`, its text in both answers), before the store is asked anything, and
 * nothing written; a point at the horizon is stored by both.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type BeyondRetentionError,
  checkRetention,
  createFleetHours,
  createMemoryStore,
  fingerprintApiKey,
  formatInstant,
  generateIngestToken,
  type FleetHoursStore,
} from '@fleet-hours/core';
import { createFleetHoursApp } from '@fleet-hours/http';
import { afterAll, describe, expect, it } from 'vitest';
import { createCliHarness } from '../testing/cli-harness.js';

const DAY = 86_400;
const NOW = Date.UTC(2026, 10, 25, 12) / 1000;
const DAYS = 30;
const HORIZON = NOW - DAYS * DAY;
const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

/** A memory store whose `writeTelemetry` calls are counted. */
function countedStore(): { store: FleetHoursStore; writes: () => number } {
  const memory = createMemoryStore();
  let writes = 0;
  return {
    writes: () => writes,
    store: {
      ...memory,
      writeTelemetry(input) {
        writes += 1;
        return memory.writeTelemetry(input);
      },
    },
  };
}

async function seed(store: FleetHoursStore) {
  const account = await store.createAccount({ name: 'Acme', plan: 'business', now: NOW - 400 * DAY });
  const device = (await store.createDevice({
    accountId: account.id,
    name: 'Truck 14',
    imei: '356307042441014',
    model: 'FMB920',
    timeZone: 'UTC',
  }))!;
  const token = generateIngestToken();
  await store.createIngestToken({
    accountId: account.id,
    fingerprint: await fingerprintApiKey(token),
    label: null,
    expiresAt: null,
    now: NOW - DAY,
  });
  return { device, token };
}

/** The core's own refusal of the point, as both front ends must report it. */
function coreRefusal(time: number): BeyondRetentionError {
  try {
    checkRetention([{ time }], { now: NOW, retentionDays: DAYS });
  } catch (error) {
    return error as BeyondRetentionError;
  }
  throw new Error('expected a refusal');
}

describe('D43, D45, P47: import telemetry and HTTP ingestion refuse beyond_retention through the same core writes', () => {
  const work = mkdtempSync(join(tmpdir(), 'fleet-hours-import-retention-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('a point older than the retention: the CLI (flag or variable) names FILE:LINE and HTTP answers 409, both with the core refusal; the store is not asked, nothing is written', async () => {
    const old = HORIZON - 60;
    const refusal = coreRefusal(old);
    expect(refusal).toMatchObject({ code: 'beyond_retention', keptDays: DAYS });
    const core = refusal.message.replace(/: nothing was written$/, '');
    writeFileSync(
      join(work, 'old.ndjson'),
      [`{"time":"${iso(HORIZON + 60)}","ignition":true,"speed_kmh":3}`, `{"time":"${iso(old)}","ignition":true,"speed_kmh":3}`].join('\n'),
    );

    const cliStore = countedStore();
    const { device } = await seed(cliStore.store);
    const cli = createCliHarness({ store: cliStore.store, now: NOW * 1000, cwd: work });
    const argv = ['import', 'telemetry', '--device', String(device.id), 'old.ndjson'];
    const expected = `old.ndjson:2: Field ${core}\n1 problem in old.ndjson: the import was refused and nothing was written\n`;
    const byFlag = await cli.run([...argv, '--telemetry-retention-days', String(DAYS)]);
    expect([byFlag.code, byFlag.stderr]).toEqual([1, expected]);
    const byVariable = await cli.run(argv, { env: { FLEET_HOURS_TELEMETRY_RETENTION_DAYS: String(DAYS) } });
    expect([byVariable.code, byVariable.stderr]).toEqual([1, expected]);
    expect(cliStore.writes()).toBe(0);
    expect(await cliStore.store.listTelemetryPoints({ deviceId: device.id })).toEqual([]);

    const httpStore = countedStore();
    const http = await seed(httpStore.store);
    const app = createFleetHoursApp({
      fleetHours: createFleetHours({ store: httpStore.store, now: () => NOW * 1000 }),
      now: () => NOW * 1000,
      logger: () => {},
      telemetryRetentionDays: DAYS,
    });
    const response = await app.request('/ingest/v1/telemetry', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-ndjson', Authorization: `Bearer ${http.token}` },
      body: [
        JSON.stringify({ device_id: http.device.id, time: iso(HORIZON + 60), ignition: true, speed_kmh: 3 }),
        JSON.stringify({ device_id: http.device.id, time: iso(old), ignition: true, speed_kmh: 3 }),
      ].join('\n'),
    });
    expect(response.status).toBe(409);
    const { error } = (await response.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe('beyond_retention');
    // The same refusal, its instants in the API's format (D9).
    expect(error.message).toBe(
      `line 2: ${refusal.message.replace(iso(old).replace('.000Z', 'Z'), formatInstant(old, 'UTC')).replace(iso(HORIZON).replace('.000Z', 'Z'), formatInstant(HORIZON, 'UTC'))}`,
    );
    expect(httpStore.writes()).toBe(0);

    // At the horizon: stored by both.
    writeFileSync(join(work, 'kept.ndjson'), `{"time":"${iso(HORIZON)}","ignition":true,"speed_kmh":3}\n`);
    const kept = await cli.run([
      'import',
      'telemetry',
      '--device',
      String(device.id),
      'kept.ndjson',
      '--telemetry-retention-days',
      String(DAYS),
    ]);
    expect(kept.code).toBe(0);
    expect(await cliStore.store.listTelemetryPoints({ deviceId: device.id })).toEqual([{ time: HORIZON, ignition: true, speedKmh: 3 }]);
  });

  it('a bad retention is a usage error of import telemetry (exit 2), naming the flag', async () => {
    const { store } = countedStore();
    const { device } = await seed(store);
    const run = await createCliHarness({ store, now: NOW * 1000, cwd: work }).run([
      'import',
      'telemetry',
      '--device',
      String(device.id),
      'none.ndjson',
      '--telemetry-retention-days',
      '-3',
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--telemetry-retention-days');
  });
});
