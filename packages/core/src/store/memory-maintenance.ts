import { assertEpochSeconds } from '../time/assert-epoch-seconds.js';
import { readingVersion, scheduleNameInUse, scheduleNameKey } from '../manage/maintenance-bodies.js';
import { scheduleVersion } from '../maintenance/service-status.js';
import type { FleetHoursStore } from './storage-port.js';
import type { MemoryUndo } from './memory-units.js';
import { applyChanges } from './apply-changes.js';
import { rowsOfDevices, takeRow } from './memory-rows.js';
import type { HourMeterReading, ServiceSchedule } from '../types.js';

/** Hour-meter readings and service schedules of a memory store (D38, D39), over its devices. */
export function memoryMaintenance(devices: ReadonlyMap<number, unknown>, undo: MemoryUndo) {
  const readings = new Map<number, HourMeterReading>();
  const schedules = new Map<number, ServiceSchedule>();
  const ids = { reading: 0, schedule: 0 };
  undo.keep([readings, schedules, ids]);
  /** P78: checked in the same turn as the write, so no other write comes between. */
  const refuseTakenName = (deviceId: number, name: string, except: number | null) => {
    for (const other of schedules.values())
      if (other.deviceId === deviceId && other.id !== except && scheduleNameKey(other.name) === scheduleNameKey(name))
        throw scheduleNameInUse(name);
  };
  return {
    async addHourMeterReading({ deviceId, readAt, readingSeconds, now, source, idleSeconds }) {
      assertEpochSeconds('readAt', readAt);
      assertEpochSeconds('now', now);
      if (!devices.has(deviceId)) return null;
      const same = [...readings.values()].find((reading) => reading.deviceId === deviceId && reading.readAt === readAt);
      const reading: HourMeterReading = {
        id: same?.id ?? ++ids.reading,
        deviceId,
        readAt,
        readingSeconds,
        recordedAt: now,
        ...(source === undefined ? {} : { source }),
        ...(idleSeconds === undefined ? {} : { idleSeconds }),
      };
      readings.set(reading.id, reading);
      return { ...reading };
    },
    async listHourMeterReadings({ deviceIds }) {
      return rowsOfDevices(readings, deviceIds, (a, b) => b.readAt - a.readAt);
    },
    async removeHourMeterReading({ deviceId, readingId, expected }) {
      const reading = readings.get(readingId);
      if (reading?.deviceId !== deviceId) return null;
      if (expected && readingVersion(reading) !== readingVersion(expected)) return null;
      return takeRow(readings, readingId);
    },
    async createServiceSchedule(input) {
      assertEpochSeconds('lastDoneAt', input.lastDoneAt);
      assertEpochSeconds('now', input.now);
      if (!devices.has(input.deviceId)) return null;
      if (input.uniqueName) refuseTakenName(input.deviceId, input.name, null);
      const schedule: ServiceSchedule = {
        id: ++ids.schedule,
        deviceId: input.deviceId,
        name: input.name,
        intervalSeconds: input.intervalSeconds,
        intervalDays: input.intervalDays ?? null,
        dueSoonSeconds: input.dueSoonSeconds ?? null,
        dueSoonDays: input.dueSoonDays ?? null,
        lastDoneAt: input.lastDoneAt,
        lastDoneHourMeterSeconds: input.lastDoneHourMeterSeconds ?? null,
        createdAt: input.now,
      };
      schedules.set(schedule.id, schedule);
      return { ...schedule };
    },
    async findServiceSchedule({ scheduleId }) {
      const schedule = schedules.get(scheduleId);
      return schedule ? { ...schedule } : null;
    },
    async listServiceSchedules({ deviceIds }) {
      return rowsOfDevices(schedules, deviceIds, (a, b) => a.id - b.id);
    },
    async updateServiceSchedule({ scheduleId, changes, expected, uniqueName }) {
      if (changes.lastDoneAt !== undefined) assertEpochSeconds('changes.lastDoneAt', changes.lastDoneAt);
      const schedule = schedules.get(scheduleId);
      if (!schedule) return null;
      if (expected && scheduleVersion(schedule) !== scheduleVersion(expected)) return null;
      if (uniqueName && changes.name !== undefined) refuseTakenName(schedule.deviceId, changes.name, scheduleId);
      const updated = applyChanges(schedule, changes);
      schedules.set(scheduleId, updated);
      return { ...updated };
    },
    async removeServiceSchedule({ scheduleId, expected }) {
      const schedule = schedules.get(scheduleId);
      if (schedule && expected && scheduleVersion(schedule) !== scheduleVersion(expected)) return null;
      return takeRow(schedules, scheduleId);
    },
  } satisfies Partial<FleetHoursStore>;
}
