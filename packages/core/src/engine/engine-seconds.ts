import type { BucketSeconds, EngineSeconds } from '../types.js';

/**
 * The three duration numbers of a bucket. Engine seconds are computed here, as moving plus idle,
 * and nowhere else: the invariant holds by construction.
 *
 * @param bucket Moving and idle seconds.
 * @returns `{ engineSeconds, movingSeconds, idleSeconds }`.
 * @example
 * ```ts
 * import { toEngineSeconds } from '@fleet-hours/core/adapter';
 * toEngineSeconds({ movingSeconds: 60, idleSeconds: 30 }).engineSeconds; // 90
 * ```
 */
export function toEngineSeconds(bucket: BucketSeconds): EngineSeconds {
  return {
    engineSeconds: bucket.movingSeconds + bucket.idleSeconds,
    movingSeconds: bucket.movingSeconds,
    idleSeconds: bucket.idleSeconds,
  };
}

/**
 * Adds buckets up.
 *
 * @param buckets Any number of buckets.
 * @returns Their sum.
 * @example
 * ```ts
 * import { addBuckets } from '@fleet-hours/core/adapter';
 * addBuckets([{ movingSeconds: 1, idleSeconds: 2 }, { movingSeconds: 3, idleSeconds: 4 }]); // { movingSeconds: 4, idleSeconds: 6 }
 * ```
 */
export function addBuckets(buckets: Iterable<BucketSeconds>): BucketSeconds {
  let movingSeconds = 0;
  let idleSeconds = 0;
  for (const bucket of buckets) {
    movingSeconds += bucket.movingSeconds;
    idleSeconds += bucket.idleSeconds;
  }
  return { movingSeconds, idleSeconds };
}
