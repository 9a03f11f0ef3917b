import { isNewerPosition, newestPosition, type DevicePosition } from '../telemetry/newest-position.js';
import type { DeviceTelemetryPoint } from '../types.js';
import type { MemoryUndo } from './memory-units.js';

/**
 * The newest position of each device of a memory store (issue 34, P119): one entry per device,
 * changed by `keep` once per written batch with the batch's newest positioned point of the device
 * when it is newer than the stored one.
 */
export function memoryPositions(undo: MemoryUndo) {
  const positions = new Map<number, DevicePosition>();
  // P102: a failed unit puts the positions back (an entry is replaced, never changed).
  undo.keep([positions]);
  return {
    /** After a batch is planned (nothing refused): the newest of each device's share. */
    keep(shares: ReadonlyMap<number, readonly DeviceTelemetryPoint[]>): void {
      for (const [deviceId, points] of shares) {
        const newest = newestPosition(deviceId, points);
        if (newest !== null && isNewerPosition(newest, positions.get(deviceId) ?? null)) positions.set(deviceId, newest);
      }
    },
    store: {
      async listDevicePositions({ deviceIds }: { readonly deviceIds: readonly number[] }): Promise<readonly DevicePosition[]> {
        return [...new Set(deviceIds)]
          .sort((a, b) => a - b)
          .flatMap((deviceId) => {
            const position = positions.get(deviceId);
            return position ? [{ ...position }] : [];
          });
      },
    },
  };
}
