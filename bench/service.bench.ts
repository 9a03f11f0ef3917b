/**
 * The service schedules (D38, D39) on PostgreSQL (DATABASE_URL, else
 * postgres://postgres@127.0.0.1:5432/test when it answers), in a schema of their own, through one
 * app (`createFleetHoursApp` over the Kysely store, which also holds the rate-limit counters as
 * the reference server does; limits raised out of the way; no socket: `app.request()`):
 *
 * 1. One device (Europe/Berlin, ~150 segments a day as in rollup and scale) with 5 schedules —
 *    with and without a calendar interval, last-done hour meters given and computed — and an
 *    hour-meter reading every 91 days, the latest 20 days before now; its last services 8 to 300
 *    days before now, each within its interval. `/devices/{id}/service` against `/meter` of the
 *    same device (goal: ≤ 1.5×), and `/service` of the device with 5 years of history against
 *    the same shape with 1 year (goal: ≤ 1.2): median and p95 of requests timed in turns.
 * 2. 500 devices in five zones, each with a year of 24 segments a day, a reading every 91 days
 *    and 3 schedules; one in five is overdue, one in five due soon, the rest ok (200 match).
 *    One page of `/api/v1/service?status=due_soon,overdue` (100 devices) against the 100 single
 *    `/devices/{id}/service` requests of the same devices (goal: the page ≥ 20× cheaper); also
 *    against the single requests of every device the page reads, pages without the filter, and the
 *    filtered page with nothing remembered (P58: every memo version raised before it).
 * 3. D49: FILTER_DEVICES (default 10,000) devices in one account, each with an open segment, a
 *    report 10 minutes ago and one schedule: all ok but the last device, overdue.
 *    `/api/v1/service?status=overdue&limit=1` (it skips every other device) against
 *    `/api/v1/service?limit=1` (goal: ≤ 2×), remembered and with nothing remembered; and the same
 *    in a second account where one device in five is due soon (no match, yet not remembered ok).
 *    Its data are written by SQL alone (`generate_series`).
 *
 * The segments are written by SQL (`insert … select generate_series`), the store's derived
 * figures rebuilt (`rebuildDailyFigures`); readings and schedules go through the store, their
 * values taken from the segments (the hour meter an operator would have read). Each part runs
 * SERVICE_BENCH_ROUNDS times (default 2): the machine is shared. Before timing, the store calls
 * of one request of each kind are counted and printed. Prints figures; asserts nothing about time.
 *
 * Run: `npm run bench -- service`. `SERVICE_BENCH_RUNS` (default 300) sets the requests of part 1,
 * `SERVICE_BENCH_PER_DAY` (default 24) the segments a day of part 2; `SERVICE_BENCH_KEEP=1` keeps the
 * schema for `EXPLAIN ANALYZE` afterwards; `SERVICE_BENCH_PARTS=3` runs part 3 alone,
 * `SERVICE_BENCH_FILTER_DEVICES` sets its devices.
 */
import { performance } from 'node:perf_hooks';
import { createFleetHours, fingerprintApiKey, generateApiKey, type FleetHoursStore } from '@fleet-hours/core';
import { createFleetHoursApp } from '@fleet-hours/http';
import {
  createKyselyStore,
  createPostgresDatabase,
  migrateToLatest,
  rebuildDailyFigures,
  type FleetHoursDatabase,
} from '@fleet-hours/storage-kysely';
import { sql, type Kysely } from 'kysely';
import postgres from 'postgres';
import { figureOf, measurePair, reachable, stealMeter, stealNote, type Figure } from './_support.js';

const DAY = 86_400;
const HOUR = 3600;
const NOW = Date.UTC(2026, 10, 25, 14, 7, 30) / 1000; // a Wednesday afternoon: an open segment runs, today is cut at now
const TODAY = Math.floor(NOW / DAY) * DAY;
const ROUNDS = Number(process.env.SERVICE_BENCH_ROUNDS ?? 2);
const WARM_UP = 20;
const RUNS = Number(process.env.SERVICE_BENCH_RUNS ?? 300);
const FLEET_DEVICES = 500;
const FLEET_DAYS = 365;
const FLEET_PER_DAY = Number(process.env.SERVICE_BENCH_PER_DAY ?? 24);
const FLEET_RUNS = 10;
const PAGE = 100;
const KEEP = process.env.SERVICE_BENCH_KEEP === '1';
const PARTS = new Set((process.env.SERVICE_BENCH_PARTS ?? '1,2,3').split(',').map(Number));
const FILTER_DEVICES = Number(process.env.SERVICE_BENCH_FILTER_DEVICES ?? 10_000);
const FILTER_RUNS = 30;
const ZONES = ['America/New_York', 'Europe/Berlin', 'Asia/Kathmandu', 'America/Los_Angeles', 'Australia/Sydney'];

/** A schedule as the bench creates it: instants as days before NOW; `given` when the operator wrote the hour meter down. */
interface ScheduleShape {
  readonly name: string;
  readonly hours: number;
  readonly days: number | null;
  readonly doneDaysAgo: number;
  readonly given: boolean;
}

// Part 1's device: ~6 engine hours a day; every last service within its interval, two due soon.
const DEVICE_SCHEDULES: readonly ScheduleShape[] = [
  { name: 'Engine oil', hours: 250, days: 180, doneDaysAgo: 21, given: false },
  { name: 'Air filter', hours: 500, days: null, doneDaysAgo: 45, given: true },
  { name: 'Hydraulic oil', hours: 1000, days: 365, doneDaysAgo: 150, given: false },
  { name: 'Annual inspection', hours: 2000, days: 365, doneDaysAgo: 300, given: true },
  { name: 'Greasing', hours: 50, days: null, doneDaysAgo: 8, given: false },
];
const DEVICE_READINGS_EVERY = 91;
const DEVICE_LATEST_READING = 20;

/**
 * Part 2's schedules of fleet device `index`, ~5.6 engine hours a day: oil and air filter ok; the
 * inspection overdue by date for one device in five, due soon by date for another, else ok.
 */
function fleetSchedules(index: number): ScheduleShape[] {
  const inspection =
    index % 5 === 0
      ? { days: 180, doneDaysAgo: 200 }
      : index % 5 === 1
        ? { days: 90, doneDaysAgo: 85 }
        : { days: 365, doneDaysAgo: 40 + (index % 200) };
  return [
    { name: 'Engine oil', hours: 250, days: 180, doneDaysAgo: 3 + (index % 30), given: false },
    { name: 'Air filter', hours: 500, days: null, doneDaysAgo: 20 + (index % 40), given: true },
    { name: 'Inspection', hours: 3000, ...inspection, given: false },
  ];
}

const serverUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const ms = (value: number, digits = 2) => value.toFixed(digits).padStart(8);

if (!(await reachable(serverUrl))) {
  console.log(`PostgreSQL server: not reachable at ${serverUrl.replace(/:[^:@/]*@/, ':***@')}, skipped`);
  process.exit(0);
}

const schema = `fh_bench_service_${process.pid}`;
const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
await admin.unsafe(`create schema ${schema}`);
// No deadline (D28): the bulk load's statements take longer than a request's 5 s.
const db = createPostgresDatabase({ connectionString: serverUrl, schema, max: 4, queryTimeout: 0 });
try {
  await migrateToLatest(db);
  const counting = countingStore(createKyselyStore(db));
  const { store } = counting;
  const seeded = performance.now();
  const single = PARTS.has(1) || PARTS.has(2) ? await seedDevices(db, store) : null;
  const fleet = PARTS.has(1) || PARTS.has(2) ? await seedFleet(db, store) : null;
  const filtered = PARTS.has(3) ? await seedFiltered(db, store) : null;
  const inserted = performance.now();
  // Segments written outside Fleet Hours: rebuild what the store derives from them (and the scan bound).
  if (single) await rebuildDailyFigures(db);
  await sql`vacuum analyze`.execute(db);
  const { rows } = await sql<{ segments: string; readings: string; schedules: string }>`
    select (select count(*) from engine_segments) as segments, (select count(*) from hour_meter_readings) as readings,
           (select count(*) from service_schedules) as schedules`.execute(db);
  console.log(
    `service: ${Number(rows[0]!.segments).toLocaleString('en')} segments, ${rows[0]!.readings} readings, ${rows[0]!.schedules} schedules; ` +
      `written in ${((inserted - seeded) / 1000).toFixed(0)} s, figures rebuilt in ${((performance.now() - inserted) / 1000).toFixed(0)} s`,
  );

  const unlimited = 1_000_000_000;
  const app = createFleetHoursApp({
    fleetHours: createFleetHours({ store, now: () => NOW * 1000 }),
    rateLimitStore: store,
    rateLimits: { meter: unlimited, service: unlimited, fleetMeter: unlimited, fleetService: unlimited },
    now: () => NOW * 1000,
    logger: () => {},
  });
  const get = (key: string) => async (path: string) => {
    const response = await app.request(path, { headers: { Authorization: `Bearer ${key}` } });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${text}`);
    return text;
  };

  if (single && fleet) await describeRequests(get(single.key), get(fleet.key), counting, single, fleet);
  for (let round = 1; round <= ROUNDS; round += 1) {
    console.log(`\n--- round ${round} of ${ROUNDS}`);
    if (single && PARTS.has(1)) await devicePart(get(single.key), single);
    if (fleet && PARTS.has(2)) await fleetPart(get(fleet.key), fleet);
    if (filtered) await filterPart(get, counting, filtered);
  }
} finally {
  await db.destroy();
  if (KEEP) console.log(`\nSchema ${schema} kept (SERVICE_BENCH_KEEP=1): drop it with \`drop schema ${schema} cascade\``);
  else await admin.unsafe(`drop schema ${schema} cascade`);
  await admin.end();
}

/** Part 1's data: a 5-year and a 1-year device of the same shape, in an account of their own. */
async function seedDevices(database: Kysely<FleetHoursDatabase>, store: FleetHoursStore) {
  const { accountId, key } = await accountWithKey(store, 'Service bench, one device');
  const ids: Record<1 | 5, number> = { 1: 0, 5: 0 };
  for (const years of [5, 1] as const) {
    const device = (await store.createDevice({
      accountId,
      name: `${years}-year excavator`,
      imei: `35100000000000${years}`,
      model: 'FMB920',
      timeZone: 'Europe/Berlin',
    }))!;
    ids[years] = device.id;
    const days = Math.round(years * 365.25);
    // 150 segments a day from 06:00 UTC, one every 240 s, 60–229 s long, moving and idle in turn, up to now (scale's history).
    await sql`
      insert into engine_segments (device_id, started_at, ended_at, state)
      select ${device.id}::int,
             to_timestamp(${TODAY - days * DAY}::float8 + day * 86400 + 21600 + slot * 240),
             to_timestamp(${TODAY - days * DAY}::float8 + day * 86400 + 21600 + slot * 240 + 60 + ((day * 151 + slot * 37 + ${device.id}::int * 13) % 170)),
             case when (slot + day) % 2 = 0 then 'moving' else 'idle' end
        from generate_series(1, ${days}::int) as day cross join generate_series(0, 149) as slot
       where ${TODAY - days * DAY}::float8 + day * 86400 + 21600 + slot * 240 <= ${NOW}::float8`.execute(database);
    await openNewest(database, [device.id]);
    // A reading every 91 days (05:30 UTC, before the day's work) from 20 days before now back to the start of the history.
    const readAts: number[] = [];
    for (let ago = DEVICE_LATEST_READING; ago < days; ago += DEVICE_READINGS_EVERY) readAts.push(TODAY - ago * DAY + 5.5 * HOUR);
    await addMaintenance(database, store, [{ deviceId: device.id, readAts, schedules: DEVICE_SCHEDULES, before: 9_000 * HOUR }]);
  }
  return { accountId, key, longId: ids[5], shortId: ids[1] };
}

/** Part 2's data: FLEET_DEVICES devices with a year of history each, in an account of their own. */
async function seedFleet(database: Kysely<FleetHoursDatabase>, store: FleetHoursStore) {
  const { accountId, key } = await accountWithKey(store, 'Service bench, fleet');
  const deviceIds: number[] = [];
  for (let index = 0; index < FLEET_DEVICES; index += 1) {
    const device = await store.createDevice({
      accountId,
      name: `Truck ${index + 1}`,
      imei: `35${String(index).padStart(13, '0')}`,
      model: 'FMB920',
      timeZone: ZONES[index % ZONES.length]!,
    });
    deviceIds.push(device!.id);
  }
  const step = Math.floor(DAY / FLEET_PER_DAY);
  // FLEET_PER_DAY segments a day, one every `step` seconds, 10–19 minutes long, two moving for one idle, up to now.
  for (let first = 0; first < deviceIds.length; first += 50) {
    await sql`
      insert into engine_segments (device_id, started_at, ended_at, state)
      select device.id,
             to_timestamp(${TODAY - FLEET_DAYS * DAY}::float8 + slot * ${step} + (device.id % 30) * 60),
             to_timestamp(${TODAY - FLEET_DAYS * DAY}::float8 + slot * ${step} + (device.id % 30) * 60 + least(${step - 60}, 600 + (slot % 10) * 60)),
             case when slot % 3 = 2 then 'idle' else 'moving' end
        from unnest(${deviceIds.slice(first, first + 50)}::int[]) as device(id)
       cross join generate_series(0, ${(FLEET_DAYS + 1) * FLEET_PER_DAY - 1}) as slot
       where ${TODAY - FLEET_DAYS * DAY}::float8 + slot * ${step} + (device.id % 30) * 60 <= ${NOW}::float8`.execute(database);
  }
  await openNewest(database, deviceIds);
  await sql`update device_states set last_reported_at = to_timestamp(${NOW - 600}::float8) where device_id in (select id from devices where account_id = ${accountId}::int)`.execute(
    database,
  );
  await addMaintenance(
    database,
    store,
    deviceIds.map((deviceId, index) => ({
      deviceId,
      // Four readings 91 days apart, the latest 10 to 69 days before now.
      readAts: [0, 1, 2, 3].map((quarter) => TODAY - (10 + (index % 60) + quarter * 91) * DAY + 5.5 * HOUR),
      schedules: fleetSchedules(index),
      before: (2_000 + ((index * 37) % 5_000)) * HOUR,
    })),
  );
  return { accountId, key, deviceIds };
}

async function accountWithKey(store: FleetHoursStore, name: string) {
  const account = await store.createAccount({ name, plan: 'business', now: NOW - 6 * 365 * DAY });
  const key = generateApiKey();
  await store.createApiKey({ accountId: account.id, fingerprint: await fingerprintApiKey(key), label: 'bench', expiresAt: null, now: NOW });
  return { accountId: account.id, key };
}

/** The newest segment of each device is still running, as a live device's is. */
async function openNewest(database: Kysely<FleetHoursDatabase>, deviceIds: readonly number[]): Promise<void> {
  await sql`
    update engine_segments set ended_at = null
     where (device_id, started_at) in (
           select device_id, max(started_at) from engine_segments where device_id = any(${deviceIds}::int[]) group by device_id)`.execute(
    database,
  );
}

/**
 * The readings and schedules of some devices, through the store. A reading shows what the
 * machine's meter showed: its hours before the telematics unit (`before`) plus the engine time
 * since, 1% fast, in tenths of an hour; a given last-done value is that meter at the service,
 * in whole hours, as an operator writes it down.
 */
async function addMaintenance(
  database: Kysely<FleetHoursDatabase>,
  store: FleetHoursStore,
  devices: readonly { deviceId: number; readAts: readonly number[]; schedules: readonly ScheduleShape[]; before: number }[],
): Promise<void> {
  const doneAt = (shape: ScheduleShape) => TODAY - shape.doneDaysAgo * DAY + 15 * HOUR;
  const asked = devices.flatMap(({ deviceId, readAts, schedules }) => [
    ...readAts.map((at) => ({ deviceId, at })),
    ...schedules.filter((shape) => shape.given).map((shape) => ({ deviceId, at: doneAt(shape) })),
  ]);
  const engine = await engineSecondsAt(database, asked);
  let next = 0;
  for (const { deviceId, readAts, schedules, before } of devices) {
    for (const readAt of readAts) {
      const readingSeconds = before + Math.round((engine[next++]! * 1.01) / 360) * 360;
      await store.addHourMeterReading({ deviceId, readAt, readingSeconds, now: readAt + HOUR });
    }
    for (const shape of schedules) {
      await store.createServiceSchedule({
        deviceId,
        name: shape.name,
        intervalSeconds: shape.hours * HOUR,
        intervalDays: shape.days,
        lastDoneAt: doneAt(shape),
        lastDoneHourMeterSeconds: shape.given ? before + Math.round((engine[next++]! * 1.01) / HOUR) * HOUR : null,
        now: doneAt(shape),
      });
    }
  }
}

/** Each device's engine seconds from its first segment up to each instant, in one statement. */
async function engineSecondsAt(
  database: Kysely<FleetHoursDatabase>,
  asked: readonly { deviceId: number; at: number }[],
): Promise<number[]> {
  const { rows } = await sql<{ seconds: number }>`
    select coalesce((
             select sum(date_part('epoch', least(coalesce(segment.ended_at, to_timestamp(${NOW}::float8)), to_timestamp(request.at)))
                        - date_part('epoch', segment.started_at))
               from engine_segments as segment
              where segment.device_id = request.device_id and segment.started_at < to_timestamp(request.at)), 0)::float8 as seconds
      from unnest(${asked.map((item) => item.deviceId)}::int[], ${asked.map((item) => item.at)}::float8[]) with ordinality as request(device_id, at, position)
     order by request.position`.execute(database);
  return rows.map((row) => Number(row.seconds));
}

/**
 * The store with its calls counted and timed while `profile` runs: how many calls (each a round
 * trip or more) a request makes, by method, and how long each method's calls took (calls made
 * side by side overlap), medians over `times` requests.
 */
function countingStore<Store extends object>(inner: Store) {
  let calls: Map<string, { count: number; ms: number }> | null = null;
  const store = new Proxy(inner, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      return (...args: unknown[]) => {
        const started = performance.now();
        const done = () => {
          const entry = calls?.get(property) ?? { count: 0, ms: 0 };
          calls?.set(property, { count: entry.count + 1, ms: entry.ms + performance.now() - started });
        };
        const result = (value as (...parameters: unknown[]) => unknown).apply(target, args);
        if (result instanceof Promise) return result.finally(done);
        done();
        return result;
      };
    },
  });
  return {
    store,
    async profile(run: () => Promise<unknown>, times = 9): Promise<string> {
      const requests: number[] = [];
      const byMethod = new Map<string, { count: number; ms: number[] }>();
      for (let index = 0; index < times; index += 1) {
        calls = new Map();
        const started = performance.now();
        try {
          await run();
        } finally {
          requests.push(performance.now() - started);
          for (const [method, { count, ms }] of calls) byMethod.set(method, { count, ms: [...(byMethod.get(method)?.ms ?? []), ms] });
          calls = null;
        }
      }
      const total = [...byMethod.values()].reduce((sum, { count }) => sum + count, 0);
      const methods = [...byMethod].map(([method, { count, ms }]) => `${method} ${count}× ${figureOf(ms).median.toFixed(1)}`);
      return `${figureOf(requests).median.toFixed(1).padStart(7)} ms, ${total} calls: ${methods.join(', ')}`;
    },
  };
}

type Get = (path: string) => Promise<string>;
interface ServiceBody {
  readonly device_id: number;
  readonly hour_meter_seconds: number;
  readonly data: readonly { readonly name: string; readonly status: string; readonly last_done_hour_meter_seconds: number }[];
}

/** What is measured, checked once before timing: the bodies, their statuses, and the store calls of each request. */
async function describeRequests(
  getDevice: Get,
  getFleet: Get,
  counting: ReturnType<typeof countingStore>,
  single: Awaited<ReturnType<typeof seedDevices>>,
  fleet: Awaited<ReturnType<typeof seedFleet>>,
): Promise<void> {
  for (const id of [single.longId, single.shortId]) {
    const service = JSON.parse(await getDevice(`/api/v1/devices/${id}/service`)) as ServiceBody;
    const meter = JSON.parse(await getDevice(`/api/v1/devices/${id}/meter`)) as { hour_meter_seconds: number; hour_meter_read_at: string };
    if (meter.hour_meter_seconds !== service.hour_meter_seconds) throw new Error(`Device ${id}: the meter and the service differ`);
    console.log(
      `device ${id}: hour meter ${(service.hour_meter_seconds / HOUR).toFixed(1)} h (reading of ${meter.hour_meter_read_at}); ` +
        service.data.map((schedule) => `${schedule.name} ${schedule.status}`).join(', '),
    );
  }
  const page = (JSON.parse(await getFleet(`/api/v1/service?status=due_soon,overdue&limit=${PAGE}`)) as { data: ServiceBody[] }).data;
  const singles: string[] = [];
  for (const element of page) singles.push(await getFleet(`/api/v1/devices/${element.device_id}/service`));
  if (JSON.stringify(page) !== `[${singles.join(',')}]`) throw new Error('The page differs from the single-device bodies');
  let matching = 0;
  let cursor: string | null = null;
  do {
    const body = JSON.parse(await getFleet(`/api/v1/service?status=due_soon,overdue&limit=500${cursor ? `&cursor=${cursor}` : ''}`)) as {
      data: ServiceBody[];
      next_cursor: string | null;
    };
    matching += body.data.length;
    cursor = body.next_cursor;
  } while (cursor !== null);
  const statuses = new Map<string, number>();
  for (const element of page) for (const { status } of element.data) statuses.set(status, (statuses.get(status) ?? 0) + 1);
  console.log(
    `fleet: ${matching} of ${fleet.deviceIds.length} devices due soon or overdue; the page of ${page.length} ends at device ${page.at(-1)!.device_id} ` +
      `(the ${fleet.deviceIds.indexOf(page.at(-1)!.device_id) + 1}th); its schedules: ${[...statuses].map(([status, count]) => `${count} ${status}`).join(', ')}`,
  );

  console.log("\nStore calls of one request, and the median time of the request and of each method's calls (ms) over 9 requests:");
  const device = `/api/v1/devices/${single.longId}`;
  const first = page[0]!.device_id;
  for (const [label, run] of [
    ['/devices/{id}/meter (5 years)', () => getDevice(`${device}/meter`)],
    ['/devices/{id}/service (5 years)', () => getDevice(`${device}/service`)],
    ['/devices/{id}/service (fleet device)', () => getFleet(`/api/v1/devices/${first}/service`)],
    [`/service?status=due_soon,overdue&limit=${PAGE}`, () => getFleet(`/api/v1/service?status=due_soon,overdue&limit=${PAGE}`)],
    [`/service?limit=${PAGE} (no filter)`, () => getFleet(`/api/v1/service?limit=${PAGE}`)],
  ] as const)
    console.log(`  ${label.padEnd(44)} ${await counting.profile(run)}`);
}

/** Part 1: `/service` against `/meter` of the 5-year device, and `/service` of the 5-year against the 1-year device. */
async function devicePart(getDevice: Get, { longId, shortId }: Awaited<ReturnType<typeof seedDevices>>): Promise<void> {
  const steal = stealMeter();
  const path = (id: number, route: string) => () => getDevice(`/api/v1/devices/${id}/${route}`);
  const [service, meter] = await measurePair(path(longId, 'service'), path(longId, 'meter'), { warmUp: WARM_UP, runs: RUNS });
  const [long, short] = await measurePair(path(longId, 'service'), path(shortId, 'service'), { warmUp: WARM_UP, runs: RUNS });
  const line = (label: string, figure: Figure) => `  ${label.padEnd(34)} median ${ms(figure.median)} ms, p95 ${ms(figure.p95)} ms`;
  console.log(`Part 1: one device, 5 schedules; ${RUNS} requests of each, in turns, after ${WARM_UP} (ms)${stealNote(steal)}`);
  console.log(line('/devices/{id}/service, 5 years', service));
  console.log(line('/devices/{id}/meter, 5 years', meter));
  console.log(`  ratio service / meter: ${(service.median / meter.median).toFixed(2)} (goal ≤ 1.5)`);
  console.log(line('/devices/{id}/service, 5 years', long));
  console.log(line('/devices/{id}/service, 1 year', short));
  console.log(`  ratio 5 years / 1 year: ${(long.median / short.median).toFixed(2)} (goal ≤ 1.2)`);
}

/**
 * Part 2: one filtered page against the single requests of its devices, all timed in turns; for
 * the reasons of its figure, also against the single requests of every device it reads to fill
 * itself (what a client without the filter asks), and the page without the filter over those
 * devices (the same work in one page of devices) and over the first 100.
 */
async function fleetPart(getFleet: Get, fleet: Awaited<ReturnType<typeof seedFleet>>): Promise<void> {
  const steal = stealMeter();
  const filtered = `/api/v1/service?status=due_soon,overdue&limit=${PAGE}`;
  const ids = (JSON.parse(await getFleet(filtered)) as { data: ServiceBody[] }).data.map((element) => element.device_id);
  const read = fleet.deviceIds.slice(0, fleet.deviceIds.indexOf(ids.at(-1)!) + 1);
  const singles = (deviceIds: readonly number[]) => async () => {
    for (const id of deviceIds) await getFleet(`/api/v1/devices/${id}/service`);
  };
  const runs = {
    filtered: () => getFleet(filtered),
    matchingSingles: singles(ids),
    readPage: () => getFleet(`/api/v1/service?limit=${read.length}`),
    readSingles: singles(read),
    firstPage: () => getFleet(`/api/v1/service?limit=${PAGE}`),
    firstSingles: singles(fleet.deviceIds.slice(0, PAGE)),
  };
  const figures = await inTurns(runs);
  console.log(
    `Part 2: ${fleet.deviceIds.length} devices, ${FLEET_PER_DAY} segments a day for ${FLEET_DAYS} days; ${FLEET_RUNS} turns after 1, ` +
      `each request or set of requests timed in every turn (ms)${stealNote(steal)}`,
  );
  const line = (label: string, key: keyof typeof runs) =>
    `  ${label.padEnd(66)} median ${ms(figures[key].median, 1)}, p95 ${ms(figures[key].p95, 1)}`;
  const cheaper = (page: keyof typeof runs, many: keyof typeof runs) => (figures[many].median / figures[page].median).toFixed(1);
  console.log(line(`/api/v1/service?status=due_soon,overdue, a page of ${ids.length}`, 'filtered'));
  console.log(line(`${ids.length} single /devices/{id}/service of the same devices, in all`, 'matchingSingles'));
  console.log(`  the page ${cheaper('filtered', 'matchingSingles')}× cheaper (goal ≥ 20)`);
  console.log(line(`${read.length} single requests of every device the page reads, in all`, 'readSingles'));
  console.log(`  the page ${cheaper('filtered', 'readSingles')}× cheaper than those`);
  console.log(line(`/api/v1/service?limit=${read.length}, no filter: the same devices in one page`, 'readPage'));
  console.log(`  that page ${cheaper('readPage', 'readSingles')}× cheaper than its single requests`);
  console.log(line(`/api/v1/service?limit=${PAGE}, no filter`, 'firstPage'));
  console.log(line(`${PAGE} single requests of the same devices, in all`, 'firstSingles'));
  console.log(`  that page ${cheaper('firstPage', 'firstSingles')}× cheaper than its single requests`);
  // P58: the same page when nothing is remembered (as after a bulk change of readings or schedules):
  // every device's memo version raised before each, untimed; the page computes and remembers again.
  const cold: number[] = [];
  for (let turn = 0; turn < FLEET_RUNS; turn += 1) {
    await sql`update service_memos set version = version + 1`.execute(db);
    const started = performance.now();
    await getFleet(filtered);
    cold.push(performance.now() - started);
  }
  const coldFigure = figureOf(cold);
  console.log(
    `  ${'the filtered page with nothing remembered (P58: every version raised before it)'.padEnd(66)} median ${ms(coldFigure.median, 1)}, p95 ${ms(coldFigure.p95, 1)}`,
  );
  console.log(
    `  that page ${(figures.matchingSingles.median / coldFigure.median).toFixed(1)}× cheaper than the ${ids.length} single requests`,
  );
}

/** Times every run in turns, FLEET_RUNS turns after one of each: the figure of each. */
async function inTurns<Key extends string>(runs: Record<Key, () => Promise<unknown>>, turns = FLEET_RUNS): Promise<Record<Key, Figure>> {
  const entries = Object.entries(runs) as [Key, () => Promise<unknown>][];
  for (const [, run] of entries) await run();
  const times = new Map<Key, number[]>(entries.map(([key]) => [key, []]));
  for (let turn = 0; turn < turns; turn += 1) {
    for (const [key, run] of entries) {
      const started = performance.now();
      await run();
      times.get(key)!.push(performance.now() - started);
    }
  }
  return Object.fromEntries(entries.map(([key]) => [key, figureOf(times.get(key)!)])) as Record<Key, Figure>;
}

/**
 * Part 3's data (D49), by SQL alone: two accounts of FILTER_DEVICES devices in five zones, each
 * device with an open segment from 30 minutes ago, a report
 * 10 minutes ago and one schedule, ok (a year, 2,000 h, done 30 days ago) except the last device's
 * (180 days, done 200 days ago: overdue); in the second account one device in five is due soon
 * (90 days, done 85 days ago).
 */
async function seedFiltered(database: Kysely<FleetHoursDatabase>, store: FleetHoursStore) {
  const accounts: { accountId: number; key: string; lastId: number }[] = [];
  for (const [number, dueSoonEvery] of [0, 5].entries()) {
    const { accountId, key } = await accountWithKey(store, `Service bench, ${FILTER_DEVICES} devices (${number + 1})`);
    const { rows } = await sql<{ id: number }>`
      insert into devices (account_id, name, imei, model, time_zone)
      select ${accountId}::int, 'Unit ' || n, '36' || ${number}::int || lpad(n::text, 12, '0'), 'FMB920', (${ZONES}::text[])[1 + n % 5]
        from generate_series(1, ${FILTER_DEVICES}::int) as n
      returning id`.execute(database);
    const ids = rows.map((row) => row.id).sort((a, b) => a - b);
    const lastId = ids.at(-1)!;
    // An open segment only: no closed one, so no figures to rebuild (the rebuild takes 10 ms a device).
    await sql`
      insert into engine_segments (device_id, started_at, ended_at, state)
      select id, to_timestamp(${NOW - 1800}::float8), null, 'idle' from unnest(${ids}::int[]) as id`.execute(database);
    await sql`update device_states set last_reported_at = to_timestamp(${NOW - 600}::float8) where device_id = any(${ids}::int[])`.execute(
      database,
    );
    await sql`
      insert into service_schedules (device_id, name, interval_seconds, interval_days, last_done_at, created_at)
      select id, 'Inspection', ${2000 * HOUR}::bigint,
             case when id = ${lastId}::int then 180 when ${dueSoonEvery}::int > 0 and id % ${Math.max(dueSoonEvery, 1)}::int = 0 then 90 else 365 end,
             to_timestamp(${TODAY + 15 * HOUR}::float8 - 86400 * (case when id = ${lastId}::int then 200
                            when ${dueSoonEvery}::int > 0 and id % ${Math.max(dueSoonEvery, 1)}::int = 0 then 85 else 30 end)),
             to_timestamp(${NOW - 400 * DAY}::float8)
        from unnest(${ids}::int[]) as id`.execute(database);
    accounts.push({ accountId, key, lastId });
  }
  return accounts;
}

/**
 * Part 3 (D49): `status=overdue&limit=1`, whose one match is the account's last device, against
 * `limit=1` without a filter, timed in turns; then the filtered page with nothing remembered
 * (every memo version of the account raised before each request, untimed).
 */
async function filterPart(
  get: (key: string) => Get,
  counting: ReturnType<typeof countingStore>,
  accounts: Awaited<ReturnType<typeof seedFiltered>>,
): Promise<void> {
  const steal = stealMeter();
  console.log(`Part 3 (D49): ${FILTER_DEVICES} devices an account; ${FILTER_RUNS} turns after 1 (ms)`);
  for (const [number, { key, lastId, accountId }] of accounts.entries()) {
    const getFleet = get(key);
    const filtered = '/api/v1/service?status=overdue&limit=1';
    const body = JSON.parse(await getFleet(filtered)) as { data: ServiceBody[]; next_cursor: string | null };
    if (body.data.length !== 1 || body.data[0]!.device_id !== lastId || body.next_cursor !== null)
      throw new Error(`Account ${number + 1}: the filtered page is not the last device alone`);
    const runs = { unfiltered: () => getFleet('/api/v1/service?limit=1'), filtered: () => getFleet(filtered) };
    const figures = await inTurns(runs, FILTER_RUNS);
    const cold: number[] = [];
    for (let turn = 0; turn < 5; turn += 1) {
      await sql`update service_memos set version = version + 1 where device_id in (select id from devices where account_id = ${accountId}::int)`.execute(
        db,
      );
      const started = performance.now();
      await getFleet(filtered);
      cold.push(performance.now() - started);
    }
    const coldFigure = figureOf(cold);
    const label = number === 0 ? 'every other device ok' : 'one device in five due soon';
    console.log(`  account ${number + 1}, ${label}${stealNote(steal)}`);
    console.log(`    ${'/service?limit=1'.padEnd(58)} median ${ms(figures.unfiltered.median)}, p95 ${ms(figures.unfiltered.p95)}`);
    console.log(
      `    ${'/service?status=overdue&limit=1 (remembered)'.padEnd(58)} median ${ms(figures.filtered.median)}, p95 ${ms(figures.filtered.p95)}`,
    );
    console.log(`    ratio filtered / unfiltered: ${(figures.filtered.median / figures.unfiltered.median).toFixed(2)} (goal ≤ 2)`);
    console.log(
      `    ${'the filtered page with nothing remembered'.padEnd(58)} median ${ms(coldFigure.median)}, p95 ${ms(coldFigure.p95)} (5 requests)`,
    );
    console.log(`    store calls: filtered ${await counting.profile(runs.filtered, 5)}`);
    console.log(`                 unfiltered ${await counting.profile(runs.unfiltered, 5)}`);
  }
}
