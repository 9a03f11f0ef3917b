import { FleetHoursError, InvalidParameterError } from '../errors/errors.js';
import { serviceScheduleBody } from '../events/service-schedule-body.js';
import { formatInstant } from '../time/format-instant.js';
import type { EpochSeconds, HourMeterReading, ServiceSchedule, ServiceScheduleState } from '../types.js';
import { entityVersion } from './entity-tag.js';
import { MANUAL_READING_SOURCE } from './maintenance-fields.js';

/**
 * Readings and schedules as the API and the CLI show them after a write (D38, D39), with their
 * versions (D54, P77), and the pages of a device's readings.
 */

/** Readings per page of `GET …/hour-meter/readings` by default, and the most a page may hold. */
export const READING_PAGE_SIZES = { default: 100, max: 500 } as const;

/** A reading as the API and the CLI show it (D38, D54): instants in the device's zone (D9). */
export interface HourMeterReadingBody {
  readonly id: number;
  readonly device_id: number;
  readonly read_at: string;
  readonly reading_seconds: number;
  readonly source: string;
  readonly recorded_at: string;
  readonly version: string;
}

/** A schedule as the API answers a write of it: as `/service` shows it, with its version (D39, D54). */
export type ServiceScheduleWriteBody = ReturnType<typeof serviceScheduleBody>;

/**
 * The version of a reading (D54, P77): a hash of its instant, value and recording instant, so that a
 * reading replaced at the same instant has a new one.
 */
export function readingVersion(reading: HourMeterReading): string {
  return entityVersion('r', [reading.readAt, reading.readingSeconds, reading.recordedAt]);
}

/**
 * A reading as the API and the CLI show it.
 *
 * @example
 * ```ts
 * import { hourMeterReadingBody } from '@fleet-hours/core';
 * hourMeterReadingBody({ id: 1, deviceId: 7, readAt: 0, readingSeconds: 3600, recordedAt: 0 }, 'UTC').read_at; // '1970-01-01T00:00:00+00:00'
 * ```
 */
export function hourMeterReadingBody(reading: HourMeterReading, timeZone: string): HourMeterReadingBody {
  return {
    id: reading.id,
    device_id: reading.deviceId,
    read_at: formatInstant(reading.readAt, timeZone),
    reading_seconds: reading.readingSeconds,
    source: reading.source ?? MANUAL_READING_SOURCE,
    recorded_at: formatInstant(reading.recordedAt, timeZone),
    version: readingVersion(reading),
  };
}

/** A schedule after a write as the API answers it: `/service`'s element, its version included (P101). */
export function scheduleWriteBody(write: {
  readonly schedule: ServiceSchedule;
  readonly state: ServiceScheduleState;
}): ServiceScheduleWriteBody {
  return serviceScheduleBody(write.state);
}

export function _pageSize(limit: number | undefined): number {
  if (limit === undefined) return READING_PAGE_SIZES.default;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > READING_PAGE_SIZES.max)
    throw new InvalidParameterError(
      'limit',
      `Parameter limit "${limit}" is out of range: give a whole number from 1 to ${READING_PAGE_SIZES.max}`,
    );
  return limit;
}

/** A page's cursor: the instant of the last reading it showed, opaque to clients. */
export function _encodeReadingCursor(readAt: EpochSeconds): string {
  return btoa(`reading:${readAt}`).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function _decodeReadingCursor(cursor: string): EpochSeconds {
  const match = /^reading:(-?[0-9]{1,12})$/.exec(_fromBase64Url(cursor));
  if (!match) throw new InvalidParameterError('cursor', 'Parameter cursor is not a next_cursor of this endpoint: start again without it');
  return Number(match[1]);
}

function _fromBase64Url(text: string): string {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(text) || text.length % 4 === 1) return '';
  try {
    return atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  } catch {
    return '';
  }
}

/**
 * The refusal of a schedule name the device already has (D39, P78): 409 `conflict`. Stores throw it
 * from a write with `uniqueName`.
 *
 * @param name The name asked for.
 * @example
 * ```ts
 * import { scheduleNameInUse } from '@fleet-hours/core/adapter';
 * scheduleNameInUse('Engine oil').status; // 409
 * ```
 */
export function scheduleNameInUse(name: string): FleetHoursError {
  return new FleetHoursError('conflict', { message: `The device already has a service schedule named "${name.trim()}"` });
}

/** What two schedule names are compared by (P78): trimmed, in lower case. */
export function scheduleNameKey(name: string): string {
  return name.trim().toLowerCase();
}
