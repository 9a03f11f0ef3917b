import type { TelemetryPoint } from './telemetry-point.js';

/**
 * The one point a device keeps for a second that was reported twice (D21): ignition on if either
 * is on, the higher speed. Commutative, associative and idempotent, so arrival order never matters.
 *
 * @param a A point.
 * @param b A point of the same second.
 * @returns The merged point (`a` itself when `b` adds nothing to it).
 * @throws {RangeError} When the two points are not of the same second.
 * @example
 * ```ts
 * import { mergeSameSecond } from '@fleet-hours/core/adapter';
 * mergeSameSecond({ time: 60, ignition: false, speedKmh: 30 }, { time: 60, ignition: true, speedKmh: 4 });
 * // { time: 60, ignition: true, speedKmh: 30 }
 * ```
 */
export function mergeSameSecond(a: TelemetryPoint, b: TelemetryPoint): TelemetryPoint {
  if (a.time !== b.time) throw new RangeError(`Cannot merge points of different seconds, got ${a.time} and ${b.time}`);
  if (_absorbs(a, b)) return a;
  if (_absorbs(b, a)) return b;
  return { time: a.time, ignition: a.ignition || b.ignition, speedKmh: Math.max(a.speedKmh, b.speedKmh) };
}

/** What a batch point did to the store (D21): `new` second, `changed` the stored point, or `duplicate` (changed nothing). */
export type PointOutcome = 'new' | 'changed' | 'duplicate';

/** The result of {@link mergePoints}. */
export interface PointMerge {
  /**
   * The points to write, one per second, in time order: each is the stored point of its second
   * merged with every batch point of that second (D21). Seconds where nothing changes are left
   * out, so a batch of duplicates writes nothing. Their times are what a write re-derives around
   * ({@link rederivationSpan}).
   */
  readonly writes: readonly TelemetryPoint[];
  /** Of `writes`, how many are seconds with no stored point (an insert), the rest replace one (an update). */
  readonly inserted: number;
  /** Per batch point, in batch order: what it did, judged against the points stored before the batch. */
  readonly outcomes: readonly PointOutcome[];
  /** Batch points that were `new` or `changed` a stored point (`accepted` of `docs/ingestion.md`). */
  readonly accepted: number;
  /** Batch points that changed nothing: equal to the stored point of their second, or below it in both fields. */
  readonly duplicates: number;
}

/**
 * Merges a batch of points of one device into its stored points (D21). Each batch point is judged
 * against the point stored *before the batch*, so the counts do not depend on the order inside
 * the batch: `new` when its second has no stored point, `changed` when merging it into the stored
 * point changes that point, `duplicate` when it changes nothing (an equal point, or one with the
 * ignition and speed of the stored point or lower). Two points of one batch in one new second are
 * both `new`; the one write is their merge. The stored state after applying `writes` is the merge
 * of everything ever sent, whatever the order, batching or resends (commutative, associative,
 * idempotent).
 *
 * @param stored The device's stored points at (at least) the batch's seconds; other seconds are ignored.
 * @param batch Validated points ({@link parseTelemetryPoint}), any order, repeats allowed.
 * @returns The points to write and the outcome of each batch point.
 * @throws {RangeError} When a point's time is not a whole number of seconds.
 * @example
 * ```ts
 * import { mergePoints } from '@fleet-hours/core/adapter';
 * const stored = [{ time: 60, ignition: true, speedKmh: 10 }];
 * mergePoints(stored, [
 *   { time: 60, ignition: true, speedKmh: 10 }, // duplicate
 *   { time: 60, ignition: true, speedKmh: 20 }, // changed
 *   { time: 90, ignition: false, speedKmh: 0 }, // new
 * ]);
 * // { writes: [{ time: 60, ignition: true, speedKmh: 20 }, { time: 90, ignition: false, speedKmh: 0 }],
 * //   inserted: 1, outcomes: ['duplicate', 'changed', 'new'], accepted: 2, duplicates: 1 }
 * ```
 */
export function mergePoints(stored: readonly TelemetryPoint[], batch: readonly TelemetryPoint[]): PointMerge {
  const batchSeconds = new Set<number>();
  for (const point of batch) batchSeconds.add(_checkTime(point).time);

  const before = new Map<number, TelemetryPoint>();
  for (const point of stored) {
    if (!batchSeconds.has(_checkTime(point).time)) continue;
    const known = before.get(point.time);
    before.set(point.time, known ? mergeSameSecond(known, point) : point);
  }

  const after = new Map<number, TelemetryPoint>(before);
  const outcomes: PointOutcome[] = [];
  let accepted = 0;
  for (const point of batch) {
    const storedPoint = before.get(point.time);
    const outcome: PointOutcome = !storedPoint ? 'new' : _absorbs(storedPoint, point) ? 'duplicate' : 'changed';
    outcomes.push(outcome);
    if (outcome === 'duplicate') continue;
    accepted += 1;
    const current = after.get(point.time);
    after.set(point.time, current ? mergeSameSecond(current, point) : point);
  }

  const writes: TelemetryPoint[] = [];
  let inserted = 0;
  for (const [time, point] of after) {
    const storedPoint = before.get(time);
    if (storedPoint && _absorbs(storedPoint, point)) continue;
    if (!storedPoint) inserted += 1;
    writes.push({ time, ignition: point.ignition, speedKmh: point.speedKmh });
  }
  writes.sort((a, b) => a.time - b.time);
  return { writes, inserted, outcomes, accepted, duplicates: batch.length - accepted };
}

/** `true` when merging `other` into `base` leaves `base` as it is. */
function _absorbs(base: TelemetryPoint, other: TelemetryPoint): boolean {
  return (base.ignition || !other.ignition) && base.speedKmh >= other.speedKmh;
}

function _checkTime(point: TelemetryPoint): TelemetryPoint {
  if (!Number.isSafeInteger(point.time)) throw new RangeError(`Telemetry point time must be whole epoch seconds, got ${point.time}`);
  return point;
}
