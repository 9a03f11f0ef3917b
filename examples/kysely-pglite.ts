/**
 * Using the Kysely store with a database you build yourself: here embedded PGlite in memory (swap
 * in createPostgresDatabase({ connectionString }) for a PostgreSQL server). Migrations run, data is
 * written through the storage port, and the hours are aggregated in the database.
 *
 * Run: node --import tsx examples/kysely-pglite.ts
 */
import { createFleetHours, parseInstant, parseWindowQuery } from '@fleet-hours/core';
import { createKyselyStore, createPGliteDatabase, migrateToLatest } from '@fleet-hours/storage-kysely';

const db = await createPGliteDatabase();
try {
  await migrateToLatest(db);
  const store = createKyselyStore(db);

  const fleetHours = createFleetHours({ store, now: () => Date.parse('2026-04-01T00:00:00Z') });
  const account = await store.createAccount({ name: 'Fjord Freight', plan: 'business', now: parseInstant('2026-01-01T00:00:00Z') });
  const berlinVan = { name: 'Van 3', imei: '356307042441015', model: 'FMB140', timeZone: 'Europe/Berlin' };
  const van = await store.createDevice({ accountId: account.id, ...berlinVan });
  // A shift across the spring-forward night in Berlin (2026-03-29 is a 23-hour day).
  await store.importSegments({
    deviceId: van!.id,
    segments: [
      { startedAt: parseInstant('2026-03-28T22:00:00+01:00'), endedAt: parseInstant('2026-03-29T01:30:00+01:00'), state: 'moving' },
      { startedAt: parseInstant('2026-03-29T03:30:00+02:00'), endedAt: parseInstant('2026-03-29T05:00:00+02:00'), state: 'idle' },
    ],
  });

  const daily = await fleetHours.daily({
    accountId: account.id,
    deviceId: van!.id,
    ...parseWindowQuery({ from: '2026-03-28', to: '2026-03-29' }),
  });
  console.log(`daily: ${JSON.stringify(daily)}`);
  const meter = await fleetHours.meter({ accountId: account.id, deviceId: van!.id });
  console.log(`meter: ${JSON.stringify(meter)}`);
} finally {
  await db.destroy();
}
