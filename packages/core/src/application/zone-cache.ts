import type { Device } from '../types.js';

/**
 * The zones of devices read lately (deviceId → zone), oldest first: a guess that lets the device
 * and its figures come in one store call. The store checks the guess (and the account) every time.
 */
export interface ZoneCache {
  get(deviceId: number): string | undefined;
  remember(device: Device): void;
  forget(deviceId: number): void;
}

export function zoneCache(size: number): ZoneCache {
  const zones = new Map<number, string>();
  return {
    get: (deviceId) => zones.get(deviceId),
    remember: (device) => {
      if (size <= 0) return;
      zones.delete(device.id);
      zones.set(device.id, device.timeZone);
      if (zones.size > size) zones.delete(zones.keys().next().value!);
    },
    forget: (deviceId) => {
      zones.delete(deviceId);
    },
  };
}
