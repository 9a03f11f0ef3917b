import type { Device, EpochSeconds, HourMeterReading } from '../types.js';
import type { AempPolledEquipment } from './poll-page.js';

/**
 * Which device an equipment is and which of its hours a poll stores (D65): matched by PIN, else
 * by OEM name and serial number (case-insensitive, trimmed); a value is stored unless the source
 * already stored it or a later, larger one, and a value lower than the source's newest is refused.
 */

/** The mark of the readings a source stores (D65). */
export function aempReadingSource(sourceId: number | string): string {
  return `aemp:${sourceId}`;
}

/** Finds the device of an equipment among the account's devices (D63 identity). */
export type AempDeviceMatcher = (equipment: AempPolledEquipment) => Device | null;

/**
 * Indexes the account's devices once for the equipment of a poll: by PIN, and by OEM name with
 * serial number. A key two devices share matches the first (by id).
 */
export function aempDeviceMatcher(devices: readonly Device[]): AempDeviceMatcher {
  const byPin = new Map<string, Device>();
  const byMakeSerial = new Map<string, Device>();
  for (const device of [...devices].sort((a, b) => a.id - b.id)) {
    const pin = _key(device.pin);
    if (pin !== null && !byPin.has(pin)) byPin.set(pin, device);
    const makeSerial = _makeSerial(device.oemName, device.serialNumber);
    if (makeSerial !== null && !byMakeSerial.has(makeSerial)) byMakeSerial.set(makeSerial, device);
  }
  return (equipment) => {
    const pin = _key(equipment.pin);
    const byItsPin = pin === null ? undefined : byPin.get(pin);
    if (byItsPin) return byItsPin;
    const makeSerial = _makeSerial(equipment.oemName, equipment.serialNumber);
    return (makeSerial === null ? undefined : byMakeSerial.get(makeSerial)) ?? null;
  };
}

/** A reading a poll offers for a device. */
export interface AempCandidate {
  readonly deviceId: number;
  readonly readAt: EpochSeconds;
  readonly readingSeconds: number;
}

/** A value kept out (D65), with why. */
export interface AempRefusal {
  readonly deviceId: number;
  readonly readAt: EpochSeconds;
  readonly reason: string;
}

/** What to do with a candidate: store it, pass over it (already stored), or refuse it. */
export type AempDecision = { readonly kind: 'store' } | { readonly kind: 'known' } | { readonly kind: 'refuse'; readonly reason: string };

/**
 * Decides a candidate against the readings this source stored for the device (D65): the same value
 * is stored once (at the first instant it was read); a value at or before a stored reading of at
 * least that value is known already; a value lower than a reading before it (the source's newest
 * among them) is refused, never taken as a reset; so is a value higher than a reading after it, and
 * a second value at an instant the source already gave.
 *
 * @param stored The source's readings of the device (any order).
 */
export function decideAempReading(
  candidate: AempCandidate,
  stored: readonly Pick<HourMeterReading, 'readAt' | 'readingSeconds'>[],
): AempDecision {
  let before: Pick<HourMeterReading, 'readAt' | 'readingSeconds'> | null = null;
  let after: Pick<HourMeterReading, 'readAt' | 'readingSeconds'> | null = null;
  if (stored.some((reading) => reading.readingSeconds === candidate.readingSeconds)) return { kind: 'known' };
  const same = stored.find((reading) => reading.readAt === candidate.readAt);
  if (same) return { kind: 'refuse', reason: `this source gave ${_hours(same.readingSeconds)} h at this instant already` };
  for (const reading of stored) {
    if (reading.readAt < candidate.readAt) {
      if (before === null || reading.readAt > before.readAt) before = reading;
    } else if (after === null || reading.readAt < after.readAt) after = reading;
  }
  if (before !== null && candidate.readingSeconds < before.readingSeconds)
    return { kind: 'refuse', reason: `lower than this source's newest reading before it (${_hours(before.readingSeconds)} h)` };
  if (after !== null && candidate.readingSeconds < after.readingSeconds) return { kind: 'known' };
  if (after !== null) return { kind: 'refuse', reason: `higher than this source's reading after it (${_hours(after.readingSeconds)} h)` };
  return { kind: 'store' };
}

function _hours(seconds: number): string {
  return (seconds / 3600).toFixed(6);
}

function _key(value: string | null): string | null {
  const key = value?.trim().toLowerCase() ?? '';
  return key === '' ? null : key;
}

function _makeSerial(oemName: string | null, serialNumber: string | null): string | null {
  const make = _key(oemName);
  const serial = _key(serialNumber);
  return make === null || serial === null ? null : JSON.stringify([make, serial]);
}
