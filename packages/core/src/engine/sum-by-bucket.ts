import type { BucketSeconds, EngineSegment } from '../types.js';

/** The part of a segment that {@link sumSegmentsByBucket} reads. */
export type CountableSegment = Pick<EngineSegment, 'startedAt' | 'endedAt' | 'state'>;

/**
 * Sums the moving and idle seconds of segments into buckets, clipping each segment to the
 * buckets it touches. This is the in-memory reference of what a store's `sumSegmentSeconds`
 * computes in the database; both must agree to the second.
 *
 * Runs on integers only: O(segments + buckets) for segments in time order, O(segments × log(buckets)
 * + buckets) in any order; no Temporal call.
 * An open segment (`endedAt === null`) counts up to `now`.
 *
 * @param segments Segments in any order; they should not overlap (D1).
 * @param boundaries Epoch seconds, non-decreasing; bucket `i` is `[boundaries[i], boundaries[i + 1])`.
 * @param now Epoch seconds; the end of open segments.
 * @returns One entry per bucket (`boundaries.length - 1`).
 * @example
 * ```ts
 * import { sumSegmentsByBucket } from '@fleet-hours/core/adapter';
 * sumSegmentsByBucket([{ startedAt: 50, endedAt: 150, state: 'idle' }], [0, 100, 200], 1000);
 * // [{ movingSeconds: 0, idleSeconds: 50 }, { movingSeconds: 0, idleSeconds: 50 }]
 * ```
 */
export function sumSegmentsByBucket(segments: Iterable<CountableSegment>, boundaries: readonly number[], now: number): BucketSeconds[] {
  const bucketCount = Math.max(0, boundaries.length - 1);
  if (bucketCount === 0) return [];
  // Moving and idle seconds interleaved: bucket i has moving at 2i and idle at 2i + 1. Picking the
  // lane by arithmetic instead of a branch on the state keeps mixed states from costing a
  // mispredicted branch per segment. Whole seconds stay exact in doubles up to 2^53.
  const totals = new Float64Array(bucketCount * 2);
  const windowStart = boundaries[0]!;
  const windowEnd = boundaries[bucketCount]!;
  const list: readonly CountableSegment[] = Array.isArray(segments) ? segments : [...segments];

  // Segments usually arrive in time order, so the bucket where the previous one ended is checked
  // before searching: O(1) per segment for sorted input, O(log buckets) otherwise.
  let hint = 0;
  for (let index = 0; index < list.length; index += 1) {
    const segment = list[index]!;
    let from = Math.max(segment.startedAt, windowStart);
    const to = Math.min(segment.endedAt ?? now, windowEnd);
    if (to <= from) continue;
    const lane = segment.state === 'moving' ? 0 : 1;
    let bucket =
      boundaries[hint]! <= from && (hint + 1 === bucketCount || boundaries[hint + 1]! > from)
        ? hint
        : _lastBucketStartingAtOrBefore(boundaries, from, bucketCount);
    while (from < to) {
      const pieceEnd = Math.min(to, boundaries[bucket + 1]!);
      totals[bucket * 2 + lane]! += pieceEnd - from;
      from = pieceEnd;
      bucket += 1;
    }
    hint = bucket - 1;
  }

  const result: BucketSeconds[] = new Array(bucketCount);
  for (let index = 0; index < bucketCount; index += 1) {
    result[index] = { movingSeconds: totals[index * 2]!, idleSeconds: totals[index * 2 + 1]! };
  }
  return result;
}

/** Binary search: the last bucket whose start is ≤ `instant` (so empty buckets are skipped). */
function _lastBucketStartingAtOrBefore(boundaries: readonly number[], instant: number, bucketCount: number): number {
  let low = 0;
  let high = bucketCount - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (boundaries[middle]! <= instant) low = middle;
    else high = middle - 1;
  }
  return low;
}
