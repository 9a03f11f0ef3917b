/**
 * D53 over HTTP on the databases (P85): identical POSTs with one Idempotency-Key sent at once
 * create one device, on PGlite and on PostgreSQL, and every answer is one the serial oracle
 * allows — the first answer (replayed) or 409 while it runs.
 */
import { createFleetHours, fingerprintApiKey, generateApiKey } from '@fleet-hours/core';
import { createFleetHoursApp } from '@fleet-hours/http';
import { createKyselyStore, createPGliteDatabase, migrateToLatest, type FleetHoursDatabase } from '@fleet-hours/storage-kysely';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestSchema, describeWithPostgres, type TestPostgres } from './support/postgres.js';

const NOW_MS = Date.UTC(2026, 11, 1, 12);

/** An app over a Kysely store with one account and its manage key. */
async function appOn(db: Kysely<FleetHoursDatabase>) {
  const store = createKyselyStore(db);
  const account = await store.createAccount({ name: 'Acme', plan: 'business', now: NOW_MS / 1000 });
  const key = generateApiKey();
  await store.createApiKey({
    accountId: account.id,
    fingerprint: await fingerprintApiKey(key),
    label: 'ci',
    expiresAt: null,
    now: NOW_MS / 1000,
    scope: 'manage',
  });
  const app = createFleetHoursApp({
    fleetHours: createFleetHours({ store, now: () => NOW_MS }),
    now: () => NOW_MS,
    logger: () => {},
    rateLimits: { writes: 10_000 },
  });
  const post = (idempotencyKey: string, body: unknown) =>
    app.request('/api/v1/devices', {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', 'Idempotency-Key': idempotencyKey },
      body: JSON.stringify(body),
    });
  return { store, account, post };
}

/** What an answer is, for the oracle: the first answer, a replay of it, or a refusal by code. */
async function kindOf(response: Response, first: string | null): Promise<string> {
  const body = await response.text();
  if (response.status === 201)
    return response.headers.get('Idempotent-Replayed') === 'true' ? (body === first ? 'replay' : 'other replay') : 'run';
  return `${response.status} ${(JSON.parse(body) as { error: { code: string } }).error.code}`;
}

function describeIdempotentPosts(backend: string, database: () => Kysely<FleetHoursDatabase>): void {
  describe(`D53, P85: identical POSTs at once on ${backend}`, () => {
    it('16 identical requests at once: one device, one run, the rest replays of its answer or 409 — what requests one after another allow', async () => {
      const { store, account, post } = await appOn(database());
      const body = (imei: string) => ({ name: 'Van', imei, model: 'FMC130', timezone: 'UTC' });
      // The serial oracle: one after another, one run and fifteen replays of its answer.
      const serial: string[] = [];
      let first: string | null = null;
      for (let index = 0; index < 16; index += 1) {
        const response = await post('serial', body('1'));
        if (first === null) first = await response.clone().text();
        serial.push(await kindOf(response, first));
      }
      expect(serial).toEqual(['run', ...Array(15).fill('replay')]);
      for (const round of [1, 2, 3]) {
        const imei = `burst-${round}`;
        const before = (await store.listDevices({ accountId: account.id })).length;
        const responses = await Promise.all(Array.from({ length: 16 }, () => post(`burst-${round}`, body(imei))));
        const run = responses.find((response) => response.status === 201 && response.headers.get('Idempotent-Replayed') === null);
        expect(run).toBeDefined();
        const firstAnswer = await run!.clone().text();
        const kinds = await Promise.all(responses.map((response) => kindOf(response, firstAnswer)));
        expect(kinds.filter((kind) => kind === 'run')).toHaveLength(1);
        expect(kinds.filter((kind) => kind !== 'run' && kind !== 'replay' && kind !== '409 idempotency_key_in_use')).toEqual([]);
        const devices = await store.listDevices({ accountId: account.id });
        expect(devices).toHaveLength(before + 1);
        expect(devices.filter((device) => device.imei === imei)).toHaveLength(1);
        // Once the first is done, every later one is its answer again.
        expect(await kindOf(await post(`burst-${round}`, body(imei)), firstAnswer)).toBe('replay');
      }
    });

    it('requests with one key and different bodies at once: exactly one runs, the others are 409 or 422, none creates', async () => {
      const { store, account, post } = await appOn(database());
      const before = (await store.listDevices({ accountId: account.id })).length;
      const responses = await Promise.all(
        Array.from({ length: 12 }, (_, index) =>
          post('mixed', { name: `Van ${index}`, imei: `mixed-${index}`, model: 'FMC130', timezone: 'UTC' }),
        ),
      );
      const kinds = await Promise.all(responses.map((response) => kindOf(response, null)));
      expect(kinds.filter((kind) => kind === 'run')).toHaveLength(1);
      expect(kinds.filter((kind) => !['run', '409 idempotency_key_in_use', '422 idempotency_key_reused'].includes(kind))).toEqual([]);
      expect(await store.listDevices({ accountId: account.id })).toHaveLength(before + 1);
    });
  });
}

describe('on PGlite', () => {
  let db: Kysely<FleetHoursDatabase>;
  beforeAll(async () => {
    db = await createPGliteDatabase();
    await migrateToLatest(db);
  });
  afterAll(async () => {
    await db?.destroy();
  });
  describeIdempotentPosts('PGlite', () => db);
});

describeWithPostgres('on PostgreSQL', () => {
  let server: TestPostgres;
  let db: Kysely<FleetHoursDatabase>;
  beforeAll(async () => {
    server = await createTestSchema();
    db = server.connect({ max: 10 });
    await migrateToLatest(db);
  });
  afterAll(async () => {
    await server?.drop();
  });
  describeIdempotentPosts('PostgreSQL', () => db);
});
