/**
 * Test fixture of the service routes (not part of the package): the app fixture with hour-meter
 * readings (D38) and service schedules (D39) on its devices, and the bodies they give at the
 * fixture's now (2026-12-01T12:00:15Z), worked out by hand.
 */
import { scheduleVersion } from '@fleet-hours/core';
import { createFixture, utc, type FixtureOptions } from './fixture.js';

const HOUR = 3600;

/**
 * The app fixture, and on it:
 * - Truck NY (America/New_York): a reading of 10,000 h at 2026-11-01T00:00:00-04:00 and three
 *   schedules — `ok` (its last-done hour meter computed from the reading), `due_soon` on engine
 *   time alone (no calendar interval) and `overdue` on the calendar alone;
 * - Truck KTM (Asia/Kathmandu): no reading (uncalibrated) and one `ok` schedule;
 * - Spare (Europe/Berlin): a reading of 1,000,000 s and one `due_soon` schedule;
 * - Their truck (another account): an `overdue` schedule, never shown to Acme.
 */
export async function createServiceFixture(options: FixtureOptions = {}) {
  const fixture = await createFixture(options);
  const { store, devices } = fixture;
  const now = fixture.clock.nowMs / 1000;
  const schedule = async (input: Parameters<typeof store.createServiceSchedule>[0]) => (await store.createServiceSchedule(input))!;

  await store.addHourMeterReading({ deviceId: devices.newYork.id, readAt: utc(2026, 11, 1, 4), readingSeconds: 10_000 * HOUR, now });
  const oil = await schedule({
    deviceId: devices.newYork.id,
    name: 'Engine oil',
    intervalSeconds: 250 * HOUR,
    intervalDays: 180,
    lastDoneAt: utc(2026, 11, 2, 5),
    now,
  });
  const filter = await schedule({
    deviceId: devices.newYork.id,
    name: 'Hydraulic filter',
    intervalSeconds: 100 * HOUR,
    dueSoonSeconds: 50 * HOUR,
    lastDoneAt: utc(2026, 3, 1, 5),
    lastDoneHourMeterSeconds: 35_900_000,
    now,
  });
  const inspection = await schedule({
    deviceId: devices.newYork.id,
    name: 'Annual inspection',
    intervalSeconds: 2000 * HOUR,
    intervalDays: 365,
    dueSoonDays: 30,
    lastDoneAt: utc(2025, 11, 20, 5),
    lastDoneHourMeterSeconds: 35_000_000,
    now,
  });
  const kathmanduOil = await schedule({
    deviceId: devices.kathmandu.id,
    name: 'Engine oil',
    intervalSeconds: 250 * HOUR,
    lastDoneAt: utc(2026, 6, 1),
    now,
  });
  await store.addHourMeterReading({ deviceId: devices.idle.id, readAt: utc(2026, 11, 30), readingSeconds: 1_000_000, now });
  const tyres = await schedule({
    deviceId: devices.idle.id,
    name: 'Tyres',
    intervalSeconds: 100 * HOUR,
    lastDoneAt: utc(2026, 10, 1),
    lastDoneHourMeterSeconds: 650_000,
    now,
  });
  await schedule({
    deviceId: devices.foreign.id,
    name: 'Their service',
    intervalSeconds: HOUR,
    lastDoneAt: utc(2026, 1, 1),
    lastDoneHourMeterSeconds: 0,
    now,
  });

  /**
   * The hour meters at now (D38). Truck NY: 10,000 h at the reading, then the engine time after it
   * — Sunday 1 November (25 h), Monday 2 November (24 h) and 28 November (2 h). Truck KTM: its
   * meter's 4 h (no reading). Spare: its reading, no engine time since.
   */
  const hourMeters = {
    newYork: 36_000_000 + 90_000 + 86_400 + 7_200,
    kathmandu: 14_400,
    idle: 1_000_000,
  };

  const bodies = {
    newYork: {
      device_id: devices.newYork.id,
      timezone: 'America/New_York',
      as_of: '2026-12-01T07:00:15-05:00',
      hour_meter_seconds: hourMeters.newYork,
      data: [
        {
          id: oil.id,
          name: 'Engine oil',
          interval_seconds: 900_000,
          interval_days: 180,
          // The default margins: a tenth of each interval (D39).
          due_soon_seconds: 90_000,
          due_soon_days: 18,
          last_done_at: '2026-11-02T00:00:00-05:00',
          // Computed at read time: the reading plus Sunday 1 November's 25 h (D38, D39).
          last_done_hour_meter_seconds: 36_090_000,
          due_hour_meter_seconds: 36_990_000,
          due_date: '2027-05-01',
          remaining_seconds: 36_990_000 - hourMeters.newYork,
          remaining_days: 151,
          status: 'ok',
          // P101: the schedule's version, as its writes answer it.
          version: scheduleVersion(oil),
        },
        {
          id: filter.id,
          name: 'Hydraulic filter',
          interval_seconds: 360_000,
          interval_days: null,
          due_soon_seconds: 180_000,
          due_soon_days: null,
          last_done_at: '2026-03-01T00:00:00-05:00',
          last_done_hour_meter_seconds: 35_900_000,
          due_hour_meter_seconds: 36_260_000,
          due_date: null,
          remaining_seconds: 76_400,
          remaining_days: null,
          status: 'due_soon',
          // P101: the schedule's version, as its writes answer it.
          version: scheduleVersion(filter),
        },
        {
          id: inspection.id,
          name: 'Annual inspection',
          interval_seconds: 7_200_000,
          interval_days: 365,
          due_soon_seconds: 720_000,
          due_soon_days: 30,
          last_done_at: '2025-11-20T00:00:00-05:00',
          last_done_hour_meter_seconds: 35_000_000,
          due_hour_meter_seconds: 42_200_000,
          due_date: '2026-11-20',
          remaining_seconds: 42_200_000 - hourMeters.newYork,
          remaining_days: -11,
          status: 'overdue',
          // P101: the schedule's version, as its writes answer it.
          version: scheduleVersion(inspection),
        },
      ],
    },
    kathmandu: {
      device_id: devices.kathmandu.id,
      timezone: 'Asia/Kathmandu',
      as_of: '2026-12-01T17:45:15+05:45',
      hour_meter_seconds: hourMeters.kathmandu,
      data: [
        {
          id: kathmanduOil.id,
          name: 'Engine oil',
          interval_seconds: 900_000,
          interval_days: null,
          due_soon_seconds: 90_000,
          due_soon_days: null,
          last_done_at: '2026-06-01T05:45:00+05:45',
          // No reading: the meter's engine seconds up to then, none (D38).
          last_done_hour_meter_seconds: 0,
          due_hour_meter_seconds: 900_000,
          due_date: null,
          remaining_seconds: 885_600,
          remaining_days: null,
          status: 'ok',
          // P101: the schedule's version, as its writes answer it.
          version: scheduleVersion(kathmanduOil),
        },
      ],
    },
    idle: {
      device_id: devices.idle.id,
      timezone: 'Europe/Berlin',
      as_of: '2026-12-01T13:00:15+01:00',
      hour_meter_seconds: hourMeters.idle,
      data: [
        {
          id: tyres.id,
          name: 'Tyres',
          interval_seconds: 360_000,
          interval_days: null,
          due_soon_seconds: 36_000,
          due_soon_days: null,
          last_done_at: '2026-10-01T02:00:00+02:00',
          last_done_hour_meter_seconds: 650_000,
          due_hour_meter_seconds: 1_010_000,
          due_date: null,
          remaining_seconds: 10_000,
          remaining_days: null,
          status: 'due_soon',
          // P101: the schedule's version, as its writes answer it.
          version: scheduleVersion(tyres),
        },
      ],
    },
  };
  return { ...fixture, hourMeters, bodies };
}
