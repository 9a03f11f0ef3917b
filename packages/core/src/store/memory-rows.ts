import type { TelemetryPoint } from '../telemetry/telemetry-point.js';
import type { EngineSegment } from '../types.js';
/**
 * What the memory store's tables share: a row is handed out as a copy, so a caller that changes
 * what it got never changes the store.
 */

/** Copies of the rows of some devices, by device, then by `order`: what the port's `list…({ deviceIds })` methods return. */
export function rowsOfDevices<Row extends { readonly deviceId: number }>(
  rows: ReadonlyMap<number, Row>,
  deviceIds: readonly number[],
  order: (a: Row, b: Row) => number,
): Row[] {
  const wanted = new Set(deviceIds);
  return [...rows.values()]
    .filter((row) => wanted.has(row.deviceId))
    .sort((a, b) => a.deviceId - b.deviceId || order(a, b))
    .map((row) => ({ ...row }));
}

/** Removes the row with this id and returns a copy of it; `null` when there is none. */
export function takeRow<Row extends object>(rows: Map<number, Row>, id: number): Row | null {
  const row = rows.get(id);
  if (!row) return null;
  rows.delete(id);
  return { ...row };
}

/**
 * The stored segments overlapping `[start, end)`. Stored segments never overlap (D1) and are kept
 * in start order, so their ends are in order too: both edges are found by binary search,
 * O(log n + answer), not a scan of the device's history.
 */
export function memoryOverlapping<T extends EngineSegment>(stored: readonly T[], start: number, end: number): readonly T[] {
  const first = firstIndexPast(stored, (segment) => (segment.endedAt ?? Infinity) > start);
  const afterLast = firstIndexPast(stored, (segment) => segment.startedAt >= end);
  return stored.slice(first, Math.max(first, afterLast));
}

/** The first index whose item satisfies `isPast`, for a predicate that is false, then true, along the array. */
export function firstIndexPast<T>(items: readonly T[], isPast: (item: T) => boolean): number {
  let low = 0;
  let high = items.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (isPast(items[middle]!)) high = middle;
    else low = middle + 1;
  }
  return low;
}

/** Points in time order with `writes` (time order) put in: a write replaces the point of its second. */
export function mergeSortedPoints(points: readonly TelemetryPoint[], writes: readonly TelemetryPoint[]): TelemetryPoint[] {
  const merged: TelemetryPoint[] = [];
  let index = 0;
  for (const write of writes) {
    while (index < points.length && points[index]!.time < write.time) merged.push(points[index++]!);
    if (index < points.length && points[index]!.time === write.time) index += 1;
    merged.push(write);
  }
  while (index < points.length) merged.push(points[index++]!);
  return merged;
}
