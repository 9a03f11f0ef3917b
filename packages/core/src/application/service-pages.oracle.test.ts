/**
 * The hour meter (D38) and the service schedules (D39) of createFleetHours() against an oracle
 * that computes them straight from the raw segments, readings and schedules written to the store:
 * each segment clipped to [reading, instant) and summed, the status from D39's words. The oracle
 * shares no code with the core: the calendar interval is added with Temporal.ZonedDateTime
 * arithmetic, today's local date is read from Intl, and the days between by Date.UTC arithmetic.
 */
import fc from 'fast-check';
import { Temporal } from 'temporal-polyfill';
import { describe, expect, it } from 'vitest';
import { createFleetHours, type FleetHours } from './create-fleet-hours.js';
import type { FleetPage } from './read-queries.js';
import { createMemoryStore } from '../store/memory-store.js';
import { scheduleVersion } from '../maintenance/service-status.js';
import { daysBetween, intlFormatInstant, intlLocalDate } from '../testing/oracle.js';
import type { DeviceService, SegmentInput, ServiceSchedule, ServiceScheduleState, ServiceStatus } from '../types.js';
import { walkFleetPages } from '../testing/walk-fleet-pages.js';

const HOUR = 3600;
const DAY = 86_400;
const ZONES = [
  'UTC',
  'America/New_York',
  'Europe/Berlin',
  'America/Sao_Paulo',
  'Asia/Kathmandu',
  'Asia/Tokyo',
  'Pacific/Chatham',
  'Australia/Lord_Howe',
  'Pacific/Kiritimati',
  'America/St_Johns',
] as const;
/** Instants near DST changes and month ends: 2026-03-08 (New York springs forward), 2026-04-05 (Lord Howe and Chatham fall back), 2026-11-01, 2028-02-29. */
const NOWS = [Date.UTC(2026, 2, 8, 6, 30), Date.UTC(2026, 3, 4, 15), Date.UTC(2026, 10, 1, 5, 59, 59), Date.UTC(2028, 1, 29, 23, 30)].map(
  (milliseconds) => milliseconds / 1000,
);

// ── The oracle ────────────────────────────────────────────────────────────────────────────────

interface OracleDevice {
  readonly timeZone: string;
  readonly segments: readonly SegmentInput[];
  /** The readings as written, in order: a later one at the same instant replaces the earlier. */
  readonly readings: readonly { readonly readAt: number; readonly readingSeconds: number }[];
}

/** Engine seconds (moving + idle) within [start, end): each segment clipped and summed, an open one up to now. */
function engineBetween(device: OracleDevice, start: number, end: number, now: number): number {
  let seconds = 0;
  for (const segment of device.segments) seconds += Math.max(0, Math.min(end, segment.endedAt ?? now) - Math.max(start, segment.startedAt));
  return seconds;
}

/** D38: the latest reading at or before `instant` plus the engine seconds since; without one, the meter up to `instant`. */
function oracleHourMeter(device: OracleDevice, instant: number, now: number): { seconds: number; readAt: number | null } {
  const byInstant = new Map<number, number>();
  for (const reading of device.readings) byInstant.set(reading.readAt, reading.readingSeconds);
  let latest: number | null = null;
  for (const readAt of byInstant.keys()) if (readAt <= instant && (latest === null || readAt > latest)) latest = readAt;
  if (latest === null) return { seconds: engineBetween(device, -Infinity, instant, now), readAt: null };
  return { seconds: byInstant.get(latest)! + engineBetween(device, latest, instant, now), readAt: latest };
}

/** D39 in its own words, for one schedule as stored. */
function oracleSchedule(device: OracleDevice, schedule: ServiceSchedule, now: number): ServiceScheduleState {
  const { timeZone } = device;
  const hourMeter = oracleHourMeter(device, now, now).seconds;
  const lastDone = schedule.lastDoneHourMeterSeconds ?? oracleHourMeter(device, schedule.lastDoneAt, now).seconds;
  const dueHourMeterSeconds = lastDone + schedule.intervalSeconds;
  const remainingSeconds = dueHourMeterSeconds - hourMeter;
  const dueSoonSeconds = schedule.dueSoonSeconds ?? Math.floor(schedule.intervalSeconds / 10);
  let days: { dueSoonDays: number; dueDate: string; remainingDays: number } | null = null;
  if (schedule.intervalDays !== null) {
    const lastDoneLocal = Temporal.Instant.fromEpochMilliseconds(schedule.lastDoneAt * 1000).toZonedDateTimeISO(timeZone);
    const dueDate = lastDoneLocal.add({ days: schedule.intervalDays }).toPlainDate().toString();
    days = {
      dueSoonDays: schedule.dueSoonDays ?? Math.max(1, Math.floor(schedule.intervalDays / 10)),
      dueDate,
      remainingDays: daysBetween(intlLocalDate(now, timeZone), dueDate),
    };
  }
  let status: ServiceStatus = 'ok';
  if (remainingSeconds <= 0 || (days !== null && days.remainingDays < 0)) status = 'overdue';
  else if (remainingSeconds <= dueSoonSeconds || (days !== null && days.remainingDays <= days.dueSoonDays)) status = 'due_soon';
  return {
    id: schedule.id,
    name: schedule.name,
    intervalSeconds: schedule.intervalSeconds,
    intervalDays: schedule.intervalDays,
    dueSoonSeconds,
    dueSoonDays: days?.dueSoonDays ?? null,
    lastDoneAt: intlFormatInstant(schedule.lastDoneAt, timeZone),
    lastDoneHourMeterSeconds: lastDone,
    dueHourMeterSeconds,
    dueDate: days?.dueDate ?? null,
    remainingSeconds,
    remainingDays: days?.remainingDays ?? null,
    status,
    // P101: the version of the schedule as stored, the same hash its writes answer.
    version: scheduleVersion(schedule),
  };
}

// ── Random fleets ─────────────────────────────────────────────────────────────────────────────

const pieceArbitrary = fc.record({
  gap: fc.integer({ min: 0, max: 3 * DAY }),
  length: fc.integer({ min: 1, max: 2 * DAY }),
  moving: fc.boolean(),
});

/** Offsets from now (seconds, ≤ 0), a few of them shared, so that readings and services often fall at one instant. */
const instantArbitrary = (days: number) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min: -days * DAY, max: 0 }) },
    { weight: 1, arbitrary: fc.constantFrom(0, -1, -10 * DAY, -3 * DAY - 17, -40 * DAY + 1) },
  );

const scheduleArbitrary = fc.record({
  intervalSeconds: fc.integer({ min: 1, max: 3000 * HOUR }),
  intervalDays: fc.option(fc.integer({ min: 1, max: 400 }), { nil: null }),
  /** Per mille of the interval, or the default. */
  dueSoonSeconds: fc.option(fc.integer({ min: 0, max: 1000 }), { nil: null }),
  dueSoonDays: fc.option(fc.integer({ min: 0, max: 1000 }), { nil: null }),
  lastDoneAt: instantArbitrary(300),
  /**
   * Given, or computed (null): an offset from the oracle's hour meter at the last service, or the
   * value that leaves exactly the margin or nothing to run (D39's boundaries).
   */
  lastDoneHourMeterSeconds: fc.option(
    fc.oneof(fc.integer({ min: -3000 * HOUR, max: 3000 * HOUR }), fc.constantFrom('margin left' as const, 'nothing left' as const)),
    { nil: null },
  ),
});

const deviceArbitrary = fc.record({
  timeZone: fc.constantFrom(...ZONES),
  firstSegment: fc.integer({ min: -120 * DAY, max: 0 }),
  pieces: fc.array(pieceArbitrary, { maxLength: 25 }),
  openLast: fc.boolean(),
  readings: fc.array(fc.record({ readAt: instantArbitrary(150), readingSeconds: fc.integer({ min: 0, max: 50_000 * HOUR }) }), {
    maxLength: 6,
  }),
  schedules: fc.array(scheduleArbitrary, { maxLength: 4 }),
});

const fleetArbitrary = fc.record({
  now: fc.tuple(fc.constantFrom(...NOWS), fc.integer({ min: -2 * DAY, max: 2 * DAY })).map(([base, shift]) => base + shift),
  devices: fc.array(deviceArbitrary, { minLength: 1, maxLength: 5 }),
  limit: fc.integer({ min: 1, max: 4 }),
  statuses: fc.subarray(['ok', 'due_soon', 'overdue'] as ServiceStatus[], { minLength: 1 }),
});

type DeviceArbitrary = typeof deviceArbitrary extends fc.Arbitrary<infer T> ? T : never;

/** Non-overlapping segments one after another from `firstSegment`, the last one open when asked (only the last can be). */
function segmentsOf(device: DeviceArbitrary, now: number): SegmentInput[] {
  const segments: SegmentInput[] = [];
  let free = now + device.firstSegment;
  for (const [index, piece] of device.pieces.entries()) {
    const startedAt = free + piece.gap;
    const open = device.openLast && index === device.pieces.length - 1;
    segments.push({ startedAt, endedAt: open ? null : startedAt + piece.length, state: piece.moving ? 'moving' : 'idle' });
    free = startedAt + piece.length;
  }
  return segments;
}

/** Writes the fleet to a new memory store (another account's devices in between); returns what the oracle needs. */
async function seed(devices: readonly DeviceArbitrary[], now: number) {
  const store = createMemoryStore();
  const account = await store.createAccount({ name: 'Acme', plan: 'business', now: 0 });
  const other = await store.createAccount({ name: 'Other', plan: 'business', now: 0 });
  const seeded: { id: number; oracle: OracleDevice; schedules: ServiceSchedule[] }[] = [];
  for (const [index, device] of devices.entries()) {
    const theirs = (await store.createDevice({ accountId: other.id, name: 'x', imei: `theirs-${index}`, model: 'm', timeZone: 'UTC' }))!;
    await store.createServiceSchedule({ deviceId: theirs.id, name: 'Theirs', intervalSeconds: 1, lastDoneAt: now - DAY, now });
    const { id } = (await store.createDevice({
      accountId: account.id,
      name: `Loader ${index}`,
      imei: `ours-${index}`,
      model: 'm',
      timeZone: device.timeZone,
    }))!;
    const segments = segmentsOf(device, now);
    await store.importSegments({ deviceId: id, segments });
    const readings = device.readings.map((reading) => ({ readAt: now + reading.readAt, readingSeconds: reading.readingSeconds }));
    for (const reading of readings) await store.addHourMeterReading({ deviceId: id, ...reading, now });
    const oracle: OracleDevice = { timeZone: device.timeZone, segments, readings };
    const schedules: ServiceSchedule[] = [];
    for (const [number, drawn] of device.schedules.entries()) {
      const lastDoneAt = now + drawn.lastDoneAt;
      const dueSoonSeconds = drawn.dueSoonSeconds === null ? null : Math.floor((drawn.intervalSeconds * drawn.dueSoonSeconds) / 1000);
      const given = drawn.lastDoneHourMeterSeconds;
      const left = { 'margin left': dueSoonSeconds ?? Math.floor(drawn.intervalSeconds / 10), 'nothing left': 0 };
      const lastDone =
        given === null
          ? null
          : typeof given === 'number'
            ? oracleHourMeter(oracle, lastDoneAt, now).seconds + given
            : oracleHourMeter(oracle, now, now).seconds - drawn.intervalSeconds + left[given];
      const created = await store.createServiceSchedule({
        deviceId: id,
        name: `Service ${number}`,
        intervalSeconds: drawn.intervalSeconds,
        intervalDays: drawn.intervalDays,
        dueSoonSeconds,
        dueSoonDays:
          drawn.dueSoonDays === null || drawn.intervalDays === null ? null : Math.floor((drawn.intervalDays * drawn.dueSoonDays) / 1000),
        lastDoneAt,
        lastDoneHourMeterSeconds: lastDone === null ? null : Math.max(0, lastDone),
        now,
      });
      schedules.push(created!);
    }
    seeded.push({ id, oracle, schedules });
  }
  return { store, account, seeded };
}

/** Every page of a fleet read, following next_cursor. */
const walk = <Item>(read: (cursor: string | undefined) => Promise<FleetPage<Item>>) => walkFleetPages(read, 100);

describe('createFleetHours(): the hour meter and service schedules against an independent oracle (D38, D39)', () => {
  it('D38, D39: meter(), service() and fleet.service() with and without statuses, for random segments, readings, schedules and zones', async () => {
    const seen = new Set<ServiceStatus>();
    await fc.assert(
      fc.asyncProperty(fleetArbitrary, async ({ now, devices, limit, statuses }) => {
        const { store, account, seeded } = await seed(devices, now);
        const fleetHours: FleetHours = createFleetHours({ store, now: () => now * 1000 + 999 });
        const accountId = account.id;
        const expected: DeviceService[] = seeded.map(({ id, oracle, schedules }) => ({
          deviceId: id,
          timeZone: oracle.timeZone,
          asOf: intlFormatInstant(now, oracle.timeZone),
          hourMeterSeconds: oracleHourMeter(oracle, now, now).seconds,
          schedules: schedules.map((schedule) => oracleSchedule(oracle, schedule, now)),
        }));
        for (const service of expected) for (const schedule of service.schedules) seen.add(schedule.status);

        for (const [index, { id, oracle }] of seeded.entries()) {
          const hourMeter = oracleHourMeter(oracle, now, now);
          expect(await fleetHours.meter({ accountId, deviceId: id })).toMatchObject({
            engineSeconds: engineBetween(oracle, -Infinity, now, now),
            hourMeterSeconds: hourMeter.seconds,
            hourMeterReadAt: hourMeter.readAt === null ? null : intlFormatInstant(hourMeter.readAt, oracle.timeZone),
          });
          expect(await fleetHours.service({ accountId, deviceId: id })).toEqual(expected[index]);
        }

        const every = await walk((cursor) => fleetHours.fleet.service({ accountId, limit, cursor }));
        expect(every.flatMap((page) => page.items)).toEqual(expected);

        // Exactly the devices with a schedule in one of the statuses; a page with a next cursor is full.
        const filtered = await walk((cursor) => fleetHours.fleet.service({ accountId, limit, cursor, statuses }));
        expect(filtered.flatMap((page) => page.items)).toEqual(
          expected.filter((service) => service.schedules.some((schedule) => statuses.includes(schedule.status))),
        );
        for (const page of filtered) expect(page.items.length).toBe(page.nextCursor === null ? Math.min(page.items.length, limit) : limit);

        const meters = await walk((cursor) => fleetHours.fleet.meter({ accountId, limit, cursor }));
        expect(meters.flatMap((page) => page.items).map((item) => item.hourMeterSeconds)).toEqual(
          expected.map((service) => service.hourMeterSeconds),
        );
      }),
      { numRuns: 120 },
    );
    // The fleets drawn reach every status.
    expect([...seen].sort()).toEqual(['due_soon', 'ok', 'overdue']);
  });
});
