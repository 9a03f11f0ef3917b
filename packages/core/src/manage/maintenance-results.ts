import type { Device, DeviceService, HourMeterReading, ServiceSchedule, ServiceScheduleState } from '../types.js';

/** What the writes of readings and schedules answer (D38, D39, D52). */

/** A page of a device's readings, newest first. */
export interface HourMeterReadingPage {
  readonly device: Device;
  readonly readings: readonly HourMeterReading[];
  /** Where the next page starts; `null` on the last page. */
  readonly nextCursor: string | null;
}

/** A reading just recorded, with the hour meter it gives now (D38). */
export interface RecordedReading {
  readonly device: Device;
  readonly reading: HourMeterReading;
  /** The device's readings before this one, newest first (for the CLI's note on a lower reading). */
  readonly earlier: readonly HourMeterReading[];
  /** Whether it replaced the reading at the same instant (same id). */
  readonly replaced: boolean;
  readonly hourMeter: { readonly seconds: number; readonly readAt: string | null };
}

/** A schedule after a write, where it stands now (D39). */
export interface ScheduleWrite {
  readonly device: Device;
  readonly schedule: ServiceSchedule;
  readonly state: ServiceScheduleState;
  readonly service: DeviceService;
}
