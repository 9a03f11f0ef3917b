/**
 * P147: the daily series of a device reads its sums and its day fields from one snapshot. A writer
 * adds a device's segments and changes its calendar, one write after another, while readers ask
 * its daily series over and over at the same time, on the Kysely store (PGlite, and PostgreSQL
 * with DATABASE_URL). Every answer must add up (a day's engine time in and outside its schedule is
 * its engine time) and be exactly the answer of a serial oracle (a memory store without the
 * one-call capability, given the same writes one by one) after some prefix of the writes. The
 * fleet's daily series adds up too: its sums and day fields come from the same segments.
 */
import {
  createFleetHours,
  createMemoryStore,
  type DailyHours,
  type FleetHoursStore,
  type SegmentInput,
  type WorkCalendar,
} from '@fleet-hours/core';
import { createKyselyStore, createPGliteDatabase, migrateToLatest, type FleetHoursDatabase } from '@fleet-hours/storage-kysely';
import type { Kysely } from 'kysely';
import { Temporal } from 'temporal-polyfill';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestSchema, describeWithPostgres, resetTables, type TestPostgres } from './support/postgres.js';

const HOUR = 3600;
/** 2026-03-02T00:00:00+01:00, a Monday in Berlin. */
const MONDAY = Date.UTC(2026, 2, 1, 23) / 1000;
const NOW = MONDAY + 20 * 24 * HOUR;
const SHIFT: WorkCalendar['weekly']['mon'] = [['07:00', '17:00']];
const DAYS: WorkCalendar = { weekly: { mon: SHIFT, tue: SHIFT, wed: SHIFT, thu: SHIFT, fri: SHIFT, sat: [], sun: [] }, exceptions: [] };
const NIGHTS: WorkCalendar = { ...DAYS, weekly: { ...DAYS.weekly, mon: [['22:00', '06:00']], sat: [['05:00', '09:30']] } };

/** One write: a day's segments, or the device's own calendar. */
type Write = { readonly segments: readonly SegmentInput[] } | { readonly calendar: WorkCalendar | null };

/** Day `day`'s three segments: around the start of a shift, in it, and across its end. */
function dayOf(day: number): readonly SegmentInput[] {
  const start = MONDAY + day * 24 * HOUR;
  return [
    { startedAt: start + 6 * HOUR, endedAt: start + 7.5 * HOUR, state: 'moving' },
    { startedAt: start + 9 * HOUR, endedAt: start + 9.25 * HOUR, state: 'idle' },
    { startedAt: start + 16 * HOUR, endedAt: start + 23 * HOUR, state: day % 2 === 0 ? 'moving' : 'idle' },
  ];
}

const WRITES: readonly Write[] = Array.from({ length: 14 }, (_, day): Write[] => [
  { segments: dayOf(day) },
  ...(day % 4 === 3 ? [{ calendar: day % 8 === 3 ? NIGHTS : null }] : []),
]).flat();

/** An account with the default calendar and a device in Berlin. */
async function seed(store: FleetHoursStore): Promise<{ accountId: number; deviceId: number }> {
  const account = await store.createAccount({ name: 'Acme', plan: 'business', now: MONDAY });
  await store.putWorkCalendar({ accountId: account.id, deviceId: null, calendar: DAYS });
  const device = await store.createDevice({ accountId: account.id, name: 'Loader', imei: '1', model: 'FMB920', timeZone: 'Europe/Berlin' });
  return { accountId: account.id, deviceId: device!.id };
}

async function apply(store: FleetHoursStore, target: { accountId: number; deviceId: number }, write: Write): Promise<void> {
  if ('segments' in write) await store.importSegments({ deviceId: target.deviceId, segments: write.segments });
  else await store.putWorkCalendar({ ...target, calendar: write.calendar });
}

/** The series after each prefix of the writes (0 to all), as JSON, from a memory store read the other way (without `findDeviceWithDays`). */
async function oracle(query: (target: { accountId: number; deviceId: number }) => object): Promise<Set<string>> {
  const memory = createMemoryStore();
  const serial: FleetHoursStore = { ...memory, findDeviceWithDays: undefined };
  const target = await seed(serial);
  const fleetHours = createFleetHours({ store: serial, now: () => NOW * 1000 });
  const answers = new Set<string>();
  const ask = async () => answers.add(JSON.stringify(await fleetHours.daily({ ...target, ...query(target) } as never)));
  await ask();
  for (const write of WRITES) {
    await apply(serial, target, write);
    await ask();
  }
  return answers;
}

/** Every day's engine time in and outside its schedule adds up to its engine time. */
function expectAddsUp(series: DailyHours): void {
  for (const day of series.days)
    expect({ date: day.date, engine: day.engineInScheduleSeconds + day.engineOutsideScheduleSeconds }).toEqual({
      date: day.date,
      engine: day.engineSeconds,
    });
}

function describeSnapshot(backend: string, database: () => Kysely<FleetHoursDatabase>): void {
  describe(`the daily series under concurrent writes on ${backend} (P147)`, () => {
    it('every answer adds up and is the serial oracle after some prefix of the writes; the fleet page adds up', async () => {
      const db = database();
      await resetTables(db);
      const store = createKyselyStore(db);
      const target = await seed(store);
      const window = { from: Temporal.PlainDate.from('2026-03-01'), to: Temporal.PlainDate.from('2026-03-16') };
      const expected = await oracle(() => window);
      expect(expected.size).toBe(WRITES.length + 1);
      const fleetHours = createFleetHours({ store, now: () => NOW * 1000 });
      const answers: DailyHours[] = [];
      const fleetAnswers: DailyHours[] = [];
      let writing = true;
      const reader = async () => {
        do {
          answers.push((await fleetHours.daily({ ...target, ...window }))!);
          fleetAnswers.push(...(await fleetHours.fleet.daily({ accountId: target.accountId, ...window })).items);
        } while (writing);
      };
      const writer = async () => {
        for (const write of WRITES) await apply(store, target, write);
        writing = false;
      };
      await Promise.all([writer(), reader(), reader(), reader()]);
      expect(answers.length).toBeGreaterThanOrEqual(3);
      for (const answer of [...answers, ...fleetAnswers]) expectAddsUp(answer);
      for (const answer of answers) expect(expected.has(JSON.stringify(answer)), JSON.stringify(answer)).toBe(true);
      // After the last write, the answer of all of them.
      const last = await fleetHours.daily({ ...target, ...window });
      expect(JSON.stringify(last)).toBe([...expected].at(-1));
    });
  });
}

let pglite: Kysely<FleetHoursDatabase>;
beforeAll(async () => {
  pglite = await createPGliteDatabase();
  await migrateToLatest(pglite);
});
afterAll(async () => {
  await pglite?.destroy();
});
describeSnapshot('PGlite', () => pglite);

describeWithPostgres('on PostgreSQL', () => {
  let server: TestPostgres;
  let db: Kysely<FleetHoursDatabase>;
  beforeAll(async () => {
    server = await createTestSchema();
    db = server.connect({ max: 6 });
    await migrateToLatest(db);
  });
  afterAll(async () => {
    await server?.drop();
  });
  describeSnapshot('PostgreSQL', () => db);
});
